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
    if os.path.exists(rules_md):
        text = open(rules_md).read()
    else:
        # the game's folder ships a copy of the binding rules, its declared rules page (checked
        # equal to shared/rules by tests/web/test_web_pages.py), so this check never needs to be skipped
        from botwars.engine.plugin import get_game
        text = get_game("geeko").rules_text()
    rules = set(re.findall(r"^- (G-\d+\.\d+)", text, re.M))
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
    ("game: geeko\nroom: 6\nplay: [1]\n", "room: input should be less than or equal to 5, got 6"),
    ("game: geeko\nrobots: {C: {}}\nplay: [1]\n", "robots.C: input should be 'A' or 'B', got 'C'"),
    ("game: geeko\nrobots: {A: {wings: 2}}\nplay: [1]\n", "robots.A: unknown key(s) wings (known: at, facing"),
    ("game: geeko\nflavour: x\nplay: [1]\n", "unknown key(s) flavour"),
    ("game: geeko\nplay: [10]\n", "play[0]: input should be less than or equal to 9, got 10"),
    ("game: geeko\nplay: [1]\nexpect: {stage 1: {colour: red}}\n", "expect.stage 1: unknown key(s) colour"),
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


@pytest.mark.parametrize("text, where, msg", [
    # issue 11: wrongly typed fields are one line with file:line:column, never a traceback
    ("game: geeko\nroom: 1\nturns: [1]\n", "3:9", "turns[0]: input should be a valid dictionary, got 1"),
    ("game: geeko\nroom: 1\nturns:\n  - orders: default\n    hand: 3\n", "5:11",
     "turns[0].hand: input should be a valid list, got 3"),
    ("game: geeko\nrobots:\n  A: {facing: [N]}\nplay: [1]\n", "3:15", "robots.A.facing: input should be 'N', 'E', 'S' or 'W', got ['N']"),
    ("game: geeko\nrobots:\n  A: {at: r1c9}\nplay: [1]\n", "3:11",
     "robots.A.at: r1c9 is outside a room (rows 1-9, columns 1-7)"),
    ("game: geeko\nrobots:\n  B: {program: [FWD1 501]}\nplay: [1]\n", "3:17",
     "robots.B.program[0]: no card 'FWD1 501'"),
    ("game: geeko\nplay: turn\nexpect: {stage x: {}}\n", "3:10", "expect: unknown key(s) stage x"),
    ("game: geeko\nplay: turn\nexpect:\n  end: {rows: {MODE: [a]}}\n", "4:22",
     "expect.end.rows.MODE: input should be a valid dictionary, got ['a']"),
    ("game: geeko\nplay: turn\nlength: x\n", "3:9", "length: input should be a valid integer, got 'x'"),
])
def test_wrongly_typed_fields_name_file_line_and_column(tmp_path, text, where, msg):
    from botwars.engine.errors import ConfigError
    from botwars.engine.scenario import check_file
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        check_file(str(f))
    line = e.value.one_line()
    assert line.startswith(f"{f}:{where}: ") and msg in line and "\n" not in line
