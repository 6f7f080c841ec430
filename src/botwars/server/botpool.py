"""The pool of processes that plays the server's built-in bots (issue 12).

A built-in bot is trusted code, but what it is asked to do is chosen by strangers (a large map,
many robots): one slow decision must never hold up another match. So every decision of a
built-in bot runs in a worker process of a :class:`BotPool` (``pebble.ProcessPool``, a bounded
number of workers) with a time limit per decision. A decision that overruns is stopped by
killing its worker (pebble starts a fresh one): the seat gets its default orders and a
recorded ``timeout`` error, exactly as a bot process of a local match that misses its deadline
(P10, P13). Other matches' bots go on in the other workers meanwhile, and the server's own
process (HTTP, WebSocket, clocks) never runs bot code.

The bot object travels with each decision: the caller's :class:`~botwars.agents.base.CallableAgent`
is pickled when the decision is submitted, the worker plays it and sends back the agent as it is
after the decision (its memory and random stream advanced) with the orders. A decision that
failed leaves the caller's agent as it was. Workers start with an empty environment (nothing of
the server's — database URL, tokens — reaches bot code), an address-space limit, and the lowest
CPU priority (nice 19), so that busy bots never slow the server's own process.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import threading
import time
from concurrent.futures import CancelledError, TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from botwars.agents.base import AgentFailure

log = logging.getLogger("botwars.server")

DEFAULT_TIME_CAP_S = 10.0
"""Longest decision of a built-in bot in seconds, whatever the game's clock allows."""

DEFAULT_MEMORY_MIB = 1024
"""Address-space limit of a worker process in MiB."""

GRACE_S = 0.1
"""Seconds a worker gets beyond the decision's limit before it is killed (the agent's own
check reports ``timeout`` for a reply that came back late but within the grace)."""


def default_workers() -> int:
    """Worker processes when none are configured: the CPU count, between 2 and 8."""
    return max(2, min(8, os.cpu_count() or 2))


@dataclass
class BotResult:
    """What one decision gave: ``payload`` (the orders, or ``None``), ``failure``
    (``{"code", "detail"}`` with code ``timeout``, ``crash`` or ``memory``, or ``None``),
    ``spent`` seconds of thinking, and ``agent`` — the agent after the decision, or ``None``
    when it failed (the caller keeps its own); ``memory``: the same agent pickled, as the
    worker sent it (what the server stores to restore the bot after a restart)."""

    payload: Any
    failure: dict[str, str] | None
    spent: float
    agent: Any = None
    memory: bytes | None = None


WATCH_S = 1.0
"""How often a worker checks that the server's process is still there (it ends itself when
not: a server killed with SIGKILL leaves no pool worker behind)."""


def watch_server(server_pid: int) -> None:
    """In a pool worker: end this process (exit status 0) within :data:`WATCH_S` seconds of the
    server's process ``server_pid`` being gone. Runs for ever (a daemon thread's target)."""
    import time
    while True:
        time.sleep(WATCH_S)
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # pragma: no cover - a process of another user took the id
            os._exit(0)


def _init_worker(memory_mib: int, server_pid: int | None = None) -> None:
    """Worker start-up: no inherited environment, bounded memory, lower priority, and a thread
    that ends the worker when the server's process ``server_pid`` is gone (a server killed with
    SIGKILL cannot stop its pool)."""
    os.environ.clear()
    if server_pid is not None:
        threading.Thread(target=watch_server, args=(server_pid,), name="botwars-bot-watch", daemon=True).start()
    try:
        import resource
        limit = memory_mib * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # pragma: no cover - platform without rlimits
        pass
    try:
        os.nice(19)  # the game master (HTTP, clocks) always comes first
    except OSError:  # pragma: no cover
        pass


def bot_modules() -> list[str]:
    """The modules that define the built-in bots of every registered game."""
    from botwars.engine.plugin import game_ids, get_game
    mods: set[str] = set()
    for gid in game_ids():
        try:
            for make in get_game(gid).builtin_bots().values():
                mods.add(getattr(make, "__module__", "") or "")
        except Exception:  # pragma: no cover - a broken game is reported where it is used
            continue
    return sorted(m for m in mods if m)


