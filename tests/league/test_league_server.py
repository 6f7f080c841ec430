"""The league on the server (issue 15 item 4) through HTTP: uploads of every kind (Python class,
rgkit, BotWars.io text protocol, JSON lines in Python and in JavaScript) are checked in the
sandbox and play; bad uploads are refused naming the problem; owner tokens guard replace,
retire, source and challenges; below the operator's isolation level uploads answer 503 (issue
12 item 2); the scheduler's ladder matches give the ladder's ratings (issue 15 "done when");
ratings do not depend on the order results were stored; a challenge's replay opens in the
server's replay viewer; no source, token or server path leaks."""

from __future__ import annotations

import json
import os
import random
import shutil
import time
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read(rel: str) -> str:
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


SOURCES = {
    "py": "examples/class_bot.py",
    "rgkit": "examples/robot.py",
    "botwars-io": "examples/mybot.py",
    "jsonl-py": "examples/starters/python/bot.py",
    "jsonl-js": "examples/starters/javascript/bot.js",
}
MARK = "# secret-marker-7f3a"  # appended to uploaded sources: must never appear in public answers


def _source(kind: str) -> str:
    return _read(SOURCES[kind]) + ("\n// " if kind == "jsonl-js" else "\n") + MARK + "\n"


def make_league_client(tmp_path, monkeypatch):
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    from botwars.web import install_web
    app = create_app(f"sqlite:///{tmp_path}/bw.db", background=False)
    install_web(app)
    lg = app.state.league
    lg.data_dir = str(tmp_path / "data")
    lg.config = {"arena": {"max_turns": 6}}
    lg.house = {"arena": ["random"]}
    lg.check_decisions = 3
    # these tests rate the ladder from an upload's first match: no quarantine (issue 28 item 5
    # has its own tests, tests/league/test_league_rests.py)
    lg.rules = lg.rules.model_copy(update={"quarantine_matches": 0})
    from botwars.server.uploads import UploadGate
    lg.gate = UploadGate(rate="1000/minute")  # these tests upload more than an address may a minute
    return TestClient(app), lg


@pytest.fixture
def league(tmp_path, monkeypatch):
    client, lg = make_league_client(tmp_path, monkeypatch)
    with client:
        yield client, lg


def upload(c, name, kind="jsonl-py", game="arena", source=None):
    return c.post("/api/league/bots", json={"name": name, "game": game, "kind": kind,
                                            "source": _source(kind) if source is None else source})


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def expected_ratings(matches: list[dict]) -> dict:
    """openskill PlackettLuce over the matches in schedule order, computed here from the
    public match list (not by the league's code)."""
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    r: dict = {}
    for m in sorted(matches, key=lambda m: m["seq"]):
        agents = [s["agent"] for s in m["seats"]]
        place = {}
        for i, group in enumerate(m["outcome"]["ranking"]):
            for seat in group:
                place[seat] = i + 1
        teams = [[r.get(a) or model.rating(name=a)] for a in agents]
        new = model.rate(teams, ranks=[place[s["seat"]] for s in m["seats"]])
        for a, t in zip(agents, new):
            r[a] = t[0]
    return {a: (x.mu, x.sigma) for a, x in r.items()}


