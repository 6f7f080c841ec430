"""The sixth-game contract (issue 26 item 5): a game in one folder gets the whole platform with
no platform edit.

Flag race (``tests/plugins/sixth/``, rules F1-F6 in ``flagrace/rules.py``) lives only under
``tests/``; the fixture ``flagrace`` (tests/conftest.py) registers its ``GAME`` through the
registry the ``botwars.games`` entry points feed. It declares a drawing, a legend, a report, a
scenario format, a How-to-play page, a rules page, bots, its docs and its tests, and **no**
learning-environment encoding (its legal orders are enumerable, so it gets the default one).
With that alone it plays through: the command line (games, match, replay, ``--verify``,
``--report``, ``--svg``, ``scenario run`` on the scenario files its declaration names), the
conformance suite (the same checks every shipped game passes), the server over HTTP to the end
(the record verifies), the seat page and its pictures, the How-to-play and rules pages, and the
PettingZoo and Gymnasium environments (reset and step to the end). Nothing under
``src/botwars`` names it.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from typer.testing import CliRunner

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENGINE_TESTS = os.path.join(ROOT, "tests", "engine")
SVG_NS = "{http://www.w3.org/2000/svg}"


def botwars(*args: str):
    """``botwars ARGS`` in this process (where the fixture registered the game)."""
    from botwars.cli import app
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def conformance_tests():
    """The conformance suite's modules (tests/engine), imported as their own tests import them."""
    if ENGINE_TESTS not in sys.path:
        sys.path.insert(0, ENGINE_TESTS)
    import test_conformance_http
    import test_conformance_play
    return test_conformance_play, test_conformance_http


# ---- the folder and the declaration ----------------------------------------------------------
def test_the_game_is_one_folder_that_no_platform_file_names(flagrace):
    folder = os.path.join(ROOT, "tests", "plugins", "sixth")
    assert flagrace.package() == "flagrace"
    paths = flagrace.source_paths()
    assert paths == {"docs": [os.path.join(folder, "README.md")], "tests": [os.path.join(folder, "tests")]}
    assert all(os.path.exists(p) for p in paths["docs"] + paths["tests"])
    assert flagrace.rl is None and flagrace.capabilities.finite_legal_orders
    hits = []
    for base, _, files in os.walk(os.path.join(ROOT, "src", "botwars")):
        for name in files:
            if name.endswith((".py", ".html", ".js", ".toml", ".md", ".css")):
                with open(os.path.join(base, name), encoding="utf-8") as f:
                    text = f.read().lower()
                if "flagrace" in text or "flag race" in text:
                    hits.append(name)
    assert hits == []


# ---- the command line --------------------------------------------------------------------------
def test_cli_lists_it_plays_it_and_the_record_replays_verifies_reports_and_draws(flagrace, tmp_path):
    r = botwars("games")
    assert r.exit_code == 0, r.output
    row = next(line for line in r.output.splitlines() if "flagrace" in line)
    assert "alternating" in row and "full" in row
    r = botwars("games", "flagrace")
    assert r.exit_code == 0, r.output
    assert "builtin:perfect, builtin:random" in r.output and "max_step" in r.output
    assert "pages: /rules/flagrace, /howto/flagrace" in r.output and "tests: tests" in r.output
    rec = tmp_path / "race.jsonl"
    r = botwars("match", "flagrace", "builtin:perfect", "builtin:random", "--seed", "3", "--replay", str(rec),
                "--json")
    assert r.exit_code == 0, r.output
    result = json.loads(r.output.strip().splitlines()[-1])
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert lines[0]["ruleset"] == "flagrace" and lines[-1]["type"] == "outcome"
    # F2: one seat a turn, p1 first; F1/F4: the steps add up to the flag's square, 8
    points = lines[1:-1]
    movers = [next(iter(x["orders"])) for x in points]
    assert movers == ["p1" if k % 2 == 0 else "p2" for k in range(len(points))]
    assert sum(x["orders"][m]["step"] for x, m in zip(points, movers)) == 8
    assert points[0]["orders"]["p1"] == {"step": 1}  # 8 squares to go: no winning step, the perfect bot steps 1
    assert result["winner"] == movers[-1] == lines[-1]["winner"]  # F4: who reached the flag
    v = botwars("replay", str(rec), "--verify")
    assert v.exit_code == 0, v.output
    assert f"{len(points)} decision points verified" in v.output
    rep = botwars("replay", str(rec), "--report", "--turn", "1")
    assert rep.exit_code == 0, rep.output
    assert "p1 steps" in rep.output
    pic = tmp_path / "end.svg"
    s = botwars("replay", str(rec), "--svg", str(pic))
    assert s.exit_code == 0, s.output
    counters = [c for c in ET.parse(pic).getroot().iter(f"{SVG_NS}circle")
                if "the counter on square 8" in ET.tostring(c, "unicode")]
    assert len(counters) == 1
    # a tampered record fails verification
    points[0]["orders"]["p1"]["step"] = 1 if points[0]["orders"]["p1"]["step"] != 1 else 2
    rec.write_text("".join(json.dumps(x) + "\n" for x in [lines[0], *points, lines[-1]]))
    assert botwars("replay", str(rec), "--verify").exit_code == 1


