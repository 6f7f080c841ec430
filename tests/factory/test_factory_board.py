"""Board format (factory.md §3): parse, print, errors with line and column, validation."""

import os

import pytest

from botwars.engine.errors import ConfigError
from botwars.games.factory.board import (BOARDS_DIR, check_board, grid_board, load_board, parse_board, print_board,
                                         shipped_boards)

RULES = "/work/shared/rules/factory.md"


def spec_example() -> str:
    here = os.path.dirname(__file__)
    path = os.path.join(here, "data", "assembly-hall-spec.board")
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_F_3_9_spec_example_parses_and_matches_shipped_board():
    b = parse_board(spec_example(), "spec")
    assert (b.rows, b.cols, b.start, b.start_facing) == (12, 12, (1, 6), 0)
    assert b == load_board("assembly-hall")
    assert b.kind[(7, 8)] == ("CB", 2)
    assert b.kind[(9, 9)] == ("TD", 1, False)
    assert b.pushers[(5, 2)] == (3, frozenset({1, 3, 5}))
    assert b.edge((10, 10), 2) == "fence" and b.edge((9, 10), 0) == "fence"
    assert b.edge((4, 6), 0) == "wall"  # the eye's mount makes the edge a wall (F-3.6)
    assert b.eyes == {(4, 6, 0): 4}
    assert b.turrets == [((11, 12), 1, 1)]


@pytest.mark.parametrize("name", shipped_boards())
def test_F_3_printing_a_shipped_board_gives_back_the_same_text(name):
    with open(os.path.join(BOARDS_DIR, name + ".board"), encoding="utf-8") as f:
        text = f.read()
    b = parse_board(text, name)
    assert print_board(b) == text
    assert parse_board(print_board(b)) == b
    assert check_board(text, name) == []


def test_F_3_print_parse_round_trip_of_the_spec_text():
    b = parse_board(spec_example())
    assert parse_board(print_board(b)) == b


def test_at_least_four_boards_of_different_sizes_use_every_element():
    names = shipped_boards()
    assert len(names) >= 4
    boards = [load_board(n) for n in names]
    assert len({(b.rows, b.cols) for b in boards}) >= 4
    kinds = {k[0] if k[0] not in ("G",) else "G" + k[1] for b in boards for k in b.kind.values()}
    for need in (".", "PT", "TD", "DB", "TP", "CY", "CB", "GL", "GR", "GU", "CR", "SG", "SR", "BZ", "W", "F",
                 "UP", "AR"):
        assert need in kinds, need
    assert any(b.pushers for b in boards) and any(b.turrets for b in boards)
    assert any(b.blasers for b in boards) and any(b.eyes for b in boards)
    assert any("fence" in {b.edges[k] for k in b.edges if 1 < k[0] < b.rows and 1 < k[1] < b.cols} for b in boards)


def err_of(text):
    with pytest.raises(ConfigError) as exc:
        parse_board(text, "t.board")
    return exc.value


HEAD = "board: t\nrows: 2\ncols: 3\nstart: r1c1 N\ngrid:\n"


def test_F_3_3_bad_token_names_line_and_column():
    e = err_of(HEAD + "r2 . XX .\nr1 F1 . .\nend\n")
    assert (e.line, e.column) == (6, 6) and "XX" in e.message


def test_F_3_4_bad_side_item_names_column_of_the_item():
    e = err_of(HEAD + "r2 . ./wNq .\nr1 F1 . .\nend\n")
    assert e.line == 6 and e.column == 10 and "q" in e.message


def test_F_3_1_unknown_key_and_text_after_end():
    assert err_of("board: t\ncolour: red\n").line == 2
    e = err_of(HEAD + "r2 . . .\nr1 F1 . .\nend\nmore\n")
    assert e.line == 9 and "after 'end'" in e.message


def test_F_3_2_wrong_row_label_and_cell_count():
    assert "expected row label r2" in err_of(HEAD + "r1 . . .\nr2 F1 . .\nend\n").message
    e = err_of(HEAD + "r2 . . . .\nr1 F1 . .\nend\n")
    assert e.line == 6 and "4 cells" in e.message


