"""``rgkit:`` seats get RobotGame's own rules by default (issue 28 item 1, docs/arena-robotgame.md):
``botwars match`` and ``botwars tournament`` say so in one line; ``--set rules=...`` wins; mixed
seats keep the arena's rules."""

import json
import os
import subprocess
import sys

from botwars.engine.record import read_record

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROBOT = "rgkit:" + os.path.join(ROOT, "examples", "robot.py")
GUARD = "rgkit:" + os.path.join(ROOT, "tests", "peers", "rgkit", "rgkit", "bots", "guardbot.py")
NOTE = ("every seat is an rgkit: bot, so this plays RobotGame's own rules (rules=robotgame; "
        "--set rules=arena for the arena's)")


def botwars(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def test_match_of_rgkit_bots_plays_robotgame_and_says_so_in_one_line(tmp_path):
    rec = str(tmp_path / "m.jsonl")
    r = botwars("match", "arena", ROBOT, GUARD, "--set", "max_turns=12", "--replay", rec, "--json")
    assert r.returncode == 0, r.stderr
    assert [ln for ln in r.stderr.splitlines() if "rgkit" in ln] == [NOTE]
    header = read_record(rec).header
    assert header["config"]["rules"] == "robotgame" and header["config"]["initial_hp"] == 50
    assert json.loads(r.stdout.splitlines()[-1])["turns"] == 11  # rgkit's turns 1..max_turns-1


def test_set_rules_wins_and_mixed_seats_keep_the_arena(tmp_path):
    rec = str(tmp_path / "a.jsonl")
    r = botwars("match", "arena", ROBOT, GUARD, "--set", "rules=arena", "--set", "max_turns=3", "--replay", rec)
    assert r.returncode == 0, r.stderr
    assert "RobotGame" not in r.stderr
    assert read_record(rec).header["config"]["rules"] == "arena"
    rec = str(tmp_path / "b.jsonl")
    r = botwars("match", "arena", ROBOT, "builtin:hunter", "--set", "max_turns=3", "--replay", rec)
    assert r.returncode == 0, r.stderr
    assert "RobotGame" not in r.stderr
    assert read_record(rec).header["config"]["rules"] == "arena"


def test_tournament_of_rgkit_bots_plays_robotgame(tmp_path):
    out = str(tmp_path / "t")
    r = botwars("tournament", "arena", ROBOT, GUARD, "--set", "max_turns=4", "--out", out)
    assert r.returncode == 0, r.stderr
    assert NOTE in r.stderr
    settings = json.load(open(os.path.join(out, "tournament.json")))  # the tournament's manifest
    assert settings["config"]["rules"] == "robotgame"
