"""HTTP API of the game-master server: every endpoint and its error paths (4xx, never 500,
never a change of state), seat tokens, filtered views and records."""

from __future__ import annotations

import json

import pytest

from botwars.engine.record import read_record, verify_record
from botwars.store.models import MatchRow, OrderRow, SeatRow


def H(tok):
    return {"Authorization": f"Bearer {tok}"}


def create(api, game="arena", seats=None, **kw):
    body = {"game": game, **kw}
    if seats is not None:
        body["seats"] = seats
    r = api.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    d = r.json()
    return d["match"], [s["token"] for s in d["seats"]], d


def view(api, mid, tok=None, **params):
    r = api.get(f"/api/matches/{mid}/view", headers=H(tok) if tok else {}, params=params)
    assert r.status_code == 200, r.text
    return r.json()


def order(api, mid, tok, decision, orders, **kw):
    return api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": decision, "orders": orders, **kw})


def state_of(api, mid):
    """Everything observable about a match (to check that refused requests change nothing)."""
    m = api.app.state.manager
    s = m.get(mid)
    with m.store.read() as db:
        orders = db.query(OrderRow).filter_by(match_id=mid).count()
    return (s.n, sorted(s.submitted()), s.status, orders, json.dumps(s.rs.state_json(s.state), sort_keys=True))


def err(r, status, code=None):
    assert r.status_code == status, r.text
    body = r.json()
    assert body["message"]
    if code:
        assert body["error"] == code, body
    return body


EMPTY = {"orders": []}


# ---- create ------------------------------------------------------------------------------
def test_create_returns_one_secret_link_per_seat_and_a_spectator_link(api):
    mid, toks, d = create(api, seats=["remote", "builtin:hunter"], seed=5)
    assert [s["seat"] for s in d["seats"]] == ["p1", "p2"]
    assert len(set(toks)) == 2 and all(len(t) >= 40 and not t.startswith("-") for t in toks)
    for s in d["seats"]:
        assert s["token"] in s["url"] and mid in s["url"]
    assert "token" not in d["spectator"] and mid in d["spectator"]
    assert d["websocket"].startswith("ws://")
    # tokens are never stored, only their hashes
    with api.app.state.manager.store.read() as db:
        hashes = [r.token_hash for r in db.query(SeatRow).filter_by(match_id=mid)]
    assert len(hashes) == 2 and not set(hashes) & set(toks)
    # nothing public shows a token
    assert not any(t in api.get(f"/api/matches/{mid}").text for t in toks)
    assert not any(t in api.get("/api/matches").text for t in toks)


