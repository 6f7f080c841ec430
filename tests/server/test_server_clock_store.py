"""Server clocks (per-move limit, time bank, expiry as the rules say, downtime not charged),
restarts (matches continue exactly where they were, bots keep their memory) and storage on
SQLite and PostgreSQL. The server clock is a fake: no test depends on real time."""

from __future__ import annotations

import copy
import json

from server_support import make_client

from botwars.engine.record import read_record, verify_record
from botwars.store import Store
from botwars.store.models import DecisionRow, OrderRow

from test_server_api import EMPTY, H, create, err, order, view


def records(api, mid):
    return [json.loads(x) for x in api.get(f"/api/matches/{mid}/record").text.splitlines()]


def strip_times(lines):
    out = []
    for x in lines:
        x = dict(x)
        x.pop("time_s", None)
        out.append(x)
    return out


# ---- time control ---------------------------------------------------------------------------
def test_P2_P10_arena_seat_out_of_time_gets_default_orders_and_the_turn_resolves(api, clock):
    mid, toks, _ = create(api, config={"max_turns": 3})
    order(api, mid, toks[0], 1, "5:5-M-N")
    clock.advance(1.5)
    api.app.state.manager.tick()
    assert view(api, mid)["decision"] == 1  # 1.5 s < 2 s: still waiting
    assert view(api, mid, toks[1])["clock"]["time_left_s"] == {"p2": 0.5}
    clock.advance(0.6)
    api.app.state.manager.tick()
    v = view(api, mid)
    assert v["decision"] == 2
    line = records_or_seat(api, mid, toks[1])[1]
    assert line["errors"]["p2"][0]["code"] == "timeout" and line["clock"]["p2"] == "expired"
    assert line["orders"]["p2"] is None
    err(order(api, mid, toks[1], 1, EMPTY), 409, "wrong_decision")


def records_or_seat(api, mid, tok):
    return [json.loads(x) for x in api.get(f"/api/matches/{mid}/record", headers=H(tok)).text.splitlines()]


def test_P2_order_after_the_deadline_is_refused_409_and_the_default_applies(api, clock):
    mid, toks, _ = create(api, config={"max_turns": 3})
    order(api, mid, toks[0], 1, EMPTY)
    clock.advance(2.5)  # no tick: the late order itself finds the deadline passed
    err(order(api, mid, toks[1], 1, "12:5-M-S"), 409, "too_late")
    assert view(api, mid)["decision"] == 2
    assert records_or_seat(api, mid, toks[1])[1]["errors"]["p2"][0]["code"] == "timeout"


def test_P2_time_bank_pays_for_time_beyond_the_per_move_limit(api, clock):
    mid, toks, _ = create(api, config={"max_turns": 3, "time_bank_s": 3.0})
    clock.advance(3.5)
    order(api, mid, toks[0], 1, EMPTY)
    order(api, mid, toks[1], 1, EMPTY)
    c = view(api, mid)["clock"]
    assert c["bank_left_s"] == {"p1": 1.5, "p2": 1.5}
    clock.advance(3.6)  # 2 + 1.5 = 3.5 s allowed now
    api.app.state.manager.tick()
    line = records_or_seat(api, mid, toks[0])[2]
    assert line["clock"] == {"p1": "expired"}
    assert view(api, mid)["clock"]["bank_left_s"] == {"p1": 0.0, "p2": 0.0}


def test_S_7_8_style_loss_on_time_ends_the_match_and_the_record_verifies(api, clock, toy, tmp_path):
    mid, toks, _ = create(api, game="servertoy", config={"move_s": 10, "bank_s": 5, "on_expiry": "loss"})
    order(api, mid, toks[0], 1, {"add": 1})
    clock.advance(15.5)
    api.app.state.manager.tick()
    v = view(api, mid)
    assert v["status"] == "ended" and v["outcome"]["winner"] == "p1" and v["outcome"]["reason"] == "time"
    p = tmp_path / "r.jsonl"
    p.write_text(api.get(f"/api/matches/{mid}/record").text)
    rec = read_record(str(p))
    assert rec.decisions[-1]["clock"] == {"p2": "expired"} and rec.decisions[-1]["digest"] is None
    assert verify_record(rec)[0]


