"""Agent kinds and the agent spec strings that name them (see :func:`make_agent`), and
:func:`reuse_hosts`, which keeps sandboxed Python hosts across matches (:mod:`botwars.agents.hostpool`).

Imports are lazy (PEP 562): the sandboxed bot host (:mod:`botwars.agents.pyhost`) lives in this
package and must start without importing the sandbox, the agent kinds or the kernel.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from botwars.agents.base import Agent, AgentFailure, CallableAgent
    from botwars.agents.hostpool import reuse_hosts
    from botwars.agents.spec import make_agent

_WHERE = {"Agent": "base", "AgentFailure": "base", "CallableAgent": "base", "reuse_hosts": "hostpool",
          "make_agent": "spec"}

__all__ = ["Agent", "AgentFailure", "CallableAgent", "make_agent", "reuse_hosts"]


def __getattr__(name: str) -> Any:
    """Import the module defining the public ``name`` on first use (raises AttributeError for
    any other name)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'botwars.agents' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"botwars.agents.{module}"), name)
    globals()[name] = value
    return value
