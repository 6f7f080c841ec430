"""Rooms (G-2) and the entry-board validator (G-11)."""

import os
import re
import subprocess
import sys

import pytest

from botwars.engine.errors import ConfigError
from botwars.games.geeko.board import (ROOMS_DIR, check_entry, check_room, load_rooms, parse_room,
                                       standard_room_texts)

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SAMPLE = """board: entry-sample
rows: 7
cols: 7
start: r1c4 N
grid:
r7  F2     .      .      CYW    CYW    CYW    .
r6  .      ./wE   .      .      .      CYN    .
r5  .      .      GR     .      PT     CYN    .
r4  SR1    .      .      TD1-   .      .      F1
r3  .      .      .      .      .      ./lE   .
r2  .      PT     .      ./wN   .      .      W1
r1  .      .      .      .      .      .      .
end
"""


def test_G_14_five_standard_rooms_ship_in_order_and_pass_the_check():
    rooms = load_rooms("standard")
    assert [r.board_id for r in rooms] == [f"geeko-{k}" for k in range(1, 6)]
    assert [r.rows for r in rooms] == [7, 8, 8, 9, 9]
    for k, text in enumerate(standard_room_texts(), 1):
        assert check_room(text, f"geeko-{k}") == []
    assert sorted(os.listdir(ROOMS_DIR)) == [f"geeko-{k}.board" for k in range(1, 6)]


def test_G_2_1_room_grammar_gates_starts_and_ml():
    r3 = load_rooms()[2]
    assert r3.starts == [((1, 3), 0), ((1, 5), 0)]
    assert r3.kind[(8, 4)] == ("GT", 1, False)
    assert load_rooms()[1].kind[(8, 2)] == ("GT", None, True)
    assert load_rooms()[3].kind[(2, 7)] == ("AR", "ML")
    assert load_rooms()[3].kind[(8, 4)] == ("CR", (1, 3, 5), None)


def _room(grid_rows, start="r1c3 N, r1c5 N"):
    return (f"board: t\nrows: {len(grid_rows)}\ncols: 7\nstart: {start}\ngrid:\n" + "\n".join(grid_rows) + "\nend\n")


ROWS = ["r7 . . . GT . . ."] + [f"r{r} . . . . . . ." for r in range(6, 0, -1)]


def test_G_2_1_gate_outside_the_top_row_and_flags_are_refused():
    rows = list(ROWS)
    rows[1] = "r6 . GT . . . . F1"
    problems = check_room(_room(rows), "x.board")
    assert any("G-2.1: gate r6c2 is not in the top row" in p for p in problems)
    assert any("G-2.1: flags are forbidden" in p for p in problems)


def test_G_2_1_two_distinct_start_squares_are_required():
    assert any("G-2.1: start must give two squares" in p for p in check_room(_room(ROWS, "r1c3 N"), "x"))
    with pytest.raises(ConfigError, match="F-3.1: start must be"):  # does not parse: malformed (exit 2)
        check_room(_room(ROWS, "r1c3 N, r1c4 N, r1c5 N"), "x")
    assert any("both r1c3" in p for p in check_room(_room(ROWS, "r1c3 N, r1c3 E"), "x"))
    rows = list(ROWS)
    rows[-1] = "r1 . . . . PT . ."
    assert any("start square r1c5 is not open floor" in p for p in check_room(_room(rows), "x"))


def test_G_2_2_one_or_two_gates():
    rows = list(ROWS)
    rows[0] = "r7 GT . GT . GT . ."
    assert any("G-2.2: a room has one or two gates, found 3" in p for p in check_room(_room(rows), "x"))
    rows[0] = "r7 . . . . . . ."
    assert any("found 0" in p for p in check_room(_room(rows), "x"))


def test_G_2_1_gate_channel_counts_as_a_device():
    rows = list(ROWS)
    rows[0] = "r7 . . . GT1- . . ."
    assert any("F-3.7: channel 1 has devices but no switch" in p for p in check_room(_room(rows), "x"))
    rows[3] = "r4 . . . . . . SG1"
    assert check_room(_room(rows), "x") == []


def test_G_2_1_bad_room_raises_with_line_and_column():
    rows = list(ROWS)
    rows[2] = "r5 . . . XX . . ."
    with pytest.raises(ConfigError) as e:
        parse_room(_room(rows), "bad.board")
    assert e.value.line == 8


def test_G_2_3_room_set_file_with_five_rooms(tmp_path):
    f = tmp_path / "set.rooms"
    f.write_text("\n".join(standard_room_texts()))
    assert [r.board_id for r in load_rooms(str(f))] == [f"geeko-{k}" for k in range(1, 6)]
    assert check_room(f.read_text(), str(f)) == []
    g = tmp_path / "four.rooms"
    g.write_text("\n".join(standard_room_texts()[:4]))
    with pytest.raises(ConfigError, match="G-2.3"):
        load_rooms(str(g))


def test_G_15_12_sample_entry_board_is_accepted():
    assert check_entry(SAMPLE, "sample.board") == []


def test_G_15_12_stripped_sample_is_rejected_for_V4_and_V5():
    lines = []
    for line in SAMPLE.split("\n"):
        if re.match(r"r\d", line):
            toks = line.split()
            line = " ".join([toks[0]] + [t if t.startswith("F") else "." for t in toks[1:]])
        lines.append(line)
    out = check_entry("\n".join(lines), "s.board")
    assert [x.split(":")[0] for x in out] == ["REJECT V4", "REJECT V5"]