def test_cli_runs_the_scenario_files_its_declaration_names(flagrace, tmp_path):
    files = sorted(f for d in flagrace.source_paths()["tests"] for f in glob.glob(os.path.join(d, "**", "*.yaml"),
                                                                                   recursive=True))
    assert len(files) == 3
    r = botwars("scenario", "run", *files)
    assert r.exit_code == 0, r.output
    assert all(f"pass {f}" in r.output for f in files)
    wrong = tmp_path / "wrong.yaml"  # F3's file, expecting the refused step to be taken
    wrong.write_text("game: flagrace\nsquare: 7\nsteps: [2]\nexpect: {square: 8}\n")
    r = botwars("scenario", "run", str(wrong))
    assert r.exit_code == 1 and f"FAIL {wrong}" in r.output and "passes the flag" in r.output


# ---- the conformance suite -----------------------------------------------------------------------
@pytest.mark.parametrize("seed", (0, 1, 2))
def test_conformance_random_playthroughs(flagrace, seed, tmp_path):
    play, _ = conformance_tests()
    play.test_random_playthrough_passes_the_checks_at_every_decision_point("flagrace", seed, tmp_path)
    play.test_same_seed_and_same_orders_give_the_same_record_times_aside("flagrace", tmp_path)


def test_conformance_over_http(flagrace, tmp_path):
    _, http = conformance_tests()
    http.test_http_another_seats_refusals_and_hidden_facts_change_nothing_a_seat_reads("flagrace", tmp_path)


# ---- the server and the pages -------------------------------------------------------------------
@pytest.fixture
def site(flagrace, tmp_path):
    """The API server with the browser pages mounted (as ``botwars serve``), bots played inline."""
    from fastapi.testclient import TestClient

    from botwars.server.app import create_app
    from botwars.web import install_web
    app = create_app(f"sqlite:///{tmp_path}/bw.db", background=False)
    install_web(app)
    with TestClient(app) as client:
        yield client


