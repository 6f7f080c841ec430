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

**Kept hosts** (``BOTWARS_HOST_REUSE=1`` in the environment; used by
:func:`botwars.agents.reuse_hosts`): the process is a *template* that serves many matches of the
same bot file. It never runs bot code itself: for every match it reads one control line
``{"botwars_control": "match", "game", "seat", "seed", "config"}``, forks a child that loads the
bot afresh (a new module: no state of an earlier match survives in memory) in a new empty
working folder (``cwd``, ``HOME`` and ``TMPDIR``) and serves that match's views exactly as
above, until ``{"botwars_control": "end"}``, which the child answers with
``{"botwars_control": "done"}`` before exiting. The template then removes the working folder
and waits for the next match. So that a match's child starts in about a millisecond, the
template imports beforehand what every child would import again: the adapter's module (botwars'
own code) and the standard-library modules the bot file imports (found by parsing it; the bot's
own code never runs in the template). If the child dies any other way, the template exits with its
status (so the engine sees the crash as without reuse). End of input ends the template.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import random
import sys
import traceback
from typing import Any

from botwars.engine.codes import FailureCode

try:  # parses the engine's view lines about 3x faster than json (see read_view)
    import orjson
except ImportError:  # pragma: no cover - a declared dependency; json alone still works
    orjson = None


def error_line(exc: BaseException, path: str | None = None) -> str:
    """``Type: message (file:line)`` naming the innermost frame in the bot's file if any.

    A ``SyntaxError`` (and its subclasses) names the file and line it points at, the bot's own
    file, not the import machinery's frame (``<frozen importlib._bootstrap>``, issue 28 item
    5); otherwise frames of Python's frozen modules are passed over."""
    where = ""
    msg = str(exc)
    if isinstance(exc, SyntaxError) and exc.filename and not str(exc.filename).startswith("<"):
        msg = exc.msg or "invalid syntax"
        return f"{type(exc).__name__}: {msg} ({os.path.basename(exc.filename)}:{exc.lineno})"
    tb = traceback.extract_tb(exc.__traceback__)
    real = [f for f in tb if not f.filename.startswith("<")]
    frames = [f for f in tb if path and os.path.abspath(f.filename) == os.path.abspath(path)] or real[-1:] or tb[-1:]
    if frames:
        f = frames[-1]
        where = f" ({os.path.basename(f.filename)}:{f.lineno})"
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


#: a reply as one compact JSON line (one encoder for the host's life, not one per reply)
_REPLY_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_ENCODE_REPLY = _REPLY_ENCODER.encode


class _ReplyEncoder:
    """``_REPLY_ENCODER.encode`` without its per-call set-up: ``JSONEncoder.encode`` builds a
    new C encoder (and a closure) for every value, about 5 µs for a small reply; this keeps one
    (``json.encoder.c_make_encoder`` with the same options, called as ``iterencode`` calls it)
    and builds a fresh one after any error, since the C encoder leaves its circular-reference
    markers behind when it fails. The same text as ``_ENCODE_REPLY``, the same exceptions."""

    def __init__(self) -> None:
        from json import encoder
        self._make = getattr(encoder, "c_make_encoder", None)
        self._string = encoder.encode_basestring  # ensure_ascii=False
        self._encode = self._new()

    def _new(self) -> Any:
        e = _REPLY_ENCODER
        if self._make is None:  # pragma: no cover - CPython always has the C encoder
            return None
        return self._make({}, e.default, self._string, e.indent, e.key_separator, e.item_separator,
                          e.sort_keys, e.skipkeys, e.allow_nan)

    def __call__(self, o: Any) -> str:
        if isinstance(o, str) or self._encode is None:
            return _ENCODE_REPLY(o)
        try:
            chunks = self._encode(o, 0)
        except BaseException:
            self._encode = self._new()
            raise
        if not isinstance(chunks, (list, tuple)):  # pragma: no cover - the C encoder gives a list
            chunks = list(chunks)
        return "".join(chunks)


_encode_reply = _ReplyEncoder()


#: digits → "0", for :func:`read_view`'s look for long runs of digits
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19  # an integer of 19 digits or more may lie beyond 64 bits


def read_view(line: bytes) -> Any:
    """The decoded view line: ``json.loads(line)``, the same objects, through ``orjson`` where it
    gives them (the engine's lines: plain JSON). Left to ``json``: a line with a run of 19 or
    more digits (``orjson`` reads an integer beyond 64 bits as a float) and whatever ``orjson``
    refuses (``NaN``, a lone surrogate, ...). Raises ``ValueError`` where ``json`` does."""
    if orjson is not None and _LONG_DIGITS not in line.translate(_DIGITS_TO_ZERO):
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    return json.loads(line)


