"""The JSON-lines agent: a persistent bot process, one JSON view in, one JSON line out.

Protocol (documented for players in ``docs/bots.md``):

- The engine starts the program once, before the first decision, in a sandbox
  (:mod:`botwars.agents.sandbox`). The environment carries only ``BOTWARS_GAME``, ``BOTWARS_SEAT``,
  ``BOTWARS_SEED`` and the validated match configuration as JSON in ``BOTWARS_CONFIG`` (or, when
  it is longer than 64 KiB, in the file named by ``BOTWARS_CONFIG_FILE``).
- For every decision the engine writes the seat's view as one line of JSON (UTF-8, LF) to the
  program's stdin; the program answers with one line of JSON on stdout: the orders payload of
  the game (for the arena, the P12 object). The time from writing the view to reading the
  LF is the decision's thinking time.
- stderr is free for logging; its last lines are kept and shown when the program crashes.
- At the end of the match stdin is closed; the program should exit.

Failures, each raising :class:`~botwars.agents.AgentFailure` (the seat's default orders apply
for that decision and the match goes on):

- ``timeout``: no complete line before the deadline. The process (and its process group) is
  killed and a fresh one is started at the next decision; in-memory state is lost.
- ``crash``: the program cannot be started, exits or closes stdout (detail: the exit status
  or signal and the last stderr line). A fresh process is started at the next decision.
- ``memory``: as crash, when the program died of the memory limit.
- ``malformed``: the line is not valid UTF-8, not JSON, or longer than the game's
  ``max_output_chars`` characters (arena P12), when the game has that parameter. A line of more
  than 4 bytes a character (1 MiB without the parameter) without LF kills the process (the
  stream cannot be resynchronised); otherwise the process keeps running and any further output
  it printed for that decision is discarded.
- A host program may answer ``{"botwars_error": DETAIL, "code": CODE}`` to report a failure of
  the code it hosts (``pyhost``, ``rgkit_host``) without dying; CODE defaults to ``crash``.

Kept hosts (``reusable=True``, the platform's Python hosts only): inside
:func:`botwars.agents.reuse_hosts` the process is taken from / returned to the
:mod:`~botwars.agents.hostpool` instead of being started / killed, and the match is opened and
ended with the control lines of :mod:`botwars.agents.pyhost`. A failure of any kind during the
match means the process is killed at the end, never kept. When a match ends, every other
process of the host's sandbox is killed (:func:`botwars.agents.sandbox.sweep`); a host that
had left any, or has served :attr:`~botwars.agents.hostpool.HostPool.max_matches` matches, is
replaced by a fresh one.
"""

from __future__ import annotations

import json
import os
import select
import selectors
import tempfile
import time
from typing import Any

from botwars.agents.base import Agent, AgentFailure
from botwars.agents import hostpool, sandbox
from botwars.engine.codes import FailureCode
from botwars.agents.botenv import read_config_from_env

try:  # encodes views about 4x faster than json (see view_line)
    import orjson
except ImportError:  # pragma: no cover - a declared dependency; json alone still works
    orjson = None

#: the view as one compact JSON line (``json.dumps`` with these options builds an encoder per call)
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def view_line(view: Any) -> bytes:
    """``view`` as one compact JSON line with its LF (UTF-8): the value ``json`` gives
    (``separators=(",", ":")``, ``ensure_ascii=False``), through ``orjson`` where that gives
    the same value. Left to ``json``: whatever ``orjson`` refuses (keys that are not strings,
    integers beyond 64 bits, dataclasses, dates, ...) and any line holding ``null``, as
    ``orjson`` writes NaN and infinities as ``null`` where ``json`` writes ``NaN`` and
    ``Infinity``. (Floats may be spelled differently, e.g. ``0.00001`` for ``1e-05``: the same
    number.) Raises what ``json`` raises for a view that is not JSON."""
    if orjson is not None:
        try:
            data = orjson.dumps(view, option=_VIEW_OPTIONS)
        except orjson.JSONEncodeError:
            pass
        else:
            if b"null" not in data:
                return data
    return (_ENCODE(view) + "\n").encode("utf-8")


if orjson is not None:
    _VIEW_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_APPEND_NEWLINE

