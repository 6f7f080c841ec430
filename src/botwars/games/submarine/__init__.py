"""Submarine Warfare (ruleset id ``submarine``): shared/rules/submarine.md.

``GAME`` is the game's plug-in declaration (docs/plugins.md); importing this package imports
no rules.
"""

from botwars.engine.plugin import BatchEngine, Capabilities, Game, Turns

_RULES = "botwars.games.submarine.rules:SubmarineRuleset"

GAME = Game(
    id="submarine",
    name="Submarine Warfare: hidden fleets, action points, specials",
    summary="a secret simultaneous setup, then alternating turns of actions under fog of war",
    rules=_RULES,
    seats=(2, 2),
    capabilities=Capabilities(turns=Turns.MIXED, hidden_information=True, finite_legal_orders=False,
                              replace_until_resolved=False, counts_refusals=True, text_orders=True),
    bots="botwars.games.submarine.search:BUILTIN",
    scenario="botwars.games.submarine.scenario:SCENARIO",
    svg=_RULES + ".svg",
    report=_RULES + ".report",
    web_entry="botwars.games.submarine:entry.js",
    how_to_play="botwars.games.submarine:howto.md",
    rules_page="botwars.games.submarine:rules.md",
    docs=("docs/submarine.md",),
    tests=("tests/submarine", "tests/scenarios/submarine"),
    page_helpers="botwars.games.submarine.page:page_helpers",
    rl="botwars.games.submarine.rlspec:make",
    notation="botwars.games.submarine.notation:notation",
    reveal_svg=_RULES + ".reveal_svg",
    batch=(
        BatchEngine("numpy", "botwars.games.submarine.batch:BatchSubmarine",
                    vector="botwars.games.submarine.rlspec:SubmarineBatch",
                    doc="NumPy arrays over the matches, the action lists resolved row by row together"),
        BatchEngine("jax", "botwars.games.submarine.batch_jax:JaxSubmarine", extra="jax",
                    doc="the turn rules as one JAX function per match under jit/vmap (set-ups on NumPy)"),
    ),
)