def _reply_bytes(reply: Any) -> bytes:
    """A bot's reply as its line's bytes (without LF), by ``json``."""
    return _encode_reply(reply).encode("utf-8", "replace")


def plain_reply_bytes(reply: Any) -> bytes:
    """The compact JSON line (without LF) of a reply that a game's adapter built from plain
    ``dict``/``list``/``str``/``int`` values (never a bot's own return value, whose encoding
    :func:`answer` leaves to ``json``): ``orjson`` where it encodes it, else as :func:`answer`
    would. Raises ``TypeError``/``ValueError`` where ``json`` does."""
    if orjson is not None:
        try:
            return orjson.dumps(reply)
        except orjson.JSONEncodeError:
            pass
    return _reply_bytes(reply)


def answer(proto, line: bytes, handle) -> bool:
    """Answer one view line with ``handle(view)`` as one JSON line (an error object for a line
    that is not JSON or a reply that is not JSON); False when the engine closed the pipe.
    ``handle.encode`` (:func:`plain_reply_bytes`, set by :func:`make_handler` for an adapter
    whose object says ``plain_replies = True``) turns the reply into the line's bytes;
    otherwise ``json`` does (:func:`_reply_bytes`)."""
    try:
        view = read_view(line)
    except ValueError:
        reply: Any = {"botwars_error": "the engine sent a line that is not JSON", "code": FailureCode.CRASH}
    else:
        reply = handle(view)
    try:
        data = getattr(handle, "encode", _reply_bytes)(reply)
    except (TypeError, ValueError) as exc:
        data = json.dumps({"botwars_error": f"act returned a value that is not JSON: {exc}",
                           "code": FailureCode.MALFORMED}).encode("utf-8", "replace")
    try:
        proto.write(data + b"\n")
    except BrokenPipeError:
        return False
    return True


def serve(proto, handle) -> None:
    """Read views from stdin (fd 0, through a :class:`LineReader`) line by line; write
    ``handle(view)`` as one JSON line each."""
    reader = LineReader(0)
    while True:
        line = reader.readline()
        if not line or not answer(proto, line, handle):
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


class LineReader:
    """Lines from a file descriptor through an own buffer (copied into a forked child with the
    rest of memory, so the template can hand the bytes it read ahead to the match's child)."""

    def __init__(self, fd: int = 0):
        self.fd = fd
        self.buf = bytearray()

    def readline(self) -> bytes:
        """The next line with its LF, or what is left at end of input (``b""`` when nothing)."""
        if not self.buf:  # the usual case: one read brings exactly one line, returned as read
            chunk = os.read(self.fd, 65536)
            if not chunk or chunk.find(b"\n") == len(chunk) - 1:
                return chunk
            self.buf += chunk
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line = bytes(self.buf[:nl + 1])
                del self.buf[:nl + 1]
                return line
            chunk = os.read(self.fd, 65536)
            if not chunk:
                line = bytes(self.buf)
                self.buf.clear()
                return line
            self.buf += chunk


def serve_match(proto, reader: LineReader, handle) -> bool:
    """:func:`serve` for one match of a kept host: True when the engine ended the match with
    ``{"botwars_control": "end"}`` (answered with ``done``), False at end of input."""
    while True:
        line = reader.readline()
        if not line:
            return False
        if line.startswith(b'{"botwars_control"'):
            try:
                end = json.loads(line).get("botwars_control") == "end"
            except ValueError:
                end = False
            if end:
                proto.write(b'{"botwars_control":"done"}\n')
                return True
        if not answer(proto, line, handle):
            return False


def make_handler(path: str, adapter: str | None, game: str, seat: str, config: dict[str, Any], seed: int):
    """Load the bot (per the class API, or through ``adapter``) and return ``handle(view)``:
    the reply for one view (a ``botwars_error`` reply when loading or ``act`` failed)."""
    random.seed(f"{seed}:{seat}")
    setup_error: dict[str, str] | None = None
    bot: Any = None
    try:
        if adapter:
            from botwars.engine.plugin import resolve
            bot = resolve(adapter)(path, Host(game, seat, config, seed))
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

    if adapter and setup_error is None and getattr(bot, "plain_replies", False) is True:
        # an adapter that builds its replies from plain values only: orjson may encode them
        handle.encode = plain_reply_bytes  # type: ignore[attr-defined]
    return handle


