"""Agent spec strings.

The platform's kinds, for every game:

- ``builtin:NAME`` — a built-in bot of the game.
- ``path/to/bot.py`` — a Python file defining a bot class (run in a separate process).
- ``cmd:PROGRAM ARGS`` — a program speaking the JSON-lines protocol on stdin/stdout.

A game may add kinds of its own (:class:`~botwars.engine.plugin.AgentKind`, listed by
``botwars games GAME``), e.g. ``PREFIX:ARGUMENT`` for a game's original bot protocol.
"""

from __future__ import annotations

from botwars.agents.base import Agent, CallableAgent
from botwars.agents.tools import TOOLS
from botwars.engine.errors import ConfigError
from botwars.engine.plugin import agent_prefixes, get_game

PLATFORM_KINDS = ("builtin", "cmd")


def make_agent(spec: str, game: str) -> Agent:
    """Build the agent named by ``spec`` for ``game``.

    Raises :class:`ConfigError` naming the spec when it is unknown or unusable, and
    :class:`RulesetError` for an unknown game.
    """
    spec = spec.strip()
    g = get_game(game)
    prefix, sep, rest = spec.partition(":")
    if sep and prefix == "builtin":
        bots = g.builtin_bots()
        if rest not in bots:
            raise ConfigError(f"unknown built-in bot {rest!r} for {game} (known: {', '.join(sorted(bots))})",
                              source=spec)
        return CallableAgent(bots[rest](), spec)
    if sep and prefix == "cmd":
        return TOOLS.json_lines(TOOLS.split_command(rest, spec), spec)
    if sep and prefix not in PLATFORM_KINDS:
        kind = g.agent_kind(prefix)
        if kind is not None:
            return kind.build(rest, spec, TOOLS)
        others = agent_prefixes().get(prefix)
        if others:
            raise ConfigError(f"{prefix}: agents play only {' and '.join(others)}, not {game}", source=spec)
    if spec.endswith(".py"):
        return TOOLS.python_bot(TOOLS.need_file(spec, spec), spec)
    added = "".join(f", {k.prefix}:..." for k in g.agent_kinds)
    raise ConfigError(f"unknown agent spec (use builtin:NAME, path/to/bot.py, cmd:PROGRAM{added})", source=spec)