def H(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_seat_plays_a_whole_match_over_http_and_its_record_verifies(site, tmp_path):
    games = {g["id"]: g for g in site.get("/api/games").json()}
    assert games["flagrace"]["capabilities"]["turns"] == "alternating"
    r = site.post("/api/matches", json={"game": "flagrace", "seats": ["remote", "builtin:random"], "seed": 5,
                                        "clock": False})
    assert r.status_code == 201, r.text
    mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
    refused = site.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": 1, "orders": {"step": 4}})
    assert refused.status_code == 422 and "from 1 to 3" in refused.json()["message"]  # F2
    moves = 0
    while True:
        snap = site.get(f"/api/matches/{mid}/view", headers=H(tok)).json()
        if snap["status"] == "ended":
            break
        assert snap["view"]["to_move"] == "p1"  # the built-in p2 answered at once
        legal = site.get(f"/web/matches/{mid}/helpers", params={"token": tok}).json()["legal"]
        assert legal and all(set(o) == {"step"} for o in legal)
        ok = site.post(f"/api/matches/{mid}/orders", headers=H(tok),
                       json={"decision": snap["decision"], "orders": legal[-1]})
        assert ok.status_code == 200, ok.text
        moves += 1
    assert 1 <= moves <= 8
    final = site.get(f"/api/matches/{mid}/view", headers=H(tok)).json()
    assert final["view"]["square"] == 8 and final["view"]["winner"] in ("p1", "p2")  # F4
    full = site.get(f"/api/matches/{mid}/record")
    assert full.status_code == 200
    rec = tmp_path / "server.jsonl"
    rec.write_text(full.text)
    v = botwars("replay", str(rec), "--verify")
    assert v.exit_code == 0, v.output


def test_the_seat_page_its_pictures_and_the_game_pages(site):
    r = site.post("/api/matches", json={"game": "flagrace", "seats": ["remote", "builtin:perfect"], "seed": 2,
                                        "clock": False})
    mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
    assert "flagrace" in site.get("/").text
    page = site.get(f"/play/{mid}", params={"token": tok})
    assert page.status_code == 200
    assert 'id="orders-json"' in page.text and "/howto/flagrace" in page.text
    assert site.get("/web/games/flagrace/entry.js").status_code == 404  # no page kit: the JSON box
    board = ET.fromstring(site.get(f"/web/matches/{mid}/board.svg", params={"token": tok}).text)
    assert board.tag == f"{SVG_NS}svg" and "the counter on square 0" in ET.tostring(board, "unicode")
    legend = site.get(f"/web/matches/{mid}/legend.svg", params={"token": tok})
    assert legend.status_code == 200 and "the flag: the last square" in legend.text
    assert site.post(f"/api/matches/{mid}/orders", headers=H(tok),
                     json={"decision": 1, "orders": {"step": 2}}).status_code == 200
    watch = site.get(f"/web/matches/{mid}/turn/1/watch.json", params={"token": tok})
    assert watch.status_code == 200 and watch.json()["frames"]
    stages = site.get(f"/web/matches/{mid}/turn/1/stages.json", params={"token": tok})
    assert stages.status_code == 404 and "has no stages" in stages.json()["message"]  # declared none: 404
    howto = site.get("/howto/flagrace")
    assert howto.status_code == 200
    assert howto.text.count('class="howto-picture"') == 2 and "cannot be drawn" not in howto.text
    assert "the counter on square 8" in howto.text  # the worked example's step of 3 from square 5, drawn
    rules = site.get("/rules/flagrace")
    assert rules.status_code == 200 and "F3. A step that would carry the counter past the flag" in rules.text


def test_the_replay_pages_show_its_report_and_drawings(site):
    r = site.post("/api/matches", json={"game": "flagrace", "seats": ["builtin:perfect", "builtin:random"],
                                        "seed": 1, "clock": False})
    mid = r.json()["match"]
    assert site.get(f"/api/matches/{mid}").json()["status"] == "ended"
    assert site.get(f"/replay/{mid}").status_code == 200
    steps = site.get(f"/web/matches/{mid}/replay.json").json()["steps"]
    assert len(steps) >= 3 and "p1 steps" in steps[1]["report"]
    assert ET.fromstring(site.get(f"/web/matches/{mid}/replay/1.svg").text).tag == f"{SVG_NS}svg"


# ---- learning environments: the default encoding -------------------------------------------------
def test_the_pettingzoo_environment_runs_to_the_end_on_the_default_encoding(flagrace):
    from botwars import rl
    env = rl.env("flagrace")
    env.reset(seed=4)
    steps, rewards = 0, {}
    for agent in env.agent_iter(max_iter=100):
        obs, reward, term, trunc, info = env.last()
        rewards[agent] = reward
        if term or trunc:
            env.step(None)
            continue
        mask = env.action_mask(agent)  # the mask sits beside the observation (issue 29 item 1)
        view = json.loads(bytes(obs["view"][:int(obs["length"][0])]).decode())  # the seat's own view
        assert view["you"] == agent and mask.shape == (257,)
        if view["to_move"] != agent:  # F2: not its turn: only the wait action
            assert np.flatnonzero(mask).tolist() == [0]
            env.step(0)
            continue
        assert mask[0] == 0 and 1 <= mask.sum() <= 3  # F2: steps 1..3 (F3: fewer near the flag)
        env.step(int(np.flatnonzero(mask)[-1]))  # the longest legal step
        steps += 1
    assert steps == 3  # 3 + 3 + 2 squares: p1, p2, p1
    assert rewards == {"p1": 1.0, "p2": -1.0}


def test_the_gymnasium_environment_plays_against_a_builtin_bot(flagrace):
    from botwars import rl
    env = rl.gym_env("flagrace", opponent="perfect")
    obs, info = env.reset(seed=0)
    done, total, n = False, 0.0, 0
    while not done:
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        total += reward
        done = term or trunc
        n += 1
    assert n >= 1 and total == -1.0  # stepping 1 every time loses to the perfect bot


# ---- a game without the optional hooks: every picture and page answers, 404 where it has none ----
def test_without_drawing_legend_report_or_pages_every_route_answers_and_none_with_500(flagrace, tmp_path):
    """The same game declared with nothing but its rules and bots (no drawing, legend, report,
    stages, How-to-play or rules page): the pages still work, and every route for a missing hook
    answers 404 with a sentence naming what is missing, never 500."""
    import dataclasses

    from fastapi.testclient import TestClient

    from botwars.engine.plugin import register_game
    from botwars.server.app import create_app
    from botwars.web import install_web
    bare = register_game(dataclasses.replace(flagrace, svg=None, legend=None, report=None, how_to_play=None,
                                             rules_page=None, stages=None, scenario=None))
    assert bare.svg is None
    app = create_app(f"sqlite:///{tmp_path}/bw.db", background=False)
    install_web(app)
    with TestClient(app, raise_server_exceptions=False) as site:
        r = site.post("/api/matches", json={"game": "flagrace", "seats": ["remote", "builtin:perfect"], "seed": 2,
                                            "clock": False})
        mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
        while (snap := site.get(f"/api/matches/{mid}/view", headers=H(tok)).json())["status"] != "ended":
            assert site.post(f"/api/matches/{mid}/orders", headers=H(tok),
                             json={"decision": snap["decision"], "orders": {"step": 1}}).status_code == 200
        q = {"token": tok}
        missing = {f"/web/matches/{mid}/board.svg": "has no board drawing",
                   f"/web/matches/{mid}/legend.svg": "draws no legend",
                   f"/web/matches/{mid}/turn/1/watch.json": "has no board drawing",
                   f"/web/matches/{mid}/turn/1/stages.json": "has no stages",
                   f"/web/matches/{mid}/turn/1/frame/0.svg": "has no stages",
                   f"/web/matches/{mid}/replay/1.svg": "has no board drawing",
                   "/rules/flagrace": "no rules page", "/howto/flagrace": "no How-to-play page"}
        for url, words in missing.items():
            got = site.get(url, params=q, headers={"Accept": "application/json"})
            assert got.status_code == 404, (url, got.status_code, got.text[:300])
            assert words in got.text, (url, got.text[:300])
        for url in (f"/play/{mid}?token={tok}", f"/watch/{mid}", "/", f"/replay/{mid}", f"/web/matches/{mid}/replay.json",
                    f"/web/matches/{mid}/replay/1.json", f"/matches/{mid}/turns", f"/matches/{mid}/turns/1"):
            got = site.get(url)
            assert got.status_code == 200, (url, got.status_code, got.text[:300])
        page = site.get(f"/play/{mid}", params=q).text
        assert "/howto/flagrace" not in page and "/rules/flagrace" not in page  # no link to a missing page
