"""The server and the pages split into routers by resource (issue 26, item 3): the same API
as before (paths and methods), and a picture or page a game cannot give answers 404 with a
sentence naming the game, never 500.

The test-only toy game (``server_toygame.py``, the ``toy`` fixture) declares no drawing, no
report and no rules file.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from botwars.server.app import create_app

API = {
    ("GET", "/api/games"), ("POST", "/api/matches"), ("GET", "/api/matches"),
    ("GET", "/api/matches/{match_id}"), ("GET", "/api/matches/{match_id}/view"),
    ("POST", "/api/matches/{match_id}/orders"), ("POST", "/api/matches/{match_id}/resign"),
    ("GET", "/api/matches/{match_id}/record"), ("GET", "/api/seat"),
}
"""The match API's documented operations (docs/server.md); the notices' and the league's
routes come on top."""


def _operations(app) -> set[tuple[str, str]]:
    return {(m.upper(), p) for p, ops in app.openapi()["paths"].items() for m in ops}


def test_the_api_keeps_its_operations_and_the_websocket(sqlite_url, clock):
    app = create_app(sqlite_url, background=False, now=clock)
    ops = _operations(app)
    assert API <= ops, sorted(API - ops)
    with TestClient(app) as c:  # the WebSocket route is there: an unknown match is named, code 4404
        with pytest.raises(WebSocketDisconnect) as exc:
            with c.websocket_connect("/api/matches/nosuchmatch/ws") as ws:
                ws.receive_json()
        assert exc.value.code == 4404
    # the pages are not part of the API's schema
    from botwars.web import install_web
    install_web(app)
    app.openapi_schema = None
    assert _operations(app) == ops


def _ended_toy_match(api) -> tuple[str, str]:
    r = api.post("/api/matches", json={"game": "servertoy", "seats": ["remote", "remote"], "config": {"target": 1}})
    assert r.status_code == 201, r.text
    mid, token = r.json()["match"], r.json()["seats"][0]["token"]
    r = api.post(f"/api/matches/{mid}/orders", json={"decision": 1, "orders": {"add": 1}},
                 headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json()["accepted"], r.text
    assert api.get(f"/api/matches/{mid}").json()["status"] == "ended"
    return mid, token


def _no_drawing(r) -> None:
    assert r.status_code == 404, r.text
    assert r.json()["error"] == "no_drawing"
    assert r.json()["message"] == "the game servertoy has no board drawing"


def test_the_board_of_a_game_without_a_drawing_is_404_for_seat_and_spectator(api, toy):
    r = api.post("/api/matches", json={"game": "servertoy", "seats": ["remote", "remote"]})
    mid, token = r.json()["match"], r.json()["seats"][0]["token"]
    _no_drawing(api.get(f"/web/matches/{mid}/board.svg"))
    _no_drawing(api.get(f"/web/matches/{mid}/board.svg", params={"token": token}))
    # a wrong token is still refused as such first (nothing about the match is told)
    assert api.get(f"/web/matches/{mid}/board.svg", params={"token": "x" * 20}).status_code == 403
    # the seat page itself is served: only its picture is missing
    assert api.get(f"/play/{mid}", params={"token": token}).status_code == 200


def test_replay_pictures_of_a_game_without_a_drawing_are_404(api, toy):
    mid, _ = _ended_toy_match(api)
    assert api.get(f"/web/matches/{mid}/replay.json").status_code == 200
    _no_drawing(api.get(f"/web/matches/{mid}/replay/0.svg"))
    _no_drawing(api.get(f"/web/matches/{mid}/replay/1.svg"))
    seats = api.get(f"/api/matches/{mid}").json()["seats"]
    _no_drawing(api.get(f"/web/matches/{mid}/replay/1.svg", params={"seat": seats[0]["seat"]}))
    # stages: the toy declares none
    r = api.get(f"/web/matches/{mid}/turn/1/stages.json")
    assert r.status_code == 404 and r.json()["message"] == "servertoy has no stages"


def test_a_game_with_a_drawing_still_draws(api):
    r = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "remote"]})
    r = api.get(f"/web/matches/{r.json()['match']}/board.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith("<")


@pytest.mark.parametrize("game", ["nosuchgame", "servertoy"])
def test_the_rules_page_of_an_unknown_game_or_one_without_rules_is_404(api, toy, game):
    r = api.get(f"/rules/{game}")
    assert r.status_code == 404
    assert r.json() == {"error": "not_found", "message": f"no rules page for game {game!r}"}


def test_the_rules_page_of_an_installed_game_is_served(api):
    r = api.get("/rules/arena")
    assert r.status_code == 200 and "<h2" in r.text