def test_F_3_5_H27_wall_and_fence_on_one_edge_and_perimeter_wall():
    assert "both wall and fence" in err_of(HEAD + "r2 ./wS . .\nr1 F1/fN . .\nend\n").message
    assert "perimeter" in err_of(HEAD + "r2 ./wN . .\nr1 F1 . .\nend\n").message


def test_F_3_6_mounts_make_internal_edges_walls_and_perimeter_edges_fence_or_wall():
    # r1: turrets on c1's east face and on c2's west face: both faces of the one internal edge
    # c1|c2 carry a mount (allowed) and that open edge becomes a wall; c2|c3 carries none and
    # stays open; a pusher on c3's east face is on the perimeter: it stays fence with edge=fence
    # and becomes a wall with edge=pit, where an unmounted perimeter edge is the void (F-3.5)
    text = HEAD + "r2 F1 . .\nr1 ./lE1 ./lW1 ./pE1\nend\n"
    fence, pit = parse_board(text, "t.board"), parse_board(text, "t.board", edge="pit")
    for b in (fence, pit):
        assert b.edge((1, 1), 1) == b.edge((1, 2), 3) == "wall"
        assert b.edge((1, 2), 1) == "open"
        assert sorted(b.turrets) == [((1, 1), 1, 1), ((1, 2), 3, 1)]  # each face keeps its own mount
    assert fence.edge((1, 3), 1) == "fence" and pit.edge((1, 3), 1) == "wall"
    assert fence.edge((2, 3), 1) == "fence" and pit.edge((2, 3), 1) == "void"


def test_F_3_7_channel_without_device_and_bridge_with_toggle():
    assert "F-3.7" in err_of(HEAD + "r2 . SR1 .\nr1 F1 . .\nend\n").message
    assert "drawbridge" in err_of(HEAD + "r2 . SR1 DBN1\nr1 F1 . .\nend\n").message


def test_F_3_8_H32_H15_rejections():
    assert "F-3.8" in err_of(HEAD + "r2 . CR31 .\nr1 F1 . .\nend\n").message
    assert "armoury" in err_of(HEAD + "r2 . ARZZ .\nr1 F1 . .\nend\n").message
    assert "flags" in err_of(HEAD + "r2 . F2 .\nr1 F1 F2 .\nend\n").message
    assert "teleporter colour A" in err_of(HEAD + "r2 . TPA .\nr1 F1 TPA .\nend\n").message
    assert "only one teleporter" in err_of(HEAD + "r2 . TPA .\nr1 F1 . .\nend\n").message
    assert "start square" in err_of(HEAD + "r2 . . .\nr1 PT F1 .\nend\n").message
    assert "pusher" in err_of(HEAD + "r2 . . .\nr1 ./pN1 F1 .\nend\n").message
    assert "more than one pusher" in err_of(HEAD + "r2 . ./pN1pS2 .\nr1 . F1 .\nend\n").message


def test_check_board_lists_every_problem_and_unreachable_flags():
    text = HEAD + "r2 . SR1 PT/wW\nr1 . PT F1\nend\n"
    problems = check_board(text, "t.board")
    assert any("F-3.7" in p for p in problems)
    assert any("flag 1" in p and "not reachable" in p for p in problems)
    assert all(p.startswith("t.board") for p in problems)


def test_F_3_7_F_3_8_problems_name_line_and_column_of_the_square():
    text = HEAD + "r2 . SR1 TPA\nr1 F1 F1 TD2+\nend\n"
    problems = check_board(text, "t.board")
    assert "t.board:7:7: F-3.8: flags must be exactly F1..Fn (n >= 1), each once; found F1 x2" in problems
    assert "t.board:6:10: F-3.8: only one teleporter exists" in problems
    assert "t.board:6:6: F-3.7: channel 1 has switches or eyes but no device" in problems
    assert "t.board:7:10: F-3.7: channel 2 has devices but no switch or eye" in problems


def test_grid_board_waives_flag_and_start_checks():
    b = grid_board("r2 . .\nr1 PT .")
    assert b.rows == 2 and b.kind[(1, 1)] == ("PT",)
    with pytest.raises(ConfigError):
        grid_board("r2 . XX\nr1 . .")


