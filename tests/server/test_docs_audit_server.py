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
