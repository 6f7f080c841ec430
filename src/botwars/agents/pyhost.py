"""Host for Python-file bots: ``python -m botwars.agents.pyhost [--adapter MODULE:FUNC] path/to/bot.py``.

Run by the engine for the agent spec ``path/to/bot.py`` as a JSON-lines program
(:class:`~botwars.agents.subprocess_agent.JsonLinesAgent`), so the bot runs in its own process
and can never touch the engine's memory or the other bot.

The bot class API (``docs/bots.md``):

- The file defines a class named ``Bot``; failing that, the one class defined in the file that
  has an ``act`` method; failing that, a module-level function ``act(view)``.
- The class is instantiated with no arguments, once per match.
- Optional ``start(self, game, seat, config, seed)`` is called once before the first decision:
  ``game`` is the game id (as ``botwars games`` lists it), ``seat`` the seat name, ``config`` the
  validated parameters (a copy: changing it changes nothing), ``seed`` the seat's one-way seed
  (:meth:`Ruleset.agent_seed`, never the match seed).
- ``act(self, view)`` is called once per decision with the seat's view (a dict, the game's
  JSON observation: the arena P11 object) and returns the orders payload (the arena P12 dict,
  or a P5 text string).

What the bot prints with ``print`` goes to stderr (kept for error reports), never into the
protocol. ``random`` is seeded from the seat's seed, so a bot using it replays the same.
An exception in ``start`` or ``act`` is reported as a ``crash`` for that decision (the seat's
default orders apply) and the bot keeps running; a non-JSON return value is ``malformed``.

With ``--adapter MODULE:FUNC`` (a game's own agent kind, e.g. the arena's ``rgkit:``) the host
does not look for a bot class: it calls ``FUNC(path, host)`` with a
:class:`~botwars.engine.agent.BotHost` (the match facts, :func:`load_module`,
:func:`failure_reply`) and plays the object it returns (``act(view) -> payload``); ``random``
is seeded as above first.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sys
import traceback
from typing import Any

from botwars.engine.codes import FailureCode


def error_line(exc: BaseException, path: str | None = None) -> str:
    """``Type: message (file:line)`` naming the innermost frame in the bot's file if any."""
    where = ""
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in tb if path and os.path.abspath(f.filename) == os.path.abspath(path)] or tb[-1:]
    if frames:
        f = frames[-1]
        where = f" ({os.path.basename(f.filename)}:{f.lineno})"
    msg = str(exc)
    return f"{type(exc).__name__}: {msg}{where}" if msg else f"{type(exc).__name__}{where}"


def failure_reply(exc: BaseException, path: str | None = None, code: FailureCode | None = None) -> dict[str, str]:
    """The ``{"botwars_error": ..., "code": ...}`` reply for an exception in bot code."""
    if code is None:
        code = FailureCode.MEMORY if isinstance(exc, MemoryError) else FailureCode.CRASH
    return {"botwars_error": error_line(exc, path), "code": code}


def protocol_stdout():
    """Keep the real stdout for the protocol; send fd 1 and ``sys.stdout`` to stderr.

    Returns a binary file for protocol lines. After this, ``print`` in bot code and programs it
    starts write to stderr.
    """
    sys.stdout.flush()
    proto = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


def load_module(path: str, name: str = "botwars_user_bot"):
    """Import the Python file at ``path`` as a fresh module (its folder first on ``sys.path``)."""
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def find_bot(module) -> Any:
    """The bot object per the class API above; raises :class:`LookupError` if there is none."""
    cls = getattr(module, "Bot", None)
    if isinstance(cls, type):
        return cls()
    own = [v for k, v in sorted(vars(module).items()) if isinstance(v, type) and v.__module__ == module.__name__
           and callable(getattr(v, "act", None))]
    if len(own) == 1:
        return own[0]()
    if len(own) > 1:
        raise LookupError("several classes with an act method (" + ", ".join(c.__name__ for c in own)
                          + "): name the bot class Bot")
    fn = getattr(module, "act", None)
    if callable(fn):
        return module
    raise LookupError("no bot found: define a class Bot with an act(self, view) method")


def serve(proto, handle) -> None:
    """Read views from stdin line by line; write ``handle(view)`` as one JSON line each."""
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return
        try:
            view = json.loads(line)
        except ValueError:
            reply: Any = {"botwars_error": "the engine sent a line that is not JSON", "code": FailureCode.CRASH}
        else:
            reply = handle(view)
        try:
            data = json.dumps(reply, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            data = json.dumps({"botwars_error": f"act returned a value that is not JSON: {exc}",
                               "code": FailureCode.MALFORMED})
        try:
            proto.write(data.encode("utf-8", "replace") + b"\n")
        except BrokenPipeError:
            return


class Host:
    """The :class:`~botwars.engine.agent.BotHost` an adapter gets: match facts and helpers."""

    def __init__(self, game: str, seat: str, config: dict[str, Any], seed: int):
        self.game = game
        self.seat = seat
        self.config = config
        self.seed = seed

    def load_module(self, path: str, name: str) -> Any:
        """:func:`load_module`."""
        return load_module(path, name)

    def failure_reply(self, exc: BaseException, path: str | None = None, code: str | None = None) -> dict[str, str]:
        """:func:`failure_reply`."""
        return failure_reply(exc, path, code)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m botwars.agents.pyhost",
                                 description="Run a Python bot file as a JSON-lines program.")
    ap.add_argument("--adapter", help="MODULE:FUNCTION building the bot from the file (a game's agent kind)")
    ap.add_argument("path", help="the bot's Python file")
    args = ap.parse_args(argv[1:])
    path = args.path
    proto = protocol_stdout()
    from botwars.agents.subprocess_agent import read_config_from_env
    game = os.environ.get("BOTWARS_GAME", "")
    seat = os.environ.get("BOTWARS_SEAT", "")
    seed = int(os.environ.get("BOTWARS_SEED", "0") or 0)
    config = read_config_from_env()
    random.seed(f"{seed}:{seat}")
    setup_error: dict[str, str] | None = None
    bot: Any = None
    try:
        if args.adapter:
            from botwars.engine.plugin import resolve
            bot = resolve(args.adapter)(path, Host(game, seat, config, seed))
        else:
            bot = find_bot(load_module(path))
            start = getattr(bot, "start", None)
            if callable(start):
                start(game, seat, config, seed)
    except Exception as exc:  # the bot's problem: report it every decision, keep the protocol alive
        traceback.print_exc()
        setup_error = failure_reply(exc, path)
        setup_error["botwars_error"] = "loading the bot: " + setup_error["botwars_error"]

    def handle(view: Any) -> Any:
        if setup_error is not None:
            return setup_error
        try:
            return bot.act(view)
        except Exception as exc:
            traceback.print_exc()
            return failure_reply(exc, path)

    serve(proto, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