def test_tokens_never_start_with_a_dash_so_the_command_line_takes_them(monkeypatch):
    import secrets
    from botwars.server import manager
    draws = iter(["-looks-like-an-option", "-again", "fine-token"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(draws))
    assert manager.new_token() == "fine-token"


def test_create_defaults_to_remote_seats_and_lists_games(api):
    mid, toks, d = create(api)
    assert [s["agent"] for s in d["seats"]] == ["remote", "remote"]
    games = api.get("/api/games").json()
    arena = next(g for g in games if g["id"] == "arena")
    assert "hunter" in arena["bots"] and any(p["name"] == "max_turns" for p in arena["params"])


@pytest.mark.parametrize("body,code,needle", [
    ({"game": "nosuchgame"}, "unknown_game", "nosuchgame"),
    ({"game": "arena", "seats": ["remote"]}, "bad_seats", "needs 2 seats"),
    ({"game": "arena", "seats": ["remote", "remote", "remote"]}, "bad_seats", "needs 2 seats"),
    ({"game": "arena", "seats": ["remote", "builtin:nosuchbot"]}, "bad_seats", "builtin:nosuchbot"),
    ({"game": "arena", "seats": ["remote", "human"]}, "bad_seats", "human"),
    ({"game": "arena", "config": {"nosuchkey": 1}}, "bad_config", "nosuchkey"),
    ({"game": "arena", "config": {"max_turns": 0}}, "bad_config", "max_turns"),
    ({"game": "arena", "config": {"max_turns": "many"}}, "bad_config", "max_turns"),
    ({"game": "arena", "config": {"max_turns": [1]}}, "invalid_request", "config"),
    ({"game": "arena", "seed": -1}, "invalid_request", "seed"),
    ({"game": "arena", "seed": "x"}, "invalid_request", "seed"),
    ({"game": "arena", "seed": 2**64}, "invalid_request", "seed"),
    ({"game": "arena", "seats": "remote"}, "invalid_request", "seats"),
    ({"game": "arena", "colour": "red"}, "invalid_request", "colour"),
    ({}, "invalid_request", "game"),
    ([1, 2], "invalid_request", "body:"),  # the body itself is what is wrong
])
def test_create_refuses_bad_requests_with_422_naming_the_problem(api, body, code, needle):
    r = api.post("/api/matches", json=body)
    b = err(r, 422, code)
    assert needle in b["message"]
    assert api.get("/api/matches").json() == []


def test_malformed_json_wrong_content_and_oversized_bodies_are_refused(api):
    r = api.post("/api/matches", content=b'{"game": "arena",', headers={"content-type": "application/json"})
    err(r, 422, "invalid_request")
    r = api.post("/api/matches", content=b"game=arena", headers={"content-type": "text/plain"})
    assert r.status_code == 422
    big = json.dumps({"game": "arena", "config": {"map": "x" * (2 << 20)}})
    err(api.post("/api/matches", content=big, headers={"content-type": "application/json"}), 413, "body_too_large")
    assert api.get("/api/matches").json() == []


def test_streamed_oversized_body_is_refused_413(api):
    def gen():
        yield b'{"game": "arena", "config": {"map": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}}'
    r = api.post("/api/matches", content=gen(), headers={"content-type": "application/json"})
    err(r, 413, "body_too_large")


# ---- list, summary, unknown ---------------------------------------------------------------
def test_list_and_summary_are_public(api):
    m1, _, _ = create(api, seed=1)
    m2, toks, _ = create(api, seats=["builtin:defender", "builtin:defender"], seed=2, config={"max_turns": 3})
    items = api.get("/api/matches").json()
    assert {i["match"] for i in items} == {m1, m2}
    assert [i["match"] for i in api.get("/api/matches", params={"status": "ended"}).json()] == [m2]
    assert [i["match"] for i in api.get("/api/matches", params={"status": "running"}).json()] == [m1]
    err(api.get("/api/matches", params={"status": "bogus"}), 422)
    err(api.get("/api/matches", params={"limit": 0}), 422)
    s = api.get(f"/api/matches/{m1}").json()
    assert s["status"] == "running" and s["decision"] == 1 and s["pending"] == ["p1", "p2"]
    assert s["outcome"] is None
    s2 = api.get(f"/api/matches/{m2}").json()
    assert s2["status"] == "ended" and s2["outcome"]["reason"] == "turn_limit" and s2["turn"] == 3


@pytest.mark.parametrize("method,path", [
    ("get", "/api/matches/{m}"), ("get", "/api/matches/{m}/view"), ("get", "/api/matches/{m}/record"),
    ("post", "/api/matches/{m}/orders"), ("post", "/api/matches/{m}/resign"),
])
def test_unknown_match_is_404_on_every_endpoint(api, method, path):
    _, toks, _ = create(api)
    url = path.format(m="000000000000")
    kw = {"headers": H(toks[0])}
    if method == "post":
        kw["json"] = {"decision": 1, "orders": EMPTY}
    err(getattr(api, method)(url, **kw), 404, "unknown_match")
    err(getattr(api, method)(path.format(m="x" * 200), **kw), 404)


# ---- tokens ---------------------------------------------------------------------------------
def test_missing_wrong_or_foreign_tokens_get_403_and_change_nothing(api):
    mid, toks, _ = create(api)
    other, otoks, _ = create(api, seed=9)
    before = state_of(api, mid)
    for hdr in ({}, H("wrong"), H(otoks[0]), {"Authorization": "Basic abc"}):
        err(api.post(f"/api/matches/{mid}/orders", headers=hdr, json={"decision": 1, "orders": EMPTY}), 403)
        err(api.post(f"/api/matches/{mid}/resign", headers=hdr), 403)
    for hdr in (H("wrong"), H(otoks[1])):
        err(api.get(f"/api/matches/{mid}/view", headers=hdr), 403, "bad_token")
        err(api.get(f"/api/matches/{mid}/record", headers=hdr), 403, "bad_token")
    err(api.get(f"/api/matches/{mid}/view", params={"token": "nope"}), 403, "bad_token")
    err(api.get("/api/seat"), 403, "token_required")
    err(api.get("/api/seat", headers=H("wrong")), 403, "bad_token")
    assert state_of(api, mid) == before


def test_token_in_query_or_header_and_seat_lookup(api):
    mid, toks, _ = create(api)
    assert view(api, mid, toks[1])["seat"] == "p2"
    r = api.get(f"/api/matches/{mid}/view", params={"token": toks[0]})
    assert r.json()["seat"] == "p1"
    info = api.get("/api/seat", headers=H(toks[1])).json()
    assert info["match"] == mid and info["seat"] == "p2" and info["game"] == "arena"
    assert "seed" not in info


# ---- views ----------------------------------------------------------------------------------
def test_each_token_sees_only_its_seats_view(api):
    mid, toks, _ = create(api)
    v1, v2, vs = view(api, mid, toks[0]), view(api, mid, toks[1]), view(api, mid)
    assert v1["view"]["player"] == 1 and v2["view"]["player"] == 2 and vs["view"]["player"] is None
    assert v1["seat"] == "p1" and vs["seat"] is None
    assert v1["your_turn"] and not vs["your_turn"]
    assert v1["clock"]["enabled"] and v1["clock"]["move_limit_s"] == 2.0


def test_toy_hidden_events_reach_only_their_seat(api, toy):
    mid, toks, _ = create(api, game="servertoy")
    assert order(api, mid, toks[0], 1, {"add": 2}).json()["resolved"]
    e1 = view(api, mid, toks[0])["events"]
    e2 = view(api, mid, toks[1])["events"]
    es = view(api, mid)["events"]
    assert {e["kind"] for e in e1} == {"turn", "add"}
    assert [e["kind"] for e in e2] == ["turn"] and [e["kind"] for e in es] == ["turn"]
    assert view(api, mid, toks[0])["view"]["total"] == 2 and view(api, mid, toks[1])["view"]["total"] == 0
    # the seat's own record hides the other seat's orders and events, and the seed
    rec2 = [json.loads(x) for x in api.get(f"/api/matches/{mid}/record", headers=H(toks[1])).text.splitlines()]
    assert "seed" not in rec2[0] and rec2[0]["seat"] == "p2"
    assert rec2[1]["orders"] == {} and [e["kind"] for e in rec2[1]["events"]] == ["turn"]
    assert "digest" not in rec2[1]


# ---- orders -----------------------------------------------------------------------------------
def test_orders_resolve_when_every_pending_seat_has_given_them(api):
    mid, toks, _ = create(api, config={"max_turns": 3})
    a = order(api, mid, toks[0], 1, EMPTY).json()
    assert a == {"match": mid, "seat": "p1", "decision": 1, "accepted": True, "duplicate": False,
                 "resolved": False, "errors": []}
    assert view(api, mid)["submitted"] == ["p1"]
    b = order(api, mid, toks[1], 1, "12:5-M-S").json()
    assert b["resolved"] and view(api, mid)["decision"] == 2
    assert view(api, mid)["turn"] == 2  # turn 1 was played; turn 2 is open (issue 24 item 5)


def test_resent_orders_are_acknowledged_once_and_never_applied_twice(api):
    mid, toks, _ = create(api, config={"max_turns": 5})
    assert not order(api, mid, toks[0], 1, EMPTY).json()["duplicate"]
    again = order(api, mid, toks[0], 1, EMPTY).json()
    assert again["accepted"] and again["duplicate"] and not again["resolved"]
    order(api, mid, toks[1], 1, EMPTY)
    late = order(api, mid, toks[0], 1, EMPTY).json()  # a resend after the resolution
    assert late["duplicate"] and late["resolved"]
    assert view(api, mid)["decision"] == 2
    with api.app.state.manager.store.read() as db:
        assert db.query(OrderRow).filter_by(match_id=mid).count() == 2


def test_orders_at_the_wrong_time_get_409_and_change_nothing(api):
    mid, toks, _ = create(api, config={"max_turns": 2})
    order(api, mid, toks[0], 1, EMPTY)
    before = state_of(api, mid)
    err(order(api, mid, toks[0], 1, {"orders": [], "user_data": "x"}), 409, "already_submitted")
    err(order(api, mid, toks[1], 2, EMPTY), 409, "wrong_decision")
    assert state_of(api, mid) == before
    order(api, mid, toks[1], 1, EMPTY)
    err(order(api, mid, toks[0], 1, {"orders": [], "user_data": "y"}), 409, "wrong_decision")
    order(api, mid, toks[0], 2, EMPTY)
    order(api, mid, toks[1], 2, EMPTY)
    assert view(api, mid)["status"] == "ended"
    err(order(api, mid, toks[0], 3, EMPTY), 409, "match_ended")
    err(order(api, mid, toks[0], 1, {"orders": [], "user_data": "z"}), 409, "match_ended")


def test_toy_orders_from_a_seat_not_awaited_get_409(api, toy):
    mid, toks, _ = create(api, game="servertoy")
    err(order(api, mid, toks[1], 1, {"add": 1}), 409, "not_your_turn")
    assert state_of(api, mid)[0:2] == (0, [])


# each refusal names what P12 (JSON) or P5 (text) finds wrong: "lacks an orders array", "is not a
# JSON object", an unknown action at orders[0], a bad text token
@pytest.mark.parametrize("payload,needle", [
    ({"orders": "nope"}, "'orders' array"), ("99:99-X", "bad token '99:99-X'"), (42, "not a JSON object"),
    (None, "not a JSON object"), ([1, 2], "not a JSON object"),
    ({"orders": [{"x": 5, "y": 5, "action": "Q"}]}, "orders[0].action"),
])
def test_invalid_orders_get_422_with_the_rule_set_message_and_store_nothing(api, payload, needle):
    mid, toks, _ = create(api)
    before = state_of(api, mid)
    b = err(order(api, mid, toks[0], 1, payload), 422, "invalid_orders")
    assert needle in b["message"]
    assert state_of(api, mid) == before
    assert not order(api, mid, toks[0], 1, EMPTY).json()["duplicate"]  # can still give valid orders


@pytest.mark.parametrize("body", [
    {"orders": EMPTY}, {"decision": "one", "orders": EMPTY}, {"decision": 0, "orders": EMPTY},
    {"decision": 1, "orders": EMPTY, "extra": 1}, {"decision": 1, "failure": {"code": "bogus"}},
    {"decision": 10**12, "orders": EMPTY}, [1],
])
def test_malformed_order_requests_get_422(api, body):
    mid, toks, _ = create(api)
    before = state_of(api, mid)
    err(api.post(f"/api/matches/{mid}/orders", headers=H(toks[0]), json=body), 422, "invalid_request")
    assert state_of(api, mid) == before


def test_reported_agent_failure_applies_default_orders_and_is_recorded(api):
    mid, toks, _ = create(api, config={"max_turns": 1})
    order(api, mid, toks[0], 1, None, failure={"code": "crash", "detail": "boom"})
    order(api, mid, toks[1], 1, {"orders": [{"x": 5, "y": 5, "action": "M", "dir": "N"}]}, failure={
        "code": "malformed", "detail": "p2 is not p1's robot"})
    lines = [json.loads(x) for x in api.get(f"/api/matches/{mid}/record").text.splitlines()]
    d = lines[1]
    assert d["errors"]["p1"] == [{"code": "crash", "detail": "boom"}] and d["orders"]["p1"] is None
    # a "malformed" report with orders that are in fact valid keeps nothing (the default applied)
    assert d["orders"]["p2"] is None and d["errors"]["p2"][0]["code"] == "malformed"


# ---- resign -----------------------------------------------------------------------------------
def test_resign_ends_the_match_for_the_other_seat(api):
    mid, toks, _ = create(api)
    r = api.post(f"/api/matches/{mid}/resign", headers=H(toks[0])).json()
    assert r["outcome"]["winner"] == "p2" and r["outcome"]["reason"] == "resign"
    err(api.post(f"/api/matches/{mid}/resign", headers=H(toks[1])), 409, "match_ended")
    err(order(api, mid, toks[1], 1, EMPTY), 409, "match_ended")
    assert view(api, mid)["outcome"]["reason"] == "resign"


# ---- records ----------------------------------------------------------------------------------
def test_full_record_is_public_only_once_ended_and_verifies(api, tmp_path):
    from typer.testing import CliRunner
    from botwars.cli import app as cli
    mid, toks, _ = create(api, seats=["remote", "builtin:swarm"], config={"max_turns": 4}, seed=11)
    err(api.get(f"/api/matches/{mid}/record"), 403, "match_running")
    for n in range(1, 5):
        order(api, mid, toks[0], n, "5:5-A-N,5:12-M-E#memo")
    r = api.get(f"/api/matches/{mid}/record")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    p = tmp_path / "rec.jsonl"
    p.write_text(r.text)
    rec = read_record(str(p))
    assert rec.header["seed"] == 11 and [s["agent"] for s in rec.header["seats"]] == ["remote", "builtin:swarm"]
    assert len(rec.decisions) == 4 and rec.outcome["reason"] == "turn_limit"
    assert verify_record(rec)[0]
    out = CliRunner().invoke(cli, ["replay", "--verify", str(p)])
    assert out.exit_code == 0, out.output


def test_openapi_schema_documents_every_endpoint(api):
    paths = api.get("/openapi.json").json()["paths"]
    for p in ("/api/games", "/api/matches", "/api/matches/{match_id}", "/api/matches/{match_id}/view",
              "/api/matches/{match_id}/orders", "/api/matches/{match_id}/resign", "/api/matches/{match_id}/record",
              "/api/seat"):
        assert p in paths, p
    assert "403" in paths["/api/matches/{match_id}/orders"]["post"]["responses"]


def _all_games():
    from botwars.engine.ruleset import ruleset_ids
    return ruleset_ids()


@pytest.mark.parametrize("game", _all_games())
def test_every_registered_game_plays_through_the_server_and_its_record_verifies(api, game, tmp_path):
    """The server is generic over the Ruleset contract: bot seats play a whole match of every
    registered game, and the record it keeps verifies with `replay --verify`'s code."""
    from botwars.engine.ruleset import get_ruleset
    rs = get_ruleset(game)
    from botwars.engine.plugin import get_game
    bot = sorted(get_game(game).builtin_bots())[0]
    mid, _, _ = create(api, game=game, seats=[f"builtin:{bot}"] * rs.min_seats, seed=1)
    assert api.get(f"/api/matches/{mid}").json()["status"] == "ended"
    p = tmp_path / "rec.jsonl"
    p.write_text(api.get(f"/api/matches/{mid}/record").text)
    ok, msg = verify_record(read_record(str(p)))
    assert ok, msg
    # remote seats: each token gets its own seat's view; the spectator gets the public one
    mid, toks, _ = create(api, game=game, seats=["remote"] * rs.min_seats, seed=2)
    for i, tok in enumerate(toks):
        v = view(api, mid, tok)
        assert v["seat"] == rs.seat_names(rs.min_seats)[i] and isinstance(v["view"], dict)
    assert view(api, mid)["seat"] is None