def test_clock_can_be_switched_off_per_match(api, clock):
    mid, toks, _ = create(api, clock=False)
    clock.advance(10_000)
    api.app.state.manager.tick()
    assert view(api, mid)["decision"] == 1 and not view(api, mid)["clock"]["enabled"]
    assert not order(api, mid, toks[0], 1, EMPTY).json()["duplicate"]


def test_time_while_the_server_is_down_is_not_charged(sqlite_url, clock):
    with make_client(sqlite_url, clock) as api:
        mid, toks, _ = create(api, config={"max_turns": 3})
        clock.advance(1.5)
        api.app.state.manager.store.heartbeat(clock())  # last sign of life, then the server dies
    clock.advance(3600)  # an hour down
    with make_client(sqlite_url, clock) as api:
        api.app.state.manager.tick()
        v = view(api, mid, toks[0])
        assert v["decision"] == 1 and v["clock"]["time_left_s"]["p1"] == 0.5
        order(api, mid, toks[0], 1, EMPTY)
        order(api, mid, toks[1], 1, EMPTY)
        assert view(api, mid)["decision"] == 2


# ---- restarts and storage (SQLite and PostgreSQL) ---------------------------------------------
def _play(api, mid, toks, turns, start=1):
    for n in range(start, turns + 1):
        order(api, mid, toks[0], n, f"5:5-M-{'NESW'[n % 4]}#t{n}")
        if toks[1] is not None:
            order(api, mid, toks[1], n, "12:12-A-W")


def test_restart_continues_every_match_exactly_where_it_was(db_url, clock):
    cfg = {"max_turns": 8}
    with make_client(db_url, clock) as api:
        m1, t1, _ = create(api, config=cfg, seed=3)
        m2, t2, _ = create(api, seats=["remote", "builtin:random"], config=cfg, seed=4)
        _play(api, m1, t1, 4)
        _play(api, m2, [t2[0], None], 4)
        order(api, m1, t1[0], 5, "5:5-D")  # accepted, not yet resolved
        before = (view(api, m1, t1[0]), view(api, m2, t2[0]))
    with make_client(db_url, clock) as api:
        after = (view(api, m1, t1[0]), view(api, m2, t2[0]))
        assert before == after
        assert order(api, m1, t1[0], 5, "5:5-D").json()["duplicate"]
        order(api, m1, t1[1], 5, "12:12-A-W")
        _play(api, m1, t1, 8, start=6)
        _play(api, m2, [t2[0], None], 8, start=5)
        got1, got2 = records(api, m1), records(api, m2)
    # the same matches played without a restart
    with make_client(db_url.replace("bw.db", "bw2.db") if db_url.startswith("sqlite") else db_url, clock) as api:
        r1, u1, _ = create(api, config=cfg, seed=3)
        r2, u2, _ = create(api, seats=["remote", "builtin:random"], config=cfg, seed=4)
        _play(api, r1, u1, 4)
        order(api, r1, u1[0], 5, "5:5-D")
        order(api, r1, u1[1], 5, "12:12-A-W")
        _play(api, r1, u1, 8, start=6)
        _play(api, r2, [u2[0], None], 8)
        assert strip_times(records(api, r1)) == strip_times(got1)
        assert strip_times(records(api, r2)) == strip_times(got2)


def test_builtin_bot_memory_survives_a_restart(sqlite_url, clock, toy):
    with make_client(sqlite_url, clock) as api:
        mid, toks, _ = create(api, game="servertoy", seats=["remote", "builtin:one"], config={"target": 20})
        for n in (1, 3, 5):
            order(api, mid, toks[0], n, {"add": 1})
        assert api.app.state.manager.get(mid).bots["p2"].bot.asked == 3
    with make_client(sqlite_url, clock) as api:
        s = api.app.state.manager.get(mid)
        assert s.bots["p2"].bot.asked == 3 and s.n == 6
        order(api, mid, toks[0], 7, {"add": 1})
        assert s.bots["p2"].bot.asked == 4 and s.n == 8


