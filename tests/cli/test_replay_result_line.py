"""``botwars replay`` ends with the finished record's result line, and does not print it twice
in a row when the game's own text already ends with the same line (dadoed's board text)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from botwars.cli import app


@pytest.mark.parametrize("game, bots, extra, board", [
    ("dadoed", ["builtin:greedy", "builtin:random"], [], "ABCDEFGH"),
    ("arena", ["builtin:hunter", "builtin:swarm"], ["--set", "max_turns=5"], "player 1 (A)"),
])
@pytest.mark.parametrize("mode", [["--report"], []])
def test_result_line_ends_the_replay_once(tmp_path, game, bots, extra, board, mode):
    rec = str(tmp_path / "r.jsonl")
    played = CliRunner().invoke(app, ["match", game, *bots, "--seed", "3", "--no-clock", "--replay", rec, *extra])
    assert played.exit_code == 0, played.output
    out = CliRunner().invoke(app, ["replay", rec, *mode])
    assert out.exit_code == 0, out.output
    assert board in out.output and " object at 0x" not in out.output  # the game's text, as rendered
    lines = [x.strip() for x in out.output.strip().splitlines()]
    assert lines[-1] != lines[-2], lines[-3:]  # the result line once, not repeated
    winner = [x for x in played.output.splitlines() if x.startswith("winner: ")]
    want = winner[0].split(": ", 1)[1] if winner else "draw"
    assert lines[-1].startswith(f"result: {want} ("), lines[-3:]
