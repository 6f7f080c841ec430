"""Heavy matches live in the rules pool (issue 12, item 6): their state in one worker process,
resolved and viewed there, with exactly the result the referee computes in-process: the same
record (byte for byte, digests included), the same per-seat views and events, and a record
that verifies; also across a restart of the server and when the worker dies."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

from botwars.engine.events import SPECTATOR, Event, filter_events
from botwars.engine.record import read_record, verify_record
from botwars.engine.referee import PackedEvents
from botwars.server import rulespool
from botwars.server.botpool import PackedView
from botwars.server.rulespool import DefaultOrders, RemoteRules, RulesPool, StateRef

from server_support import FakeClock, make_client


def H(tok):
    return {"Authorization": f"Bearer {tok}"}


def test_packed_events_keep_kind_data_and_visibility_and_unpack_only_when_read():
    events = [Event("move", {"from": "1,1", "to": "1,2"}),
              Event("sonar", {"seat": "p1", "n": 3}, frozenset({"p1"})),
              Event("torpedo", {"at": "4,4"}, frozenset({"p2", SPECTATOR}))]
    packed = PackedEvents(PackedEvents.pack(events))
    assert packed._items is None  # nothing unpacked yet
    assert list(packed) == events and len(packed) == 3 and packed[1] == events[1] and packed[-1] == events[2]
    assert [e.kind for e in filter_events(packed, "p1")] == ["move", "sonar"]
    assert [e.kind for e in filter_events(packed, None)] == ["move", "torpedo"]
    assert [e.to_json() for e in packed] == [e.to_json() for e in events]


def _timeless(text):
    """Record lines without ``time_s`` (a built-in bot's thinking time is measured, so it
    differs from run to run; everything else, digests included, must not)."""
    return [{k: v for k, v in json.loads(x).items() if k != "time_s"} for x in text.splitlines()]


ORDERS = "5:5-A-N,5:12-M-E"


def _play(url, pool: RulesPool | None, tmp_path, name, between=None):
    """One arena match (remote p1 against builtin:swarm, 6 decision points) on a fresh app;
    returns the full record's text, p1's record text, what the spectator and p1 were shown
    after each point (events and views) and the app's session of the match. ``between(api,
    manager, mid, n)`` is called before decision point ``n`` is played."""
    with make_client(url, FakeClock()) as api:
        m = api.app.state.manager
        if pool is not None:
            m.rules_pool = pool
        r = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "builtin:swarm"],
                                           "config": {"max_turns": 6}, "seed": 5})
        assert r.status_code == 201, r.text
        mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
        feed = []
        for n in range(1, 7):
            if between is not None:
                between(api, m, mid, n)
            a = api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": n, "orders": ORDERS})
            assert a.status_code == 200 and a.json()["resolved"], a.text
            spec = api.get(f"/api/matches/{mid}/view").json()
            own = api.get(f"/api/matches/{mid}/view", headers=H(tok)).json()
            feed.append((spec["events"], spec["view"], own["events"], own["view"], own["clock"]["bank_left_s"]))
        full = api.get(f"/api/matches/{mid}/record").text
        own = api.get(f"/api/matches/{mid}/record", headers=H(tok)).text
        p = tmp_path / f"{name}.jsonl"
        p.write_text(full)
        assert verify_record(read_record(str(p)))[0]
        return full, own, feed, m.sessions[mid]


@pytest.mark.slow
def test_a_heavy_match_resolved_in_the_pool_plays_exactly_as_in_process(sqlite_url, tmp_path, monkeypatch):
    base = _play(sqlite_url, None, tmp_path, "local")
    assert not base[3].heavy
    monkeypatch.setattr(rulespool, "HEAVY_S", -1.0)  # every match is heavy after its first point
    pool = RulesPool(1)
    pool.start()
    try:
        heavy = _play(f"sqlite:///{tmp_path}/heavy.db", pool, tmp_path, "pool")
    finally:
        pool.stop()
    sess = heavy[3]
    assert sess.heavy and pool.remote == 5  # the first point in-process (it made the match heavy)
    assert isinstance(sess.ref.state, StateRef) and isinstance(sess.ref.ruleset, RemoteRules)
    assert any(isinstance(ev, PackedEvents) for ev in sess.ref.events)
    assert _timeless(heavy[0]) == _timeless(base[0])  # the full record, digests included
    assert _timeless(heavy[1]) == _timeless(base[1])  # p1's own record (its events)
    assert heavy[2] == base[2]  # what the spectator and p1 saw after each point: events, views, clocks
    assert json.loads(heavy[0].splitlines()[-1])["type"] == "outcome"


@pytest.mark.slow
def test_a_point_the_pool_cannot_resolve_is_resolved_in_process(sqlite_url, toy, monkeypatch):
    """The test-only toy game is not registered in the worker processes: the worker fails, the
    server resolves the point itself, and the match goes on (hidden events still hidden)."""
    monkeypatch.setattr(rulespool, "HEAVY_S", -1.0)
    pool = RulesPool(1)
    pool.start()
    try:
        with make_client(sqlite_url, FakeClock()) as api:
            api.app.state.manager.rules_pool = pool
            d = api.post("/api/matches", json={"game": "servertoy"}).json()
            mid, toks = d["match"], [s["token"] for s in d["seats"]]
            for n, tok in ((1, toks[0]), (2, toks[1]), (3, toks[0])):
                r = api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": n, "orders": {"add": n}})
                assert r.status_code == 200 and r.json()["resolved"], r.text
            sess = api.app.state.manager.sessions[mid]
            assert sess.heavy and sess.n == 3 and pool.remote == 0
            v1 = api.get(f"/api/matches/{mid}/view", headers=H(toks[0]), params={"since": 0}).json()
            vs = api.get(f"/api/matches/{mid}/view", params={"since": 0}).json()
            assert {e["kind"] for e in v1["events"]} == {"turn", "add"}
            assert {e["kind"] for e in vs["events"]} == {"turn"}
    finally:
        pool.stop()


@pytest.fixture
def pool(monkeypatch):
    monkeypatch.setattr(rulespool, "HEAVY_S", -1.0)  # every match is heavy after its first point
    p = RulesPool(1)
    p.start()
    yield p
    p.stop()


def test_a_heavy_matchs_default_orders_and_bot_views_stay_in_its_worker(sqlite_url, pool):
    """What the server's process holds of a heavy match: a reference with the point's facts; a
    seat's default orders are a marker filled in by the worker; a built-in bot's view comes
    packed and is the view the referee gives in-process."""
    with make_client(sqlite_url, FakeClock()) as api:
        m = api.app.state.manager
        m.rules_pool = pool
        d = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "remote"],
                                           "config": {"max_turns": 4}, "seed": 9}).json()
        mid, toks = d["match"], [s["token"] for s in d["seats"]]
        for tok in toks:
            assert api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": 1, "orders": ""}
                            ).status_code == 200
        sess = m.sessions[mid]
        ref = sess.ref
        assert isinstance(ref.state, StateRef) and ref.pending() == ["p1", "p2"] and ref.turn() == 1
        assert ref.ruleset.default_orders(ref.state, "p2") == DefaultOrders("p2")
        local = sess.state  # the state itself, fetched from the worker
        assert not isinstance(local, StateRef)
        packed = m._seat_view(sess, "p2")
        assert isinstance(packed, PackedView)
        assert packed.load() == ref.ruleset.rules.clock_view(ref.ruleset.rules.view(local, "p2"), dict(ref.bank))
        # p2 fails: its default orders (resolved in the worker) are recorded as null orders
        r = api.post(f"/api/matches/{mid}/orders", headers=H(toks[1]),
                     json={"decision": 2, "failure": {"code": "crash", "detail": "x"}})
        assert r.status_code == 200, r.text
        a = api.post(f"/api/matches/{mid}/orders", headers=H(toks[0]), json={"decision": 2, "orders": ORDERS})
        assert a.status_code == 200 and a.json()["resolved"], a.text
        assert ref.lines[-1]["orders"]["p2"] is None and pool.remote == 1
        # refused orders are refused by the worker, with the rule's code and part
        bad = api.post(f"/api/matches/{mid}/orders", headers=H(toks[0]), json={"decision": 3, "orders": "5:5-Q-N"})
        assert bad.status_code == 422 and bad.json()["error"] == "invalid_orders", bad.text
        assert bad.json()["rule_code"] == "malformed" and bad.json()["part"] == "5:5-Q-N"
        assert ref.settled("p1") is None


@pytest.mark.slow
def test_a_heavy_match_reloads_after_a_restart_and_goes_back_to_the_pool(tmp_path, monkeypatch):
    """Three points in the pool, a restart (the match re-simulated from the store), the rest in
    the pool again: the same record and the same views as an in-process match without restart."""
    base = _play(f"sqlite:///{tmp_path}/base.db", None, tmp_path, "local")
    monkeypatch.setattr(rulespool, "HEAVY_S", -1.0)
    url = f"sqlite:///{tmp_path}/restart.db"
    with make_client(url, FakeClock()) as api:
        pool = RulesPool(1)
        pool.start()
        api.app.state.manager.rules_pool = pool
        r = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "builtin:swarm"],
                                           "config": {"max_turns": 6}, "seed": 5})
        mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
        for n in range(1, 4):
            a = api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": n, "orders": ORDERS})
            assert a.status_code == 200 and a.json()["resolved"], a.text
        assert isinstance(api.app.state.manager.sessions[mid].ref.state, StateRef)
        pool.stop()
    pool = RulesPool(1)
    pool.start()
    try:
        with make_client(url, FakeClock()) as api:
            m = api.app.state.manager
            m.rules_pool = pool
            feed = []
            for n in range(4, 7):
                a = api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": n, "orders": ORDERS})
                assert a.status_code == 200 and a.json()["resolved"], a.text
                spec = api.get(f"/api/matches/{mid}/view").json()
                own = api.get(f"/api/matches/{mid}/view", headers=H(tok)).json()
                feed.append((spec["events"], spec["view"], own["events"], own["view"], own["clock"]["bank_left_s"]))
            sess = m.sessions[mid]
            assert sess.heavy and isinstance(sess.ref.state, StateRef) and pool.remote == 2
            full = api.get(f"/api/matches/{mid}/record").text
    finally:
        pool.stop()
    assert _timeless(full) == _timeless(base[0])
    assert feed == base[2][3:]


@pytest.mark.slow
def test_a_killed_worker_loses_nothing_the_match_goes_on_and_returns_to_the_pool(sqlite_url, tmp_path, pool):
    """The worker holding the match is killed (SIGKILL) between two points: the server
    re-simulates the match from its record lines (digests checked) and the point is resolved
    in-process; the next point moves the match into a new worker. Record and views are those
    of an in-process match."""
    base = _play(f"sqlite:///{tmp_path}/base.db", None, tmp_path, "local")
    killed = []

    def kill(api, m, mid, n):
        if n == 3:
            assert isinstance(m.sessions[mid].ref.state, StateRef)
            pid = pool.pids()[0]
            os.kill(pid, signal.SIGKILL)
            for _ in range(100):  # until it is gone
                if pool._managers[0]._process.is_alive():
                    time.sleep(0.02)
            killed.append(pid)

    heavy = _play(sqlite_url, pool, tmp_path, "killed", between=kill)
    assert killed and pool.lost == 1 and killed[0] not in pool.pids()  # a new worker took the match
    assert isinstance(heavy[3].ref.state, StateRef)
    assert _timeless(heavy[0]) == _timeless(base[0])
    assert _timeless(heavy[1]) == _timeless(base[1])
    assert heavy[2] == base[2]


def test_a_lost_worker_with_a_record_that_does_not_replay_is_a_named_503(sqlite_url, pool):
    """When the worker is gone and the match's lines do not re-simulate (here: a digest
    altered in memory), the order is refused with 503 ``rules_unavailable``, nothing is
    accepted, and the match is not changed."""
    with make_client(sqlite_url, FakeClock()) as api:
        m = api.app.state.manager
        m.rules_pool = pool
        d = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "remote"],
                                           "config": {"max_turns": 4}, "seed": 9}).json()
        mid, toks = d["match"], [s["token"] for s in d["seats"]]
        for n in (1, 2):  # the first in-process (it makes the match heavy), the second in the worker
            for tok in toks:
                assert api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": n, "orders": ""}
                                ).status_code == 200
        ref = m.sessions[mid].ref
        assert isinstance(ref.state, StateRef) and pool.remote == 1
        ref.lines[0]["digest"] = "0" * 16
        pool.stop()
        before = (ref.n, dict(ref.bank), ref.state)
        r = api.post(f"/api/matches/{mid}/orders", headers=H(toks[0]), json={"decision": 3, "orders": ORDERS})
        assert r.status_code == 503 and r.json()["error"] == "rules_unavailable", r.text
        assert "diverges at decision point 1" in r.json()["message"]
        assert (ref.n, dict(ref.bank), ref.state) == before and ref.settled("p1") is None


def test_a_match_with_a_big_config_lives_in_the_pool_from_its_first_point(sqlite_url, tmp_path, monkeypatch):
    """A configuration over BIG_CONFIG_CHARS (a map text in the request) makes a match heavy
    before any of its points is timed in the server's process: every point is resolved in the
    worker, with the in-process result."""
    base = _play(f"sqlite:///{tmp_path}/base.db", None, tmp_path, "local")
    monkeypatch.setattr(rulespool, "BIG_CONFIG_CHARS", 100)  # the arena configuration: 327 characters
    assert rulespool.big_config({"map": "x" * 101}) and not rulespool.big_config({"map": "x" * 80})
    pool = RulesPool(1)
    pool.start()
    try:
        heavy = _play(sqlite_url, pool, tmp_path, "big")
    finally:
        pool.stop()
    assert heavy[3].heavy and pool.remote == 6 and heavy[3].resolved_here == 6
    assert _timeless(heavy[0]) == _timeless(base[0])
    assert heavy[2] == base[2]


@pytest.mark.slow
def _workers_end_when_their_server_is_killed(script: str) -> None:
    """Run ``script`` (a "server": it starts a pool, prints its worker pids on one line, then
    sleeps), kill it with SIGKILL, and check that every printed worker ends within
    10 WATCH_S + 5 seconds."""
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    try:
        pids = [int(x) for x in proc.stdout.readline().split()]
        assert pids and proc.pid not in pids and all(os.path.exists(f"/proc/{p}") for p in pids)
    finally:
        proc.kill()
        proc.wait()

    def alive(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    deadline = time.monotonic() + 10 * rulespool.WATCH_S + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in pids)


def test_rules_workers_end_when_the_server_process_is_killed(tmp_path):
    """A server killed with SIGKILL cannot stop its pool: each worker notices within
    WATCH_S that the server's process is gone and ends itself."""
    _workers_end_when_their_server_is_killed(
        "import sys, time\n"
        "from botwars.server.rulespool import RulesPool\n"
        "p = RulesPool(2); p.start()\n"
        "assert len(p.pids()) == 2\n"
        "print(' '.join(map(str, p.pids())), flush=True)\n"
        "time.sleep(60)\n")


