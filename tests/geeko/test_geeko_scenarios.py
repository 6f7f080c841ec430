"""Every geeko scenario file passes (tests/scenarios/geeko/*.yaml), and they cover the worked
examples G-15.1 to G-15.10."""

import glob
import os
import re

import pytest
import yaml

from botwars.engine.scenario import run_file

HERE = os.path.dirname(__file__)
FILES = sorted(glob.glob(os.path.join(HERE, "..", "scenarios", "geeko", "*.yaml")))


def test_there_are_at_least_15_scenarios():
    assert len(FILES) >= 15


def test_scenarios_cover_worked_examples_1_to_10():
    covered = set()
    for f in FILES:
        with open(f) as fh:
            covered |= set(yaml.safe_load(fh).get("rules", []))
    for n in range(1, 11):
        assert f"G-15.{n}" in covered


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
def test_scenario_passes(path):
    problems = run_file(path)
    assert problems == [], "\n".join(problems)


def test_a_failing_expectation_is_reported(tmp_path):
    src = open(os.path.join(HERE, "..", "scenarios", "geeko", "g15_06_parked_obstacle.yaml")).read()
    bad = tmp_path / "bad.yaml"
    bad.write_text(src.replace("B: r8c3 W 10 real", "B: r8c2 W 10 real"))
    problems = run_file(str(bad))
    assert problems and re.search(r"robot B is 'r8c3 W 10 real'", problems[0])