# ---- every kind -------------------------------------------------------------------------------
@pytest.mark.slow
def test_every_kind_uploads_plays_and_the_ladder_rates_the_scheduler_matches(league):
    assert shutil.which("node"), "node is needed for jsonl-js bots (installed on this machine)"
    c, lg = league
    ids = {}
    for kind in SOURCES:
        r = upload(c, f"bot-{kind}", kind)
        assert r.status_code == 201, (kind, r.json())
        body = r.json()
        assert body["kind"] == kind and body["version"] == 1 and len(body["token"]) >= 40
        ids[kind] = body["bot"]
    played = 0
    for _ in range(6):
        played += lg.step(5)
        ladder = {row["bot"]: row for row in c.get("/api/league/ladder/arena").json() if row["bot"]}
        if all(ladder[b]["games"] >= 1 for b in ids.values()):
            break
    assert played >= 5
    ladder_rows = c.get("/api/league/ladder/arena").json()
    by_bot = {row["bot"]: row for row in ladder_rows if row["bot"]}
    assert set(by_bot) == set(ids.values())
    # every uploaded bot played ladder matches, without a bot error, and the matches are stored
    all_matches = {}
    for kind, bid in ids.items():
        info = c.get(f"/api/league/bots/{bid}").json()
        ladder_m = [m for m in info["matches"] if m["kind"] == "ladder"]
        assert ladder_m, kind
        for m in ladder_m:
            assert m["status"] == "ok", (kind, m["error_detail"])
            seat = next(s["seat"] for s in m["seats"] if s["bot"] == bid)
            assert m["errors"][seat] == 0, (kind, m["error_detail"])
            all_matches[m["match"]] = m
        assert by_bot[bid]["games"] == len(ladder_m)
    # house matches too (the ladder's ratings come from every stored ladder match)
    assert len(all_matches) == played
    want = expected_ratings(list(all_matches.values()))
    for row in ladder_rows:
        if row["agent"] not in want:  # never played: openskill's initial rating
            assert row["games"] == 0
        mu, sigma = want.get(row["agent"], (25.0, 25.0 / 3))
        assert row["mu"] == pytest.approx(mu) and row["sigma"] == pytest.approx(sigma)
        assert row["ordinal"] == pytest.approx(mu - 3 * sigma)
        assert row["wins"] + row["draws"] + row["losses"] == row["games"]
        assert len(row["form"]) == min(5, row["games"]) and set(row["form"]) <= set("WDL")
        assert row["elo"] is not None  # arena: Elo shown (R29)
    assert [r["rank"] for r in ladder_rows] == list(range(1, len(ladder_rows) + 1))
    assert [r["ordinal"] for r in ladder_rows] == sorted((r["ordinal"] for r in ladder_rows), reverse=True)
    # the ladder page shows them
    page = c.get("/league/arena").text
    for kind in SOURCES:
        assert f"bot-{kind}" in page
    assert MARK not in page and lg.data_dir not in page


# ---- refusals ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_uploads_that_do_not_load_are_refused_naming_the_problem(league):
    c, _ = league
    r = upload(c, "syntax", "py", source="class Bot:\n    def act(self, view):\n        return (\n")
    assert r.status_code == 422 and r.json()["error"] == "bot_refused"
    assert "SyntaxError" in r.json()["message"]
    r = upload(c, "noclass", "py", source="def helper():\n    return 1\n")
    assert r.status_code == 422 and "class Bot" in r.json()["message"]
    r = upload(c, "garbage", "jsonl-py", source="import sys\nfor line in sys.stdin:\n    print('hello', flush=True)\n")
    assert r.status_code == 422 and "invalid reply" in r.json()["message"]
    r = upload(c, "jssyntax", "jsonl-js", source="this is not javascript {{{\n")
    assert r.status_code == 422 and r.json()["error"] == "bot_refused"
    # a kind the game does not take
    r = upload(c, "rg", "rgkit", game="dadoed", source=_read("examples/robot.py"))
    assert r.status_code == 422 and r.json()["error"] == "wrong_kind" and "arena" in r.json()["message"]
    # no server path in any message
    assert "/league/bots/" not in r.text


def test_bad_fields_are_refused(league):
    c, _ = league
    assert upload(c, "bad name!", source="x").status_code == 422
    assert upload(c, "", source="x").status_code == 422
    assert upload(c, "ok", kind="cobol", source="x").status_code == 422
    r = upload(c, "ok", game="chess", source="x")
    assert r.status_code == 422 and r.json()["error"] == "unknown_game"
    r = upload(c, "big", source="#" * (256 * 1024 + 1))
    assert r.status_code == 422
    r = upload(c, "empty", source="   \n")
    assert r.status_code == 422 and r.json()["error"] == "empty_source"
    r = c.post("/api/league/bots", content=b'{"name": "s", "game": "arena", "kind": "py", "source": "\\ud800"}',
               headers={"Content-Type": "application/json"})
    assert r.status_code == 422


