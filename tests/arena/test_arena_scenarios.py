"""Every arena scenario file passes; the scenario runner reports failures and bad files properly.

The scenario files under tests/scenarios/arena/ cite the rules they check in their ``rules:``
list (worked examples X1-X16 each have their own file).
"""

import os
import re
import shutil

import pytest
import yaml
from typer.testing import CliRunner

from botwars.cli import app
from botwars.engine.errors import ConfigError
from botwars.engine.scenario import check_file, run_file

ARENA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenarios", "arena")
FILES = sorted(f for f in os.listdir(ARENA) if f.endswith(".yaml"))
runner = CliRunner()


def test_at_least_25_scenarios_and_every_worked_example_has_its_own_file():
    assert len(FILES) >= 25
    for i in range(1, 17):
        assert any(f.startswith(f"x{i:02d}_") for f in FILES), f"X{i} has no scenario file"


@pytest.mark.parametrize("name", FILES)
def test_scenario_passes(name):
    path = os.path.join(ARENA, name)
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    assert doc.get("rules"), f"{name} cites no rule"
    assert run_file(path) == []


def test_cli_runs_the_whole_folder_and_exits_0():
    res = runner.invoke(app, ["scenario", "run", ARENA])
    assert res.exit_code == 0, res.output
    assert f"{len(FILES)} passed, 0 failed" in res.output


def test_cli_broken_copy_exits_1_with_a_readable_diff(tmp_path):
    shutil.copytree(ARENA, tmp_path / "arena")
    path = tmp_path / "arena" / "x08_defence.yaml"
    text = path.read_text().replace('2e: "8:8 90"', '2e: "8:8 88"')
    path.write_text(text)
    res = runner.invoke(app, ["scenario", "run", "-q", str(tmp_path / "arena")])
    assert res.exit_code == 1
    assert "FAIL" in res.output and "x08_defence.yaml" in res.output
    assert "turn 4: robot 2e: expected 8:8 88, got 8:8 90" in res.output
    assert f"{len(FILES) - 1} passed, 1 failed" in res.output


BAD = {
    "yaml syntax": ("game: arena\nrobots: [1a\n", 3, "YAML error"),
    "unknown top key": ("game: arena\nturns: []\nbogus: 1\n", 3, "unknown key(s) bogus"),
    "bad order": ("game: arena\nrobots:\n  1a: '7:7'\nturns:\n  - orders:\n      1a: M-Q\n", 6, "bad order 'M-Q'"),
    "robot on a wall": ("game: arena\nrobots:\n  1a: '1:1'\nturns:\n  - {}\n", 3, "1:1 is a wall"),
    "bad hp": ("game: arena\nrobots:\n  1a: {at: '7:7', hp: lots}\nturns:\n  - {}\n", 3, "hp must be a positive integer"),
    "bad config value": ("game: arena\nconfig:\n  max_turns: many\nturns:\n  - {}\n", 3, "parameter max_turns"),
    "unknown config key": ("game: arena\nconfig:\n  colour: red\nturns:\n  - {}\n", 3, "unknown parameter 'colour'"),
    "no turns": ("game: arena\nrobots: {}\n", 1, "'turns' must be a non-empty list"),
    "bad expectation": ("game: arena\nrobots:\n  1a: '7:7'\nturns:\n  - expect:\n      robots:\n        1a: here\n",
                        7, "expectation for 1a"),
    "bad map": ("game: arena\nmap: |\n  ###\n  #x#\n  ###\nturns:\n  - {}\n", 2, "unknown map character"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_malformed_scenario_is_one_line_with_file_and_line_exit_2(tmp_path, case):
    text, line, words = BAD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        check_file(str(path))
    assert info.value.line == line, info.value.one_line()
    res = runner.invoke(app, ["scenario", "run", str(path)])
    assert res.exit_code == 2
    out = res.output.strip().splitlines()
    err = [ln for ln in out if ln.startswith("error:")]
    assert len(err) == 1, res.output
    assert f"{path}:{line}" in err[0] and words in err[0]
    assert "Traceback" not in res.output


def test_a_scenario_names_no_map_file_only_a_shipped_map_or_the_text(tmp_path):
    # issue 25: scenario files are shared, so a map file beside one (or /etc/passwd) is not read
    (tmp_path / "tiny.map").write_text("#####\n#1.2#\n#####\n")
    rest = "robots:\n  1a: '3:2'\nturns:\n  - orders: {1a: M-E}\n    expect: {robots: {1a: '4:2 100'}}\n"
    (tmp_path / "s.yaml").write_text("game: arena\nmap: tiny.map\n" + rest)
    with pytest.raises(ConfigError) as info:
        check_file(str(tmp_path / "s.yaml"))
    assert info.value.line == 2 and "parameter map" in info.value.message
    assert "file paths are not accepted" in info.value.message
    (tmp_path / "t.yaml").write_text("game: arena\nmap: |\n  #####\n  #1.2#\n  #####\n" + rest)
    assert check_file(str(tmp_path / "t.yaml")) == []


def test_every_cited_rule_id_exists_in_the_rules_file():
    ids = set()
    for name in FILES:
        doc = yaml.safe_load(open(os.path.join(ARENA, name), encoding="utf-8"))
        ids |= {str(r) for r in doc["rules"]}
    assert all(re.fullmatch(r"[RHP]\d+|X\d+", i) for i in ids), ids
