"""The CLI plays geeko matches to their end: solo and a race (issue "Done when")."""

import json
import os
import subprocess
import sys

from botwars.engine.ruleset import get_ruleset
from botwars.engine.plugin import get_game

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ENV = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
RS = get_ruleset("geeko")


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True, env=ENV,
                          cwd=cwd)


def test_solo_pathfinder_plays_to_the_end_and_prints_turns(tmp_path):
    r = cli("match", "geeko", "builtin:pathfinder", "--seed", "1", "--set", "turn_limit=4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "turns" in r.stdout and "rooms" in r.stdout
    rep = next(tmp_path.joinpath("replays").iterdir())
    v = cli("replay", str(rep), "--verify", cwd=tmp_path)
    assert v.returncode == 0 and "verified" in v.stdout
    rp = cli("replay", str(rep), "--report", "--turn", "1", cwd=tmp_path)
    assert "TURN 1 STAGE 1 ROOM 1" in rp.stdout and "p1-A" in rp.stdout


def test_two_player_race_json(tmp_path):
    r = cli("match", "geeko", "builtin:pathfinder", "builtin:random", "--seed", "3", "--set", "turn_limit=2",
            "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["reason"] == "turn_limit" and out["turns"] == 2
    assert set(out["scores"]) == {"p1", "p2"}


def test_pathfinder_clears_room_1_quickly():
    gs = RS.setup(RS.validate_config({"turn_limit": 6}), ["p1"], 1)
    bot = get_game(RS.id).builtin_bots()["pathfinder"]()
    bot.start("geeko", "p1", {}, 1)
    while not gs.over and gs.runs[0].room == 1:
        gs, _ = RS.resolve(gs, {"p1": RS.parse_orders(gs, "p1", bot.act(RS.view(gs, "p1")))})
    assert gs.runs[0].room >= 2


def test_random_bot_orders_are_always_valid():
    gs = RS.setup(RS.validate_config({"turn_limit": 6}), ["p1", "p2"], 7)
    bots = {s: get_game(RS.id).builtin_bots()["random"]() for s in ("p1", "p2")}
    for s, b in bots.items():
        b.start("geeko", s, {}, 7)
    while not gs.over:
        gs, _ = RS.resolve(gs, {s: RS.parse_orders(gs, s, bots[s].act(RS.view(gs, s))) for s in RS.pending(gs)})
    assert gs.turn == 6


def test_solo_pathfinder_seed_17_clears_all_five_rooms(tmp_path):
    r = cli("match", "geeko", "builtin:pathfinder", "--seed", "17", "--json", cwd=tmp_path)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["reason"] == "finished" and out["winner"] == "p1"
    assert out["scores"]["p1"] == out["turns"] == 13
