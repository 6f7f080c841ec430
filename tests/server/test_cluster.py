"""Several workers over one PostgreSQL database (issue 27), two :class:`MatchManager` instances in
one process: orders for one decision point given at two workers resolve it once; a worker whose
cache was behind when it decided loses the race and answers with the state it lost to; the
game master's pause against a deadline expiry gives one outcome; LISTEN/NOTIFY wakes the other
worker; a dead owner's match is taken over and its lease fences the old owner out; one leader
runs deadlines; a worker whose database connection drops answers 503 and stores nothing.

Every test gets a fresh database (``pg_url``) and is skipped without a PostgreSQL server.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass

import pytest

from botwars.engine import ruleset as R
from botwars.engine.events import Event, Outcome
from botwars.engine.record import read_record, verify_record
from botwars.server.cluster import LEADER, match_lease
from botwars.server.manager import ApiError, MatchManager
from botwars.server.routes.gm import GameMaster
from botwars.store import Store
from botwars.store.models import DecisionRow, GmActionRow, MatchRow, OrderRow

from server_toygame import ToyRuleset

EMPTY = {"orders": []}


@dataclass(frozen=True)
class SimState:
    seats: tuple[str, ...]
    config: dict
    turn: int
    totals: tuple[int, ...]


class SimToy(ToyRuleset):
    """The toy with every seat moving at once, and orders that may be corrected until the
    point resolves (like factory F-5.5)."""

    id = "servertoy-sim"
    replaces_submissions = True

    def setup(self, config, seats, seed):
        return SimState(tuple(seats), config, 0, (0,) * len(seats))

    def pending(self, state):
        return [] if self.outcome(state) else list(state.seats)

    def resolve(self, state, orders):
        totals = tuple(t + orders[s] for s, t in zip(state.seats, state.totals))
        return SimState(state.seats, state.config, state.turn + 1, totals), [Event("turn", {"totals": list(totals)})]

    def view(self, state, seat):
        return {"turn": state.turn, "totals": list(state.totals)}

    def outcome(self, state):
        best = max(state.totals)
        if best < state.config["target"]:
            return None
        win = [s for s, t in zip(state.seats, state.totals) if t == best]
        w = win[0] if len(win) == 1 else None
        return Outcome(w, {s: float(s == w) for s in state.seats}, "target", [[x] for x in state.seats])

    def state_json(self, state):
        return {"turn": state.turn, "totals": list(state.totals)}


@pytest.fixture
def games():
    R.register(ToyRuleset)
    R.register(SimToy)
    yield
    R.unregister(SimToy.id)
    R.unregister(ToyRuleset.id)


class Workers:
    """Managers over one database (background off: bots inline, ticks and lease rounds by hand)."""

    def __init__(self, url: str, clock, **kw):
        self.url, self.clock, self.kw = url, clock, kw
        self.all: list[MatchManager] = []

    def start(self, **kw) -> MatchManager:
        m = MatchManager(Store(self.url), now=self.clock, background=False, **{**self.kw, **kw})
        m.start()
        self.all.append(m)
        return m

    def close(self) -> None:
        for m in self.all:
            try:
                m.stop()
            finally:
                m.store.dispose()


@pytest.fixture
def workers(pg_url, clock, games):
    w = Workers(pg_url, clock)
    yield w
    w.close()


def rows(store, model, **where):
    with store.read() as s:
        return list(s.query(model).filter_by(**where))


def verified(m: MatchManager, mid: str, tmp_path) -> list[dict]:
    sess = m.get(mid)
    lines = m.record(sess, None)
    p = tmp_path / f"{mid}.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    ok, why = verify_record(read_record(str(p)))[:2]
    assert ok, why
    return lines


def race(monkeypatch, m: MatchManager, other) -> None:
    """``other()`` (another worker's action) commits while ``m``'s next commit is under way:
    after ``m`` caught up and decided, before its transaction bumps the match's version."""
    real = m._bump
    done = []

    def bump(conn, sess, **kw):
        if not done:
            done.append(other())
        return real(conn, sess, **kw)
    monkeypatch.setattr(m, "_bump", bump)


# ---- one decision point, two workers ---------------------------------------------------------
def test_orders_given_at_two_workers_resolve_the_point_once_and_either_worker_answers(workers):
    a, b = workers.start(), workers.start()
    sess, toks = a.create("arena", None, {"max_turns": 3}, 5)
    mid = sess.id
    assert not a.submit(mid, "p1", 1, EMPTY)["resolved"]
    assert b.submit(mid, "p2", 1, EMPTY)["resolved"]  # b read p1's order from the database
    assert a.get(mid).n == 1 and a.summary(a.get(mid))["decision"] == b.summary(b.get(mid))["decision"] == 2
    # a resend at the other worker is a duplicate; a late order for the played turn a 409
    assert b.submit(mid, "p1", 1, EMPTY)["duplicate"]
    with pytest.raises(ApiError) as e:
        a.submit(mid, "p2", 1, "12:12-D")
    assert e.value.status == 409 and "already played" in e.value.message
    assert len(rows(a.store, DecisionRow, match_id=mid)) == 1


def test_two_workers_told_both_seats_at_the_same_moment_resolve_each_turn_once(workers, tmp_path):
    """Both seats' orders arrive at the same moment at two workers, turn after turn: every
    order is acknowledged once and stored once, every turn resolved by exactly one of them."""
    a, b = workers.start(), workers.start()
    turns = 12
    sess, toks = a.create("arena", None, {"max_turns": turns}, 7)
    mid = sess.id
    acks: dict[tuple[int, str], dict] = {}
    for n in range(1, turns + 1):
        gate = threading.Barrier(2)

        def give(m, seat):
            gate.wait()
            acks[(n, seat)] = m.submit(mid, seat, n, f"{'5:5' if seat == 'p1' else '12:12'}-D")
        ts = [threading.Thread(target=give, args=(m, s)) for m, s in ((a, "p1"), (b, "p2"))]
        for t in ts:
            t.start()
        for t in ts:
            t.join(30)
        assert [acks[(n, s)]["accepted"] for s in ("p1", "p2")] == [True, True]
        assert sorted(acks[(n, s)]["resolved"] for s in ("p1", "p2")) == [False, True], n
    assert not any(x["duplicate"] for x in acks.values())
    assert len(rows(a.store, DecisionRow, match_id=mid)) == turns
    lines = verified(b, mid, tmp_path)
    assert [x["n"] for x in lines if x["type"] == "decision"] == list(range(1, turns + 1))
    assert all(set(x["orders"]) == {"p1", "p2"} for x in lines if x["type"] == "decision")


def test_a_correction_that_loses_to_the_resolution_is_answered_this_turn_was_already_played(workers, monkeypatch):
    a, b = workers.start(), workers.start()
    sess, _ = a.create("servertoy-sim", None, {"target": 9}, 1)
    mid = sess.id
    a.submit(mid, "p1", 1, {"add": 1})
    resolved = []
    race(monkeypatch, a, lambda: resolved.append(b.submit(mid, "p2", 1, {"add": 2})["resolved"]))
    with pytest.raises(ApiError) as e:
        a.submit(mid, "p1", 1, {"add": 3})  # a decided on the open turn; b resolved it meanwhile
    assert resolved == [True]
    assert e.value.status == 409 and e.value.code == "wrong_decision" and "already played" in e.value.message
    line = json.loads(rows(a.store, DecisionRow, match_id=mid)[0].line)
    assert line["orders"] == {"p1": {"add": 1}, "p2": {"add": 2}}
    assert a.get(mid).n == 1 and a.get(mid).ref.view("p1")["totals"] == [1, 2]


def test_a_resolution_that_loses_to_a_correction_is_played_with_the_corrected_orders(workers, monkeypatch):
    a, b = workers.start(), workers.start()
    sess, _ = a.create("servertoy-sim", None, {"target": 9}, 1)
    mid = sess.id
    a.submit(mid, "p1", 1, {"add": 1})
    replaced = []
    race(monkeypatch, b, lambda: replaced.append(a.submit(mid, "p1", 1, {"add": 3})["replaced"]))
    # b completes the point on a cache that holds {"add": 1}; a's correction commits first
    assert b.submit(mid, "p2", 1, {"add": 2})["resolved"]
    assert replaced == [True]
    line = json.loads(rows(a.store, DecisionRow, match_id=mid)[0].line)
    assert line["orders"] == {"p1": {"add": 3}, "p2": {"add": 2}}
    assert len(rows(a.store, OrderRow, match_id=mid, n=1)) == 2


# ---- the game master against the clock -----------------------------------------------------
@pytest.mark.parametrize("on_expiry", ["default", "loss"])
def test_a_pause_at_one_worker_while_the_leader_expires_a_deadline_gives_one_outcome(workers, clock, monkeypatch,
                                                                                      on_expiry):
    a, b = workers.start(), workers.start()
    assert a._leads() and not b._leads()
    sess, _ = a.create("servertoy", None, {"move_s": 10, "bank_s": 0, "on_expiry": on_expiry, "target": 9}, 1)
    mid = sess.id
    gm_b = GameMaster(b)
    sb = b.get(mid)
    clock.advance(11)
    b.tick()  # not the leader: no deadline of its own
    assert rows(a.store, MatchRow, id=mid)[0].decisions == 0
    race(monkeypatch, b, a.tick)  # b's pause decides on the open turn while a expires p1's deadline
    if on_expiry == "loss":
        with pytest.raises(ApiError) as e:
            gm_b.pause(sb, "lunch")
        assert e.value.status == 409 and "has ended" in e.value.message
    else:
        done = gm_b.pause(sb, "lunch")
        assert done["action"] == "pause" and b.get(mid).paused_at is not None
    notes = [(g.action, g.n) for g in rows(a.store, GmActionRow, match_id=mid)]
    assert notes.count(("missed_deadline", 1)) == 1
    assert [x for x in notes if x[0] == "pause"] == ([] if on_expiry == "loss" else [("pause", 2)])
    assert len(rows(a.store, DecisionRow, match_id=mid)) == 1 and len(rows(a.store, OrderRow, match_id=mid)) == 1
    a.tick()
    assert len(rows(a.store, DecisionRow, match_id=mid)) == 1  # paused, or ended: nothing more


def test_a_game_master_setting_orders_for_a_turn_another_worker_played_is_refused(workers, monkeypatch):
    a, b = workers.start(), workers.start()
    sess, _ = a.create("servertoy-sim", None, {"target": 9}, 1)
    mid = sess.id
    a.submit(mid, "p1", 1, {"add": 1})
    sb = b.get(mid)
    race(monkeypatch, b, lambda: a.submit(mid, "p2", 1, {"add": 1}))  # the turn is played at a meanwhile
    with pytest.raises(ApiError) as e:
        GameMaster(b).adjudicate(sb, "p2", {"add": 3}, False, "typo")
    assert e.value.status == 409 and "already played" in e.value.message
    assert not any(g.action == "adjudicate" for g in rows(a.store, GmActionRow, match_id=mid))
    assert rows(a.store, OrderRow, match_id=mid, n=2) == []


# ---- live updates ----------------------------------------------------------------------------
def test_a_change_at_one_worker_reaches_the_other_through_listen_notify(workers):
    heard: list[str] = []
    a = workers.start()
    b = workers.start(listen=True, notify=heard.append)
    sess, _ = a.create("arena", None, {"max_turns": 3}, 2)
    mid = sess.id
    sb = b.get(mid)
    heard.clear()
    a.submit(mid, "p1", 1, EMPTY)
    a.submit(mid, "p2", 1, EMPTY)
    t0 = time.monotonic()
    while sb.n < 1 and time.monotonic() - t0 < 20:  # the listener catches up by itself
        time.sleep(0.02)
    assert sb.n == 1 and sb.version == a.get(mid).version and mid in heard


# ---- owners, leases, fencing, the leader -------------------------------------------------------
def wait_orphan(m: MatchManager, mid: str) -> None:
    t0 = time.monotonic()
    while mid not in m.leases.orphans():
        assert time.monotonic() - t0 < 30, "the dead worker's lease never expired"
        time.sleep(0.1)


def test_a_dead_owners_match_is_taken_over_and_the_old_owner_is_fenced_out(pg_url, clock, games):
    w = Workers(pg_url, clock, lease_s=1.0)
    try:
        a, b = w.start(), w.start()
        sess, _ = a.create("servertoy", ["remote", "builtin:one"], {"target": 30}, 1)
        mid = sess.id
        assert a._owns(sess) and not b._owns(b.get(mid))
        a.submit(mid, "p1", 1, {"add": 1})  # a plays its bot at once
        assert a.get(mid).n == 2
        # a stops renewing (it hangs, or died): its lease expires and b takes the match over
        wait_orphan(b, mid)
        b.cluster_step()
        assert b.leases.holds(match_lease(mid)) and b.leases.token(match_lease(mid)) == 2
        sb = b.get(mid)
        assert sb.bots["p2"].bot.asked == 1  # its memory, restored from the database
        # a wakes up believing it still owns the match: its bot's answer is not stored
        a.leases._until[match_lease(mid)] = float("inf")
        a.submit(mid, "p1", 3, {"add": 1})
        assert rows(a.store, MatchRow, id=mid)[0].decisions == 3  # p1's order, not a's bot
        b._catch_up_all()  # b hears of p1's order (its listener, in the real server) and plays
        assert rows(a.store, MatchRow, id=mid)[0].decisions == 4 and sb.bots["p2"].bot.asked == 2
        assert json.loads(rows(a.store, DecisionRow, match_id=mid, n=4)[0].line)["orders"] == {"p2": {"add": 1}}
    finally:
        w.close()


def test_one_leader_runs_deadlines_and_another_worker_takes_over_when_it_leaves(workers, clock):
    a, b = workers.start(), workers.start()
    assert a.leases.holds(LEADER) and not b.leases.holds(LEADER)
    sess, _ = b.create("servertoy", None, {"move_s": 10, "bank_s": 0, "on_expiry": "default", "target": 9}, 1)
    mid = sess.id
    a.cluster_step()  # the leader caches every running match (it runs their deadlines)
    clock.advance(11)
    b.tick()
    assert rows(a.store, MatchRow, id=mid)[0].decisions == 0
    a.stop()  # a leaves: its leases are given up at once
    b.cluster_step()
    assert b.leases.holds(LEADER)
    b.tick()
    assert rows(a.store, MatchRow, id=mid)[0].decisions == 1
    assert [g.action for g in rows(b.store, GmActionRow, match_id=mid)] == ["missed_deadline"]


# ---- the database goes away ------------------------------------------------------------------------
class Proxy:
    """A TCP relay to the PostgreSQL server that can be cut (every connection dropped, new ones
    refused) and restored."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.port = 0
        self.conns: list[socket.socket] = []
        self.lsock: socket.socket | None = None
        self.restore()

    def restore(self) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        self.port = s.getsockname()[1]
        s.listen(16)
        self.lsock = s
        threading.Thread(target=self._accept, args=(s,), daemon=True).start()

    def _accept(self, lsock: socket.socket) -> None:
        while True:
            try:
                c, _ = lsock.accept()
            except OSError:
                return
            u = socket.create_connection(self.target)
            self.conns += [c, u]
            for x, y in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(x, y), daemon=True).start()

    @staticmethod
    def _pump(x: socket.socket, y: socket.socket) -> None:
        try:
            while data := x.recv(65536):
                y.sendall(data)
        except OSError:
            pass
        for s in (x, y):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        try:
            self.lsock.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread (a close alone does not)
        except OSError:
            pass
        self.lsock.close()
        for s in self.conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
        self.conns = []


def test_a_worker_that_loses_its_database_answers_503_and_stores_nothing_then_recovers(pg_url, clock):
    from sqlalchemy.engine import make_url

    from server_support import make_client
    u = make_url(pg_url)
    proxy = Proxy(u.host, u.port)
    url = u.set(port=proxy.port).render_as_string(hide_password=False)
    try:
        with make_client(url, clock) as api:
            r = api.post("/api/matches", json={"game": "arena", "config": {"max_turns": 3}, "seed": 3})
            mid, toks = r.json()["match"], [s["token"] for s in r.json()["seats"]]
            h = [{"Authorization": f"Bearer {t}"} for t in toks]
            assert api.post(f"/api/matches/{mid}/orders", json={"decision": 1, "orders": EMPTY}, headers=h[0]).status_code == 200
            proxy.cut()
            r = api.post(f"/api/matches/{mid}/orders", json={"decision": 1, "orders": EMPTY}, headers=h[1])
            assert r.status_code == 503, r.text
            assert r.json()["error"] == "database_unavailable" and "nothing" in r.json()["message"]
            direct = Store(pg_url)
            assert rows(direct, OrderRow, match_id=mid, seat="p2") == []
            proxy.restore()
            r = api.post(f"/api/matches/{mid}/orders", json={"decision": 1, "orders": EMPTY}, headers=h[1])
            assert r.status_code == 200 and r.json()["resolved"], r.text
            assert len(rows(direct, OrderRow, match_id=mid, seat="p2")) == 1
            assert len(rows(direct, DecisionRow, match_id=mid)) == 1
            direct.dispose()
    finally:
        proxy.cut()
