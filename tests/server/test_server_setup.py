"""Set-up on a fresh machine (issue 25 item 10): ``make run`` installs bubblewrap when missing
(``scripts/ensure-bubblewrap.sh``, as the tests do) before it starts the server; ``botwars
serve`` prints the bots' isolation level at start, and below ``BOTWARS_SANDBOX_MIN`` says that
league uploads are off and why, as the lobby page does.

The machine's isolation level is pretended (the probe's cache is set) where a test needs a
level this machine does not have.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from typer.testing import CliRunner

from server_support import ROOT, make_client

from botwars.agents import sandbox


def _detected(monkeypatch, level, reasons=()):
    """Pretend this machine's probe found ``level`` (no bwrap is started)."""
    monkeypatch.setattr(sandbox, "_probe_cache", sandbox.Report([], level, reasons=list(reasons)))


def test_make_run_installs_bubblewrap_before_it_starts_the_server():
    r = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    ensure = [i for i, x in enumerate(lines) if "scripts/ensure-bubblewrap.sh" in x and not x.startswith("#")]
    serve = [i for i, x in enumerate(lines) if " serve " in x]
    assert ensure and serve and ensure[0] < serve[0], r.stdout
    # a machine where it cannot be installed still runs the demo and the server, saying so
    assert "||" in lines[ensure[0]] and "lower isolation level" in lines[ensure[0]]


@pytest.fixture
def serve_cli(monkeypatch, tmp_path):
    """``botwars serve`` up to the point where uvicorn would start (it is recorded instead)."""
    from botwars import cli
    from botwars.server.manager import MatchManager
    started: dict = {}
    monkeypatch.setattr(MatchManager, "start", lambda self: None)
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: started.update(kw))
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")

    def run(*extra: str):
        r = CliRunner().invoke(cli.app, ["serve", "--db", f"sqlite:///{tmp_path}/bw.db", "--port", "0", *extra])
        return r, started
    return run


def test_serve_prints_the_isolation_level_at_start(serve_cli, monkeypatch):
    _detected(monkeypatch, "full")
    monkeypatch.delenv("BOTWARS_SANDBOX_MIN", raising=False)
    r, started = serve_cli()
    assert r.exit_code == 0, r.output
    assert "bot isolation: level full" in r.output
    assert "uploads are off" not in r.output
    assert started  # and then the server ran


def test_serve_says_uploads_are_off_below_the_minimum_and_why(serve_cli, monkeypatch):
    _detected(monkeypatch, "process", ["bubblewrap: bwrap not found (run scripts/ensure-bubblewrap.sh)"])
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "full")
    r, _ = serve_cli()
    assert r.exit_code == 0, r.output
    assert "bot isolation: level process" in r.output
    off = [x for x in r.output.splitlines() if x.startswith("league uploads are off:")]
    assert off and "'process'" in off[0] and "'full'" in off[0] and "bwrap not found" in off[0]


def test_serve_guards_against_slow_clients_and_stops_promptly(serve_cli, monkeypatch):
    from botwars.server.slowclients import GuardedH11Protocol
    _detected(monkeypatch, "full")
    r, started = serve_cli("--header-timeout", "7", "--shutdown-timeout", "2")
    assert r.exit_code == 0, r.output
    assert issubclass(started["http"], GuardedH11Protocol) and started["http"].header_timeout_s == 7.0
    assert started["timeout_graceful_shutdown"] == 2.0 and started["timeout_keep_alive"] <= 30
    assert started["ws_ping_interval"] + started["ws_ping_timeout"] <= 30


def test_the_lobby_says_uploads_are_off_and_why(monkeypatch, sqlite_url, clock):
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "full")
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")  # its scheduler thread would probe the real machine
    _detected(monkeypatch, "namespaces", ["seccomp: cannot build the filter"])
    with make_client(sqlite_url, clock, web=True) as c:
        html = c.get("/").text
        assert 'id="uploads-off"' in html
        assert "League uploads are off on this server" in html
        assert "only at level &#39;namespaces&#39;" in html and "need &#39;full&#39;" in html
        assert "seccomp: cannot build the filter" in html
        _detected(monkeypatch, "full")
        assert 'id="uploads-off"' not in c.get("/").text
