"""Agent spec strings.

The platform's kinds, for every game:

- ``builtin:NAME`` — a built-in bot of the game; ``builtin:NAME(KEY=VALUE,...)`` sets its
  options, e.g. ``builtin:mcts(simulations=200)`` (``botwars games GAME`` lists them).
- ``path/to/bot.py`` — a Python file defining a bot class (run in a separate process).
- ``cmd:PROGRAM ARGS`` — a program speaking the JSON-lines protocol on stdin/stdout.

A game may add kinds of its own (:class:`~botwars.engine.plugin.AgentKind`, listed by
``botwars games GAME``), e.g. ``PREFIX:ARGUMENT`` for a game's original bot protocol.
"""

from __future__ import annotations

import re
from typing import Any

from botwars.agents.base import Agent, CallableAgent
from botwars.agents.tools import TOOLS
from botwars.engine.errors import ConfigError
from botwars.engine.plugin import agent_prefixes, get_game

PLATFORM_KINDS = ("builtin", "cmd")

_OPTION = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^,=()]+?)\s*")


def parse_builtin(rest: str, spec: str) -> tuple[str, dict[str, str]]:
    """``NAME`` or ``NAME(KEY=VALUE,...)`` (what follows ``builtin:``, in the manner of
    OpenSpiel's ``mcts(max_simulations=100)``) split into the bot's name and its options as
    text, e.g. ``("mcts", {"simulations": "200"})``. The values are typed by
    :meth:`botwars.engine.plugin.Game.make_builtin`. Raises :class:`ConfigError` naming
    ``spec`` when the brackets or an option do not parse, or an option is given twice."""
    name, paren, args = rest.partition("(")
    name = name.strip()
    if not paren:
        return name, {}
    if not args.endswith(")") or "(" in args[:-1] or ")" in args[:-1]:
        raise ConfigError("options go in one pair of brackets at the end: builtin:NAME(KEY=VALUE,...)", source=spec)
    options: dict[str, str] = {}
    body = args[:-1]
    for part in body.split(",") if body.strip() else []:
        m = _OPTION.fullmatch(part)
        if m is None:
            raise ConfigError(f"option {part.strip()!r} is not KEY=VALUE", source=spec)
        if m.group(1) in options:
            raise ConfigError(f"option {m.group(1)!r} is given twice", source=spec)
        options[m.group(1)] = m.group(2)
    return name, options


def make_agent(spec: str, game: str) -> Agent:
    """Build the agent named by ``spec`` for ``game``.

    Raises :class:`ConfigError` naming the spec when it is unknown or unusable, and
    :class:`RulesetError` for an unknown game.
    """
    spec = spec.strip()
    g = get_game(game)
    prefix, sep, rest = spec.partition(":")
    if sep and prefix == "builtin":
        name, options = parse_builtin(rest, spec)
        return CallableAgent(g.make_builtin(name, options, source=spec), spec)
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



def implied_overrides(game: str, specs: list[str], overrides: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The parameter overrides for a match or tournament of ``game`` between the agents
    ``specs``: ``overrides`` plus what the agents' kind implies
    (:attr:`~botwars.engine.plugin.AgentKind.implies`) when every spec is of one such kind and
    ``overrides`` sets none of the implied parameters. Returns ``(overrides, note)``: ``note``
    is the kind's one-line ``implies_note`` when something was added, else ``""``. Raises
    :class:`RulesetError` for an unknown game."""
    g = get_game(game)
    prefixes = {s.strip().partition(":")[0] if ":" in s else "" for s in specs}
    if len(prefixes) != 1:
        return overrides, ""
    kind = g.agent_kind(prefixes.pop())
    if kind is None or not kind.implies or any(k in overrides for k, _ in kind.implies):
        return overrides, ""
    return {**dict(kind.implies), **overrides}, kind.implies_note