def test_uploads_are_refused_below_the_required_isolation_level(league, monkeypatch):
    from botwars.agents import sandbox
    c, lg = league
    weak = sandbox.Report(layers=[], level="process", reasons=["bubblewrap cannot start here (test)"])
    monkeypatch.setattr(sandbox, "probe", lambda refresh=False: weak)
    monkeypatch.delenv("BOTWARS_SANDBOX_MIN", raising=False)
    r = upload(c, "weak")
    assert r.status_code == 503 and r.json()["error"] == "sandbox_unavailable"
    msg = r.json()["message"]
    assert "'process'" in msg and "'full'" in msg and "bubblewrap cannot start here" in msg
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "namespaces")
    assert upload(c, "weak").status_code == 503
    assert lg.step() == 0  # the scheduler runs no uploaded code either
    assert c.get("/api/league/bots").json() == []


# ---- owner token ------------------------------------------------------------------------------
@pytest.mark.slow
def test_owner_token_guards_source_replace_retire_and_challenges(league):
    c, lg = league
    a = upload(c, "alpha").json()
    b = upload(c, "beta").json()
    bid, tok = a["bot"], a["token"]
    for bad in ({}, auth(b["token"]), auth("x" * 43)):
        assert c.get(f"/api/league/bots/{bid}/source", headers=bad).status_code == 403
        assert c.put(f"/api/league/bots/{bid}", json={"source": "x"}, headers=bad).status_code == 403
        assert c.delete(f"/api/league/bots/{bid}", headers=bad).status_code == 403
        assert c.post("/api/league/challenges", json={"bot": bid, "opponent": "builtin:random"},
                      headers=bad).status_code == 403
    src = c.get(f"/api/league/bots/{bid}/source", headers=auth(tok)).json()
    assert src["source"] == _source("jsonl-py") and src["version"] == 1
    assert c.get(f"/api/league/bots/nosuchbot/source", headers=auth(tok)).status_code == 404
    # a taken name
    assert upload(c, "alpha").status_code == 409
    # ladder matches of version 1
    lg.step(2)
    v1 = f"bot:{bid}@v1"
    assert any(m["kind"] == "ladder" for m in c.get(f"/api/league/bots/{bid}").json()["matches"])
    # replace: version 2 (a broken replacement is refused and changes nothing)
    r = c.put(f"/api/league/bots/{bid}", json={"source": "syntax error (("}, headers=auth(tok))
    assert r.status_code == 422
    assert c.get(f"/api/league/bots/{bid}").json()["version"] == 1
    new_src = _read("examples/starters/python/bot.py") + "\n# v2\n"
    r = c.put(f"/api/league/bots/{bid}", json={"source": new_src}, headers=auth(tok))
    assert r.status_code == 200 and r.json()["version"] == 2
    assert c.get(f"/api/league/bots/{bid}/source", headers=auth(tok)).json()["source"] == new_src
    row = next(x for x in c.get("/api/league/ladder/arena").json() if x["bot"] == bid)
    assert row["agent"] == f"bot:{bid}@v2" and row["games"] == 0  # rated afresh
    assert any(s["agent"] == v1 for m in c.get(f"/api/league/bots/{bid}").json()["matches"] for s in m["seats"])
    # retire
    r = c.delete(f"/api/league/bots/{bid}", headers=auth(tok))
    assert r.status_code == 200 and r.json()["status"] == "retired"
    updated = r.json()["updated_at"]
    again = c.delete(f"/api/league/bots/{bid}", headers=auth(tok))  # a second retire changes nothing
    assert again.status_code == 409 and again.json()["error"] == "retired"
    assert c.get(f"/api/league/bots/{bid}").json()["updated_at"] == updated
    assert bid not in {x["bot"] for x in c.get("/api/league/ladder/arena").json()}
    assert c.put(f"/api/league/bots/{bid}", json={"source": new_src}, headers=auth(tok)).status_code == 409
    assert not os.path.exists(os.path.join(lg.data_dir, "league", "bots", bid, "v2"))


