"""The game master's seat over HTTP (issue 24 item 1): the GM token, each action (pause,
resume, extend, replace, adjudicate, end, abort), each refused action (4xx naming the problem,
nothing changed), the players told in plain words, and records with GM actions that verify.
Missed deadlines are told (item 4); one seat, one decision (issue 23 item 6). The server clock
is a fake: no test depends on real time."""

from __future__ import annotations

import json

import pytest

from botwars.engine.record import read_record, verify_record
from botwars.store.models import GmActionRow, MatchRow, SeatRow

from server_support import make_client  # tests/server/server_support.py

from test_server_api import EMPTY, H, create, err, order, state_of, view


def gm(api, mid, tok, action, **body):
    return api.post(f"/api/matches/{mid}/gm/{action}", headers=H(tok), json=body)


def ok(r):
    assert r.status_code == 200, r.text
    return r.json()


def arena(api, **kw):
    """A 2-seat arena match with a 2 s move limit (the arena default) and 10 turns."""
    mid, toks, d = create(api, config={"max_turns": 10}, **kw)
    return mid, toks, d["gm_token"]


def full_record(api, mid, tmp_path):
    r = api.get(f"/api/matches/{mid}/record")
    assert r.status_code == 200, r.text
    p = tmp_path / f"{mid}.jsonl"
    p.write_text(r.text)
    return [json.loads(x) for x in r.text.splitlines()], read_record(str(p))


# ---- the token ---------------------------------------------------------------------------------
def test_creation_returns_the_gm_token_once_and_stores_only_its_hash(api):
    mid, toks, d = create(api, config={"max_turns": 3})
    g = d["gm_token"]
    assert len(g) >= 40 and g not in toks and g in d["gm_url"] and d["gm_url"].endswith(f"/gm/{mid}?token={g}")
    with api.app.state.manager.store.read() as db:
        row = db.get(MatchRow, mid)
        assert row.gm_token_hash and row.gm_token_hash != g
        assert g not in json.dumps([r.token_hash for r in db.query(SeatRow).filter_by(match_id=mid)])
    assert g not in api.get(f"/api/matches/{mid}").text and g not in view(api, mid, toks[0]).__repr__()
    assert ok(api.get(f"/api/matches/{mid}/gm", headers=H(g)))["match"] == mid


@pytest.mark.parametrize("action", ["pause", "resume", "extend", "replace", "adjudicate", "end", "abort"])
def test_every_gm_action_is_403_for_a_seat_token_a_wrong_token_or_none(api, action):
    mid, toks, g = arena(api)
    before = state_of(api, mid)
    for headers in (H(toks[0]), H(toks[1]), H("x" * 43), {}):
        r = api.post(f"/api/matches/{mid}/gm/{action}", headers=headers, json={"reason": "r"})
        err(r, 403)
    err(api.get(f"/api/matches/{mid}/gm", headers=H(toks[0])), 403, "not_game_master")
    assert state_of(api, mid) == before


def test_a_gm_action_on_an_unknown_match_is_404(api):
    _, _, g = arena(api)
    err(gm(api, "000000000000", g, "pause", reason="r"), 404)


# ---- pause and resume --------------------------------------------------------------------------
def test_pause_stops_every_clock_and_resume_moves_the_deadlines_by_the_pause(api, clock):
    mid, toks, g = arena(api)
    m = api.app.state.manager
    clock.advance(1.0)
    d = ok(gm(api, mid, g, "pause", reason="holiday"))
    assert "paused" in d["text"] and "holiday" in d["text"]
    clock.advance(3600)  # far past the 2 s move limit
    m.tick()
    v = view(api, mid, toks[0])
    assert v["decision"] == 1 and v["clock"]["paused"] and v["clock"]["time_left_s"] == {"p1": 1.0, "p2": 1.0}
    assert any("paused" in n["text"] and "holiday" in n["text"] for n in v["notes"])
    ok(gm(api, mid, g, "resume", reason="back"))
    m.tick()
    v = view(api, mid, toks[0])
    assert v["decision"] == 1 and not v["clock"]["paused"]
    assert v["clock"]["time_left_s"] == {"p1": 1.0, "p2": 1.0}  # the hour was charged to nobody
    assert "1 hour" in v["notes"][-1]["text"]
    clock.advance(1.1)
    m.tick()
    assert view(api, mid)["decision"] == 2  # the clock runs again: both seats expired


