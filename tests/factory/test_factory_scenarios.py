"""Every factory scenario file passes (tests/scenarios/factory/*.yaml)."""

import glob
import os

import pytest

from botwars.engine.scenario import run_file

HERE = os.path.dirname(__file__)
FILES = sorted(glob.glob(os.path.join(HERE, "..", "scenarios", "factory", "*.yaml")))


def test_there_are_at_least_40_scenarios():
    assert len(FILES) >= 40


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
def test_scenario_passes(path):
    problems = run_file(path)
    assert problems == [], "\n".join(problems)
