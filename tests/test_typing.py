"""The typed contract (issue 11, item 5): the kernel passes ``mypy --strict``, and its closed
vocabularies (failure codes, clock statuses, on-expiry, kernel outcome reasons) are enums whose
strings are the ones records and the HTTP API have always carried."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from botwars.engine.codes import (ClockStatus, FailureCode, KernelReason, NotAwaitedCode, OnExpiry, Receipt,
                                  RefusalCode)
from botwars.engine.errors import AgentFailure
from botwars.engine.timecontrol import Clock, TimeControl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _mypy(*args: str, cache: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": os.path.join(ROOT, "src")}
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", cache, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_engine_passes_mypy_strict(tmp_path):
    r = _mypy("--strict", "src/botwars/engine", cache=str(tmp_path / "cache"))
    assert r.returncode == 0, f"mypy --strict src/botwars/engine failed:\n{r.stdout}{r.stderr}"
    assert "Success: no issues found" in r.stdout


@pytest.mark.slow
def test_mypy_strict_rejects_untyped_and_mistyped_code(tmp_path):
    """The check is live: strict mode refuses an unannotated function and a clock status used
    as a number (so a passing run above means something)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from botwars.engine.timecontrol import Clock, TimeControl\n"
        "def untyped(x):\n"
        "    return x\n"
        "n: int = Clock.start(TimeControl(1.0), ['p1']).spend('p1', 0.5)\n")
    r = _mypy("--strict", str(probe), cache=str(tmp_path / "cache"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "[no-untyped-def]" in r.stdout
    assert '"ClockStatus"' in r.stdout and "[assignment]" in r.stdout


def test_codes_are_the_record_and_http_strings():
    # the strings written to records and sent over HTTP (docs/kernel.md, docs/server.md)
    assert [c.value for c in FailureCode] == ["timeout", "crash", "memory", "malformed"]
    assert [c.value for c in ClockStatus] == ["ok", "expired", "depleted"]
    assert [c.value for c in OnExpiry] == ["default", "loss"]
    assert [c.value for c in KernelReason] == ["time", "resign", "refused", "adjudicated", "aborted"]
    assert [c.value for c in RefusalCode] == ["malformed", "illegal"]
    assert [c.value for c in Receipt] == ["accepted", "replaced", "refused", "too_late"]
    assert [c.value for c in NotAwaitedCode] == ["match_ended", "not_your_turn", "already_submitted", "not_ready"]
    line = {"clock": {"p1": ClockStatus.EXPIRED}, "errors": {"p1": [{"code": FailureCode.TIMEOUT}]}}
    assert json.dumps(line) == '{"clock": {"p1": "expired"}, "errors": {"p1": [{"code": "timeout"}]}}'
    assert f"{FailureCode.CRASH}" == "crash" and str(KernelReason.TIME) == "time"


def test_time_control_on_expiry_is_an_enum():
    assert TimeControl(1.0, 5.0, None, "loss").on_expiry is OnExpiry.LOSS
    assert TimeControl().on_expiry is OnExpiry.DEFAULT
    assert Clock.start(TimeControl(1.0, 0.0, None, "loss"), ["p1"]).to_json()["on_expiry"] is OnExpiry.LOSS
    with pytest.raises(ValueError):
        TimeControl(1.0, 5.0, None, "lose")


def test_clock_spend_returns_clock_status():
    # P10-style bank: 1 s free per move, 2 s bank
    c = Clock.start(TimeControl(1.0, 2.0), ["p1"])
    assert c.spend("p1", 0.5) is ClockStatus.OK
    assert c.spend("p1", 2.5) is ClockStatus.OK and c.bank_left["p1"] == pytest.approx(0.5)
    assert c.spend("p1", 1.6) is ClockStatus.EXPIRED and c.bank_left["p1"] == 0.0
    # DADOED D-8.3: 30 s increments from a 60 s bank; the second charge empties it
    d = Clock.start(TimeControl(0.0, 60.0, 30.0, OnExpiry.LOSS), ["blue"])
    assert d.spend("blue", 0.4) is ClockStatus.OK
    assert d.spend("blue", 10.0) is ClockStatus.DEPLETED
    assert d.spend("blue", 0.1) is ClockStatus.EXPIRED


def test_agent_failure_code_is_a_failure_code():
    assert AgentFailure("memory", "x").code is FailureCode.MEMORY
    assert str(AgentFailure(FailureCode.TIMEOUT, "no reply within 1 s")) == "timeout: no reply within 1 s"
    with pytest.raises(ValueError, match="unknown failure code 'oops'"):
        AgentFailure("oops")
