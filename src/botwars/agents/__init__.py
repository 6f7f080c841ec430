"""Agent kinds and the agent spec strings that name them (see :func:`make_agent`), and
:func:`reuse_hosts`, which keeps sandboxed Python hosts across matches (:mod:`botwars.agents.hostpool`).

Imports are lazy (PEP 562): the sandboxed bot host (:mod:`botwars.agents.pyhost`) lives in this
package and must start without importing the sandbox, the agent kinds or the kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botwars.engine.lazy import lazy_names

if TYPE_CHECKING:
    from botwars.agents.base import Agent, AgentFailure, CallableAgent
    from botwars.agents.hostpool import reuse_hosts
    from botwars.agents.spec import make_agent

_WHERE = {"Agent": "base", "AgentFailure": "base", "CallableAgent": "base", "reuse_hosts": "hostpool",
          "make_agent": "spec"}

__all__ = ["Agent", "AgentFailure", "CallableAgent", "make_agent", "reuse_hosts"]


__getattr__ = lazy_names("botwars.agents", _WHERE, globals())