def test_a_restart_restores_bot_memory_without_asking_the_bot_again(db_url, clock, toy):
    """Issue 12 (one match never stalls another; a restart is part of that): the memory of a
    built-in bot is stored after each answer, so a restart puts it back instead of asking the
    bot every view it answered (for a bot that thinks for seconds, a hostile match made the
    server take minutes to start). On SQLite and PostgreSQL."""
    from server_toygame import OneBot
    with make_client(db_url, clock) as api:
        mid, toks, _ = create(api, game="servertoy", seats=["remote", "builtin:one"], config={"target": 20})
        for n in (1, 3, 5):
            order(api, mid, toks[0], n, {"add": 1})
    calls = OneBot.calls
    with make_client(db_url, clock) as api:
        s = api.app.state.manager.get(mid)
        assert s.bots["p2"].bot.asked == 3 and s.n == 6
        assert OneBot.calls == calls  # restored, not asked again
        order(api, mid, toks[0], 7, {"add": 1})
        assert s.bots["p2"].bot.asked == 4 and s.n == 8


def test_a_match_stored_without_bot_memory_replays_its_bots_views(sqlite_url, clock, toy):
    """A match stored before bot memory was kept (no ``bot_memory`` rows) restarts as before:
    its bot is asked again the views it answered (answers discarded)."""
    from botwars.store.models import BotMemoryRow
    from server_toygame import OneBot
    with make_client(sqlite_url, clock) as api:
        mid, toks, _ = create(api, game="servertoy", seats=["remote", "builtin:one"], config={"target": 20})
        for n in (1, 3, 5):
            order(api, mid, toks[0], n, {"add": 1})
        with api.app.state.manager.store.write() as db:
            db.query(BotMemoryRow).filter(BotMemoryRow.match_id == mid).delete()
    calls = OneBot.calls
    with make_client(sqlite_url, clock) as api:
        s = api.app.state.manager.get(mid)
        assert s.bots["p2"].bot.asked == 3 and OneBot.calls == calls + 3


def test_every_order_and_resolution_is_in_the_database_when_acknowledged(db_url, clock):
    with make_client(db_url, clock) as api:
        mid, toks, _ = create(api, config={"max_turns": 5})
        store = api.app.state.manager.store
        order(api, mid, toks[0], 1, EMPTY)
        other = Store(db_url)  # a second connection sees it at once: committed
        with other.read() as db:
            assert db.get(OrderRow, (mid, 1, "p1")) is not None and db.get(DecisionRow, (mid, 1)) is None
        order(api, mid, toks[1], 1, EMPTY)
        with other.read() as db:
            line = json.loads(db.get(DecisionRow, (mid, 1)).line)
        assert line["n"] == 1 and line["orders"] == {"p1": EMPTY, "p2": EMPTY}
        other.dispose()
        assert store is api.app.state.manager.store


def test_migrations_are_idempotent_and_create_every_table(db_url):
    import sqlalchemy as sa
    s = Store(db_url)
    s.migrate()
    s.migrate()
    names = set(sa.inspect(s.engine).get_table_names())
    assert {"matches", "seats", "orders", "decisions", "server_state", "alembic_version"} <= names
    s.dispose()


def test_ended_matches_load_from_the_database_on_demand(db_url, clock):
    with make_client(db_url, clock) as api:
        mid, toks, _ = create(api, seats=["builtin:hunter", "builtin:swarm"], config={"max_turns": 6})
        full = api.get(f"/api/matches/{mid}/record").text
        v = view(api, mid)
    with make_client(db_url, clock) as api:
        assert mid not in api.app.state.manager.sessions
        assert api.get(f"/api/matches/{mid}/record").text == full
        assert view(api, mid) == v


