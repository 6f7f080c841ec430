"""The agent contract: anything that turns a seat's view into an orders payload.

This is part of the kernel because both sides of it live elsewhere: the platform's agent
kinds (:mod:`botwars.agents`: built-in bots, bot files, JSON-lines programs, all sandboxed)
and a game's own agent kinds (declared on its :class:`~botwars.engine.plugin.Game`, e.g. the
arena's ``botwars-io:`` and ``rgkit:``). A game never imports :mod:`botwars.agents`; its
agent kinds get what they need from the platform as an :class:`AgentTools` argument, and a
Python host adapter gets a :class:`BotHost`.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any, Protocol

from botwars.engine.codes import FailureCode
from botwars.engine.errors import AgentFailure

__all__ = ["Agent", "AgentFailure", "AgentTools", "BotHost", "CallableAgent"]

_now = time.perf_counter



class Agent:
    """Base class of agents.

    ``start`` is called once before the first decision, ``act`` once per decision with the
    seat's view (a JSON-able dict) and the seconds it may take (``None`` = unlimited), and
    ``close`` once at the end. ``act`` returns the orders payload (JSON value or text) or
    raises :class:`AgentFailure`. ``spec`` is the agent spec string it was made from.
    """

    spec: str = ""
    in_process: bool = False
    """True for trusted code that runs in this process (a built-in bot): the seat driver asks it
    in its own thread; any other agent may be asked at the same time as other seats
    (:class:`~botwars.engine.driver.SeatDriver`)."""

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        """Called once before the first decision."""

    def act(self, view: dict[str, Any], deadline_s: float | None) -> Any:
        """The orders payload for ``view``; raises :class:`AgentFailure`."""
        raise NotImplementedError

    def close(self) -> None:
        """Release processes and files."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class CallableAgent(Agent):
    """Wraps an in-process bot object with ``act(view)`` (or a plain callable).

    Exceptions become ``crash``; a reply later than the deadline becomes ``timeout`` (P13:
    its result is discarded; the bot is trusted code and is not interrupted). The bot's
    optional ``start(game, seat, config, seed)`` is called by :meth:`start`.
    """

    in_process = True

    def __init__(self, bot: Any, spec: str = ""):
        self.bot = bot
        self.spec = spec
        if callable(getattr(bot, "act_native", None)):
            self.act_native = self._act_native  # offered only when the bot has it (Match looks)

    def _act_native(self, observation: Any, deadline_s: float | None) -> Any:
        """The bot's ``act_native(observation)``: parsed orders for a
        :meth:`Ruleset.native_view` observation (trusted built-in bots only). Same failures as
        :meth:`act`; with ``deadline_s=None`` the reply is not timed here (:class:`Match` times
        the native path itself and the referee judges it late, with the same record line)."""
        if deadline_s is None:
            try:
                return self.bot.act_native(observation)
            except Exception as exc:
                raise AgentFailure(FailureCode.CRASH, f"{type(exc).__name__}: {exc}") from None
        t0 = _now()
        try:
            out = self.bot.act_native(observation)
        except Exception as exc:
            raise AgentFailure(FailureCode.CRASH, f"{type(exc).__name__}: {exc}") from None
        if _now() - t0 > deadline_s:
            raise AgentFailure(FailureCode.TIMEOUT, f"no reply within {deadline_s:g} s")
        return out

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        fn = getattr(self.bot, "start", None)  # the bot class API: start is optional (docs/bots.md)
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


class RunResult(Protocol):
    """What one sandboxed run of a program saw (see :meth:`AgentTools.run_once`)."""

    returncode: int | None  # None: killed at the deadline
    stdout: bytes           # at most max_stdout bytes
    overflow: bool          # stdout was longer than max_stdout
    stderr_tail: str        # the last 8 KiB of stderr
    timed_out: bool


class AgentTools(Protocol):
    """What the platform lends a game's agent kinds (implemented by :mod:`botwars.agents`).

    A game's :class:`~botwars.engine.plugin.AgentKind` factory is called as
    ``make(argument, spec, tools)`` and returns an :class:`Agent`; it builds its agent from
    these tools so that every bot program runs in the platform's sandbox.
    """

    def split_command(self, text: str, spec: str) -> list[str]:
        """``text`` split like a shell command line; raises ``ConfigError`` (naming ``spec``)
        when it is empty, cannot be split, or its program is not found (not on ``PATH``, or
        not an executable file)."""
        ...

    def need_file(self, path: str, spec: str) -> str:
        """The absolute path of an existing file; raises ``ConfigError`` naming ``spec``."""
        ...

    def json_lines(self, argv: list[str], spec: str) -> Agent:
        """A sandboxed program speaking the JSON-lines protocol (docs/bots.md)."""
        ...

    def python_bot(self, path: str, spec: str, adapter: str | None = None) -> Agent:
        """A Python bot file run in its own sandboxed process by the platform's Python host.

        ``adapter`` (``"module:function"``) replaces the bot class API: the host calls
        ``function(path, host)`` with a :class:`BotHost` and plays the object it returns
        (anything with ``act(view) -> payload``).
        """
        ...

    def run_once(self, argv: list[str], data: bytes, deadline_s: float | None, *, max_stdout: int,
                 memory_limit_mib: int | None) -> RunResult:
        """Start ``argv`` sandboxed, write ``data`` to its stdin, close it, wait for the exit
        (killed ``deadline_s`` seconds after the start). Raises ``OSError`` when it cannot start."""
        ...

    def exit_failure(self, returncode: int | None, stderr_tail: str) -> tuple[FailureCode, str]:
        """``(code, detail)`` of an :class:`AgentFailure` for a program that exited badly."""
        ...


class BotHost(Protocol):
    """What the platform's Python host process gives a game's host adapter
    (:meth:`AgentTools.python_bot`): the match facts and the host's helpers."""

    game: str
    seat: str
    config: dict[str, Any]
    seed: int

    def load_module(self, path: str, name: str) -> ModuleType:
        """Import the Python file at ``path`` as a fresh module called ``name``."""
        ...

    def failure_reply(self, exc: BaseException, path: str | None = None,
                      code: FailureCode | None = None) -> dict[str, str]:
        """The ``{"botwars_error": ..., "code": ...}`` reply reporting an exception in bot code."""
        ...
