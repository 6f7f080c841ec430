"""The ``arena`` rule set (BotWars.io): program a robot swarm. Rules: shared/rules/arena.md.

``GAME`` is the game's plug-in declaration (docs/plugins.md); importing this package imports
no rules.
"""

from botwars.engine.plugin import AgentKind, BoardFormat, Capabilities, Game, Turns

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
    notation="botwars.games.arena.notation:notation",
    rl="botwars.games.arena.rlspec:make",
)
