"""The BotWars.io V2 text transport (P1a, P2-P7, P10, P14) through :class:`BotwarsIoAgent`."""

import os
import signal

import pytest

from botwars.agents.tools import TOOLS
from botwars.games.arena.protocol import BotwarsIoAgent
from botwars.agents import AgentFailure

from agent_helpers import PY, accepted, all_defend, bot, errors_of, example, play


def test_P2_example_bot_keeps_its_state_in_user_data(tmp_path):
    res, rec = play(tmp_path, f"botwars-io:{PY} {example('mybot.py')}", "builtin:hunter", max_turns=6)
    assert errors_of(res, "p1") == []
    assert res.turns == 6
    users = [d["orders"]["p1"].partition("#")[2] for d in rec.decisions]
    assert users[0] == "v1;h=200;q=0;m=hold"
    assert all(u.startswith("v1;h=") for u in users)


def test_P2_first_line_only_with_trailing_CR_removed_and_P7_user_data_round_trip(tmp_path):
    res, rec = play(tmp_path, f"botwars-io:{PY} {bot('io_faulty.py')} none", "builtin:defender", max_turns=3)
    assert errors_of(res, "p1") == []
    # the response is the first line only; user data "n<len of the previous user data>"
    assert [d["orders"]["p1"] for d in rec.decisions] == [
        "5:5-M-E,5:12-M-E#n0", "6:5-M-E,6:12-M-E#n2", "7:5-M-E,7:12-M-E#n2"]


def test_P2_response_without_LF_is_all_of_stdout(tmp_path):
    res, rec = play(tmp_path, f"botwars-io:{PY} {bot('io_faulty.py')} nolf", "builtin:defender", max_turns=3)
    assert errors_of(res, "p1") == []
    assert rec.decisions[1]["orders"]["p1"] == "6:5-M-E,6:12-M-E#n2"


@pytest.mark.parametrize("mode,code,detail", [
    ("exit", "crash", "exit status 4: boom: giving up on turn 2"),
    ("badutf8", "malformed", "not valid UTF-8"),
    ("garbage", "malformed", "bad token '5:5-M-Q'"),
    ("long", "malformed", "longer than 8192"),
])
def test_P3_P6_P10_failed_response_defends_and_keeps_user_data(tmp_path, mode, code, detail):
    res, rec = play(tmp_path, f"botwars-io:{PY} {bot('io_faulty.py')} {mode}", "builtin:defender")
    assert errors_of(res, "p1") == [(2, code)]
    err = [e for e in res.errors if e["seat"] == "p1"][0]
    assert detail in err["detail"]
    assert rec.decisions[1]["errors"]["p1"][0]["code"] == code
    assert all_defend(accepted(rec, 2, "p1"))
    # H18: the user data is unchanged by the failed turn ("n0" stored after turn 1 is 2 long)
    assert rec.decisions[2]["orders"]["p1"].endswith("#n2")
    assert "-M-E" in accepted(rec, 3, "p1")


def test_P3_memory_limit_is_reported_as_memory(tmp_path):
    res, rec = play(tmp_path, f"botwars-io:{PY} {bot('io_faulty.py')} memory", "builtin:defender",
                    memory_limit_mib=256)
    assert errors_of(res, "p1") == [(2, "memory")]
    assert "MemoryError" in res.errors[0]["detail"]
    assert all_defend(accepted(rec, 2, "p1"))


def test_P3_hang_is_a_timeout_and_the_whole_process_group_is_killed(tmp_path):
    res, rec = play(tmp_path, f"botwars-io:{PY} {bot('io_faulty.py')} hang", "builtin:defender",
                    turn_time_limit_s=1.0)
    assert errors_of(res, "p1") == [(2, "timeout")]
    assert all_defend(accepted(rec, 2, "p1"))
    assert "-M-E" in accepted(rec, 3, "p1")


def _running_with(token: str) -> list[int]:
    """Host pids of live processes (zombies aside) whose command line holds ``token``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                if token.encode() not in f.read():
                    continue
            with open(f"/proc/{d}/stat", encoding="utf-8") as f:
                if f.read().rpartition(")")[2].split()[0] in ("Z", "X"):
                    continue
        except OSError:
            continue
        out.append(int(d))
    return out


def test_P3_timeout_kills_grandchildren_too(tmp_path):
    # The bot starts a grandchild (``python -c``: only the bot's own file is visible in the
    # sandbox; the grandchild's command line carries a token), waits until the grandchild says
    # it runs, then hangs. The grandchild is seen running on the host (/proc) for at least half
    # a second while the bot is asked (so it really ran, not a failed start), and must be gone
    # after the timeout. (The sandboxed bot can write neither to tmp_path nor open other files
    # there: a marker file written by a grandchild script would prove nothing.)
    import threading
    import time
    import uuid
    token = f"botwars-grandchild-{uuid.uuid4().hex}"
    code = "import sys, time; sys.stdout.write('up\\n'); sys.stdout.flush(); time.sleep(60)"
    parent = tmp_path / "parent.py"
    parent.write_text(f"import subprocess, sys, time\n"
                      f"p = subprocess.Popen([sys.executable, '-c', {code!r}, {token!r}], stdout=subprocess.PIPE)\n"
                      "p.stdout.readline()\ntime.sleep(60)\n")
    agent = BotwarsIoAgent([PY, str(parent)], tools=TOOLS)
    view = {"turn": 1, "max_turns": 1, "player": 1, "robots": [], "user_data": ""}
    first_seen: dict[int, float] = {}
    lived = [0.0]
    asked = threading.Event()

    # /proc is polled in a side thread while the bot is asked in this one (the sandbox ties the
    # bot's life to the thread that started it: PR_SET_PDEATHSIG); no fixed sleep decides anything
    def watch():
        while not asked.is_set():
            now = time.monotonic()
            for pid in _running_with(token):
                lived[0] = max(lived[0], now - first_seen.setdefault(pid, now))
            time.sleep(0.02)
    w = threading.Thread(target=watch)
    w.start()
    try:
        with pytest.raises(AgentFailure) as info:
            agent.act(view, 6.0)
    finally:
        asked.set()
        w.join()
    assert info.value.code == "timeout", info.value.detail
    lived = lived[0]
    assert lived >= 0.5, "the grandchild was never seen running before the timeout"
    end = time.monotonic() + 10  # a deadline for the kernel to finish the kill, not a timing
    while _running_with(token) and time.monotonic() < end:
        time.sleep(0.02)
    left = _running_with(token)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "the bot's grandchild survived the timeout (P3: everything it started is killed)"


def test_P4_observation_line_is_sent_with_LF_then_EOF():
    agent = BotwarsIoAgent([PY, "-c", "import sys; d=sys.stdin.buffer.read(); sys.stdout.write(repr(d))"], tools=TOOLS)
    view = {"turn": 1, "max_turns": 100, "player": 1,
            "robots": [{"side": "F", "x": 5, "y": 5, "hp": 100}, {"side": "E", "x": 12, "y": 5, "hp": 100}],
            "user_data": "a#b"}
    assert agent.act(view, 5.0) == repr(b"1,100,1#F-5:5-100,E-12:5-100#a#b\n")


def test_P3_program_that_cannot_start_is_a_crash():
    agent = BotwarsIoAgent(["/nonexistent/bot"], tools=TOOLS)
    with pytest.raises(AgentFailure) as info:
        agent.act({"turn": 1, "max_turns": 1, "player": 1, "robots": [], "user_data": ""}, 1.0)
    assert info.value.code == "crash"
    assert "cannot start /nonexistent/bot" in info.value.detail
