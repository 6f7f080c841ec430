"""Geek-o Challenge: two robots through five rooms in the fewest turns (shared/rules/geeko.md).

``GAME`` is the game's plug-in declaration (docs/plugins.md); importing this package imports
no rules.
"""

from botwars.engine.plugin import BoardFormat, Capabilities, Game, Turns

_RULES = "botwars.games.geeko.rules:GeekoRuleset"

GAME = Game(
    id="geeko",
    name="Geek-o Challenge: two robots through five rooms in the fewest turns",
    summary="simultaneous programs for two robots each, secret hands, separate rooms",
    rules=_RULES,
    seats=(1, 8),
    capabilities=Capabilities(turns=Turns.SIMULTANEOUS, hidden_information=True, finite_legal_orders=False,
                              replace_until_resolved=True, counts_refusals=False, text_orders=False),
    bots="botwars.games.geeko.search:BUILTIN",
    board=BoardFormat(check=_RULES + ".check_board", suffixes=(".board",), entry_test=True,
                      doc="a room or a five-room set (G-2); --entry: the entry-board acceptance test (G-11)",
                      editor="botwars.games.geeko.editor:EDITOR"),
    scenario="botwars.games.geeko.scenario:SCENARIO",
    svg=_RULES + ".svg",
    legend=_RULES + ".legend",
    report=_RULES + ".report",
    web_entry="botwars.games.geeko:entry.js",
    how_to_play="botwars.games.geeko:howto.md",
    rules_page="botwars.games.geeko:rules.md",
    variant_of="factory",
    docs=("docs/geeko.md",),
    tests=("tests/geeko", "tests/scenarios/geeko"),
    plan="botwars.games.geeko.plan:geeko_plan",
    rl="botwars.games.geeko.rlspec:make",
    stages="botwars.games.factory.stages:turn_stages",
    notation="botwars.games.factory.stages:notation",
)
