"""Agent spec strings.

- ``builtin:NAME`` — a built-in bot of the game.
- ``path/to/bot.py`` — a Python file defining a bot class (run in a separate process).
- ``cmd:PROGRAM ARGS`` — a program speaking the JSON-lines protocol on stdin/stdout.
- ``botwars-io:PROGRAM ARGS`` — arena only: the BotWars.io V2 text protocol, one process per turn.
- ``rgkit:path/to/robot.py`` — arena only: an unmodified RobotGame (rgkit) bot.
"""

from __future__ import annotations

import os
import shlex
import sys

from botwars.agents.base import Agent, CallableAgent
from botwars.engine.errors import ConfigError
from botwars.engine.ruleset import get_ruleset


def make_agent(spec: str, game: str) -> Agent:
    """Build the agent named by ``spec`` for ``game``.

    Raises :class:`ConfigError` naming the spec when it is unknown or unusable.
    """
    spec = spec.strip()
    if spec.startswith("builtin:"):
        name = spec[len("builtin:"):]
        bots = get_ruleset(game).builtin_bots()
        if name not in bots:
            raise ConfigError(f"unknown built-in bot {name!r} for {game} (known: {', '.join(sorted(bots))})",
                              source=spec)
        return CallableAgent(bots[name](), spec)
    if spec.startswith("cmd:"):
        from botwars.agents.subprocess_agent import JsonLinesAgent
        argv = _argv(spec, "cmd:")
        return JsonLinesAgent(argv, spec)
    if spec.startswith("botwars-io:"):
        if game != "arena":
            raise ConfigError("botwars-io: agents play only the arena game", source=spec)
        from botwars.games.arena.protocol import BotwarsIoAgent
        return BotwarsIoAgent(_argv(spec, "botwars-io:"), spec)
    if spec.startswith("rgkit:"):
        if game != "arena":
            raise ConfigError("rgkit: agents play only the arena game", source=spec)
        path = spec[len("rgkit:"):]
        _need_file(path, spec)
        from botwars.agents.subprocess_agent import JsonLinesAgent
        return JsonLinesAgent([sys.executable, "-m", "botwars.games.arena.rgkit_host", os.path.abspath(path)], spec)
    if spec.endswith(".py"):
        _need_file(spec, spec)
        from botwars.agents.subprocess_agent import JsonLinesAgent
        return JsonLinesAgent([sys.executable, "-m", "botwars.agents.pyhost", os.path.abspath(spec)], spec)
    raise ConfigError("unknown agent spec (use builtin:NAME, path/to/bot.py, cmd:PROGRAM, "
                      "botwars-io:PROGRAM or rgkit:FILE)", source=spec)


def _argv(spec: str, prefix: str) -> list[str]:
    try:
        argv = shlex.split(spec[len(prefix):])
    except ValueError as exc:
        raise ConfigError(f"cannot split command line: {exc}", source=spec) from None
    if not argv:
        raise ConfigError("empty command", source=spec)
    return argv


def _need_file(path: str, spec: str) -> None:
    if not os.path.isfile(path):
        raise ConfigError(f"no such file: {path}", source=spec)