#: digits → "0", for :func:`reply_value`'s look for long runs of digits (as ``pyhost.read_view``)
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19  # an integer of 19 digits or more may lie beyond 64 bits
#: replies with this many ``[`` and ``{`` or more are left to ``json``: nested about 1,000 deep
#: (less the caller's stack), ``json`` raises ``RecursionError``; ``orjson`` reads 1,024 levels
_MAX_OPENERS = 256


def reply_value(line: bytes, text: str) -> Any:
    """A reply line's value: ``json.loads(text)`` (``text`` is ``line`` decoded as UTF-8, which
    the caller has checked), the same objects, through ``orjson`` where it gives them. Left to
    ``json``: a line with a run of 19 or more digits (``orjson`` reads an integer beyond 64 bits
    as a float), a line with :data:`_MAX_OPENERS` or more ``[`` and ``{`` (nested that deep,
    ``json`` raises ``RecursionError`` where ``orjson`` would read it) and whatever ``orjson``
    refuses (``NaN``, ``Infinity``, ``1e400``, a lone surrogate, ..., and every line that is
    not JSON, so that the error is ``json``'s). Raises ``ValueError`` (``json.JSONDecodeError``)
    where ``json`` does."""
    if orjson is not None and line.count(b"[") + line.count(b"{") < _MAX_OPENERS \
            and _LONG_DIGITS not in line.translate(_DIGITS_TO_ZERO):
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)
ENV_LIMIT = 64 * 1024
STDERR_TAIL = 8192
DEFAULT_MEMORY_MIB = 1024
DEFAULT_MAX_LINE = 1 << 20
GRACE_S = 0.3


def close_input(proc: Any, wait_s: float = GRACE_S) -> bool:
    """Close ``proc``'s stdin (a program ends at end of input) and wait up to ``wait_s``
    seconds for it to exit; returns whether it did. Whatever still runs is the caller's to kill."""
    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=wait_s)
    except Exception:
        return False
    return True


def _botwars_pythonpath() -> str:
    """The folder that holds the ``botwars`` package (so ``-m botwars...`` hosts can import it)."""
    import botwars
    return os.path.dirname(os.path.dirname(os.path.abspath(botwars.__file__)))


class _Pipes:
    """``poll(2)`` over a bot process's pipes: its stdout (tag ``"out"``), stderr (``"err"``),
    stdin (``"in"``, registered only while a view is being written) and, where the OS gives
    pidfds (Linux ≥ 5.3), the process itself (``"exit"``: ready once it has ended; it is then
    dropped from the set and :attr:`exited` is set). One ``poll`` call thus tells at once what
    the program printed and whether it has ended, so a decision needs no ``waitpid`` of its own.
    Registering and unregistering are no system calls."""

    def __init__(self, proc: Any):
        self._poll = select.poll()
        self._tags: dict[int, str] = {}
        self.out_fd = proc.stdout.fileno()
        self.err_fd = proc.stderr.fileno()
        self.in_fd = proc.stdin.fileno()
        self.register(self.out_fd, "out")
        self.register(self.err_fd, "err")
        self.exited = False
        self.pidfd: int | None = None
        try:
            self.pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):  # no pidfds here: the caller asks waitpid instead
            pass
        else:
            self.register(self.pidfd, "exit")

    def register(self, fd: int, tag: str) -> None:
        """Watch ``fd``: for writing when ``tag`` is ``"in"``, else for reading."""
        self._tags[fd] = tag
        self._poll.register(fd, select.POLLOUT if tag == "in" else select.POLLIN)

    def unregister(self, fd: int) -> None:
        """Stop watching ``fd`` (nothing when it is not watched)."""
        if self._tags.pop(fd, None) is not None:
            self._poll.unregister(fd)

    def watching(self, fd: int) -> bool:
        """Whether ``fd`` is watched (stdout/stderr: not yet at end of file)."""
        return fd in self._tags

    def open_pipes(self) -> bool:
        """Whether any pipe (not the process) is still watched."""
        return len(self._tags) > (0 if self.pidfd is None or self.exited else 1)

    def poll(self, timeout_s: float | None) -> list[tuple[int, str]]:
        """Wait up to ``timeout_s`` seconds (``None``: no limit) for a watched descriptor; the
        ready ones as ``(fd, tag)`` (an ended process once, as ``(pidfd, "exit")``)."""
        ready = self._poll.poll(None if timeout_s is None else max(0.0, timeout_s) * 1000.0)
        if not ready:
            return []
        tags = self._tags
        out = [(fd, tags[fd]) for fd, _ in ready if fd in tags]
        if self.pidfd is not None and not self.exited:
            for fd, tag in out:
                if tag == "exit":
                    self.exited = True
                    self.unregister(fd)
        return out

    def close(self) -> None:
        """Stop watching everything and close the pidfd."""
        for fd in list(self._tags):
            self.unregister(fd)
        if self.pidfd is not None:
            try:
                os.close(self.pidfd)
            except OSError:
                pass
            self.pidfd = None