def test_S_7_10_style_counted_rejections_are_recorded_and_do_not_stop_the_clock(api, clock, tmp_path):
    from botwars.engine import ruleset as R
    from server_toygame import CountingToy
    R.register(CountingToy)
    try:
        mid, toks, _ = create(api, game="servertoy-counting", config={"move_s": 10, "bank_s": 5})
        clock.advance(4)
        b = err(order(api, mid, toks[0], 1, {"add": 9}), 422, "invalid_orders")
        assert b["counted"] is True
        # the refusal keeps the decision point open: same number, same turn, clock running
        v = view(api, mid, toks[0])
        assert v["decision"] == 1 and v["your_turn"] and v["turn"] == 1
        assert v["clock"]["time_left_s"]["p1"] == 11.0  # 15 s in all for the turn, 4 already gone
        # S-8.6: the other seat sees nothing of it
        v2 = view(api, mid, toks[1])
        assert v2["decision"] == 1 and v2["events"] == []
        assert len(records_or_seat(api, mid, toks[1])) == 1
        clock.advance(3)
        assert order(api, mid, toks[0], 1, {"add": 1}).json()["resolved"]
        line = records_or_seat(api, mid, toks[0])[1]
        assert line["time_s"]["p1"] == 7.0 and line["clock"] == {} and line["refused"] == {"p1": [{"add": 9}]}
        assert view(api, mid)["clock"]["bank_left_s"]["p1"] == 5.0  # 7 s < 10 s per move
        err(order(api, mid, toks[1], 2, {"add": 0}), 422, "invalid_orders")
        err(order(api, mid, toks[1], 2, "nonsense"), 422, "invalid_orders")
        v = view(api, mid)
        assert v["status"] == "ended" and v["outcome"]["winner"] == "p1" and v["outcome"]["reason"] == "rejections"
        p = tmp_path / "r.jsonl"
        p.write_text(api.get(f"/api/matches/{mid}/record").text)
        assert verify_record(read_record(str(p)))[0]
    finally:
        R.unregister(CountingToy.id)


def test_the_bot_pool_stores_each_answers_memory_and_a_restart_replays_nothing(sqlite_url, monkeypatch):
    """The same with the server's background bot pool (worker processes): the memory the worker
    sent back with each answer is stored, and a restart restores it without replaying."""
    import time
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    from botwars.server.manager import MatchManager
    from botwars.store.models import BotMemoryRow
    with TestClient(create_app(sqlite_url)) as api:
        mid, toks, _ = create(api, seats=["remote", "builtin:random"], config={"max_turns": 10}, clock=False)
        for n in (1, 2, 3):
            assert order(api, mid, toks[0], n, "").status_code == 200
            end = time.monotonic() + 30
            while view(api, mid)["decision"] == n and time.monotonic() < end:  # the bot's answer
                time.sleep(0.02)
        sess = api.app.state.manager.get(mid)
        end = time.monotonic() + 30
        while "p2" not in sess.submitted() and time.monotonic() < end:  # its answer to point 4 as well
            time.sleep(0.02)
        with api.app.state.manager.store.read() as db:
            row = db.get(BotMemoryRow, (mid, "p2"))
        assert row is not None and row.decision == 4 and sess.n == 3
        before = view(api, mid)
    replayed = []
    real = MatchManager._replay_bots
    monkeypatch.setattr(MatchManager, "_replay_bots",
                        lambda self, sess, seats: (replayed.append(set(seats)), real(self, sess, seats)))
    with TestClient(create_app(sqlite_url)) as api:
        after = view(api, mid)
        assert {k: v for k, v in after.items() if k != "clock"} == {k: v for k, v in before.items() if k != "clock"}
        assert replayed and all("p2" not in seats for seats in replayed)


