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


def test_every_numbered_rule_is_covered_by_a_scenario_or_a_test():
    rules_md = os.path.join(HERE, "..", "..", "..", "shared", "rules", "geeko.md")
    if not os.path.exists(rules_md):
        rules_md = "/work/shared/rules/geeko.md"
    if not os.path.exists(rules_md):
        pytest.skip("rules file not available")
    rules = set(re.findall(r"^- (G-\d+\.\d+)", open(rules_md).read(), re.M))
    covered = set()
    for f in FILES:
        with open(f) as fh:
            covered |= set(yaml.safe_load(fh).get("rules", []))
    for f in glob.glob(os.path.join(HERE, "test_geeko_*.py")):
        for name in re.findall(r"def (test_\w+)", open(f).read()):
            covered |= {"G-%s.%s" % m for m in re.findall(r"G_(\d+)_(\d+)", name)}
    assert sorted(rules - covered) == []


@pytest.mark.parametrize("text, msg", [
    ("game: geeko\nplay: [1]\nturns: []\n", "exactly one of 'play' and 'turns'"),
    ("game: geeko\nroom: 6\nplay: [1]\n", "room must be 1 to 5"),
    ("game: geeko\nrobots: {C: {}}\nplay: [1]\n", "robots are A and B"),
    ("game: geeko\nrobots: {A: {wings: 2}}\nplay: [1]\n", "unknown key(s) wings"),
    ("game: geeko\nflavour: x\nplay: [1]\n", "unknown key(s) flavour"),
    ("game: geeko\nplay: [10]\n", "play must be"),
    ("game: geeko\nplay: [1]\nexpect: {stage 1: {colour: red}}\n", "unknown expectation"),
])
def test_malformed_scenarios_raise_config_error(tmp_path, text, msg):
    import yaml as _yaml

    from botwars.engine.errors import ConfigError
    from botwars.engine.plugin import get_game
    with pytest.raises(ConfigError) as e:
        get_game("geeko").run_scenario(_yaml.safe_load(text), "bad.yaml")
    assert msg in str(e.value)
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    assert msg in run_file(str(f))[0]  # the runner reports it as one failure line