def test_orders_while_paused_are_accepted_and_charge_no_time(api, clock):
    mid, toks, g = arena(api)
    ok(gm(api, mid, g, "pause", reason="r"))
    clock.advance(100)
    assert order(api, mid, toks[0], 1, EMPTY).json()["accepted"]
    assert order(api, mid, toks[1], 1, EMPTY).json()["accepted"]
    v = view(api, mid, toks[0])
    assert v["decision"] == 2 and v["clock"]["paused"]
    clock.advance(100)
    api.app.state.manager.tick()
    assert view(api, mid)["decision"] == 2  # the new point's clock stands too
    ok(gm(api, mid, g, "resume", reason="r"))
    assert view(api, mid, toks[0])["clock"]["time_left_s"]["p1"] == 2.0


def test_pause_twice_and_resume_when_not_paused_are_409_and_change_nothing(api):
    mid, toks, g = arena(api)
    err(gm(api, mid, g, "resume", reason="r"), 409, "not_paused")
    ok(gm(api, mid, g, "pause", reason="r"))
    before = state_of(api, mid)
    notes = len(view(api, mid)["notes"])
    b = err(gm(api, mid, g, "pause", reason="r"), 409, "already_paused")
    assert "already paused" in b["message"]
    assert state_of(api, mid) == before and len(view(api, mid)["notes"]) == notes


def test_a_pause_survives_a_restart(sqlite_url, clock):
    with make_client(sqlite_url, clock) as api:
        mid, toks, g = arena(api)
        ok(gm(api, mid, g, "pause", reason="holiday"))
    clock.advance(500)
    with make_client(sqlite_url, clock) as api:
        api.app.state.manager.tick()
        v = view(api, mid, toks[0])
        assert v["decision"] == 1 and v["clock"]["paused"] and v["clock"]["time_left_s"]["p1"] == 2.0
        assert v["notes"][0]["action"] == "pause"
        ok(gm(api, mid, g, "resume", reason="r"))
        assert view(api, mid, toks[0])["clock"]["time_left_s"]["p1"] == 2.0


# ---- extend ------------------------------------------------------------------------------------
def test_extend_one_seat_gives_it_more_time_not_charged_to_its_bank(api, clock):
    mid, toks, g = arena(api)
    m = api.app.state.manager
    d = ok(gm(api, mid, g, "extend", seat="p2", seconds=60, reason="train late"))
    assert "Blue" in d["text"] and "1 minute" in d["text"] and "p2" not in d["text"]
    clock.advance(30)
    m.tick()  # p1 expired; p2 has 62 s
    v = view(api, mid, toks[1])
    assert v["decision"] == 1 and v["clock"]["time_left_s"] == {"p2": 32.0}
    assert order(api, mid, toks[1], 1, EMPTY).json()["accepted"]
    lines = [json.loads(x) for x in api.get(f"/api/matches/{mid}/record", headers=H(toks[1])).text.splitlines()]
    dl = [x for x in lines if x["type"] == "decision"][0]
    assert dl["time_s"]["p2"] == 0.0 and dl["clock"].get("p2") != "expired"  # the extension costs nothing


def test_extend_every_awaited_seat(api, clock):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    ok(gm(api, mid, g, "extend", seconds=10))
    assert view(api, mid, toks[1])["clock"]["time_left_s"] == {"p2": 12.0}
    assert view(api, mid)["clock"]["extended_s"] == {"p2": 10.0}


