"""Coins, the sixth game: a test-only plug-in that lives entirely in this folder.

``GAME`` is its declaration; the distribution ``botwars-minigame`` (pyproject.toml here, and
the ``.dist-info`` beside this package, which is what ``pip install`` would write) names it in
the ``botwars.games`` entry points.
"""

from botwars.engine.plugin import Capabilities, Game, Turns

_RULES = "botwars_minigame.rules:CoinsRuleset"

GAME = Game(
    id="minigame",
    name="Coins: grab more coins than the other robot",
    summary="two robots, simultaneous moves, coins seen only nearby",
    rules=_RULES,
    seats=(2, 2),
    capabilities=Capabilities(turns=Turns.SIMULTANEOUS, hidden_information=True, finite_legal_orders=True),
    bots=_RULES + ".builtin_bots",
    scenario="botwars_minigame.scenario:SCENARIO",
    svg="botwars_minigame.draw:svg",
    report="botwars_minigame.draw:report",
)
