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
    (("FWD1 500", "FWD1 501"), "register 1"),
    (("at: r1c1", "at: r9c9"), "off the board"),
    (("facing: N,", "facing: Q,"), "facing"),
    (("play: [1]", "play: [7]"), "play must be"),
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