def test_extend_refusals_name_the_problem(api):
    mid, toks, g = arena(api)
    before = state_of(api, mid)
    assert "no seat 'p9'" in err(gm(api, mid, g, "extend", seat="p9", seconds=5), 422, "unknown_seat")["message"]
    err(gm(api, mid, g, "extend", seconds=-5), 422)
    err(gm(api, mid, g, "extend", seconds=10**9), 422)
    order(api, mid, toks[0], 1, EMPTY)
    assert "not awaited" in err(gm(api, mid, g, "extend", seat="p1", seconds=5), 409)["message"]
    assert view(api, mid)["clock"]["extended_s"] == {}
    assert state_of(api, mid)[0] == before[0]


# ---- replace -------------------------------------------------------------------------------------
def test_replace_with_a_fresh_token_voids_the_old_one(api):
    mid, toks, g = arena(api)
    d = ok(gm(api, mid, g, "replace", seat="p2", to="remote", new_token=True, reason="dropped"))
    new = d["token"]
    assert new and new != toks[1] and d["url"].endswith(f"/play/{mid}?token={new}")
    err(order(api, mid, toks[1], 1, EMPTY), 403, "bad_token")
    assert view(api, mid, new)["seat"] == "p2"
    assert order(api, mid, new, 1, EMPTY).json()["accepted"]
    assert new not in json.dumps(view(api, mid)["notes"])


def test_replace_with_a_builtin_bot_and_back(api, clock):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    d = ok(gm(api, mid, g, "replace", seat="p2", to="builtin:hunter", reason="away"))
    assert "hunter" in d["text"]
    v = view(api, mid, toks[0])
    assert v["decision"] == 2 and v["bots"] == {"p2": "hunter"}  # the bot played p2's turn at once
    b = err(order(api, mid, toks[1], 2, EMPTY), 409, "seat_played_by_bot")
    assert "hunter" in b["message"]
    order(api, mid, toks[0], 2, EMPTY)
    assert view(api, mid)["decision"] == 3  # the bot keeps playing
    ok(gm(api, mid, g, "replace", seat="p2", to="remote", reason="back from holiday"))
    v = view(api, mid, toks[1])
    assert v["bots"] == {} and not v["your_turn"]  # the bot had already answered decision point 3
    order(api, mid, toks[0], 3, EMPTY)
    assert view(api, mid, toks[1])["your_turn"]
    assert order(api, mid, toks[1], 4, EMPTY).json()["accepted"]  # the old link works again
    with api.app.state.manager.store.read() as db:
        assert db.get(SeatRow, (mid, "p2")).agent == "remote"


def test_replace_with_an_unknown_bot_is_422_naming_the_bots_and_changes_nothing(api):
    mid, toks, g = arena(api)
    before = state_of(api, mid)
    b = err(gm(api, mid, g, "replace", seat="p2", to="builtin:nobody"), 422, "unknown_bot")
    assert "nobody" in b["message"] and "hunter" in b["message"]
    err(gm(api, mid, g, "replace", seat="p2", to="builtin:hunter(depth=9)"), 422, "unknown_bot")
    err(gm(api, mid, g, "replace", seat="p7", to="remote"), 422, "unknown_seat")
    err(gm(api, mid, g, "replace", seat="p2", to="remote"), 409, "no_change")
    assert state_of(api, mid) == before and view(api, mid)["notes"] == []
    with api.app.state.manager.store.read() as db:
        assert db.get(SeatRow, (mid, "p2")).agent == "remote"