@pytest.mark.slow
def test_a_big_match_is_re_simulated_in_its_worker_at_a_restart(tmp_path, monkeypatch):
    """With the pool running when the server starts, an unfinished match with a big
    configuration is moved into a worker before its lines are replayed: every replayed point
    is resolved there (digests checked), and the match goes on with the in-process result."""
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    base = _play(f"sqlite:///{tmp_path}/base.db", None, tmp_path, "local")
    monkeypatch.setattr(rulespool, "BIG_CONFIG_CHARS", 100)
    url = f"sqlite:///{tmp_path}/big.db"
    with make_client(url, FakeClock()) as api:  # three points, no pool: in-process
        r = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "builtin:swarm"],
                                           "config": {"max_turns": 6}, "seed": 5})
        mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
        for n in range(1, 4):
            assert api.post(f"/api/matches/{mid}/orders", headers=H(tok),
                            json={"decision": n, "orders": ORDERS}).json()["resolved"]
    pool = RulesPool(1)
    pool.start()
    try:
        app = create_app(url, background=False, now=FakeClock())
        app.state.manager.rules_pool = pool
        with TestClient(app) as api:  # the restart: the match is loaded with the pool running
            sess = app.state.manager.sessions[mid]
            assert isinstance(sess.ref.state, StateRef) and pool.remote == 3 and sess.n == 3
            for n in range(4, 7):
                a = api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": n, "orders": ORDERS})
                assert a.status_code == 200 and a.json()["resolved"], a.text
            assert pool.remote == 6 and pool.lost == 0
            full = api.get(f"/api/matches/{mid}/record").text
    finally:
        pool.stop()
    assert _timeless(full) == _timeless(base[0])


def test_bot_pool_workers_end_when_the_server_process_is_killed():
    """Like the rules pool's: the bot pool's workers (children of a fork server, so not killed
    with the server), here both busy with a long decision and so not reading their task
    channel, notice within WATCH_S that the server's process is gone and end."""
    _workers_end_when_their_server_is_killed(
        "import os, time\n"
        "from botwars.server.botpool import BotPool\n"
        "p = BotPool(2); p.start()\n"
        "pids = {p._pool.schedule(os.getpid).result(timeout=60) for _ in range(8)}\n"
        "busy = [p._pool.schedule(time.sleep, args=(120,)) for _ in range(2)]\n"
        "time.sleep(0.5)\n"
        "print(' '.join(map(str, sorted(pids))), flush=True)\n"
        "time.sleep(60)\n")
