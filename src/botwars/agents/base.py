"""The agent interface: anything that turns a seat's view into an orders payload."""

from __future__ import annotations

import time
from typing import Any

from botwars.engine.codes import FailureCode
from botwars.engine.errors import AgentFailure

__all__ = ["AgentFailure", "Agent", "CallableAgent"]


class Agent:
    """Base class of agents.

    ``start`` is called once before the first decision, ``act`` once per decision with the
    seat's view (a JSON-able dict) and the seconds it may take (``None`` = unlimited), and
    ``close`` once at the end. ``act`` returns the orders payload (JSON value or text) or
    raises :class:`AgentFailure`. ``spec`` is the agent spec string it was made from.
    """

    spec: str = ""

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        """Called once before the first decision."""

    def act(self, view: dict[str, Any], deadline_s: float | None) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        """Release processes and files."""

    # in-process agents that support being driven without a view copy can override this
    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class CallableAgent(Agent):
    """Wraps an in-process bot object with ``act(view)`` (or a plain callable).

    Exceptions become ``crash``; a reply later than the deadline becomes ``timeout`` (P13:
    its result is discarded; the bot is trusted code and is not interrupted).
    """

    def __init__(self, bot: Any, spec: str = ""):
        self.bot = bot
        self.spec = spec

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        fn = getattr(self.bot, "start", None)
        if callable(fn):
            try:
                fn(game, seat, config, seed)
            except Exception as exc:  # a bot's own problem never stops the match
                raise AgentFailure(FailureCode.CRASH, f"start: {type(exc).__name__}: {exc}") from None

    def act(self, view: dict[str, Any], deadline_s: float | None) -> Any:
        fn = self.bot.act if hasattr(self.bot, "act") else self.bot
        t0 = time.perf_counter()
        try:
            out = fn(view)
        except Exception as exc:
            raise AgentFailure(FailureCode.CRASH, f"{type(exc).__name__}: {exc}") from None
        if deadline_s is not None and time.perf_counter() - t0 > deadline_s:
            raise AgentFailure(FailureCode.TIMEOUT, f"no reply within {deadline_s:g} s")
        return out