# ---- adjudicate ----------------------------------------------------------------------------------
def test_adjudicate_sets_a_seats_orders_with_a_reason_and_the_record_verifies(api, tmp_path):
    mid, toks, g = arena(api, seed=3)
    order(api, mid, toks[0], 1, EMPTY)
    p2 = view(api, mid, toks[1])["view"]
    bot = next(u for u in p2["robots"] if u["side"] == "F")
    mine = f"{bot['x']}:{bot['y']}-M-S"
    d = ok(gm(api, mid, g, "adjudicate", seat="p2", orders=mine, reason="sent by e-mail"))
    assert "Blue" in d["text"] and "p2" not in d["text"] and "e-mail" in d["text"] and mine not in d["text"]
    v = view(api, mid, toks[0])
    assert v["decision"] == 2 and mine not in json.dumps(v["notes"])  # the orders stay private
    ok(gm(api, mid, g, "end", winner="p1", reason="p2 conceded by mail"))
    lines, rec = full_record(api, mid, tmp_path)
    first = [x for x in lines if x["type"] == "decision"][0]
    assert first["orders"]["p2"] == mine and first["adjudicated"] == {"p2": "sent by e-mail"}
    assert [x["action"] for x in lines if x["type"] == "gm"] == ["adjudicate", "end"]
    assert lines[-1]["reason"] == "adjudicated" and lines[-1]["winner"] == "p1"
    assert verify_record(rec) == (True, "2 decision points verified")


def test_adjudicate_replaces_orders_the_player_gave_and_cancel_makes_the_seat_awaited(api):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    ok(gm(api, mid, g, "adjudicate", seat="p1", cancel=True, reason="sent by mistake"))
    v = view(api, mid, toks[0])
    assert v["decision"] == 1 and v["your_turn"] and "cancelled" in v["notes"][-1]["text"]
    assert order(api, mid, toks[0], 1, EMPTY).json()["accepted"]
    err(gm(api, mid, g, "adjudicate", seat="p2", cancel=True, reason="x"), 409, "nothing_to_cancel")


def test_adjudicated_orders_the_rules_refuse_are_422_and_change_nothing(api):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    before = state_of(api, mid)
    b = err(gm(api, mid, g, "adjudicate", seat="p2", orders="12:5-Q-N", reason="typo"), 422, "invalid_orders")
    assert "p2" in b["message"] and "refuse" in b["message"]
    err(gm(api, mid, g, "adjudicate", seat="p2", orders=EMPTY, reason=""), 422)  # a reason is required
    err(gm(api, mid, g, "adjudicate", seat="p2", reason="no orders"), 422)
    assert state_of(api, mid) == before and view(api, mid)["notes"] == []


def test_adjudicated_orders_survive_a_restart(sqlite_url, clock, tmp_path):
    with make_client(sqlite_url, clock) as api:
        mid, toks, g = arena(api)
        ok(gm(api, mid, g, "adjudicate", seat="p2", orders=EMPTY, reason="by phone"))
    with make_client(sqlite_url, clock) as api:
        order(api, mid, toks[0], 1, EMPTY)
        ok(gm(api, mid, g, "abort", reason="server move"))
        lines, rec = full_record(api, mid, tmp_path)
        assert [x for x in lines if x["type"] == "decision"][0]["adjudicated"] == {"p2": "by phone"}
        assert verify_record(rec)[0]


# ---- end and abort -------------------------------------------------------------------------------
def test_end_with_a_winner_and_abort_are_told_in_words_and_verify(api, tmp_path):
    mid, toks, g = arena(api)
    d = ok(gm(api, mid, g, "end", winner="p2", reason="p1 never came back"))
    assert "Blue wins" in d["text"] and "(p2)" not in d["text"]
    v = view(api, mid, toks[0])
    assert v["status"] == "ended" and v["outcome"]["winner"] == "p2" and v["outcome"]["reason"] == "adjudicated"
    assert v["outcome"]["details"]["note"] == "p1 never came back"
    _, rec = full_record(api, mid, tmp_path)
    assert verify_record(rec)[0]
    mid2, toks2, g2 = arena(api)
    ok(gm(api, mid2, g2, "abort", reason="broken board"))
    v = view(api, mid2)
    assert v["outcome"]["winner"] is None and v["outcome"]["reason"] == "aborted"
    assert "aborted" in v["notes"][-1]["text"]
    _, rec = full_record(api, mid2, tmp_path)
    assert verify_record(rec)[0]


