"""DADOED: Do Androids Dream of Electric Deathmatches? (shared/rules/dadoed.md).

``GAME`` is the game's plug-in declaration (docs/plugins.md); importing this package imports
no rules.
"""

from botwars.engine.plugin import BoardFormat, Capabilities, Game, Turns

_RULES = "botwars.games.dadoed.rules:DadoedRuleset"

GAME = Game(
    id="dadoed",
    name="Do Androids Dream of Electric Deathmatches?",
    summary="a secret simultaneous setup (D-12.1), then one command a turn, alternating",
    rules=_RULES,
    seats=(2, 2),
    capabilities=Capabilities(turns=Turns.MIXED, hidden_information=True, finite_legal_orders=True,
                              replace_until_resolved=False, counts_refusals=False, text_orders=True),
    bots="botwars.games.dadoed.search:BUILTIN",
    board=BoardFormat(check=_RULES + ".check_board", doc="D-2.6 text board"),
    scenario="botwars.games.dadoed.scenario:SCENARIO",
    svg=_RULES + ".svg",
    report=_RULES + ".report",
    web_entry="botwars.games.dadoed:entry.js",
    page_helpers="botwars.games.dadoed.icons:page_helpers",
    how_to_play="botwars.games.dadoed:howto.md",
    rules_page="botwars.games.dadoed:rules.md",
    docs=("docs/dadoed.md",),
    tests=("tests/dadoed", "tests/scenarios/dadoed"),
    rl="botwars.games.dadoed.rlspec:make",
    notation="botwars.games.dadoed.notation:notation",
)