def test_F_3_5_edge_pit_makes_perimeter_void_and_mounts_walls():
    b = load_board("assembly-hall", edge="pit")
    assert b.edge((1, 1), 2) == "void"
    assert b.edge((11, 12), 1) == "wall"  # turret mounted on the perimeter


from hypothesis import given, settings, strategies as hs  # noqa: E402

BASES = [".", "PT", "TD1+", "TD2-", "DBN1", "TPA", "TPB3-", "CYE", "CBS", "GL", "GR", "GU", "CR135", "SG1", "SR2",
         "BZ", "W1", "W2", "F1", "F2", "UP", "ARHC"]
SIDES = ["", "/wN", "/fE", "/pS24", "/lW2", "/bN1+", "/eE3", "/wNlS"]


@settings(max_examples=40, deadline=None)
@given(hs.integers(2, 6), hs.integers(2, 6), hs.data())
def test_F_3_print_then_parse_gives_an_equal_board(rows, cols, data):
    lines = []
    for r in range(rows, 0, -1):
        toks = [data.draw(hs.sampled_from(BASES)) + data.draw(hs.sampled_from(SIDES)) for _ in range(cols)]
        lines.append(f"r{r} " + " ".join(toks))
    text = f"board: h\nrows: {rows}\ncols: {cols}\nstart: r1c1 N\ngrid:\n" + "\n".join(lines) + "\nend\n"
    b = parse_board(text, "h", check=False)
    printed = print_board(b)
    b2 = parse_board(printed, "h", check=False)
    assert b2 == b
    assert print_board(b2) == printed
    assert [p[0] for p in b2.problems] == [p[0] for p in b.problems]


# ---- F-6.24a: a crusher over a switch ------------------------------------------------------------
def test_F_6_24a_F_3_3_crusher_over_a_switch_parses_and_prints_back():
    b = parse_board(HEAD + "r2 . CR24SG3 TD3-\nr1 F1 CR1SR2 DBN4\nend\n", "t.board", check=False)
    assert b.kind[(2, 2)] == ("CR", (2, 4), ("SG", 3))
    assert b.kind[(1, 2)] == ("CR", (1,), ("SR", 2))
    assert b.switch_of((2, 2)) == ("SG", 3) and b.switch_of((1, 2)) == ("SR", 2) and b.switch_of((1, 1)) is None
    assert [(sq, kind, ch) for sq, kind, ch in b.switch_squares()] == [((1, 2), "SR", 2), ((2, 2), "SG", 3)]
    printed = print_board(b)
    assert "CR24SG3" in printed and "CR1SR2" in printed
    assert parse_board(printed, "t.board", check=False) == b


def test_F_6_24a_F_3_7_a_crusher_switch_links_its_channel():
    ok = HEAD + "r2 . CR24SG3 TD3-\nr1 . F1 .\nend\n"
    assert check_board(ok, "t.board") == []
    problems = check_board(HEAD + "r2 . CR24SG3 .\nr1 . F1 .\nend\n", "t.board")
    assert problems == ["t.board:6:6: F-3.7: channel 3 has switches or eyes but no device"]
    # a drawbridge channel takes only SG switches: a crusher over an SR is refused, over an SG allowed
    assert "drawbridge" in err_of(HEAD + "r2 . CR2SR1 DBN1\nr1 . F1 .\nend\n").message
    assert check_board(HEAD + "r2 . CR2SG1 DBN1\nr1 . F1 .\nend\n", "t.board") == []


@pytest.mark.parametrize("tok", ["CR24SG", "CR24SX1", "CRSG1", "CR24SG0", "CR6SG1", "CR24SG1+", "CR24sg1"])
def test_F_6_24a_F_3_3_bad_crusher_switch_tokens_name_line_and_column(tok):
    e = err_of(HEAD + f"r2 . {tok} .\nr1 F1 . .\nend\n")
    assert (e.line, e.column) == (6, 6) and "F-3.3" in e.message and tok in e.message


def test_F_6_24a_F_3_8_crusher_switch_registers_must_ascend():
    assert "F-3.8: crusher registers 42" in err_of(HEAD + "r2 . CR42SG1 TD1-\nr1 F1 . .\nend\n").message
