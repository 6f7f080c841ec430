"""Newcomer's audit of docs/server.md's commands: `botwars new-match` "prints each seat's token
and link" (its --help) — whole, so that they can be copied, whatever the terminal's width."""

from __future__ import annotations

import re


def test_new_match_prints_every_token_and_link_whole(live_server):
    from typer.testing import CliRunner

    from botwars.cli import app
    r = CliRunner().invoke(app, ["new-match", live_server, "arena"], terminal_width=80)
    assert r.exit_code == 0, r.output
    assert "…" not in r.output
    tokens = re.findall(r"token ([A-Za-z0-9_-]{40,})$", r.output, re.M)
    assert len(tokens) == 2, r.output
    for tok in tokens:
        assert re.search(rf"^  {re.escape(live_server)}/api/matches/\w+/view\?token={re.escape(tok)}$", r.output,
                         re.M), r.output
    assert re.search(rf"^spectator: {re.escape(live_server)}/api/matches/\w+/view$", r.output, re.M)


def test_connect_with_a_bad_agent_spec_is_one_line_on_stderr(live_server):
    # was: "playing p1 of match ... with builtin:nobody" and then the error (two lines)
    import json
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": os.path.join(root, "src")}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True,
                              env=env, timeout=120)

    made = cli("new-match", live_server, "arena", "--no-clock", "--json")
    assert made.returncode == 0, made.stderr
    token = json.loads(made.stdout.strip().splitlines()[-1])["seats"][0]["token"]
    r = cli("connect", live_server, token, "builtin:nobody")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        "error: builtin:nobody: unknown built-in bot 'nobody' for arena (known: defender, hunter, random, swarm)"]
