"""The league's HTTP API under hostile input (issue 15 item 4, audit; "Bad input": nothing may
answer 500, errors name the field), on SQLite and on PostgreSQL: PostgreSQL text cannot hold a
NUL character, so a NUL in an uploaded program, in a bot or match id of a path, in a query or
in a challenge must be refused (422 naming the field) or be an unknown id (404) before any
database look-up."""

from __future__ import annotations

import os
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _starter() -> str:
    with open(os.path.join(ROOT, "examples", "starters", "python", "bot.py"), encoding="utf-8") as f:
        return f.read()


@pytest.fixture
def league(db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    from botwars.web import install_web
    app = create_app(db_url, background=False)
    install_web(app)
    lg = app.state.league
    lg.data_dir = str(tmp_path / "data")
    lg.config = {"arena": {"max_turns": 4}}
    lg.check_decisions = 2
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_a_nul_character_in_an_uploaded_program_is_refused_naming_source(league):
    c = league
    r = c.post("/api/league/bots", json={"name": "nul", "game": "arena", "kind": "jsonl-py",
                                         "source": _starter() + "\n# \x00\n"})
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith("source:") and "NUL" in r.json()["message"]
    r = c.post("/api/league/bots", json={"name": "ok", "game": "arena", "kind": "jsonl-py", "source": _starter()})
    assert r.status_code == 201, r.text
    bot, token = r.json()["bot"], r.json()["token"]
    r = c.put(f"/api/league/bots/{bot}", json={"source": "\x00"}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 422 and r.json()["message"].startswith("source:"), r.text


@pytest.mark.parametrize("path", [
    "/api/league/bots/%00", "/api/league/bots/a%00b", "/api/league/bots/%00/source", "/league/bots/%00",
    "/api/league/matches/%00", "/api/league/matches/%00/record", "/league/matches/%00",
    "/league/matches/%00/replay",
])
def test_a_nul_character_in_an_id_is_an_unknown_id(league, path):
    r = league.get(path, follow_redirects=False)
    assert r.status_code == 404, r.text


def test_a_nul_character_in_a_query_or_a_challenge_is_never_a_500(league):
    c = league
    r = c.post("/api/league/bots", json={"name": "ok", "game": "arena", "kind": "jsonl-py", "source": _starter()})
    bot, token = r.json()["bot"], r.json()["token"]
    # a game filter naming no game (a NUL) matches no bot: an empty list, with a bot registered
    # (so an ignored filter, which would list the arena bot, fails), never a 500
    assert [b["bot"] for b in c.get("/api/league/bots", params={"game": "arena"}).json()] == [bot]
    r = c.get("/api/league/bots", params={"game": "\x00"})
    assert r.status_code == 200 and r.json() == [], r.text
    auth = {"Authorization": f"Bearer {token}"}
    r = c.post("/api/league/challenges", json={"bot": bot, "opponent": "\x00"}, headers=auth)
    assert r.status_code == 422 and r.json()["message"].startswith("opponent:"), r.text
    r = c.post("/api/league/challenges", json={"bot": "\x00", "opponent": "builtin:random"}, headers=auth)
    assert r.status_code == 404, r.text
    r = c.put("/api/league/bots/%00", headers=auth, json={"source": "x"})
    assert r.status_code == 404, r.text
    r = c.delete("/api/league/bots/%00", headers=auth)
    assert r.status_code == 404, r.text
