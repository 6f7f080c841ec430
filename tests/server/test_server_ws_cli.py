"""WebSocket pushes, and the `serve`, `new-match` and `connect` commands against a real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from starlette.websockets import WebSocketDisconnect

from server_support import ROOT
from test_server_api import EMPTY, create, order

ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}


def test_websocket_pushes_the_seats_view_events_and_clock_on_every_change(api):
    mid, toks, _ = create(api, config={"max_turns": 2})
    with api.websocket_connect(f"/api/matches/{mid}/ws?token={toks[0]}") as ws:
        m = ws.receive_json()
        assert m["decision"] == 1 and m["seat"] == "p1" and m["view"]["player"] == 1 and m["your_turn"]
        order(api, mid, toks[0], 1, EMPTY)
        m = ws.receive_json()
        assert m["submitted"] == ["p1"] and not m["your_turn"]
        order(api, mid, toks[1], 1, "12:12-M-W")
        m = ws.receive_json()
        assert m["decision"] == 2 and m["your_turn"] and m["clock"]["enabled"]
        assert {e["decision"] for e in m["events"]} == {1} and any(e["kind"] == "move" for e in m["events"])
        order(api, mid, toks[0], 2, EMPTY)
        ws.receive_json()
        order(api, mid, toks[1], 2, EMPTY)
        m = ws.receive_json()
        assert m["status"] == "ended" and m["outcome"]["reason"] == "turn_limit"
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


def test_websocket_spectators_get_public_events_only(api, toy):
    mid, toks, _ = create(api, game="servertoy")
    with api.websocket_connect(f"/api/matches/{mid}/ws") as spec, \
            api.websocket_connect(f"/api/matches/{mid}/ws", headers={}) as _s2, \
            api.websocket_connect(f"/api/matches/{mid}/ws?token={toks[1]}") as p2:
        assert spec.receive_json()["seat"] is None
        _s2.receive_json()
        p2.receive_json()
        order(api, mid, toks[0], 1, {"add": 3})
        s, v2 = spec.receive_json(), p2.receive_json()
        assert [e["kind"] for e in s["events"]] == ["turn"] and [e["kind"] for e in v2["events"]] == ["turn"]
        assert "total" not in s["view"] and v2["view"]["total"] == 0 and v2["your_turn"]


@pytest.mark.parametrize("path,code", [("/api/matches/{m}/ws?token=bad", 4403), ("/api/matches/nomatch/ws", 4404)])
def test_websocket_with_a_wrong_token_or_match_is_closed(api, path, code):
    mid, _, _ = create(api)
    with pytest.raises(WebSocketDisconnect) as exc:
        with api.websocket_connect(path.format(m=mid)) as ws:
            ws.receive_json()
    assert exc.value.code == code


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True,
                          env=ENV, timeout=timeout)


def test_new_match_and_two_connect_clients_play_a_full_match(live_server, tmp_path):
    r = cli("new-match", live_server, "arena", "--set", "max_turns=15", "--seed", "4", "--json")
    assert r.returncode == 0, r.stderr
    made = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(made) == {"match", "seats", "spectator"} and len(made["seats"]) == 2
    procs = [subprocess.Popen([sys.executable, "-m", "botwars.cli", "connect", live_server, s["token"], agent, "-q"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
             for s, agent in zip(made["seats"], ["builtin:hunter", "builtin:swarm"])]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    res = [json.loads(o[0].strip().splitlines()[-1]) for o in outs]
    assert res[0]["winner"] == res[1]["winner"] and res[0]["turns"] == 15 and res[0]["reason"] == "turn_limit"
    assert {"winner", "scores", "turns", "reason", "replay", "errors"} <= set(res[0])
    import httpx
    rec = tmp_path / "rec.jsonl"
    rec.write_text(httpx.get(res[0]["replay"]).text)
    v = cli("replay", "--verify", str(rec))
    assert v.returncode == 0, v.stdout + v.stderr


def run_cli(*args):
    """The command line in-process (the server runs in a thread of this process)."""
    from typer.testing import CliRunner
    from botwars.cli import app
    return CliRunner().invoke(app, list(args))


def test_new_match_reports_bad_requests_and_unreachable_servers(live_server):
    r = run_cli("new-match", live_server, "arena", "--seat", "remote", "--seat", "builtin:nobody")
    assert r.exit_code == 2 and "builtin:nobody" in r.output
    r = run_cli("new-match", live_server, "arena", "--set", "max_turns")
    assert r.exit_code == 2 and "key=value" in r.output
    r = run_cli("new-match", "http://127.0.0.1:9", "arena")
    assert r.exit_code == 2 and "cannot reach" in r.output


def test_connect_with_a_wrong_token_exits_with_an_error(live_server):
    r = run_cli("connect", live_server, "not-a-token", "builtin:hunter")
    assert r.exit_code == 2 and "403" in r.output


def test_new_match_prints_a_table_of_links(live_server):
    r = run_cli("new-match", live_server, "arena", "--seat", "remote", "--seat", "builtin:hunter")
    assert r.exit_code == 0 and "spectator:" in r.output
