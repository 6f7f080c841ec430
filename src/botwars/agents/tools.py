"""The platform's side of :class:`botwars.engine.agent.AgentTools`: what a game's own agent
kinds (declared on its :class:`~botwars.engine.plugin.Game`) build their agents from, so that
every bot program runs in the platform's sandbox (:mod:`botwars.agents.sandbox`)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys

from botwars.agents import sandbox
from botwars.engine.agent import Agent
from botwars.engine.codes import FailureCode
from botwars.engine.errors import ConfigError


class SandboxTools:
    """:class:`~botwars.engine.agent.AgentTools` over :mod:`botwars.agents.sandbox` and
    :class:`~botwars.agents.subprocess_agent.JsonLinesAgent`."""

    def split_command(self, text: str, spec: str) -> list[str]:
        """``text`` split like a shell command line; ``ConfigError`` (source ``spec``) when it
        cannot be split, is empty, or names a program that is not there (``shutil.which``: on
        ``PATH``, or a path to an executable file), so that a mistyped program is one line
        before the match rather than a crash at every decision. A program that goes away
        later is still a crash at each decision (the match goes on with default orders)."""
        try:
            argv = shlex.split(text)
        except ValueError as exc:
            raise ConfigError(f"cannot split command line: {exc}", source=spec) from None
        if not argv:
            raise ConfigError("empty command", source=spec)
        if shutil.which(argv[0]) is None:
            where = "is not an executable file" if os.sep in argv[0] else "is not found on PATH"
            raise ConfigError(f"program {argv[0]!r} {where}", source=spec)
        return argv

    def need_file(self, path: str, spec: str) -> str:
        """``path`` made absolute; ``ConfigError`` (source ``spec``) when it is not a file."""
        if not os.path.isfile(path):
            raise ConfigError(f"no such file: {path}", source=spec)
        return os.path.abspath(path)

    def json_lines(self, argv: list[str], spec: str) -> Agent:
        """A sandboxed JSON-lines program (:class:`JsonLinesAgent`)."""
        from botwars.agents.subprocess_agent import JsonLinesAgent
        return JsonLinesAgent(argv, spec)

    def _host(self, argv: list[str], spec: str) -> Agent:
        """The platform's Python host: a JSON-lines program that may be kept across matches
        (:func:`botwars.agents.reuse_hosts`)."""
        from botwars.agents.subprocess_agent import JsonLinesAgent
        return JsonLinesAgent(argv, spec, reusable=True)

    def python_bot(self, path: str, spec: str, adapter: str | None = None) -> Agent:
        """The Python file ``path`` run by :mod:`botwars.agents.pyhost` in its own sandboxed
        process; ``adapter`` (``"module:function"``) replaces the bot class API."""
        argv = [sys.executable, "-m", "botwars.agents.pyhost"]
        if adapter:
            argv += ["--adapter", adapter]
        return self._host(argv + [os.path.abspath(path)], spec)

    def run_once(self, argv: list[str], data: bytes, deadline_s: float | None, *, max_stdout: int,
                 memory_limit_mib: int | None) -> sandbox.RunResult:
        """:func:`botwars.agents.sandbox.run_once` (raises ``OSError`` when it cannot start)."""
        return sandbox.run_once(argv, data, deadline_s, max_stdout=max_stdout, memory_limit_mib=memory_limit_mib)

    def exit_failure(self, returncode: int | None, stderr_tail: str) -> tuple[FailureCode, str]:
        """:func:`botwars.agents.sandbox.exit_failure`."""
        return sandbox.exit_failure(returncode, stderr_tail)


TOOLS = SandboxTools()
"""The tools handed to every game's agent kinds."""
