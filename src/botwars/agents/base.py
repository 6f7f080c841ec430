"""The agent interface (defined in the kernel, :mod:`botwars.engine.agent`, because games'
own agent kinds build on it too); re-exported here for the platform's agent kinds."""

from botwars.engine.agent import Agent, AgentFailure, CallableAgent

__all__ = ["Agent", "AgentFailure", "CallableAgent"]
