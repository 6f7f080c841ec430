"""Malformed factory scenarios fail with one clear line naming the problem (never a crash)."""

import pytest
import yaml

from botwars.engine.scenario import run_file

GOOD = """
game: factory
grid: |
  r2 . .
  r1 . .
robots:
  Alice: {at: r1c1, facing: N, program: [FWD1 500]}
play: [1]
expect:
  stage 1:
    Alice: r2c1 N 10
"""


def run_text(tmp_path, text):
    p = tmp_path / "s.yaml"
    p.write_text(text)
    return run_file(str(p))


def test_good_scenario_passes(tmp_path):
    assert run_text(tmp_path, GOOD) == []


def test_wrong_expectation_is_reported(tmp_path):
    out = run_text(tmp_path, GOOD.replace("r2c1 N 10", "r1c1 N 10"))
    assert out == ["stage 1: Alice: expected r1c1 N 10, got r2c1 N 10 real"]


@pytest.mark.parametrize("change,needle", [
    (("FWD1 500", "FWD1 501"), "robots.Alice.program[0]: no card 'FWD1 501'"),
    (("at: r1c1", "at: r9c9"), "off the board"),
    (("facing: N,", "facing: Q,"), "facing"),
    (("play: [1]", "play: [7]"), "play[0]: input should be less than or equal to 5, got 7"),
    (("r2 . .", "r2 . XX"), "bad cell token"),
    (("game: factory", "game: factory\nbogus: 1"), "unknown key"),
    (("Alice: r2c1 N 10", "Zed: r2c1"), "unknown expectation"),
    (("stage 1:", "stage 2:"), "not a played stage"),
])
def test_malformed_scenarios_fail_with_a_message(tmp_path, change, needle):
    out = run_text(tmp_path, GOOD.replace(*change))
    assert len(out) == 1 and needle in out[0], out


def test_scenario_yaml_is_valid():
    assert yaml.safe_load(GOOD)["game"] == "factory"


@pytest.mark.parametrize("change,where,needle", [
    # issue 11: wrongly typed fields are one line with file:line:column, never a traceback
    (("play: [1]", "play: [1]\nturns: [1]"), "9:9", "turns[0]: input should be a valid dictionary, got 1"),
    (("robots:", "robots: [Alice]\nx:"), "6:9", "robots: input should be a valid dictionary, got ['Alice']"),
    (("facing: N,", "facing: N, hp: ten,"), "7:36", "robots.Alice.hp: input should be a valid integer, got 'ten'"),
    (("facing: N,", "facing: N, options: [ZZ],"), "7:42", "robots.Alice.options[0]: unknown option 'ZZ'"),
    (("Alice: r2c1 N 10", "rows: {MOVES: [x]}"), "11:19", "expect.stage 1.rows.MOVES: input should be a valid dictionary"),
    (("game: factory", "game: factory\nturn: \"2\""), "3:7", "turn: input should be a valid integer, got '2'"),
])
def test_wrongly_typed_fields_name_file_line_and_column(tmp_path, change, where, needle):
    p = tmp_path / "s.yaml"
    p.write_text(GOOD.replace(*change))
    out = run_file(str(p))
    assert len(out) == 1 and out[0].startswith(f"{p}:{where}: ") and needle in out[0], out
