"""The sixth game (issue 11, item 2): ``minigame`` ("Coins", tests/plugins/minigame/) is a
plug-in in its own distribution, found through its ``botwars.games`` entry point, and plays
through the command line, the server's HTTP API, the web pages (the seat page's JSON box) and
records without a line about it outside its own folder.

Its rules are M1-M7 in ``botwars_minigame/rules.py``; the test session installs it by putting
its folder (with its ``.dist-info``) on ``sys.path`` (pyproject.toml, ``pythonpath``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDER = os.path.join(ROOT, "tests", "plugins", "minigame")
SVG_NS = "{http://www.w3.org/2000/svg}"


def botwars(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    """``botwars ARGS`` in a fresh process that sees the minigame distribution too."""
    path = os.pathsep.join([os.path.join(ROOT, "src"), FOLDER, os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ, PYTHONPATH=path, COLUMNS="200"), timeout=300)


# ---- found as an installed plug-in -----------------------------------------------------------
def test_minigame_is_found_through_the_entry_point_of_its_own_distribution():
    from importlib.metadata import entry_points

    import botwars_minigame
    from botwars.engine.plugin import get_game
    ep = entry_points(group="botwars.games")["minigame"]
    assert ep.dist is not None and ep.dist.name == "botwars-minigame"
    assert ep.value == "botwars_minigame:GAME"
    assert get_game("minigame") is botwars_minigame.GAME is ep.load()
    with open(os.path.join(FOLDER, "pyproject.toml"), "rb") as f:
        declared = tomllib.load(f)["project"]["entry-points"]["botwars.games"]
    assert declared == {"minigame": ep.value}  # the .dist-info says what pip would have written


def test_nothing_in_the_botwars_package_names_the_minigame():
    hits = []
    for root, _, files in os.walk(os.path.join(ROOT, "src", "botwars")):
        for name in files:
            if name.endswith((".py", ".html", ".js", ".toml", ".md")):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    if "minigame" in f.read():
                        hits.append(os.path.join(root, name))
    assert hits == []


def test_minigame_imports_only_the_kernel_and_the_shared_drawing_helpers():
    import grimp
    graph = grimp.build_graph("botwars_minigame", "botwars")
    used = {m for mod in graph.find_children("botwars_minigame") | {"botwars_minigame"}
            for m in graph.find_modules_directly_imported_by(mod) if m.startswith("botwars.")}
    assert used and all(m.startswith(("botwars.engine.", "botwars.render.")) for m in used), used


# ---- the command line ------------------------------------------------------------------------
def test_M_botwars_games_lists_it_and_shows_its_bots():
    r = botwars("games")
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if "minigame" in line)
    assert "simultaneous" in row and "hidden" in row
    r = botwars("games", "minigame")
    assert r.returncode == 0, r.stderr
    assert "builtin:greedy, builtin:random" in r.stdout and "sight" in r.stdout


def test_M4_M6_a_match_on_the_command_line_writes_a_record_that_verifies_and_reports(tmp_path):
    rec = tmp_path / "coins.jsonl"
    r = botwars("match", "minigame", "builtin:greedy", "builtin:random", "--seed", "3", "--replay", str(rec),
                "--json")
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout.splitlines()[-1])
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert lines[0]["ruleset"] == "minigame" and lines[-1]["type"] == "outcome"
    scores = result["scores"]
    assert scores == lines[-1]["scores"]
    assert 0 < sum(scores.values()) <= 5  # M4: a point per coin, five coins by default
    best = [s for s, v in scores.items() if v == max(scores.values())]
    assert result["winner"] == (best[0] if len(best) == 1 else None)  # M6
    v = botwars("replay", str(rec), "--verify")
    assert v.returncode == 0, v.stderr
    assert f"{len(lines) - 2} decision points verified" in v.stdout
    rep = botwars("replay", str(rec), "--report", "--turn", "1")
    assert rep.returncode == 0, rep.stderr
    assert "turn 1" in rep.stdout and "move" in rep.stdout
    pic = tmp_path / "end.svg"
    s = botwars("replay", str(rec), "--svg", str(pic))
    assert s.returncode == 0, s.stderr
    robots = [c for c in ET.parse(pic).getroot().iter(f"{SVG_NS}circle") if "robot of" in ET.tostring(c, "unicode")]
    assert len(robots) == 2


def test_a_tampered_minigame_record_fails_verification(tmp_path):
    rec = tmp_path / "coins.jsonl"
    assert botwars("match", "minigame", "builtin:greedy", "builtin:greedy", "--seed", "4", "--replay",
                   str(rec)).returncode == 0
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    first = lines[1]
    seat = sorted(first["orders"])[0]
    was = first["orders"][seat]
    first["orders"][seat] = {"move": "stay"} if was != {"move": "stay"} else {"move": "N" if seat == "p1" else "S"}
    rec.write_text("".join(json.dumps(x) + "\n" for x in lines))
    v = botwars("replay", str(rec), "--verify")
    assert v.returncode == 1
    assert "decision" in v.stderr + v.stdout


def test_platform_agent_kinds_play_it_and_another_games_kind_is_refused_in_one_line(tmp_path):
    bot = tmp_path / "stay.py"
    bot.write_text("class Bot:\n    def act(self, view):\n        return {'move': 'stay'}\n")
    prog = tmp_path / "prog.py"
    prog.write_text("import sys, json\nfor line in sys.stdin:\n    print(json.dumps({'move': 'stay'}), flush=True)\n")
    r = botwars("match", "minigame", str(bot), f"cmd:{sys.executable} {prog}", "--seed", "1",
                "--set", "max_turns=3", "--replay", str(tmp_path / "r.jsonl"), "--json", "--no-clock")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["reason"] == "turn_limit" and out["errors"] == [] and out["turns"] == 3
    r = botwars("match", "minigame", "rgkit:robot.py", "builtin:random")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "rgkit: agents play only arena, not minigame" in r.stderr


def test_its_scenario_format_runs_through_botwars_scenario_run(tmp_path):
    take = tmp_path / "take.yaml"  # M4
    take.write_text("game: minigame\nconfig: {size: 3, coins: 1}\nrobots: {p1: [0, 0], p2: [2, 2]}\n"
                    "coins: [[1, 0]]\nturns: [{p1: E, p2: W}]\nexpect: {scores: {p1: 1, p2: 0}, "
                    "robots: {p1: [1, 0], p2: [1, 2]}}\n")
    bump = tmp_path / "bump.yaml"  # M3: both aim at the same square: both stay, nobody takes the coin
    bump.write_text("game: minigame\nconfig: {size: 3, coins: 1}\nrobots: {p1: [0, 1], p2: [2, 1]}\n"
                    "coins: [[1, 1]]\nturns: [{p1: E, p2: W}]\nexpect: {scores: {p1: 0, p2: 0}, "
                    "robots: {p1: [0, 1], p2: [2, 1]}}\n")
    wrong = tmp_path / "wrong.yaml"  # the same position, expecting p1 to win the race
    wrong.write_text(bump.read_text().replace("scores: {p1: 0, p2: 0}", "scores: {p1: 1, p2: 0}"))
    r = botwars("scenario", "run", str(take), str(bump), str(wrong))
    assert r.returncode == 1
    assert f"pass {take}" in r.stdout and f"pass {bump}" in r.stdout
    assert f"FAIL {wrong}" in r.stdout and "scores: expected {'p1': 1, 'p2': 0}, got {'p1': 0, 'p2': 0}" in r.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: minigame\nrobots: {p1: [0, 0]}\n")
    r = botwars("scenario", "run", str(bad))
    assert r.returncode == 2 and "'robots' needs p1 and p2" in r.stderr


# ---- the server and the web pages ------------------------------------------------------------
@pytest.fixture
def site(tmp_path):
    """The API server with the browser pages mounted (as `botwars serve`), bots played inline."""
    from fastapi.testclient import TestClient

    from botwars.server.app import create_app
    from botwars.web import install_web
    app = create_app(f"sqlite:///{tmp_path}/bw.db", background=False)
    install_web(app)
    with TestClient(app) as client:
        yield client


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_M1_M5_M7_a_seat_plays_a_whole_match_over_http_and_its_record_verifies(site, tmp_path):
    games = {g["id"]: g for g in site.get("/api/games").json()}
    assert games["minigame"]["capabilities"]["turns"] == "simultaneous"
    assert games["minigame"]["bots"] == ["greedy", "random"]
    r = site.post("/api/matches", json={"game": "minigame", "seats": ["remote", "builtin:greedy"], "seed": 5,
                                        "clock": False, "config": {"sight": 1}})
    assert r.status_code == 201, r.text
    mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
    refused = site.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": 1, "orders": {"move": "W"}})
    assert refused.status_code == 422 and "leaves the board" in refused.json()["message"]  # M2 from (0, 0)
    spectator = site.get(f"/api/matches/{mid}/view").json()
    assert spectator["view"]["coins"] == [] and spectator["view"]["coins_left"] == 5  # M5
    turns = 0
    while True:
        snap = site.get(f"/api/matches/{mid}/view", headers=H(tok)).json()
        if snap["status"] == "ended":
            break
        me = snap["view"]["robots"]["p1"]
        assert all(abs(x - me[0]) + abs(y - me[1]) <= 1 for x, y in snap["view"]["coins"])  # M5, sight 1
        legal = site.get(f"/web/matches/{mid}/helpers", params={"token": tok}).json()["legal"]
        move = {"move": "N"} if {"move": "N"} in legal else {"move": "E"} if {"move": "E"} in legal else legal[0]
        ok = site.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": snap["decision"], "orders": move})
        assert ok.status_code == 200, ok.text
        turns += 1
    assert 1 <= turns <= 30
    own = [json.loads(x) for x in site.get(f"/api/matches/{mid}/record", headers=H(tok)).text.splitlines()]
    assert all(set(line["orders"]) <= {"p1"} for line in own[1:-1])
    full = site.get(f"/api/matches/{mid}/record")
    assert full.status_code == 200
    rec = tmp_path / "server.jsonl"
    rec.write_text(full.text)
    v = botwars("replay", str(rec), "--verify")
    assert v.returncode == 0, v.stdout + v.stderr


def test_the_seat_page_offers_the_json_box_and_the_replay_pages_work(site):
    r = site.post("/api/matches", json={"game": "minigame", "seats": ["remote", "builtin:random"], "seed": 2,
                                        "clock": False, "config": {"max_turns": 2}})
    mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
    assert "minigame" in site.get("/").text
    page = site.get(f"/play/{mid}", params={"token": tok})
    assert page.status_code == 200
    assert 'id="orders-json"' in page.text and "/entry.js" not in page.text  # the generic entry only
    assert site.get("/web/games/minigame/entry.js").status_code == 404
    board = ET.fromstring(site.get(f"/web/matches/{mid}/board.svg", params={"token": tok}).text)
    assert board.tag == f"{SVG_NS}svg"
    helpers = site.get(f"/web/matches/{mid}/helpers", params={"token": tok}).json()
    assert helpers["legal"] == [{"move": "N"}, {"move": "E"}, {"move": "stay"}]  # from (0, 0)
    for d in (1, 2):
        assert site.post(f"/api/matches/{mid}/orders", headers=H(tok),
                         json={"decision": d, "orders": {"move": "N"}}).status_code == 200
    assert site.get(f"/replay/{mid}").status_code == 200
    steps = site.get(f"/web/matches/{mid}/replay.json").json()["steps"]
    assert len(steps) == 3 and steps[1]["orders"]["p1"] == {"move": "N"}
    assert steps[1]["report"].startswith('<pre class="report">turn ') and "move" in steps[1]["report"]
    assert ET.fromstring(site.get(f"/web/matches/{mid}/replay/2.svg").text).tag == f"{SVG_NS}svg"
