"""The search bots of issue 16 item 4: ``builtin:mcts`` (dadoed, submarine) and ``builtin:planner``
(factory, geeko).

At decision points of seeded matches between existing built-ins, for every pending seat:

- **twin state** (docs/kernel.md, ``Ruleset.twin_state``): the state with the seat's hidden facts
  redrawn gives the seat the same view, and a fresh search bot decides the same from it as from
  the real one (dadoed D-12.1, factory F-14.2, geeko G-1.3, submarine S-8.1);
- **determinism**: a second fresh bot with the same seed and budget gives the same orders;
- **legality**: the rules accept the orders (``parse_orders`` on the real state).

And a short match of each search bot, built by ``make_agent``, against the game's strongest
built-in finishes with an outcome; the bots are listed among the game's built-ins (the lobby's list).
"""

from __future__ import annotations

import random

import pytest

from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import get_ruleset
from botwars.games.dadoed.search import MctsBot
from botwars.games.factory.search import PlannerBot as FactoryPlanner
from botwars.games.geeko.search import PlannerBot as GeekoPlanner
from botwars.games.submarine.search import IsmctsBot

# game -> (spec name, small-budget factory, opponent built-in, config, decision points checked)
CASES = {
    "dadoed": ("mcts", lambda: MctsBot(simulations=4), "greedy", {"max_turns": 20}, 5),
    "submarine": ("mcts", lambda: IsmctsBot(simulations=8), "hunter", {}, 6),
    "factory": ("planner", lambda: FactoryPlanner(simulations=12, width=4), "pathfinder", {"turn_limit": 4}, 3),
    "geeko": ("planner", lambda: GeekoPlanner(simulations=4), "pathfinder", {"turn_limit": 3}, 2),
}


def _fresh(game: str, seat: str, config: dict, seed: int):
    bot = CASES[game][1]()
    bot.start(game, seat, config, seed)
    return bot


@pytest.mark.parametrize("game", sorted(CASES))
def test_listed_as_builtin(game):
    name = CASES[game][0]
    assert name in get_game(game).builtin_bots()
    agent = make_agent(f"builtin:{name}", game)
    assert type(agent.bot).__module__ == f"botwars.games.{game}.search"


SLOW = {"dadoed", "geeko"}  # a few seconds each on an idle core
GAMES = [pytest.param(g, marks=pytest.mark.slow) if g in SLOW else g for g in sorted(CASES)]


@pytest.mark.parametrize("game", GAMES)
def test_twin_state_determinism_legality(game):
    _, _make, opp, over, points = CASES[game]
    rs = get_ruleset(game)
    cfg = rs.validate_config(over)
    seats = rs.seat_names(2)
    m = Match(rs, cfg, {s: make_agent(f"builtin:{opp}", game) for s in seats}, 7, clock=False)
    m.start_agents()
    rng = random.Random(3)
    checked = 0
    while m.outcome() is None and checked < points:
        st = m.state
        for seat in rs.pending(st):
            view = rs.view(st, seat)
            twin = rs.twin_state(st, seat, rng)
            assert twin is not None
            twin_view = rs.view(twin, seat)
            assert twin_view == view  # the twin hides only what the seat may not see
            seed = 1000 + checked
            a = _fresh(game, seat, cfg, seed).act(view)
            b = _fresh(game, seat, cfg, seed).act(twin_view)
            c = _fresh(game, seat, cfg, seed).act(view)
            assert a == b, f"{game}: the decision changed with the opponent's hidden facts"
            assert a == c, f"{game}: same seed and budget, different orders"
            rs.parse_orders(st, seat, a)  # raises InvalidOrders if illegal
            checked += 1
        m.step()
    assert checked >= 2


@pytest.mark.parametrize("game", GAMES)
def test_short_match_against_builtin(game):
    _name, make, opp, over, _ = CASES[game]
    rs = get_ruleset(game)
    cfg = rs.validate_config(over)
    seats = rs.seat_names(2)
    agents = {seats[0]: make_agent(f"builtin:{opp}", game), seats[1]: make_agent(f"builtin:{opp}", game)}
    agents[seats[1]].bot = make()  # the small-budget search bot in the second seat
    res = Match(rs, cfg, agents, 11, clock=False).run()
    assert res.outcome is not None
    assert not res.errors, res.errors


def test_search_bot_rejects_zero_budget():
    for make in (lambda: MctsBot(simulations=0), lambda: IsmctsBot(simulations=0),
                 lambda: FactoryPlanner(simulations=0), lambda: GeekoPlanner(simulations=1)):
        with pytest.raises(ValueError):
            make()
