"""The issue's Done-when command through the real command line, and bad agent specs."""

import json
import os
import subprocess
import sys

from agent_helpers import ROOT

# the Done-when command says `python3`; the running interpreter is the same thing without the
# start-up cost of wrappers such as pyenv shims (a BotWars.io bot is started every turn)
PY3 = sys.executable


def botwars(*args, cwd=ROOT):
    env = dict(os.environ)
    src = os.path.join(ROOT, "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_done_when_botwars_io_bot_against_unmodified_rgkit_bot_json(tmp_path):
    replay = str(tmp_path / "m.jsonl")
    p = botwars("match", "arena", f"botwars-io:{PY3} examples/mybot.py", "rgkit:examples/robot.py", "--json",
                "--replay", replay)
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout.strip().splitlines()[-1])
    assert set(result) == {"winner", "scores", "turns", "reason", "replay", "errors"}
    assert result["turns"] == 100 and result["reason"] == "turn_limit"  # a full match
    assert result["errors"] == []
    # R28 from the final counts in the record's outcome line: more robots wins, then more HP,
    # else a draw; the command's result names that winner
    with open(replay, encoding="utf-8") as f:
        final = json.loads(f.read().splitlines()[-1])
    robots, hp = final["details"]["robots"], final["details"]["hp"]
    key = {s: (robots[s], hp[s]) for s in ("p1", "p2")}
    want = None if key["p1"] == key["p2"] else max(key, key=key.get)
    assert result["winner"] == final["winner"] == want, (result, final)
    v = botwars("replay", replay, "--verify")
    assert v.returncode == 0, v.stdout + v.stderr


def test_bad_bot_errors_are_shown_in_the_result_table(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("class Bot:\n    def act(self, view):\n        raise KeyError('oops')\n")
    p = botwars("match", "arena", str(bad), "builtin:defender", "--set", "max_turns=2",
                "--replay", str(tmp_path / "m.jsonl"))
    assert p.returncode == 0, p.stderr
    assert "crash KeyError: 'oops' (bad.py:3)" in p.stdout


def test_missing_bot_file_is_a_one_line_error_exit_2(tmp_path):
    p = botwars("match", "arena", "rgkit:nope/robot.py", "builtin:defender", "--replay", str(tmp_path / "m.jsonl"))
    assert p.returncode == 2
    assert "no such file: nope/robot.py" in p.stderr
    assert "Traceback" not in p.stderr


def test_unsplittable_command_is_a_one_line_error_exit_2(tmp_path):
    p = botwars("match", "arena", "cmd:python3 'unterminated", "builtin:defender",
                "--replay", str(tmp_path / "m.jsonl"))
    assert p.returncode == 2
    assert "cannot split command line" in p.stderr
    assert "Traceback" not in p.stderr
