"""Server hardening (issue 12), each finding through HTTP: game parameters never name server
files; bounds on what a stranger controls (parameters, map text, WebSocket connections, SVG);
built-in bots in a pool with a per-decision limit, so one match never stalls another; text that
cannot be encoded is a 422 naming the field; secrets stay out of responses, records and errors."""

from __future__ import annotations

import builtins
import json
import math
import os
import threading

import pytest
from fastapi.testclient import TestClient

from botwars.server.app import create_app
from tests.server.server_support import ws_refused

BOARDS = os.path.join(os.path.dirname(__file__), "..", "..", "src", "botwars", "games")
SECRET = "S3cretPw-0123456789"


def H(tok):
    return {"Authorization": f"Bearer {tok}"}


def make(api, game, seats=None, **config):
    body = {"game": game, "config": config}
    if seats is not None:
        body["seats"] = seats
    return api.post("/api/matches", json=body)


def shipped_text(*parts):
    with open(os.path.join(BOARDS, *parts), encoding="utf-8") as f:
        return f.read()


# ---- 1. no server path from HTTP -------------------------------------------------------------
FILE_PARAMS = [("factory", "board"), ("arena", "map"), ("geeko", "rooms"), ("dadoed", "pool")]


@pytest.fixture
def opened(monkeypatch):
    """Every path the server process opens or looks at while the test runs."""
    seen: list[str] = []
    real_open, real_stat, real_exists, real_isfile = builtins.open, os.stat, os.path.exists, os.path.isfile

    def spy(fn):
        def wrapped(path, *a, **kw):
            seen.append(os.fspath(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path))
            return fn(path, *a, **kw)
        return wrapped

    monkeypatch.setattr(builtins, "open", spy(real_open))
    monkeypatch.setattr(os, "stat", spy(real_stat))
    monkeypatch.setattr(os.path, "exists", spy(real_exists))
    monkeypatch.setattr(os.path, "isfile", spy(real_isfile))
    return seen


@pytest.mark.parametrize("game,param", FILE_PARAMS)
def test_a_file_path_in_a_game_parameter_is_refused_without_touching_the_file(api, tmp_path, opened, game, param):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    secret_file = tmp_path / "secret.board"
    secret_file.write_text("vm-hostname-secret\n")
    paths = ["/dev/zero", str(fifo), "/etc/hostname", str(secret_file), str(tmp_path / "missing"),
             "../../etc/passwd", "assembly-hall/../../../etc/hostname"]
    messages = set()
    for path in paths:
        done: list = []
        t = threading.Thread(target=lambda p=path: done.append(make(api, game, **{param: p})), daemon=True)
        t.start()
        t.join(timeout=30)
        assert done, f"{param}={path}: no answer (the server read the path)"
        r = done[0]
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["error"] == "bad_config" and param in body["message"]
        assert "vm-hostname-secret" not in r.text and "root:" not in r.text
        messages.add(body["message"])
    # the same answer whether the file exists, is a FIFO, a device or nothing: nothing leaks
    assert len(messages) == 1, messages
    assert not [p for p in opened if any(p == x or p.endswith(os.path.basename(x)) for x in paths[:5])], opened
    assert api.get("/api/matches").json() == []


@pytest.mark.parametrize("game,param,text", [
    ("factory", "board", ("factory", "boards", "tiny-yard.board")),
    ("arena", "map", ("arena", "maps", "small.map")),
    ("dadoed", "pool", ("dadoed", "pool.yaml")),
])
def test_a_board_map_or_pool_given_as_text_or_a_shipped_name_is_accepted(api, game, param, text):
    r = make(api, game, **{param: shipped_text(*text)})
    assert r.status_code == 201, r.text
    summary = api.get(f"/api/matches/{r.json()['match']}").json()
    assert summary["config"][param] == shipped_text(*text)
    games = {g["id"]: g for g in api.get("/api/games").json()}
    row = next(p for p in games[game]["params"] if p["name"] == param)
    assert row["kind"] == "file" and row["names"]
    r = make(api, game, **{param: row["names"][-1]})
    assert r.status_code == 201, r.text


def test_geeko_rooms_as_text_are_accepted(api):
    rooms = "".join(shipped_text("geeko", "rooms", f"geeko-{k}.board") + "\n" for k in range(1, 6))
    r = make(api, "geeko", rooms=rooms)
    assert r.status_code == 201, r.text