class JsonLinesAgent(Agent):
    """A persistent subprocess speaking the JSON-lines protocol (see the module docstring).

    ``argv`` is the program and its arguments. ``memory_limit_mib`` overrides the config's
    ``memory_limit_mib`` (default 1024 MiB when the game has no such parameter);
    ``max_line_bytes`` overrides the longest reply accepted (default: the config's
    ``max_output_chars`` × 4 bytes — UTF-8 — or 1 MiB). ``network=None`` follows
    ``BOTWARS_BOT_NETWORK`` (default: no network where the OS allows it).
    """

    def __init__(self, argv: list[str], spec: str = "", *, memory_limit_mib: int | None = None,
                 max_line_bytes: int | None = None, network: bool | None = None, reusable: bool = False):
        self.argv = list(argv)
        self.spec = spec
        self.memory_limit_mib = memory_limit_mib
        self.max_line_bytes = max_line_bytes
        self.network = network
        self.proc = None
        self.env: dict[str, str] | None = None
        self._config_file: str | None = None
        self._out = bytearray()
        self._err = bytearray()
        self._sel: _Pipes | None = None
        self.restarts = 0
        self.extra_lines = 0
        """Lines the program wrote after a reply, before the next view (discarded; ``botwars bot
        check`` reports them: a late one could be read as the next view's reply)."""
        self.max_chars: int | None = None
        self.reusable = reusable
        self._pool: hostpool.HostPool | None = None
        self._control: bytes = b""
        self._tainted = False
        self.kept = False  # this match got a kept host
        self.served = 0  # matches the current host has served (kept hosts)

    # ---- lifecycle -------------------------------------------------------------------------
    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        """Prepare the environment and start the program (a start failure is a ``crash``)."""
        # only the bot's own variables: nothing of the engine's environment (secrets) passes
        env = {"BOTWARS_GAME": game, "BOTWARS_SEAT": seat, "BOTWARS_SEED": str(seed)}
        cfg = json.dumps(config, sort_keys=True, default=str)
        if len(cfg) <= ENV_LIMIT:
            env["BOTWARS_CONFIG"] = cfg
        else:
            fd, path = tempfile.mkstemp(prefix="botwars-config-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(cfg)
            os.chmod(path, 0o644)  # readable by the bot (shown to it read-only, alone)
            self._config_file = path
            env["BOTWARS_CONFIG_FILE"] = path
        if len(self.argv) >= 3 and self.argv[1] == "-m" and self.argv[2].startswith("botwars."):
            env["PYTHONPATH"] = _botwars_pythonpath()
        self.env = env
        if self.memory_limit_mib is None:
            self.memory_limit_mib = int(config.get("memory_limit_mib", DEFAULT_MEMORY_MIB))
        moc = config.get("max_output_chars")
        self.max_chars = moc if isinstance(moc, int) and not isinstance(moc, bool) else None
        if self.max_line_bytes is None:
            self.max_line_bytes = self.max_chars * 4 + 2 if self.max_chars else DEFAULT_MAX_LINE
        self._pool = hostpool.active() if self.reusable else None
        if self._pool is not None:
            env["BOTWARS_HOST_REUSE"] = "1"
            self._control = (json.dumps({"botwars_control": "match", "game": game, "seat": seat, "seed": seed,
                                         "config": config}, separators=(",", ":"), sort_keys=True, default=str)
                             + "\n").encode("utf-8")
            kept = self._pool.take(self._key())
            if kept is not None:
                self.proc, self._sel = kept.proc, kept.sel
                self.served = kept.served
                self._out.clear()
                self._err.clear()
                self.kept = True
                self._open_match()
                return
        self._spawn()

    def _key(self) -> tuple:
        net = sandbox.network_allowed() if self.network is None else self.network
        return (tuple(self.argv), self.memory_limit_mib, net)

    def _open_match(self) -> None:
        """Kept hosts: send the match's control line (a failure shows at the first decision)."""
        assert self.proc is not None
        try:
            _write_all(self.proc.stdin.fileno(), self._control, time.monotonic() + hostpool.END_S)
        except OSError:
            self._tainted = True

    def _spawn(self) -> None:
        self._out.clear()
        self._err.clear()
        try:
            self.proc = sandbox.spawn(self.argv, memory_limit_mib=self.memory_limit_mib, network=self.network,
                                      env=self.env, paths=[self._config_file] if self._config_file else ())
        except OSError as exc:
            self.proc = None
            raise AgentFailure(FailureCode.CRASH, f"cannot start {self.argv[0]}: {exc.strerror or exc}") from None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self._sel = _Pipes(self.proc)
        self.served = 0
        if self._pool is not None:
            self._pool.started += 1
            self._open_match()

    def _drop(self) -> None:
        """Kill the process (if any) and forget it; the next decision starts a fresh one."""
        self._tainted = True
        if self._sel is not None:
            try:
                self._sel.close()
            except Exception:
                pass
            self._sel = None
        if self.proc is not None:
            sandbox.kill(self.proc)
            self.proc = None
            self.restarts += 1

    def count_extra_lines(self, wait_s: float = 0.2) -> int:
        """After the last decision: read what the program wrote since its last reply (waiting
        up to ``wait_s`` seconds), add its lines to :attr:`extra_lines`, return the total."""
        if self.proc is not None:
            self._pump(wait_s)
            self.extra_lines += self._out.count(b"\n")
            self._out.clear()
        return self.extra_lines

    def close(self) -> None:
        """Close stdin, give the program a moment to exit, then kill its process group (a
        kept host without failures goes back to its pool instead)."""
        if self.proc is not None and self._pool is not None and not self._tainted and self._end_match():
            # whatever the bot started besides its host dies with the match (issue 25 item 5);
            # a host that left anything behind, or served its quota of matches, is not kept
            left = sandbox.sweep(self.proc)
            self.served += 1
            if left:
                self._pool.swept += 1
            elif self.served < self._pool.max_matches:
                host = KeptHost(self.proc, self._sel, self.served)
                self.proc, self._sel = None, None
                if not self._pool.give(self._key(), host):
                    host.shutdown()
        if self.proc is not None:
            close_input(self.proc)
            self._drop()
        if self._config_file:
            try:
                os.unlink(self._config_file)
            except OSError:
                pass
            self._config_file = None

    def _end_match(self) -> bool:
        """Kept hosts: send ``end`` and wait for ``done`` (what the bot printed before is
        discarded). True when the host confirmed within :data:`hostpool.END_S`."""
        proc = self.proc
        if proc is None or self._sel is None or proc.poll() is not None:
            return False
        end = time.monotonic() + hostpool.END_S
        try:
            _write_all(proc.stdin.fileno(), b'{"botwars_control":"end"}\n', end)
        except OSError:
            return False
        while time.monotonic() < end:
            nl = self._out.find(b"\n")
            if nl >= 0:
                line = bytes(self._out[:nl])
                del self._out[:nl + 1]
                if line.rstrip(b"\r") == b'{"botwars_control":"done"}':
                    self._out.clear()
                    self._err.clear()
                    return True
                continue
            if self._sel is None or not self._sel.open_pipes():
                return False
            for fd, tag in self._sel.poll(max(0.0, end - time.monotonic())):
                if tag != "exit" and not self._read(fd, tag) and tag == "out":
                    return False
        return False

    @property
    def stderr_tail(self) -> str:
        """The last few KiB the program wrote to stderr (decoded leniently)."""
        return self._err.decode("utf-8", "replace")

    # ---- one decision ----------------------------------------------------------------------
    @staticmethod
    def act_together(asks: list[tuple["JsonLinesAgent", Any, float | None]], now: Any = time.perf_counter
                     ) -> list[tuple[Any, AgentFailure | None, float]]:
        """Several agents of this class asked at once in the caller's thread: :func:`act_together`
        (the seat driver uses it instead of a thread per seat)."""
        return act_together(asks, now)

    def act(self, view: Any, deadline_s: float | None) -> Any:
        """Send ``view``, return the decoded JSON reply. Raises :class:`AgentFailure`."""
        try:
            return self._act(view, deadline_s)
        except AgentFailure:
            self._tainted = True  # never keep a host that failed
            raise

    def _act(self, view: Any, deadline_s: float | None) -> Any:
        ex = self._begin(view, deadline_s)
        pipes = self._sel
        assert pipes is not None
        try:
            while True:
                line = self._due_line(ex)
                if line is not None:
                    return self._decode(line)
                timeout = None if ex.end is None else ex.end - time.monotonic()
                if self._sel is None:
                    raise AgentFailure(FailureCode.CRASH, "lost the program")  # unreachable: for type checkers
                for fd, tag in pipes.poll(timeout):
                    line = self._on_ready(ex, fd, tag)
                    if line is not None:
                        return self._decode(line)
        finally:
            self._end_exchange(ex)

    def _begin(self, view: Any, deadline_s: float | None) -> "_Exchange":
        """The first half of a decision: make sure the program runs (start it, or see that it
        ended since its last reply: its ``crash``), discard what it printed since its last
        reply, and write the view line (as much of it as the pipe takes now). Returns the
        exchange's state for :meth:`_due_line` / :meth:`_on_ready`. Raises :class:`AgentFailure`."""
        t0 = time.monotonic()
        if self.env is None:
            self.start("", "", {}, 0)
        pipes = self._sel
        if self.proc is None:
            self._spawn()
            self._pump(0)
        elif pipes is None or pipes.pidfd is None:  # no pidfd: waitpid tells whether it has ended
            if self.proc.poll() is not None:
                self._ended_before()
            self._pump(0)  # discard what it printed since its last reply
        else:
            # one poll: what it printed since its last reply (discarded) and whether it has ended
            self._pump(0)
            if pipes.exited:
                self._ended_before(pumped=True)
        if self._out:
            self.extra_lines += self._out.count(b"\n")
            self._out.clear()
        if self._sel is None or not self._sel.watching(self._sel.out_fd):
            try:
                self.proc.wait(timeout=0.5)
            except Exception:
                pass
            failure = self._died("closed its output before this decision")
            self._drop()
            raise failure
        data = view_line(view)
        end = None if deadline_s is None else t0 + deadline_s
        pipes = self._sel
        in_fd = pipes.in_fd
        try:  # a view usually fits in the pipe: write it at once, no poll round
            n = os.write(in_fd, data)
        except BlockingIOError:
            n = 0
        except OSError:
            n = len(data)  # it does not read its input: it has ended or will soon; read stdout
        rest = memoryview(data)[n:] if n < len(data) else None
        if rest is not None:
            pipes.register(in_fd, "in")
        return _Exchange(end, deadline_s, rest, in_fd)

    def _ended_before(self, pumped: bool = False) -> None:
        """The program has ended (when :meth:`Popen.poll` agrees) before this decision: read
        what its pipes hold (unless just done), then raise its ``crash``/``memory`` failure."""
        assert self.proc is not None
        if self.proc.poll() is None:
            return  # not reaped yet (cannot happen once its pidfd was ready): it runs on
        if not pumped:
            self._pump(0)
        failure = self._died("exited before this decision")
        self._drop()
        raise failure

    def _due_line(self, ex: "_Exchange") -> bytes | None:
        """The reply line if the buffer holds one; raises the ``malformed`` failure of a line
        too long and the ``timeout`` of a deadline passed; else ``None`` (wait for more)."""
        out = self._out
        if out:
            nl = out.find(b"\n")
            if nl >= 0:
                line = bytes(out[:nl])
                del out[:nl + 1]
                return line
            if len(out) > self.max_line_bytes:
                self._drop()
                raise AgentFailure(FailureCode.MALFORMED, f"reply line longer than {self.max_line_bytes} bytes")
        if ex.end is not None and ex.end - time.monotonic() <= 0:
            self._drop()
            raise AgentFailure(FailureCode.TIMEOUT, f"no reply within {ex.deadline_s:g} s")
        return None

    def _on_ready(self, ex: "_Exchange", fd: int, tag: str) -> bytes | None:
        """One ready pipe of the exchange: write more of the view (``in``), read stdout
        (``out``: the reply line when a read brought exactly one whole line, else ``None`` and
        the bytes buffered for :meth:`_due_line`) or stderr (``err``). Raises the ``crash``
        failure when stdout closed."""
        if tag == "in":
            rest = ex.rest
            assert rest is not None
            try:
                n = os.write(ex.in_fd, rest)
            except BlockingIOError:
                n = 0
            except (BrokenPipeError, OSError):
                n = -1
            if n < 0:
                # it does not read its input: it has ended or will soon; keep reading stdout
                if self._sel is not None:
                    self._sel.unregister(ex.in_fd)
                ex.rest = None
            else:
                ex.rest = rest[n:]
                if not ex.rest:
                    ex.rest = None
                    if self._sel is not None:
                        self._sel.unregister(ex.in_fd)
        elif tag == "out":
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            out = self._out
            if chunk and not out and chunk.find(b"\n") == len(chunk) - 1:
                return chunk[:-1]  # a read that is exactly one line (the usual reply): no copy
            if chunk:
                out += chunk
            else:
                # stdout closed: the program has ended (or closed it on purpose)
                if self._sel is not None:
                    self._sel.unregister(fd)
                self._pump(0.5)
                proc = self.proc
                try:
                    if proc is not None:
                        proc.wait(timeout=0.5)
                except Exception:
                    pass
                failure = self._died("ended without replying")
                self._drop()
                raise failure
        elif tag == "err":
            self._read(fd, tag)
        return None

    def _end_exchange(self, ex: "_Exchange") -> None:
        """Stop watching stdin (the view is written, or abandoned)."""
        if self._sel is not None:
            self._sel.unregister(ex.in_fd)

    def _read(self, fd: int, which: str) -> bool:
        """Read what is available from stdout/stderr; False at end of file."""
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            if self._sel is not None:
                self._sel.unregister(fd)
            return False
        if which == "out":
            self._out += chunk
        else:
            self._err += chunk
            if len(self._err) > STDERR_TAIL:
                del self._err[:len(self._err) - STDERR_TAIL]
        return True

    def _pump(self, wait_s: float) -> None:
        """Read whatever stdout/stderr hold now (waiting up to ``wait_s`` for more)."""
        if self._sel is None:
            return
        end = time.monotonic() + wait_s
        while self._sel is not None and self._sel.open_pipes():
            ready = self._sel.poll(max(0.0, end - time.monotonic()))
            if not ready:
                return
            for fd, tag in ready:
                if tag == "out" or tag == "err":
                    self._read(fd, tag)
            if len(self._out) > self.max_line_bytes * 4:
                del self._out[:-self.max_line_bytes]
            if wait_s <= 0 or time.monotonic() >= end:
                return  # a program that never stops writing cannot hold the engine here

    def _died(self, what: str) -> AgentFailure:
        rc = self.proc.poll() if self.proc is not None else None
        code, detail = sandbox.exit_failure(rc, self.stderr_tail)
        return AgentFailure(code, f"{what}: {detail}")

    def _decode(self, line: bytes) -> Any:
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise AgentFailure(FailureCode.MALFORMED, f"reply is not valid UTF-8 (byte {exc.start})") from None
        if self.max_chars is not None and len(text) > self.max_chars:
            raise AgentFailure(FailureCode.MALFORMED, f"reply line longer than {self.max_chars} characters")
        try:
            obj = reply_value(line, text)
        except ValueError as exc:
            raise AgentFailure(FailureCode.MALFORMED, f"reply is not JSON ({exc.msg} at column {exc.colno}): "
                                                      f"{_clip(text)}") from None
        if isinstance(obj, dict) and "botwars_error" in obj and set(obj) <= {"botwars_error", "code"}:
            reported = obj.get("code")
            code = reported if reported in (FailureCode.CRASH, FailureCode.MALFORMED, FailureCode.MEMORY) \
                else FailureCode.CRASH
            raise AgentFailure(code, str(obj["botwars_error"])[:500])
        return obj


class _Exchange:
    """One decision's exchange in flight: the monotonic deadline ``end`` (``None``: none), the
    seconds given (for the message), the part of the view line not yet written, stdin's fd."""

    __slots__ = ("end", "deadline_s", "rest", "in_fd")

    def __init__(self, end: float | None, deadline_s: float | None, rest: memoryview | None, in_fd: int):
        self.end = end
        self.deadline_s = deadline_s
        self.rest = rest
        self.in_fd = in_fd


def act_together(asks: list[tuple["JsonLinesAgent", Any, float | None]], now: Any = time.perf_counter
                 ) -> list[tuple[Any, AgentFailure | None, float]]:
    """Ask several JSON-lines agents at once, in this thread (issue 28 items 2 and 3): every
    view is written first, then one ``poll(2)`` over all their pipes takes the replies as they
    come, so the programs think at the same time and a point costs the slowest one's time,
    with no thread per seat. ``asks``: ``(agent, view, deadline_s)``; returns, in the same
    order, ``(payload, None, seconds)`` or ``(None, failure, seconds)``: each agent's reply (or
    :class:`AgentFailure`, exactly what :meth:`JsonLinesAgent.act` would raise) and the seconds
    from its ask to its reply, measured by ``now``."""
    out: list[Any] = [None] * len(asks)
    live: dict[int, tuple[JsonLinesAgent, _Exchange, float]] = {}
    for i, (agent, view, deadline_s) in enumerate(asks):
        t0 = now()
        try:
            live[i] = (agent, agent._begin(view, deadline_s), t0)
        except AgentFailure as exc:
            agent._tainted = True
            out[i] = (None, exc, now() - t0)
    poll = select.poll()
    owner: dict[int, tuple[int, str]] = {}

    def finish(i: int, line: bytes | None, failure: AgentFailure | None) -> None:
        agent, ex, t0 = live.pop(i)
        for fd in [fd for fd, (j, _) in owner.items() if j == i]:
            poll.unregister(fd)
            del owner[fd]
        agent._end_exchange(ex)
        if failure is None:
            assert line is not None
            try:
                out[i] = (agent._decode(line), None, now() - t0)
                return
            except AgentFailure as exc:
                failure = exc
        agent._tainted = True
        out[i] = (None, failure, now() - t0)

    def watch(i: int) -> None:
        agent, ex, _ = live[i]
        sel = agent._sel
        want = {} if sel is None else {sel.out_fd: "out", sel.err_fd: "err"}
        if ex.rest is not None:
            want[ex.in_fd] = "in"
        for fd, tag in want.items():
            if tag != "in" and (sel is None or not sel.watching(fd)):
                continue
            if owner.get(fd) != (i, tag):
                if fd in owner:
                    poll.unregister(fd)
                owner[fd] = (i, tag)
                poll.register(fd, select.POLLOUT if tag == "in" else select.POLLIN)
        for fd in [fd for fd, (j, tag) in owner.items() if j == i and fd not in want]:
            poll.unregister(fd)
            del owner[fd]

    while live:
        timeout = None
        for i in list(live):
            agent, ex, _ = live[i]
            try:
                line = agent._due_line(ex)
            except AgentFailure as exc:
                finish(i, None, exc)
                continue
            if line is not None:
                finish(i, line, None)
                continue
            watch(i)
            if ex.end is not None:
                left = max(0.0, ex.end - time.monotonic())
                timeout = left if timeout is None else min(timeout, left)
        if not live:
            break
        for fd, _ in poll.poll(None if timeout is None else timeout * 1000.0):
            who = owner.get(fd)
            if who is None or who[0] not in live:
                continue
            i, tag = who
            agent, ex, _ = live[i]
            try:
                line = agent._on_ready(ex, fd, tag)
            except AgentFailure as exc:
                finish(i, None, exc)
                continue
            if line is not None:
                finish(i, line, None)
    return out


class KeptHost:
    """An idle kept host in a :class:`~botwars.agents.hostpool.HostPool`: the sandboxed
    process, the selector over its stdout/stderr, and the matches it has ``served``."""

    def __init__(self, proc, sel, served: int = 0):
        self.proc = proc
        self.sel = sel
        self.served = served

    def discard(self) -> None:
        """Kill it (its sandbox and every process in it)."""
        try:
            self.sel.close()
        except Exception:
            pass
        sandbox.kill(self.proc)

    def shutdown(self) -> None:
        """Close its input (the template exits), wait a moment, then :meth:`discard`."""
        close_input(self.proc)
        self.discard()


def _write_all(fd: int, data: bytes, end: float) -> None:
    """Write ``data`` to the non-blocking ``fd`` by ``end`` (monotonic); OSError when it cannot."""
    view = memoryview(data)
    while view:
        if time.monotonic() > end:
            raise OSError("write timed out")
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            selectors.DefaultSelector().select(0.01)
            continue
        view = view[n:]


def _clip(text: str, n: int = 80) -> str:
    return repr(text if len(text) <= n else text[:n] + "...")


__all__ = ["JsonLinesAgent", "act_together", "read_config_from_env"]
