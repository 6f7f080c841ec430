"""Built-in bot options on the command line: ``builtin:NAME(KEY=VALUE,...)`` (docs/bots.md).

A search bot's budget is chosen in its spec, e.g. ``builtin:mcts(simulations=200)``, so that a
tournament can pit budgets against each other. The options are the keyword parameters of the
bot's factory that default to a number or a boolean (``Game.builtin_options``); a wall-clock
budget (``seconds``, default ``None``) is not one, since it would make a match depend on the
machine. Bad options are refused with a one-line error naming the spec and the option; the
server offers built-in bots without options (a client may not buy CPU time).
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from botwars.agents.spec import make_agent, parse_builtin
from botwars.cli import app
from botwars.engine.errors import ConfigError
from botwars.engine.match import Match
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import canonical_json, get_ruleset
from botwars.games.dadoed.search import MctsBot


def test_parse_builtin_splits_name_and_options():
    assert parse_builtin("mcts", "s") == ("mcts", {})
    assert parse_builtin("mcts()", "s") == ("mcts", {})
    assert parse_builtin("mcts( simulations = 200 , c=0.25)", "s") == ("mcts", {"simulations": "200", "c": "0.25"})


def test_options_reach_the_bot():
    agent = make_agent("builtin:mcts(simulations=7,c=0.25,prior_weight=0)", "dadoed")
    assert isinstance(agent.bot, MctsBot)
    assert (agent.bot.simulations, agent.bot.c, agent.bot.k) == (7, 0.25, 0.0)
    assert isinstance(agent.bot.simulations, int) and isinstance(agent.bot.c, float)
    plain = make_agent("builtin:mcts", "dadoed")
    assert (plain.bot.simulations, plain.bot.c, plain.bot.k) == (48, 0.5, 2.0)  # MctsBot's defaults


def test_declared_options_are_the_number_defaults():
    # the four search bots' constructors (games/*/search.py); seconds (default None) is left out
    assert get_game("dadoed").builtin_options("mcts") == {"simulations": 48, "c": 0.5, "prior_weight": 2.0}
    assert get_game("submarine").builtin_options("mcts") == {"simulations": 64, "candidates": 6,
                                                             "rollout_turns": 2, "c": 0.7}
    assert get_game("factory").builtin_options("planner") == {"simulations": 24, "width": 12, "lookahead": 0.5}
    assert get_game("geeko").builtin_options("planner") == {"simulations": 16}
    assert get_game("arena").builtin_options("hunter") == {}


def _views(agents: dict, seed: int) -> list[str]:
    rs = get_ruleset("dadoed")
    cfg = rs.validate_config({"max_turns": 6})
    seen: list[str] = []
    Match(rs, cfg, agents, seed, clock=False).run(
        progress=lambda m: seen.append(canonical_json(rs.view(m.state, "blue"))))
    return seen


def test_spec_options_play_like_the_bot_built_with_them():
    """The same game, decision by decision, as the bot constructed directly with those options."""
    rs = get_ruleset("dadoed")
    seats = rs.seat_names(2)
    by_spec = {seats[0]: make_agent("builtin:mcts(simulations=1,c=0.2)", "dadoed"),
               seats[1]: make_agent("builtin:greedy", "dadoed")}
    direct = {seats[0]: make_agent("builtin:mcts", "dadoed"), seats[1]: make_agent("builtin:greedy", "dadoed")}
    direct[seats[0]].bot = MctsBot(simulations=1, c=0.2)
    default = {seats[0]: make_agent("builtin:mcts", "dadoed"), seats[1]: make_agent("builtin:greedy", "dadoed")}
    a, b, c = _views(by_spec, 5), _views(direct, 5), _views(default, 5)
    assert a == b
    assert a != c  # 1 descent against the default 48 chooses otherwise in this seeded game


@pytest.mark.parametrize("spec, words", [
    ("builtin:mcts(simulations=0)", "simulations must be at least 1"),
    ("builtin:mcts(sims=3)", "has no option 'sims' (options: simulations=48, c=0.5, prior_weight=2.0)"),
    ("builtin:mcts(simulations=2.5)", "option 'simulations' must be a whole number, not '2.5'"),
    ("builtin:mcts(c=nan)", "option 'c' must be a finite number"),
    ("builtin:mcts(c=inf)", "option 'c' must be a finite number"),
    ("builtin:mcts(c=-1)", "c and prior_weight must be at least 0"),
    ("builtin:mcts(simulations=8", "one pair of brackets at the end"),
    ("builtin:mcts(simulations)", "option 'simulations' is not KEY=VALUE"),
    ("builtin:mcts(simulations=8,simulations=9)", "option 'simulations' is given twice"),
    ("builtin:mcts(seconds=1)", "has no option 'seconds'"),
    ("builtin:greedy(depth=2)", "has no option 'depth' (options: none)"),
    ("builtin:nope(simulations=2)", "unknown built-in bot 'nope'"),
])
def test_bad_options_are_refused_naming_them(spec, words):
    with pytest.raises(ConfigError) as exc:
        make_agent(spec, "dadoed")
    assert words in str(exc.value)
    assert exc.value.source == spec


def test_command_line_one_line_exit_2():
    res = CliRunner().invoke(app, ["match", "dadoed", "builtin:mcts(simulations=0)", "builtin:greedy"])
    assert res.exit_code == 2
    out = res.output.strip().splitlines()
    assert out == ["error: builtin:mcts(simulations=0): built-in bot 'mcts': simulations must be at least 1"]


def test_games_lists_options():
    res = CliRunner().invoke(app, ["games", "submarine"])
    assert res.exit_code == 0
    assert "builtin:mcts(simulations=64,candidates=6,rollout_turns=2,c=0.7)" in res.output


def test_server_offers_builtin_bots_without_options(tmp_path, monkeypatch):
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")
    monkeypatch.setenv("BOTWARS_DATA_DIR", str(tmp_path / "data"))
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    with TestClient(create_app(f"sqlite:///{tmp_path}/bw.db", background=False)) as c:
        r = c.post("/api/matches", json={"game": "dadoed", "seats": ["remote", "builtin:mcts(simulations=100000)"]})
        assert r.status_code == 422
        body = r.json()
        assert "builtin:mcts(simulations=100000)" in str(body) and "without options" in str(body)
        assert c.post("/api/matches", json={"game": "dadoed", "seats": ["remote", "builtin:mcts"]}).status_code in (200, 201)