def test_an_ended_match_keeps_no_bot_memory(db_url, clock):
    """Bot memory is only for restarting an unfinished match: the transaction that stores the
    outcome removes it."""
    from botwars.store.models import BotMemoryRow
    with make_client(db_url, clock) as api:
        mid, toks, _ = create(api, seats=["remote", "builtin:random"], config={"max_turns": 2})
        store = api.app.state.manager.store
        with store.read() as db:
            assert db.query(BotMemoryRow).filter_by(match_id=mid).count() == 1  # as started
        for n in (1, 2):
            assert order(api, mid, toks[0], n, EMPTY).status_code == 200
        assert api.get(f"/api/matches/{mid}").json()["status"] == "ended"
        with store.read() as db:
            assert db.query(BotMemoryRow).filter_by(match_id=mid).count() == 0


def test_a_bot_memory_ahead_of_or_behind_its_stored_answers_is_not_restored(sqlite_url, clock, toy):
    """A server killed between storing a built-in bot's memory and storing its answer (the bot
    pool's order) left a memory that had already made a decision the match still awaits; restored,
    the bot decided that point again from a changed memory, so the match differed from the one
    played without the kill (seen in tests/server/test_server_kill.py under load). A memory whose
    decision is not the last one its answers are stored for is not restored: the bot's views are
    replayed instead, and the bot is where the stored answers say it is."""
    import pickle

    from botwars.store.models import BotMemoryRow
    from server_toygame import OneBot
    for stored_as in (8, 4):  # ahead (answered point 8, never stored) and behind (a lost save)
        with make_client(sqlite_url, clock) as api:
            mid, toks, _ = create(api, game="servertoy", seats=["remote", "builtin:one"], config={"target": 20})
            for n in (1, 3, 5):
                order(api, mid, toks[0], n, {"add": 1})
            s = api.app.state.manager.get(mid)
            assert s.bots["p2"].bot.asked == 3 and s.n == 6  # answers to points 2, 4 and 6 stored
            other = copy.deepcopy(s.bots["p2"])
            other.bot.asked = 4 if stored_as > 6 else 2
            with api.app.state.manager.store.write() as db:
                row = db.get(BotMemoryRow, (mid, "p2"))
                row.decision, row.state = stored_as, pickle.dumps(other)
        calls = OneBot.calls
        with make_client(sqlite_url, clock) as api:
            s = api.app.state.manager.get(mid)
            assert s.bots["p2"].bot.asked == 3, stored_as  # replayed: points 2, 4 and 6 only
            assert OneBot.calls == calls + 3
            order(api, mid, toks[0], 7, {"add": 1})
            assert s.bots["p2"].bot.asked == 4 and s.n == 8


def test_restored_bots_are_shown_the_views_they_answered_clock_included(sqlite_url, clock, toy, monkeypatch):
    """Issue 26 item 1: a bot whose memory is not restored is fed again the views it answered,
    through :meth:`Referee.view` like the live bot, the clock included (it was missing: a replayed
    bot saw a view without its bank, so its memory could differ from the live one's)."""
    from botwars.store.models import BotMemoryRow
    from server_toygame import OneBot
    seen: list = []
    monkeypatch.setattr(toy, "clock_view", lambda self, v, bank: {**v, "clock": dict(bank)})
    real = OneBot.act
    monkeypatch.setattr(OneBot, "act", lambda self, view: (seen.append(copy.deepcopy(view)), real(self, view))[1])
    with make_client(sqlite_url, clock) as api:
        mid, toks, _ = create(api, game="servertoy", seats=["remote", "builtin:one"], config={"target": 20})
        for n in (1, 3, 5):
            clock.advance(11.0)  # past the 10 s move limit: 1 s of p1's 5 s bank each time
            order(api, mid, toks[0], n, {"add": 1})
        with api.app.state.manager.store.write() as db:
            db.query(BotMemoryRow).filter(BotMemoryRow.match_id == mid).delete()
    live = list(seen)
    assert [v["clock"]["p1"] for v in live] == [4.0, 3.0, 2.0]
    seen.clear()
    with make_client(sqlite_url, clock) as api:
        s = api.app.state.manager.get(mid)
        assert s.bots["p2"].bot.asked == 3
    assert seen == live  # the same three views again, each with the clock as it stood then
