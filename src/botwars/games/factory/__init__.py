"""Factory (BotWars rules v3): programmed cards on a factory floor (shared/rules/factory.md).

``GAME`` is the game's plug-in declaration (docs/plugins.md); importing this package imports
no rules.
"""

from botwars.engine.plugin import BoardFormat, Capabilities, Game, Turns

_RULES = "botwars.games.factory.rules:FactoryRuleset"

GAME = Game(
    id="factory",
    name="Factory (BotWars rules v3): program cards on a factory floor",
    summary="simultaneous programs from secret hands of cards",
    rules=_RULES,
    seats=(1, 8),
    capabilities=Capabilities(turns=Turns.SIMULTANEOUS, hidden_information=True, finite_legal_orders=False,
                              replace_until_resolved=True, counts_refusals=False, text_orders=False),
    bots="botwars.games.factory.search:BUILTIN",
    board=BoardFormat(check=_RULES + ".check_board", suffixes=(".board",), doc="factory board (F-2)",
                      editor="botwars.games.factory.editor:EDITOR"),
    scenario="botwars.games.factory.scenario:SCENARIO",
    svg=_RULES + ".svg",
    legend=_RULES + ".legend",
    report=_RULES + ".report",
    web_entry="botwars.games.factory:entry.js",
    how_to_play="botwars.games.factory:howto.md",
    rules_page="botwars.games.factory:rules.md",
    docs=("docs/factory.md",),
    tests=("tests/factory", "tests/scenarios/factory"),
    plan="botwars.games.factory.plan:factory_plan",
    rl="botwars.games.factory.rlspec:make",
    stages="botwars.games.factory.stages:turn_stages",
    notation="botwars.games.factory.stages:notation",
)
