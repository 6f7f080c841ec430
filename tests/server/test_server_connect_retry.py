"""`botwars connect` to a server that cannot be reached (issue 11, audit): it says so once, naming
the URL, backs off exponentially (capped) and gives up after --retry-for seconds with exit 2."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import httpx
import pytest

from server_support import ROOT
from botwars.server.client import MAX_RETRY_S, Outage, ServerError

ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}


def closed_port() -> int:
    """A local port nothing listens on (bound, then closed again)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeClock:
    def __init__(self):
        self.t = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.t += s


def test_outage_backs_off_exponentially_up_to_the_cap_then_gives_up_once():
    clock, lines, tries = FakeClock(), [], []

    def down():
        tries.append(clock.t)
        raise httpx.ConnectError("[Errno 111] Connection refused")

    o = Outage("http://example.invalid:1", 60.0, lines.append, clock=clock, sleep=clock.sleep)
    with pytest.raises(ServerError) as e:
        o.call(down)
    assert clock.sleeps[:6] == [0.5, 1.0, 2.0, 4.0, 8.0, MAX_RETRY_S]
    assert MAX_RETRY_S == 10.0 and max(clock.sleeps) == MAX_RETRY_S
    assert sum(clock.sleeps) == 60.0  # the last wait is cut to end exactly at --retry-for
    assert clock.sleeps[6:] == [10.0, 10.0, 10.0, 4.5] and len(tries) == 11
    assert lines == ["cannot reach the server at http://example.invalid:1 (ConnectError: [Errno 111] Connection "
                     "refused); retrying with back-off for up to 60 s (--retry-for)"]
    assert str(e.value) == ("the server at http://example.invalid:1 could not be reached for 60 s "
                            "(ConnectError: [Errno 111] Connection refused); giving up")


def test_outage_ends_when_the_server_answers_and_a_new_one_is_announced_again():
    clock, lines = FakeClock(), []
    o = Outage("http://h:1", 30.0, lines.append, clock=clock, sleep=clock.sleep)
    answers = iter([OSError("down"), OSError("down"), "ok", OSError("down"), "ok"])

    def flaky():
        a = next(answers)
        if isinstance(a, Exception):
            raise a
        return a

    assert o.call(flaky) == "ok"
    assert clock.sleeps == [0.5, 1.0]
    assert o.call(flaky) == "ok"
    assert clock.sleeps == [0.5, 1.0, 0.5]  # a new outage starts its back-off afresh
    assert [ln.split(" (")[0] for ln in lines] == ["cannot reach the server at http://h:1", "reconnected to http://h:1 after 1.5 s",
                                                   "cannot reach the server at http://h:1", "reconnected to http://h:1 after 0.5 s"]


def test_outage_does_not_retry_a_refusal():
    o = Outage("http://h:1", 30.0, lambda _m: None, sleep=lambda _s: pytest.fail("slept"))
    with pytest.raises(ServerError):
        o.call(lambda: (_ for _ in ()).throw(ServerError("server said 403: bad token", 403)))


def test_cli_connect_to_a_closed_port_says_so_once_and_exits_2_after_retry_for():
    url = f"http://127.0.0.1:{closed_port()}"
    r = subprocess.run([sys.executable, "-m", "botwars.cli", "connect", url, "tok", "builtin:random",
                        "--retry-for", "2"], capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2, r.stderr
    assert lines[0].startswith(f"cannot reach the server at {url} (ConnectError")
    assert lines[0].endswith("retrying with back-off for up to 2 s (--retry-for)")
    assert lines[1].startswith(f"error: the server at {url} could not be reached for 2 s") and "Traceback" not in r.stderr
    assert r.stdout == ""
    q = subprocess.run([sys.executable, "-m", "botwars.cli", "connect", url, "tok", "builtin:random",
                        "--retry-for", "0", "-q"], capture_output=True, text=True, env=ENV, timeout=60)
    assert q.returncode == 2 and len(q.stderr.strip().splitlines()) == 1
    assert "could not be reached for 0 s" in q.stderr


def test_cli_connect_help_explains_retry_for_and_refuses_a_negative_value():
    from typer.testing import CliRunner

    from botwars.cli import app
    h = CliRunner().invoke(app, ["connect", "--help"], terminal_width=200)
    assert h.exit_code == 0 and "--retry-for" in h.output and "SECONDS" in h.output
    assert "up to 10 s between tries" in " ".join(h.output.split())
    r = CliRunner().invoke(app, ["connect", "http://127.0.0.1:9", "t", "builtin:random", "--retry-for", "-1"])
    assert r.exit_code == 2