def test_the_command_line_still_reads_a_board_file(tmp_path):
    from botwars.engine.ruleset import get_ruleset
    path = tmp_path / "my.board"
    path.write_text(shipped_text("factory", "boards", "tiny-yard.board"))
    rs = get_ruleset("factory")
    # read, and kept as its text, so that a record of the match names no file (issue 25)
    assert rs.validate_config({"board": str(path)})["board"] == path.read_text()
    with pytest.raises(Exception, match="file paths are not accepted"):
        rs.validate_config({"board": str(path)}, source="config", allow_paths=False)


# ---- 2. bounds ---------------------------------------------------------------------------------
@pytest.mark.parametrize("game,param,value", [
    ("arena", "max_turns", 10**18), ("arena", "turn_time_limit_s", 1e308), ("arena", "initial_hp", 10**30),
    ("factory", "turn_time_s", 1e300), ("geeko", "turn_limit", 10**12), ("dadoed", "time_bank_s", 10**15),
    ("submarine", "max_rounds", 10**9),
])
def test_huge_parameter_values_are_refused(api, game, param, value):
    r = make(api, game, **{param: value})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "bad_config" and param in r.json()["message"] and "at most" in r.json()["message"]


def test_every_numeric_parameter_of_every_game_has_finite_bounds(api):
    for g in api.get("/api/games").json():
        if g["id"].startswith("servertoy"):
            continue
        for p in g["params"]:
            if p["type"] in ("int", "float"):
                assert p["minimum"] is not None and p["maximum"] is not None, (g["id"], p["name"])
                assert math.isfinite(p["maximum"]) and p["maximum"] <= 1e7, (g["id"], p["name"])


def test_a_999_by_999_arena_map_is_refused_and_nothing_is_drawn(api):
    big = "1" + "." * 998 + "\n" + ("." * 999 + "\n") * 997 + "." * 998 + "2\n"
    r = make(api, "arena", ["builtin:swarm", "builtin:swarm"], map=big)
    assert r.status_code == 422, r.text[:300]
    assert r.json()["error"] == "bad_config" and "map" in r.json()["message"]
    assert len(r.content) < 1000
    assert api.get("/api/matches").json() == []


def test_too_many_config_keys_are_refused(api):
    r = api.post("/api/matches", json={"game": "arena", "config": {f"k{i}": 1 for i in range(65)}})
    assert r.status_code == 422 and "config" in r.json()["message"]


def test_the_board_drawing_is_capped(api, monkeypatch):
    import botwars.web.drawing as web  # svg_response's limit (botwars.web re-exports it)
    mid = make(api, "arena").json()["match"]
    assert api.get(f"/web/matches/{mid}/board.svg").status_code == 200
    monkeypatch.setattr(web, "MAX_SVG_BYTES", 1000)
    r = api.get(f"/web/matches/{mid}/board.svg")
    assert r.status_code == 422 and r.json()["error"] == "board_too_large"


def test_websocket_connections_per_address_are_limited(sqlite_url, clock):
    app = create_app(sqlite_url, background=False, now=clock, ws_per_address=2)
    with TestClient(app) as c:
        m1 = make(c, "arena").json()["match"]
        m2 = make(c, "arena").json()["match"]
        with c.websocket_connect(f"/api/matches/{m1}/ws") as a, c.websocket_connect(f"/api/matches/{m2}/ws") as b:
            a.receive_json()
            b.receive_json()
            assert ws_refused(c, f"/api/matches/{m1}/ws") == 4429
            assert ws_refused(c, f"/api/matches/{m2}/ws") == 4429
        with c.websocket_connect(f"/api/matches/{m1}/ws") as a:  # closed ones no longer count
            assert a.receive_json()["match"] == m1


def test_websocket_connections_per_match_are_limited(sqlite_url, clock):
    app = create_app(sqlite_url, background=False, now=clock, ws_per_match=1)
    with TestClient(app) as c:
        m1 = make(c, "arena").json()["match"]
        m2 = make(c, "arena").json()["match"]
        with c.websocket_connect(f"/api/matches/{m1}/ws") as a:
            a.receive_json()
            assert ws_refused(c, f"/api/matches/{m1}/ws") == 4429
            with c.websocket_connect(f"/api/matches/{m2}/ws") as b:
                assert b.receive_json()["match"] == m2


