"""Agent kinds and the agent spec strings that name them (see :func:`make_agent`), and
:func:`reuse_hosts`, which keeps sandboxed Python hosts across matches (:mod:`botwars.agents.hostpool`)."""

from botwars.agents.base import Agent, AgentFailure, CallableAgent
from botwars.agents.hostpool import reuse_hosts
from botwars.agents.spec import make_agent

__all__ = ["Agent", "AgentFailure", "CallableAgent", "make_agent", "reuse_hosts"]
