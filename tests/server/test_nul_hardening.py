"""The core server's HTTP API and pages under NUL characters (issue 12 item 4: "text that
cannot be encoded is a 422 naming the field, never a 500"), on SQLite and on PostgreSQL:
PostgreSQL text cannot hold a NUL character, so a NUL in a match id, a token, a query or a
request body must be an unknown id (404) or a 422 naming the field before any database use."""

from __future__ import annotations

import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")


@pytest.fixture
def client(db_url, monkeypatch):
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    from botwars.web import install_web
    app = create_app(db_url, background=False)
    install_web(app)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("path", [
    "/api/matches/%00", "/api/matches/a%00b", "/api/matches/%00/record", "/api/matches/%00/seats/p1",
    "/watch/%00", "/replay/%00", "/play/%00?token=x", "/web/matches/%00/snapshot",
])
def test_a_nul_character_in_a_match_id_is_an_unknown_match(client, path):
    r = client.get(path, follow_redirects=False)
    assert r.status_code == 404, (path, r.status_code, r.text[:300])


def test_a_nul_character_in_a_body_or_a_token_is_refused_naming_the_field(client):
    c = client
    r = c.post("/api/matches", json={"game": "arena", "seats": ["remote", "builtin:random\x00"]})
    assert r.status_code == 422 and "seats" in r.text, r.text
    r = c.post("/api/matches", json={"game": "arena\x00", "seats": ["remote", "remote"]})
    # an unknown game is a 422 naming it (server API: error ``unknown_game``)
    assert r.status_code == 422 and r.json()["error"] == "unknown_game" and "game" in r.json()["message"], r.text
    r = c.post("/api/matches", json={"game": "arena", "seats": ["remote", "remote"], "config": {"map": "a\x00"}})
    assert r.status_code == 422 and "config" in r.text, r.text
    r = c.post("/api/matches", json={"game": "arena", "seats": ["remote", "remote"]})
    assert r.status_code == 201, r.text
    m = r.json()
    mid, token = m["match"], m["seats"][0]["token"]
    r = c.post(f"/api/matches/{mid}/orders", json={"decision": 1, "orders": "M 1 1 N\x00"},
               headers={"Authorization": f"Bearer {token}"})
    # the arena's P5 token grammar has no NUL: refused orders (422), the point stays open
    assert r.status_code == 422 and r.json()["error"] == "invalid_orders", r.text
    assert "\\x00" in r.json()["message"]  # the message shows the NUL escaped, on one line
    r = c.get(f"/api/matches/{mid}/view", headers={"Authorization": "Bearer a\x00b"})
    # a token that is no seat's token is a 403, as any wrong token (never a database error)
    assert r.status_code == 403 and r.json()["error"] == "bad_token", r.text
    r = c.get("/api/matches", params={"game": "\x00", "status": "\x00"})
    # status must be running or ended: a 422 naming the field
    assert r.status_code == 422 and "query.status" in r.json()["message"], r.text
    s = c.get(f"/api/matches/{mid}")  # the match is untouched
    assert s.status_code == 200 and s.json()["decision"] == 1 and s.json()["status"] == "running", s.text