def test_spectators_of_one_change_share_one_snapshot(api, monkeypatch):
    m = api.app.state.manager
    made = make(api, "arena").json()
    mid, toks = made["match"], [s["token"] for s in made["seats"]]
    calls = []
    real = m.snapshot
    monkeypatch.setattr(m, "snapshot", lambda *a: calls.append(a[1]) or real(*a))
    socks = [api.websocket_connect(f"/api/matches/{mid}/ws") for _ in range(5)]
    try:
        first = [s.__enter__().receive_json() for s in socks]
        assert all(f == first[0] for f in first)
        assert len(calls) == 1
        r = api.post(f"/api/matches/{mid}/orders", headers=H(toks[0]), json={"decision": 1, "orders": {"orders": []}})
        assert r.status_code == 200, r.text
        second = [s.receive_json() for s in socks]
        assert all(x["submitted"] == ["p1"] for x in second)
        assert calls.count(None) <= 3  # one per change seen (the order; at most a bot's turn too), not 5
    finally:
        for s in socks:
            s.__exit__(None, None, None)


# ---- 3. built-in bots in a bounded pool ---------------------------------------------------------
@pytest.fixture
def bots_toy():
    from botwars.engine import ruleset as R
    from server_slowbots import BotsToy
    R.register(BotsToy)
    yield BotsToy
    R.unregister(BotsToy.id)


def _wait(pred, what, timeout=120.0):
    import time
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = pred()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f"waited {timeout} s for {what}")


@pytest.mark.slow
def test_a_bot_that_overruns_is_stopped_gets_its_default_and_does_not_stall_another_match(sqlite_url, bots_toy):
    app = create_app(sqlite_url, bot_workers=2, bot_time_cap_s=3.0)
    with TestClient(app) as c:
        slow = c.post("/api/matches", json={"game": "servertoy-bots", "seats": ["builtin:sleepy", "builtin:one"],
                                            "config": {"target": 2}, "clock": False}).json()["match"]
        quick = c.post("/api/matches", json={"game": "servertoy-bots", "seats": ["builtin:one", "builtin:one"],
                                             "config": {"target": 6}, "clock": False}).json()["match"]
        _wait(lambda: c.get(f"/api/matches/{quick}").json()["status"] == "ended", "the quick match")
        # the quick match played its 11 decisions while the sleepy bot was still on its first
        assert c.get(f"/api/matches/{slow}").json()["decision"] == 1
        _wait(lambda: c.get(f"/api/matches/{slow}").json()["status"] == "ended", "the slow match")
        lines = [json.loads(x) for x in c.get(f"/api/matches/{slow}/record").text.splitlines()]
    sleepy = [d for d in lines if d["type"] == "decision" and "p1" in d["orders"]]
    assert sleepy and all(d["orders"]["p1"] is None for d in sleepy)
    assert all(d["errors"]["p1"][0]["code"] == "timeout" and "3 s" in d["errors"]["p1"][0]["detail"] for d in sleepy)
    from botwars.engine.record import read_record, verify_record
    path = os.path.join(os.path.dirname(sqlite_url[len("sqlite:///"):]), "slow.jsonl")
    with open(path, "w") as f:
        f.write("".join(json.dumps(x) + "\n" for x in lines))
    verify_record(read_record(path))


@pytest.mark.slow
def test_built_in_bots_see_nothing_of_the_servers_environment(sqlite_url, bots_toy, monkeypatch):
    monkeypatch.setenv("BOTWARS_DATABASE_URL", f"postgresql+psycopg://bw:{SECRET}@db/bw")
    app = create_app(sqlite_url, bot_workers=1)
    with TestClient(app) as c:
        mid = c.post("/api/matches", json={"game": "servertoy-bots", "seats": ["builtin:env", "builtin:one"],
                                           "config": {"target": 1}, "clock": False}).json()["match"]
        _wait(lambda: c.get(f"/api/matches/{mid}").json()["status"] == "ended", "the match")
        rec = c.get(f"/api/matches/{mid}/record").text
    first = json.loads(rec.splitlines()[1])
    assert first["errors"]["p1"] == [{"code": "crash", "detail": "RuntimeError: env=[]"}]
    assert SECRET not in rec


