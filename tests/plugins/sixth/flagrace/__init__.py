"""Flag race, the sixth game of the platform's contract test (issue 26 item 5): a test-only
plug-in that lives entirely in ``tests/plugins/sixth/`` and is registered by the tests
(``tests/plugins/conftest.py``, fixture ``flagrace``) through the same registry the
``botwars.games`` entry points feed. Nothing outside this folder names it.

``GAME`` is its declaration: everything the platform offers for it (command line, server,
seat page, How-to-play and rules pages, learning environments) comes from here.
"""

from botwars.engine.plugin import Capabilities, Game, Turns

_RULES = "flagrace.rules:FlagRaceRuleset"

GAME = Game(
    id="flagrace",
    name="Flag race: be the one to reach the flag",
    summary="one counter on a short track, two seats take turns moving it; full information",
    rules=_RULES,
    seats=(2, 2),
    capabilities=Capabilities(turns=Turns.ALTERNATING, hidden_information=False, finite_legal_orders=True),
    bots="flagrace.bots:BUILTIN",
    scenario="flagrace.scenario:SCENARIO",
    svg="flagrace.draw:svg",
    legend="flagrace.draw:legend",
    report="flagrace.draw:report",
    how_to_play="flagrace:howto.md",
    rules_page="flagrace:rules.md",
    docs=("README.md",),
    tests=("tests",),
)
