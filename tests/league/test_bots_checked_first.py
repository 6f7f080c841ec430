"""Issue 28 item 5: bots are checked before they play. A tournament refuses a bot that cannot
load (its own file and line named, exit 2, no match played); ``bot check`` plays whole matches
by default (a fault from turn 39 is found; ``--decisions`` keeps the short check); a folder
whose manifest names no game is refused in words ("holds a tournament of None" no more)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}

SYNTAX_ERROR_BOT = '''class Bot:
    def act(self, view):
        return {"orders": [}
'''
"""A Python bot whose line 3 does not parse."""

LATE_CRASH_BOT = '''class Bot:
    def act(self, view):
        if view["turn"] >= 39:
            raise RuntimeError("out of ideas at turn %d" % view["turn"])
        return {"orders": [{"x": r["x"], "y": r["y"], "action": "D"} for r in view["robots"] if r["side"] == "F"]}
'''
"""A Python bot that defends until turn 38 and raises from turn 39 on (line 4)."""


def botwars(*args: str, cwd: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=timeout, cwd=cwd)


@pytest.fixture
def bad_bot(tmp_path) -> str:
    p = tmp_path / "bad_syntax.py"
    p.write_text(SYNTAX_ERROR_BOT)
    return str(p)


@pytest.fixture
def late_bot(tmp_path) -> str:
    p = tmp_path / "late_crash.py"
    p.write_text(LATE_CRASH_BOT)
    return str(p)


def test_load_problem_names_the_bots_own_file_and_line(bad_bot):
    from botwars.agents.check import load_problem
    problem = load_problem(bad_bot, "arena", {"max_turns": 5})
    assert problem is not None
    assert "SyntaxError" in problem and "(bad_syntax.py:3)" in problem, problem
    assert "frozen" not in problem and "importlib" not in problem


def test_the_upload_check_passes_a_bot_that_crashes_only_from_turn_39(late_bot):
    """The short check (4 decisions a seat) is a load check: the late fault is for the whole
    match check and the league's quarantine to find."""
    from botwars.agents.check import load_problem
    assert load_problem(late_bot, "arena") is None


@pytest.mark.slow
def test_a_tournament_refuses_a_bot_that_cannot_load_before_any_match(tmp_path, bad_bot):
    out = str(tmp_path / "t")
    r = botwars("tournament", "arena", "builtin:random", bad_bot, "builtin:hunter", "--set", "max_turns=5",
                "--out", out)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert f"{bad_bot} does not work" in lines[0]
    assert "SyntaxError" in lines[0] and "(bad_syntax.py:3)" in lines[0]
    assert "frozen" not in lines[0]
    assert "no match played" in lines[0]
    with sqlite3.connect(os.path.join(out, "tournament.db")) as c:
        assert c.execute("SELECT count(*) FROM tournament_matches").fetchone()[0] == 0
    assert not os.path.exists(os.path.join(out, "standings.json"))


@pytest.mark.slow
def test_no_check_keeps_the_old_behaviour_the_bad_bot_plays_and_crashes(tmp_path, bad_bot):
    out = str(tmp_path / "t")
    r = botwars("tournament", "arena", "builtin:random", bad_bot, "--set", "max_turns=3", "--no-check",
                "--out", out)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(out, "standings.json")) as f:
        rows = {row["agent"]: row for row in json.load(f)}
    assert rows[bad_bot]["errors"] >= 2 and rows[bad_bot]["games"] == 2


@pytest.mark.slow
def test_bot_check_plays_whole_matches_by_default_and_finds_the_turn_39_crash(late_bot):
    r = botwars("bot", "check", late_bot, "--game", "arena", "--opponent", "builtin:defender", "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert [m["decisions"] for m in rep["matches"]] == [100, 100]  # arena R26: 100 turns
    crashes = [f for f in rep["faults"] if f["code"] == "crash"]
    assert crashes and min(f["decision"] for f in crashes) == 39
    assert all("late_crash.py:4" in f["detail"] and "turn 39" in f["detail"] for f in crashes[:1])
    # the old short check (12 decisions a seat) does not get there
    r = botwars("bot", "check", late_bot, "--game", "arena", "--opponent", "builtin:defender", "--decisions", "12",
                "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [m["decisions"] for m in json.loads(r.stdout)["matches"]] == [12, 12]


@pytest.mark.parametrize("manifest", [{"players": 2}, {"game": None, "agents": ["a", "b"]}])
def test_a_folder_whose_manifest_names_no_game_is_refused_in_words(tmp_path, manifest):
    out = tmp_path / "t"
    out.mkdir()
    (out / "tournament.json").write_text(json.dumps(manifest))
    r = botwars("tournament", "arena", "builtin:random", "builtin:hunter", "--set", "max_turns=3", "--out", str(out))
    assert r.returncode == 2
    assert "None" not in r.stderr
    assert "is not a tournament manifest" in r.stderr and "names no game" in r.stderr
