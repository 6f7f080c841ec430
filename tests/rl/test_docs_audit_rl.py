"""docs/rl.md: game parameters are keywords of the environment constructors; a wrong one is a
ConfigError that names the keyword as a parameter, not the command line's ``--set`` option
(which a Python user never typed)."""

from __future__ import annotations

import pytest

import botwars.rl as rl
from botwars.engine.errors import ConfigError


def test_unknown_keyword_parameter_names_the_config_not_the_cli_option():
    with pytest.raises(ConfigError) as info:
        rl.parallel_env("arena", max_turnz=50)
    line = info.value.one_line()
    assert "max_turnz" in line and "max_turns" in line
    assert "--set" not in line
    assert line.startswith("config: ")