# ---- challenges and replays -------------------------------------------------------------------
@pytest.mark.slow
def test_a_challenge_plays_unrated_and_its_replay_opens_in_the_viewer(league):
    c, lg = league
    a = upload(c, "chal").json()
    b = upload(c, "target").json()
    r = c.post("/api/league/challenges", json={"bot": a["bot"], "opponent": "nobody"}, headers=auth(a["token"]))
    assert r.status_code == 422 and r.json()["error"] == "bad_opponent"
    r = c.post("/api/league/challenges", json={"bot": a["bot"], "opponent": "builtin:nosuch"},
               headers=auth(a["token"]))
    assert r.status_code == 422
    r = c.post("/api/league/challenges", json={"bot": a["bot"], "opponent": b["bot"]}, headers=auth(a["token"]))
    assert r.status_code == 202 and r.json()["status"] == "queued"
    mid = r.json()["match"]
    assert "Waiting to be played" in c.get(f"/league/matches/{mid}").text
    assert c.get(f"/api/league/matches/{mid}/record").status_code == 409
    assert lg.step() == 1  # challenges go first
    m = c.get(f"/api/league/matches/{mid}").json()
    assert m["status"] == "ok" and m["kind"] == "challenge" and m["turns"] == 6
    assert [s["bot"] for s in m["seats"]] == [a["bot"], b["bot"]]
    # unrated: nobody's ladder games count it
    assert all(row["games"] == 0 for row in c.get("/api/league/ladder/arena").json())
    # the record: league names, no server path, verifies by re-simulation
    rec = c.get(f"/api/league/matches/{mid}/record").text
    header = json.loads(rec.splitlines()[0])
    assert [s["agent"] for s in header["seats"]] == ["league:chal", "league:target"]
    assert lg.data_dir not in rec
    from botwars.engine.record import read_record, verify_record
    path = os.path.join(lg.data_dir, "check.jsonl")
    with open(path, "w") as f:
        f.write(rec)
    ok, why = verify_record(read_record(path))
    assert ok, why
    # the replay viewer
    r = c.get(f"/league/matches/{mid}/replay", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/replay/{mid}"
    assert c.get(f"/replay/{mid}").status_code == 200
    idx = c.get(f"/web/matches/{mid}/replay/index.json").json()
    assert idx["count"] == 7 and idx["outcome"] == m["outcome"]
    assert c.get(f"/league/matches/{mid}/replay", follow_redirects=False).status_code == 303  # registered once
    page = c.get(f"/league/matches/{mid}").text
    assert f"/league/matches/{mid}/replay" in page
    assert f"/league/matches/{mid}" in c.get(f"/league/bots/{a['bot']}").text


# ---- ratings and scheduling -------------------------------------------------------------------
def _report(seq: int, agents: list[str], ranking: list[list[str]]):
    from botwars.league.runner import MatchReport
    seats = ["p1", "p2"]
    winner = ranking[0][0] if len(ranking[0]) == 1 else None
    return MatchReport({"match_id": f"m{seq:04d}", "round": 0, "seq": seq, "game_index": 0, "seed": seq,
                        "agents": agents, "seats": seats, "status": "ok", "turns": 5,
                        "outcome": {"winner": winner, "scores": {}, "reason": "test", "ranking": ranking,
                                    "details": {}},
                        "errors": {"p1": 0, "p2": 0}, "error_detail": [], "wall_s": 0.0}, "")


def test_ratings_recomputed_from_stored_results_do_not_depend_on_storage_order(tmp_path):
    from botwars.server.league import League
    from botwars.store import Store
    rng = random.Random(5)
    names = ["builtin:random", "builtin:hunter", "builtin:swarm", "builtin:defender"]
    reports = []
    for seq in range(1, 41):
        a, b = rng.sample(names, 2)
        ranking = rng.choice([[["p1"], ["p2"]], [["p2"], ["p1"]], [["p1", "p2"]]])
        reports.append(_report(seq, [a, b], ranking))
    ladders = []
    for k in range(3):
        store = Store(f"sqlite:///{tmp_path}/r{k}.db")
        store.migrate()
        lg = League(store, str(tmp_path / f"d{k}"), enabled=False)
        order = list(reports)
        random.Random(k).shuffle(order)
        for rep in order:
            assert lg._commit(rep, "ladder", "arena")
        assert not lg._commit(order[0], "ladder", "arena")  # stored once
        ladders.append(lg.ladder("arena"))
        store.dispose()
    assert ladders[0] == ladders[1] == ladders[2]
    # and they are the ratings of the results in schedule order (computed here)
    want = expected_ratings([{"seq": r.row["seq"], "outcome": r.row["outcome"],
                              "seats": [{"seat": s, "agent": a} for s, a in zip(r.row["seats"], r.row["agents"])]}
                             for r in reports])
    for row in ladders[0]:
        assert row["mu"] == pytest.approx(want[row["agent"]][0])


def test_pairings_are_deterministic_and_by_rating(tmp_path):
    from botwars.server.league import League
    from botwars.store import Store
    from botwars.store.models import LeagueBotRow
    store = Store(f"sqlite:///{tmp_path}/p.db")
    store.migrate()
    with store.write() as s:
        for i in range(4):
            s.add(LeagueBotRow(id=f"b{i}", name=f"n{i}", game="arena", kind="jsonl-py", source="pass\n", version=1,
                               token_hash="0" * 64, status="active", created_at=0.0, updated_at=0.0))
    lg = League(store, str(tmp_path / "d"), house={"arena": []}, enabled=False)
    # b0 beats everyone many times: far above the rest
    for seq in range(1, 13):
        other = f"bot:b{1 + seq % 3}@v1"
        lg._commit(_report(seq, ["bot:b0@v1", other], [["p1"], ["p2"]]), "ladder", "arena")
    jobs = lg.pairings("arena", 4)
    again = lg.pairings("arena", 4)
    assert [(j.match_id, j.seed, j.names) for j in jobs] == [(j.match_id, j.seed, j.names) for j in again]
    assert [j.seq for j in jobs] == [13, 14, 15, 16]
    # every bot with the fewest games gets a match first; each job's seats are two members
    assert all(len(set(j.names)) == 2 for j in jobs)
    other_seed = League(store, str(tmp_path / "d"), house={"arena": []}, enabled=False, seed=9).pairings("arena", 4)
    assert [j.seed for j in other_seed] != [j.seed for j in jobs]
    store.dispose()


@pytest.mark.slow
def test_the_scheduler_thread_plays_ladder_matches_by_itself(league):
    c, lg = league
    upload(c, "auto")
    lg.enabled, lg.idle_s = True, 0.2
    lg.start()
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60:
            rows = [r for r in c.get("/api/league/ladder/arena").json() if r["bot"]]
            if rows and rows[0]["games"] >= 1:
                break
            time.sleep(0.3)
        assert rows[0]["games"] >= 1
    finally:
        lg.stop()


# ---- secrecy and pages ------------------------------------------------------------------------
@pytest.mark.slow
def test_no_source_token_or_server_path_in_public_answers(league):
    c, lg = league
    a = upload(c, "secretive").json()
    lg.step(1)
    public = [c.get("/api/league/bots").text, c.get(f"/api/league/bots/{a['bot']}").text,
              c.get("/api/league/ladder/arena").text, c.get("/league").text, c.get("/league/arena").text,
              c.get(f"/league/bots/{a['bot']}").text, c.get("/openapi.json").text]
    for m in c.get(f"/api/league/bots/{a['bot']}").json()["matches"]:
        public.append(c.get(f"/api/league/matches/{m['match']}").text)
        public.append(c.get(f"/api/league/matches/{m['match']}/record").text)
    for text in public:
        assert MARK not in text and a["token"] not in text and lg.data_dir not in text
    # the bot's private folder is the engine user's only
    folder = os.path.join(lg.data_dir, "league", "bots", a["bot"], "v1")
    assert os.stat(folder).st_mode & 0o077 == 0
    assert "/league" in c.get("/").text  # the lobby links to the league
