"""Agent kinds and the agent spec strings that name them (see :func:`make_agent`)."""

from botwars.agents.base import Agent, AgentFailure, CallableAgent
from botwars.agents.spec import make_agent

__all__ = ["Agent", "AgentFailure", "CallableAgent", "make_agent"]