def _warm_up() -> int:
    """In a worker: nothing but being there (start-up check)."""
    time.sleep(0.05)
    return os.getpid()


class PackedView:
    """A view kept pickled (``blob``) until the bot's worker reads it: a heavy match's view is
    built in its rules-pool worker, and the server's process only forwards the bytes (issue 12)."""

    __slots__ = ("blob",)

    def __init__(self, blob: bytes):
        self.blob = blob

    def __reduce__(self) -> tuple[Any, ...]:
        return (PackedView, (self.blob,))

    def load(self) -> dict[str, Any]:
        """The view itself."""
        return pickle.loads(self.blob)


def _decide(blob: bytes, view: dict[str, Any] | PackedView, limit_s: float | None
            ) -> tuple[bytes | None, Any, dict | None, float]:
    """In a worker: play one decision of the pickled agent on ``view`` (unpacked here when
    packed); returns ``(agent after, payload, failure, seconds)``."""
    agent = pickle.loads(blob)
    if isinstance(view, PackedView):
        view = view.load()
    t0 = time.perf_counter()
    try:
        payload = agent.act(view, limit_s)
    except AgentFailure as exc:
        code = "memory" if exc.detail.startswith("MemoryError") else exc.code
        return None, None, {"code": code, "detail": exc.detail[:2000]}, time.perf_counter() - t0
    except MemoryError:
        return None, None, {"code": "memory", "detail": "the bot ran out of memory"}, time.perf_counter() - t0
    spent = time.perf_counter() - t0
    return pickle.dumps(agent), payload, None, spent