def test_every_gm_action_on_a_finished_match_is_409_and_changes_nothing(api):
    mid, toks, g = arena(api)
    ok(gm(api, mid, g, "abort", reason="done"))
    before = state_of(api, mid)
    for action, body in [("pause", {"reason": "r"}), ("resume", {"reason": "r"}), ("extend", {"seconds": 5}),
                         ("replace", {"seat": "p1", "to": "builtin:hunter"}),
                         ("adjudicate", {"seat": "p1", "orders": EMPTY, "reason": "r"}),
                         ("end", {"winner": "p1", "reason": "r"}), ("abort", {"reason": "r"})]:
        b = err(gm(api, mid, g, action, **body), 409, "match_ended")
        assert "has ended" in b["message"]
    assert state_of(api, mid) == before
    with api.app.state.manager.store.read() as db:
        assert db.query(GmActionRow).filter_by(match_id=mid).count() == 1


def test_end_with_a_winner_that_is_no_seat_and_a_long_reason_are_422(api):
    mid, toks, g = arena(api)
    assert "no seat 'p5'" in err(gm(api, mid, g, "end", winner="p5", reason="r"), 422)["message"]
    err(gm(api, mid, g, "end", winner="p1", reason="x" * 10_000), 422)
    err(gm(api, mid, g, "end", winner="p1"), 422)  # a reason is required
    assert view(api, mid)["status"] == "running"


def test_the_gm_view_lists_every_seat_with_its_state(api, clock):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    clock.advance(0.5)
    view(api, mid, toks[1])
    v = ok(api.get(f"/api/matches/{mid}/gm", headers=H(g)))
    by = {s["seat"]: s for s in v["seats"]}
    assert by["p1"]["submitted"] and not by["p1"]["awaited"]
    assert by["p2"]["awaited"] and by["p2"]["time_left_s"] == 1.5 and by["p2"]["last_seen"] == clock.t
    assert "hunter" in v["bots"] and v["paused"] is False


# ---- missed deadlines (item 4) ---------------------------------------------------------------------
def test_a_missed_deadline_is_told_to_every_player_and_in_the_record(api, clock, tmp_path):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    clock.advance(2.5)
    api.app.state.manager.tick()
    for tok in (toks[0], toks[1], None):
        notes = view(api, mid, tok)["notes"]
        assert [n["text"] for n in notes] == ["Blue missed the deadline: its default orders were played."]
    ok(gm(api, mid, g, "abort", reason="test"))
    lines, rec = full_record(api, mid, tmp_path)
    assert [x["action"] for x in lines if x["type"] == "gm"] == ["missed_deadline", "abort"]
    assert verify_record(rec)[0]


# ---- one seat, one decision (issue 23 item 6) ------------------------------------------------------
def test_orders_for_a_turn_already_played_are_409_saying_so(api):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    order(api, mid, toks[1], 1, EMPTY)
    b = err(order(api, mid, toks[0], 1, {"orders": ["1:1-D"]}), 409, "wrong_decision")
    assert b["message"].startswith("this turn was already played") and b["already_played"] is True
    assert b["open_decision"] == 2
    assert view(api, mid, toks[0])["your_turn"]  # nothing was given for decision point 2


def test_the_replay_shows_default_orders_with_a_note_and_gm_orders_with_the_reason(api, clock):
    mid, toks, g = arena(api)
    order(api, mid, toks[0], 1, EMPTY)
    clock.advance(2.5)
    api.app.state.manager.tick()  # p2 missed decision point 1
    ok(gm(api, mid, g, "adjudicate", seat="p1", orders=EMPTY, reason="by post"))
    order(api, mid, toks[1], 2, EMPTY)
    ok(gm(api, mid, g, "abort", reason="test over"))
    steps = api.get(f"/web/matches/{mid}/replay/index.json").json()["steps"]
    first, second = steps[1]["moves"], steps[2]["moves"]
    assert first["p2"].endswith("(default orders: missed the deadline)") and "-D" in first["p2"]  # P10: defend
    assert first["p1"] != "-" and "default" not in first["p1"]
    assert second["p1"].endswith("(set by the game master: by post)")
    assert api.get(f"/web/matches/{mid}/replay/1.json").json()["moves"] == first
