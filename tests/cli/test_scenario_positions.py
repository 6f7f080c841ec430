"""Every game's malformed scenario entry is one line naming FILE:LINE:COLUMN (issue 11, item 6).

Each case is a small scenario whose position (``-start``) or last entry is wrong in a way only the game knows (an
unknown robot, an entry with nothing to play, orders for an unknown player, a set-up missing
for a pending seat) or its schema catches; the line and column are those of the offending key
or entry, counted by hand in the text below (1-based).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from botwars.cli import app

BOARD = "board: |\n" + "".join(f"  {r} {'..OO....' if r == 6 else '........'}\n" for r in range(8, 0, -1))

CASES = {
    "arena": ("game: arena\nturn: 2\nrobots:\n  1a: \"7:7\"\n  2c: \"9:7\"\nturns:\n  - orders: {1a: M-E}\n"
              "  - orders: {1a: M-E, 3q: D}\n", 8, 23, "orders for unknown robot 3q"),
    "dadoed": ("game: dadoed\n" + BOARD + "orders:\n"
               "  - order: {type: command, command: nudge_boulder, tile: C6, direction: E}\n"
               "  - expect: {turn: 2}\n", 13, 5,
               "order entry 2: needs 'order' (or 'setup')"),
    "dadoed-start": ("game: dadoed\n" + BOARD + "rooted: [B]\norders:\n  - order: {type: resign}\n", 11, 1,
                     "rooted: no bot B on the board"),
    "factory": ("game: factory\nboard: assembly-hall\nplayers: [Alice, Bob]\nseed: demo\nturns:\n  - orders:\n"
                "      Alice: {type: program, cards: hand, reboot: false}\n"
                "      Carol: {type: program, cards: hand, reboot: false}\n", 8, 7,
                "turn 1: orders for unknown player Carol"),
    "factory-start": ("game: factory\nboard: assembly-hall\nrobots:\n  Alice: {at: r1c1}\n  Bob:\n    at: r99c99\n"
                      "play: turn\n", 5, 3, "robot Bob: r99c99 is off the board"),
    "geeko": ("game: geeko\nseed: demo\nturns:\n  - orders: default\n  - orders: default\n    expect:\n"
              "      stage x: {A: r1c1}\n", 7, 7, "turns[1].expect: unknown key(s) stage x"),
    "submarine": ("game: submarine\nconfig: {p1_home_row: \"7\", first_player: p2}\nsetups:\n"
                  "  - p1: {type: setup, placement: {a: A7, b: B7, c: C7, d: D7, e: E7},\n"
                  "         specials: {a: torpedo, b: sonar, c: mine, d: heal, e: nullify}}\n", 4, 5,
                  "setup decision 1: no setup for pending seat p2"),
    "submarine-start": ("game: submarine\nsubs:\n  a: {at: C4, hp: 1, special: torpedo}\n"
                        "  b: {at: C4, hp: 1, special: sonar}\n  v: {at: D4, hp: 2, special: armor}\n"
                        "turns:\n  - orders: \"a move E\"\n", 4, 3, "sub b: C4 already holds a sub"),
    "factory-config": ("game: factory\nconfig: {turn_limit: \"x\"}\nboard: assembly-hall\nplay: turn\n", 2, 10,
                       "parameter turn_limit: expected an integer, got 'x'"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_entry_names_file_line_and_column(tmp_path, case):
    text, line, column, message = CASES[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text)
    res = CliRunner().invoke(app, ["scenario", "run", str(path)])
    assert res.exit_code == 2, res.output
    err = res.stderr if hasattr(res, "stderr") else res.output
    first = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(first) == 1 and "Traceback" not in err, err
    assert first[0].startswith(f"error: {path}:{line}:{column}: {message}"), first[0]