def test_G_11_V1_V2_V3_V6_V7_V8():
    with pytest.raises(ConfigError, match="F-3.1: missing 'grid:' line"):  # not a board: V1, exit 2
        check_entry("board: x\n", "x")
    assert check_entry(SAMPLE.replace("F2 ", "F3 "), "x")[0].startswith("REJECT V1: x:6:5: F-3.8: flags")
    big = SAMPLE.replace("rows: 7", "rows: 8").replace("grid:\n", "grid:\nr8  . . . . . . .\n")
    assert any(x.startswith("REJECT V2") for x in check_entry(big, "x"))
    out = check_entry(SAMPLE.replace("r1  .      .      .", "r1  F3     F4     ."), "x")
    assert any(x.startswith("REJECT V3: it has 4 flags") for x in out)
    lethal = SAMPLE.replace("r1  .      .      .      .      .      .      .", "r1  PT PT PT . PT PT PT")
    lethal = lethal.replace("r3  .      .      .      .      .", "r3  PT PT PT PT PT")
    assert any(x.startswith("REJECT V6") for x in check_entry(lethal, "x"))
    walled = SAMPLE.replace("r5  .      .      GR     .      PT     CYN    .", "r5  . . GR . PT CYN ./wS")
    walled = walled.replace("F1\n", "F1/wW\n").replace("r3  .      .      .      .      .      ./lE   .",
                                                       "r3  . . . . . ./lE ./wN")
    assert any(x.startswith("REJECT V7: flag 1 at r4c7") for x in check_entry(walled, "x"))
    assert check_entry(SAMPLE, "x", library=["# c\nboard: other\nname: O\n" + SAMPLE.split("\n", 1)[1]
                                             .replace("      ", "  ")]) == ["REJECT V8: the board is already in the library"]
    from botwars.games.factory.board import BOARDS_DIR
    tiny = open(os.path.join(BOARDS_DIR, "tiny-yard.board")).read()
    assert "REJECT V8: the board is already in the library" in check_entry(tiny, "x")


def test_G_11_V7_trap_door_channel_needs_an_operable_switch():
    # the flag behind a closed trap door... the open trap door r2c2 is passable only once SR1 is reachable
    text = SAMPLE.replace("r2  .      PT", "r2  .      TD2+").replace("SR1", "SR2")
    text = text.replace("TD1-", "TD2-")
    assert check_entry(text, "x") == []


def test_cli_board_check_entry_prints_accept_and_rejects(tmp_path):
    f = tmp_path / "e.board"
    f.write_text(SAMPLE)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    r = subprocess.run([sys.executable, "-m", "botwars.cli", "board", "check", str(f), "--game", "geeko", "--entry"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "ACCEPT" in r.stdout
    g = tmp_path / "r.board"
    g.write_text(standard_room_texts()[1])
    r = subprocess.run([sys.executable, "-m", "botwars.cli", "board", "check", str(g), "--game", "geeko", "--entry"],
                       capture_output=True, text=True, env=env)
    # a room is not a factory board (two start squares): it does not parse, V1, exit 2 (malformed)
    assert r.returncode == 2 and r.stdout.startswith(f"REJECT V1: {g}:5:7: F-3.1: start must be") and r.stdout.count("\n") == 1
    r = subprocess.run([sys.executable, "-m", "botwars.cli", "board", "check", str(g), "--game", "geeko"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0
    h = tmp_path / "h.board"
    h.write_text(SAMPLE.replace("F2 ", "F3 "))  # parses, fails V1 (F-3.8 flags): a verdict, exit 1
    r = subprocess.run([sys.executable, "-m", "botwars.cli", "board", "check", str(h), "--game", "geeko", "--entry"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and r.stdout.startswith(f"REJECT V1: {h}:6:5: F-3.8: flags")


def test_F_6_24a_G_2_1_a_room_may_hold_a_crusher_over_a_switch_with_digits_up_to_9():
    rows = list(ROWS)
    rows[0] = "r7 . . . GT1- . . ."
    rows[3] = "r4 . . CR79SR1 . . . ."
    b = parse_room(_room(rows), "x.board")
    assert b.kind[(4, 3)] == ("CR", (7, 9), ("SR", 1))
    assert check_room(_room(rows), "x.board") == []


def test_F_6_24a_G_11_V5_V7_a_crusher_over_a_switch_is_a_crusher_and_a_switch():
    # the sample with its SR1 replaced by a crusher over it: still ACCEPT; channel 1 stays operable (V7)
    text = SAMPLE.replace("r4  SR1    .", "r4  CR2SR1 .")
    assert check_entry(text, "x") == []
    # only crushers and switches and plain floor: V5 counts both kinds of the one square
    stripped = []
    for line in SAMPLE.split("\n"):
        if re.match(r"r\d", line):
            toks = line.split()
            line = " ".join([toks[0]] + [t if t.startswith("F") or t in ("SR1", "TD1-") else "." for t in toks[1:]])
        stripped.append(line)
    out = check_entry("\n".join(stripped).replace("SR1", "CR2SR1"), "x")
    assert any(x.startswith("REJECT V4") for x in out)
    assert not any(x.startswith("REJECT V5") for x in out)  # crusher, switch, trap door: 3 kinds
    out = check_entry("\n".join(stripped).replace("SR1", "CR2SR1").replace("TD1-", "."), "x")
    assert "REJECT V5: 2 feature kinds (crusher, switch), at least 3 are needed" in out
