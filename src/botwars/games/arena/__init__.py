"""The ``arena`` rule set (BotWars.io): program a robot swarm. Rules: shared/rules/arena.md.

``GAME`` is the game's plug-in declaration (docs/plugins.md); importing this package imports
no rules.
"""

from botwars.engine.plugin import AgentKind, BatchEngine, BoardFormat, Capabilities, Game, Turns

_RULES = "botwars.games.arena.rules:ArenaRuleset"

GAME = Game(
    id="arena",
    name="Arena (BotWars.io): program a robot swarm",
    summary="simultaneous orders for every robot of a swarm; full information",
    rules=_RULES,
    seats=(2, 2),
    capabilities=Capabilities(turns=Turns.SIMULTANEOUS, hidden_information=False, finite_legal_orders=False,
                              replace_until_resolved=False, counts_refusals=False, text_orders=True),
    bots="botwars.games.arena.bots:BUILTIN",
    agent_kinds=(
        AgentKind("botwars-io", "botwars.games.arena.agents:botwars_io_agent",
                  "botwars-io:PROGRAM ARGS — the BotWars.io V2 text protocol, a fresh process every turn (P1a-P3)"),
        AgentKind("rgkit", "botwars.games.arena.agents:rgkit_agent",
                  "rgkit:path/to/robot.py — an unmodified RobotGame (rgkit) bot; when every seat is one, the "
                  "match plays RobotGame's own rules (rules=robotgame) unless --set rules=... says otherwise",
                  implies=(("rules", "robotgame"),),
                  implies_note="every seat is an rgkit: bot, so this plays RobotGame's own rules (rules=robotgame; "
                               "--set rules=arena for the arena's)"),
    ),
    board=BoardFormat(check=_RULES + ".check_board", suffixes=(".map",), doc="arena map (R5)"),
    scenario="botwars.games.arena.scenario:SCENARIO",
    svg=_RULES + ".svg",
    report=_RULES + ".report",
    web_entry="botwars.games.arena:entry.js",
    how_to_play="botwars.games.arena:howto.md",
    rules_page="botwars.games.arena:rules.md",
    rules_variants=("botwars.games.arena:rules+robotgame.md",),
    docs=("docs/scenarios-arena.md", "docs/arena-robotgame.md"),
    tests=("tests/arena", "tests/scenarios/arena"),
    notation="botwars.games.arena.notation:notation",
    rl="botwars.games.arena.rlspec:make",
    batch=(
        BatchEngine("numpy", "botwars.games.arena.batch:BatchArena", vector="botwars.games.arena.rlspec:ArenaBatch",
                    doc="NumPy boards, the robots' arrays resolved together (the vector environment's engine)"),
        BatchEngine("jax", "botwars.games.arena.batch_jax:JaxArena", extra="jax",
                    doc="the same rules as dense jit-compiled JAX array expressions",
                    env="botwars.games.arena.env_jax:make"),
    ),
)