class BotPool:
    """A bounded pool of worker processes for built-in bot decisions.

    ``workers``: worker processes (default :func:`default_workers`); ``time_cap_s``: the
    longest decision in seconds (a game clock may allow less, never more); ``memory_mib``:
    each worker's address-space limit. Call :meth:`start` before use and :meth:`stop` at the
    end. Thread-safe.
    """

    def __init__(self, workers: int | None = None, time_cap_s: float = DEFAULT_TIME_CAP_S,
                 memory_mib: int = DEFAULT_MEMORY_MIB):
        self.workers = workers or default_workers()
        self.time_cap_s = float(time_cap_s)
        self.memory_mib = memory_mib
        self._pool = None
        self._busy: set[Hashable] = set()
        self._lock = threading.Lock()

    # ---- life cycle ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker processes (forkserver: the server's threads are not copied)."""
        if self._pool is not None:
            return
        from pebble import ProcessPool
        methods = multiprocessing.get_all_start_methods()
        if "forkserver" in methods:
            ctx = multiprocessing.get_context("forkserver")
            # imported once in the fork server, so a new worker (also one replacing a killed
            # worker) starts in milliseconds with the bots' code loaded
            ctx.set_forkserver_preload(["__main__", __name__, *bot_modules()])
        else:  # pragma: no cover - platforms without fork
            ctx = multiprocessing.get_context("spawn")
        self._pool = ProcessPool(max_workers=self.workers, initializer=_init_worker,
                                 initargs=(self.memory_mib, os.getpid()), context=ctx)
        # wait until every worker answers, so that no first decision pays for the start-up
        futs = [self._pool.schedule(_warm_up) for _ in range(self.workers)]
        for f in futs:
            try:
                f.result(timeout=120)
            except Exception as exc:  # pragma: no cover - reported, decisions will say more
                log.warning("bot pool worker did not start: %s", type(exc).__name__)

    def stop(self) -> None:
        """Stop the workers (decisions in flight are abandoned)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()
            pool.join(timeout=10)

    @property
    def running(self) -> bool:
        return self._pool is not None

    # ---- decisions ------------------------------------------------------------------------
    def limit(self, limit_s: float | None) -> float:
        """The seconds a decision may take: the game's ``limit_s`` capped at ``time_cap_s``."""
        return self.time_cap_s if limit_s is None else max(0.0, min(float(limit_s), self.time_cap_s))

    def busy(self, key: Hashable) -> bool:
        """Whether a decision submitted under ``key`` has not been :meth:`release`\\ d yet."""
        with self._lock:
            return key in self._busy

    def release(self, key: Hashable) -> None:
        """Mark the decision under ``key`` as dealt with (the caller has applied its result)."""
        with self._lock:
            self._busy.discard(key)

    def submit(self, key: Hashable, agent: Any, view: dict[str, Any] | PackedView, limit_s: float | None,
               done: Callable[[BotResult], None]) -> bool:
        """Play one decision of ``agent`` (a picklable agent, e.g. a
        :class:`~botwars.agents.base.CallableAgent`) on ``view`` (a dict, or a
        :class:`PackedView` unpacked in the worker) within ``limit(limit_s)``
        seconds; ``done(result)`` is called from a pool thread when it is over (keep it short).
        Returns ``False`` (and does nothing) while an earlier decision under ``key`` is busy.
        Raises ``RuntimeError`` when the pool is not started."""
        if self._pool is None:
            raise RuntimeError("the bot pool is not started")
        with self._lock:
            if key in self._busy:
                return False
            self._busy.add(key)
        lim = self.limit(limit_s)
        try:
            blob = pickle.dumps(agent)
        except Exception as exc:  # pragma: no cover - a bot that cannot travel: a crash, recorded
            done(BotResult(None, {"code": "crash", "detail": f"cannot pickle the bot: {type(exc).__name__}"}, 0.0))
            return True
        t0 = time.perf_counter()
        try:
            fut = self._pool.schedule(_decide, args=(blob, view, lim), timeout=lim + GRACE_S)
        except Exception as exc:  # the pool is stopping or broken: a crash, recorded, never a hang
            log.warning("bot pool: cannot schedule a decision: %s", exc)
            done(BotResult(None, {"code": "crash", "detail": "the bot pool is not available"}, 0.0))
            return True
        fut.add_done_callback(lambda f: done(self._result(f, lim, t0)))
        return True

    def run_task(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout_s: float) -> Any:
        """Run ``fn(*args)`` (a picklable module-level function) in a worker, stopped after
        ``timeout_s`` seconds; returns its :class:`concurrent.futures.Future` (``TimeoutError``
        when it overran, ``ProcessExpired`` when the worker died). The league's upload checks
        run here (issue 25 item 4), off the server's request threads, at the workers' low CPU
        priority. Raises ``RuntimeError`` when the pool is not started."""
        if self._pool is None:
            raise RuntimeError("the bot pool is not started")
        return self._pool.schedule(fn, args=args, timeout=timeout_s)

    def call(self, agent: Any, view: dict[str, Any], limit_s: float | None) -> Any:
        """Play one decision and wait for it: the payload, or :class:`AgentFailure`."""
        box: list[BotResult] = []
        ev = threading.Event()

        def done(res: BotResult) -> None:
            box.append(res)
            ev.set()

        key = ("call", id(box))
        if not self.submit(key, agent, view, limit_s, done):  # pragma: no cover - keys are unique
            raise AgentFailure("crash", "bot pool busy")
        ev.wait()
        self.release(key)
        res = box[0]
        if res.failure is not None:
            raise AgentFailure(res.failure["code"], res.failure.get("detail", ""))
        return res.payload

    @staticmethod
    def _result(fut: Any, lim: float, t0: float) -> BotResult:
        try:
            blob, payload, failure, spent = fut.result()
        except FutureTimeout:
            return BotResult(None, {"code": "timeout", "detail": f"no reply within {lim:g} s (stopped)"}, lim)
        except CancelledError:
            return BotResult(None, {"code": "crash", "detail": "the server is stopping"}, time.perf_counter() - t0)
        except Exception as exc:  # ProcessExpired (killed, out of memory), unpickling errors
            code = getattr(exc, "exitcode", None)
            detail = f"bot process died ({type(exc).__name__}{f', exit {code}' if code is not None else ''})"
            return BotResult(None, {"code": "crash", "detail": detail}, time.perf_counter() - t0)
        agent = pickle.loads(blob) if blob is not None else None
        return BotResult(payload, failure, spent, agent, blob)