#: standard-library modules that do something when imported (print, open a browser, start a GUI):
#: left to the match's child, where the bot asked for them
_IMPORT_SIDE_EFFECTS = frozenset({"this", "antigravity", "__hello__", "__phello__", "__main__", "idlelib",
                                  "tkinter", "turtle", "turtledemo"})


def stdlib_imports(source: str) -> list[str]:
    """The standard-library modules a bot's source imports at any level (``import a.b`` gives
    ``a`` and ``a.b``; relative imports and modules outside the standard library are left out),
    sorted. The source is parsed, never run; a file that does not parse gives ``[]``."""
    import ast
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found = [node.module]
        else:
            continue
        for name in found:
            parts = name.split(".")
            if parts[0] in sys.stdlib_module_names and parts[0] not in _IMPORT_SIDE_EFFECTS:
                names.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(names)


def preload_stdlib(path: str) -> None:
    """In a kept host's template: import the standard-library modules the bot file imports
    (:func:`stdlib_imports`), so every match's child finds them loaded instead of importing
    them again (a fork shares them). Never runs the bot's code; a module that fails to import
    is skipped (the child reports it when the bot imports it)."""
    import importlib
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError):
        return
    for name in stdlib_imports(source):
        try:
            importlib.import_module(name)
        except Exception:
            pass


def template(proto, path: str, adapter: str | None) -> int:
    """A kept host (see the module docstring): fork one child per match; returns the exit status."""
    import shutil
    import tempfile
    if adapter:  # botwars' own code only (never the bot's): imported once, shared by every child
        from botwars.engine.plugin import resolve
        try:
            resolve(adapter)
        except Exception:
            pass  # the child reports it
    preload_stdlib(path)
    reader = LineReader(0)
    while True:
        line = reader.readline()
        if not line:
            return 0
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict) or msg.get("botwars_control") != "match":
            print("kept host: expected a match control line", file=sys.stderr)
            return 2
        work = tempfile.mkdtemp(prefix="match-")
        sys.stdout.flush()
        sys.stderr.flush()
        gc.freeze()  # the template's objects: no child's collector touches (and copies) their pages
        pid = os.fork()
        if pid == 0:  # the match's child: never returns into this loop
            status = 1
            try:
                os.chdir(work)
                config = msg.get("config") or {}
                env = {"BOTWARS_GAME": str(msg.get("game", "")), "BOTWARS_SEAT": str(msg.get("seat", "")),
                       "BOTWARS_SEED": str(msg.get("seed", 0)), "HOME": work, "TMPDIR": work,
                       "BOTWARS_CONFIG": json.dumps(config, sort_keys=True)}
                os.environ.update(env)
                os.environ.pop("BOTWARS_CONFIG_FILE", None)
                tempfile.tempdir = None
                handle = make_handler(path, adapter, env["BOTWARS_GAME"], env["BOTWARS_SEAT"], config,
                                      int(msg.get("seed", 0) or 0))
                status = 0 if serve_match(proto, reader, handle) else 3
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
                status = 1
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(status)
        reader.buf.clear()  # what was read ahead belongs to the child
        _, wstatus = os.waitpid(pid, 0)
        shutil.rmtree(work, ignore_errors=True)
        if os.WIFSIGNALED(wstatus):
            sig = os.WTERMSIG(wstatus)
            import signal
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
            return 128 + sig
        code = os.WEXITSTATUS(wstatus)
        if code == 3:
            return 0  # end of input during the match
        if code != 0:
            return code


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m botwars.agents.pyhost",
                                 description="Run a Python bot file as a JSON-lines program.")
    ap.add_argument("--adapter", help="MODULE:FUNCTION building the bot from the file (a game's agent kind)")
    ap.add_argument("path", help="the bot's Python file")
    args = ap.parse_args(argv[1:])
    path = args.path
    proto = protocol_stdout()
    from botwars.agents.botenv import read_config_from_env
    game = os.environ.get("BOTWARS_GAME", "")
    seat = os.environ.get("BOTWARS_SEAT", "")
    seed = int(os.environ.get("BOTWARS_SEED", "0") or 0)
    if os.environ.get("BOTWARS_HOST_REUSE") == "1":
        return template(proto, path, args.adapter)
    config = read_config_from_env()
    serve(proto, make_handler(path, args.adapter, game, seat, config, seed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
