"""``botwars bot check`` (issue 15 item 7, docs/bots.md "Check your bot"): the starter bots in
every language pass; a deliberately faulty bot gets every fault named."""

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STARTERS = os.path.join(ROOT, "examples", "starters")
FAULTY = os.path.join(ROOT, "tests", "agents", "bots", "faulty_jsonl.py")


def botwars(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def need(tool):
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is not installed on this machine (the starter tests need it)")


def build(lang, out):
    """The starter's build command (as in its header comment) → the agent spec."""
    src = os.path.join(STARTERS, lang)
    if lang == "python":
        return f"cmd:python3 {src}/bot.py"
    if lang == "javascript":
        need("node")
        return f"cmd:node --jitless --max-old-space-size=64 {src}/bot.js"
    if lang == "rust":
        need("rustc")
        subprocess.run(["rustc", "-O", "-o", f"{out}/bot", f"{src}/bot.rs"], check=True, capture_output=True)
        return f"cmd:{out}/bot"
    if lang == "cpp":
        need("g++")
        subprocess.run(["g++", "-O2", "-std=c++17", "-o", f"{out}/bot", f"{src}/bot.cpp"], check=True,
                       capture_output=True)
        return f"cmd:{out}/bot"
    need("javac")
    subprocess.run(["javac", "-d", str(out), f"{src}/Bot.java"], check=True, capture_output=True)
    return (f"cmd:java -Xmx64m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=64m "
            f"-XX:CompressedClassSpaceSize=32m -cp {out} Bot")


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["python", "javascript", "rust", "cpp", "java"])
def test_starter_bot_builds_and_passes_bot_check(tmp_path, lang):
    spec = build(lang, tmp_path)
    r = botwars("bot", "check", spec, "--game", "arena", "--opponent", "builtin:hunter", "--decisions", "15", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] and rep["faults"] == []
    assert [m["decisions"] for m in rep["matches"]] == [15, 15]


@pytest.mark.slow
def test_faulty_bot_gets_every_fault_reported_and_exit_1():
    r = botwars("bot", "check", f"cmd:python3 {FAULTY}", "--game", "arena", "--decisions", "5",
                "--set", "turn_time_limit_s=1.0")  # the bot sleeps 2 s at turn 1; 1 s leaves a loaded machine room to start it
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert "late reply" in out                                  # P2/P3 timeout at turn 1
    assert "invalid reply" in out and "not JSON" in out         # turn 2
    assert "no robot of yours there" in out                     # P8 no_robot at turn 3
    assert "crashed" in out and "KeyError" in out               # only on the player-2 view
    assert "did not exit at the end" in out
    crash_lines = [ln for ln in out.splitlines() if "crashed" in ln]
    assert crash_lines and all("seat p2" in ln for ln in crash_lines)


def test_bad_spec_is_one_line_exit_2():
    r = botwars("bot", "check", "cmd:", "--game", "arena")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = botwars("bot", "check", "cmd:python3 x.py", "--game", "nosuchgame")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_report_header_is_one_line_whatever_the_width():
    """Issue 15 item 7 (audit): printed to a pipe or file, the report's first line names the bot,
    the game and the opponent on one line (it was cut at 80 columns, so a long path put the
    opponent on a line of its own)."""
    spec = "cmd:python3 " + os.path.join(STARTERS, "python", "bot.py") + " --" + "x" * 40
    r = botwars("bot", "check", spec, "--game", "arena", "--opponent", "builtin:hunter", "--decisions", "2")
    first = r.stdout.splitlines()[0]
    assert first == f"bot check: {spec} in arena against builtin:hunter", r.stdout


def test_a_bot_that_writes_extra_lines_after_its_reply_is_named():
    """Issue 15 item 7 (audit): a bot that prints more than one line per view passes every
    decision (the engine discards the extra lines), but a late extra line could be read as the
    next view's reply, so the check names it and exits 1."""
    chatty = os.path.join(ROOT, "tests", "agents", "bots", "chatty_jsonl.py")
    r = botwars("bot", "check", f"cmd:python3 {chatty}", "--game", "arena", "--decisions", "6", "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    faults = json.loads(r.stdout)["faults"]
    extra = [f for f in faults if f["code"] == "extra_lines"]
    assert len(extra) == 2  # one per match (the bot plays each seat once)
    assert all("exactly one line" in f["detail"] and int(f["detail"].split()[0]) >= 3 for f in extra)
    # the hazard itself: on a busy machine a debug line can arrive after the next view was sent
    # and be read as its reply (an invalid reply that names the line); nothing else may appear
    others = [f for f in faults if f["code"] != "extra_lines"]
    assert all(f["code"] == "malformed" and "debug: thinking" in f["detail"] for f in others), others