# ---- 4. text that cannot be encoded ---------------------------------------------------------------
@pytest.mark.parametrize("body,field", [
    ('{"decision": 1, "orders": "\\ud800"}', "orders"),
    ('{"decision": 1, "orders": {"moves": ["1:1", "\\udfff"]}}', "orders.moves[1]"),
    ('{"decision": 1, "orders": {"\\ud800": 1}}', "orders (key 1)"),
    ('{"decision": 1, "orders": null, "failure": {"code": "crash", "detail": "\\ud800"}}', "failure.detail"),
])
def test_a_lone_surrogate_in_orders_is_a_422_naming_the_field(api, body, field):
    made = make(api, "arena").json()
    mid, tok = made["match"], made["seats"][0]["token"]
    r = api.post(f"/api/matches/{mid}/orders", content=body.encode(), headers={**H(tok), "content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid_request" and field in r.json()["message"], r.json()
    assert api.app.state.manager.get(mid).submitted() == []


@pytest.mark.parametrize("body,field", [
    ('{"game": "arena", "config": {"map": "\\ud800"}}', "config.map"),
    ('{"game": "\\ud800"}', "game"),
    ('{"game": "arena", "seats": ["remote", "builtin:\\udc00"]}', "seats[1]"),
    ('{"game": "arena", "config": {"\\ud800": 1}}', "config (key 1)"),
    ('{"game": "arena", "\\ud800": 1}', "body"),
])
def test_a_lone_surrogate_in_a_new_match_is_a_422_naming_the_field(api, body, field):
    r = api.post("/api/matches", content=body.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert field in r.json()["message"], r.json()
    assert api.get("/api/matches").json() == []


# ---- 5. secrets -------------------------------------------------------------------------------------
def test_no_response_record_or_error_ever_carries_a_seat_token(api):
    made = make(api, "arena", ["remote", "remote"], max_turns=2).json()
    other = make(api, "arena").json()
    mid = made["match"]
    toks = [s["token"] for s in made["seats"]] + [s["token"] for s in other["seats"]]
    seen = []
    t1, t2, t3 = toks[0], toks[1], toks[2]
    reqs = [("get", f"/api/matches/{mid}/view", H(t3), None), ("get", f"/api/matches/{mid}/view?token={t3}x", {}, None),
            ("post", f"/api/matches/{mid}/orders", H(t1), {"decision": 1, "orders": {"bad": t2}}),
            ("post", f"/api/matches/{mid}/orders", H(t1), {"decision": 9, "orders": {"orders": []}}),
            ("post", f"/api/matches/{mid}/orders", H(t3), {"decision": 1, "orders": {"orders": []}}),
            ("post", f"/api/matches/{mid}/orders", H(t1 + "x"), {"decision": 1, "orders": {"orders": []}}),
            ("post", f"/api/matches/{mid}/orders", H(t1), {"decision": 1, "orders": {"orders": []}, "x": t2}),
            ("get", f"/api/matches/{t1}", {}, None), ("get", f"/api/matches/{mid}/record", {}, None),
            ("get", f"/api/seat?token={t1[:-1]}", {}, None), ("post", f"/api/matches/{mid}/resign", H(t3), None)]
    for turn in (1, 2):
        reqs += [("post", f"/api/matches/{mid}/orders", H(t), {"decision": turn, "orders": {"orders": []}}) for t in (t1, t2)]
    reqs += [("get", f"/api/matches/{mid}/record", {}, None), ("get", f"/api/matches/{mid}/record", H(t1), None),
             ("get", f"/api/matches/{mid}", {}, None), ("get", "/api/matches", {}, None),
             ("get", f"/web/matches/{mid}/replay.json", {}, None)]
    for method, path, headers, body in reqs:
        r = getattr(api, method)(path, headers=headers, **({"json": body} if body is not None else {}))
        assert r.status_code < 500, (path, r.text)
        seen.append(r.text)
    assert "outcome" in seen[-5]
    for text in seen:
        for t in toks:
            assert t not in text


def test_database_passwords_stay_out_of_error_messages(tmp_path):
    from typer.testing import CliRunner

    from botwars.cli import app as cli
    from botwars.engine.errors import ConfigError
    from botwars.store import Store
    with pytest.raises(ConfigError) as exc:
        Store(f"nosuchdb+driver://bw:{SECRET}@db.example/bw")
    assert SECRET not in exc.value.one_line() and "***" in exc.value.one_line()
    r = CliRunner().invoke(cli, ["serve", "--db", f"postgresql+psycopg://bw:{SECRET}@127.0.0.1:1/bw"])
    assert r.exit_code == 2, r.output
    assert SECRET not in r.output and "***" in r.output


def test_an_internal_error_says_nothing_of_its_cause(sqlite_url, clock, monkeypatch):
    app = create_app(sqlite_url, background=False, now=clock)
    with TestClient(app, raise_server_exceptions=False) as c:
        def broken(*a, **kw):
            raise RuntimeError(f"could not connect to postgresql://bw:{SECRET}@db/bw")
        monkeypatch.setattr(app.state.manager, "list", broken)
        r = c.get("/api/matches")
    assert r.status_code == 500
    assert r.json() == {"error": "internal", "message": "internal server error"}
