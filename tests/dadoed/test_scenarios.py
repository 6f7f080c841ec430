"""Every DADOED scenario file passes (tests/scenarios/dadoed, format in docs/dadoed.md)."""

import os

import pytest

from botwars.engine.scenario import collect, run_file

HERE = os.path.dirname(os.path.abspath(__file__))
SCEN = os.path.join(os.path.dirname(HERE), "scenarios", "dadoed")
FILES = collect([SCEN])


def test_at_least_30_scenarios_cover_every_worked_example():
    assert len(FILES) >= 30
    text = "".join(open(f, encoding="utf-8").read() for f in FILES)
    for n in range(1, 22):
        if n == 20:
            continue  # E20 (time) is a Match test: test_rules.py::test_D_8_3_E20_*
        assert f"E{n}" in text, f"no scenario cites E{n}"


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
def test_scenario(path):
    problems = run_file(path)
    assert problems == [], "\n".join(problems)


def test_scenario_runner_reports_a_wrong_expectation(tmp_path):
    src = open(os.path.join(SCEN, "e01_walk_hole.yaml"), encoding="utf-8").read()
    bad = tmp_path / "bad.yaml"
    bad.write_text(src.replace("to: A5}", "to: A6}"), encoding="utf-8")
    problems = run_file(str(bad))
    assert problems and "events differ" in problems[0]


def test_malformed_scenario_is_a_config_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: dadoed\nboard: |\n  8 ........\norders: [{order: step A1 North 1}]\n", encoding="utf-8")
    problems = run_file(str(bad))
    assert problems and "8 rows" in problems[0]
