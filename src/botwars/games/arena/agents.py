"""The arena's own agent kinds (declared in ``GAME.agent_kinds``), built from the platform's
:class:`~botwars.engine.agent.AgentTools` so that every program runs in its sandbox."""

from __future__ import annotations

from botwars.engine.agent import Agent, AgentTools


def botwars_io_agent(argument: str, spec: str, tools: AgentTools) -> Agent:
    """``botwars-io:PROGRAM ARGS``: the BotWars.io V2 text protocol (P1a-P3), a fresh process
    every turn (:class:`~botwars.games.arena.protocol.BotwarsIoAgent`). Raises ``ConfigError``
    for an empty or unsplittable command line."""
    from botwars.games.arena.protocol import BotwarsIoAgent
    return BotwarsIoAgent(tools.split_command(argument, spec), spec, tools=tools)


def rgkit_agent(argument: str, spec: str, tools: AgentTools) -> Agent:
    """``rgkit:path/to/robot.py``: an unmodified RobotGame bot, hosted by
    :func:`botwars.games.arena.rgkit_host.load_bot` in the platform's Python host. Raises
    ``ConfigError`` when the file does not exist."""
    return tools.python_bot(tools.need_file(argument, spec), spec, adapter="botwars.games.arena.rgkit_host:load_bot")
