"""Resolution of heavy matches outside the server's process (issue 12, item 6).

The server's event loop (HTTP, WebSockets) and every match's rules share one process and so one
GIL. A match on the largest map a request may give (90 × 90 squares, 8,100 robots) spends about
70 ms of pure Python per decision point in :meth:`Ruleset.resolve` and its state digest; while
it does, every other match's acknowledgements wait for the GIL. So a match whose resolution
took more than :data:`HEAVY_S` of CPU time is *heavy*: from then on its referee's
:attr:`~botwars.engine.referee.Referee.resolver` is :meth:`RulesPool.resolve`, which runs
:func:`botwars.engine.referee.resolve_local` (the same pure function the referee runs itself)
in a worker process of a bounded ``pebble.ProcessPool`` and waits for it. The server's process
pays only for sending the state and receiving the new one (a few ms); the events come back
packed (:class:`~botwars.engine.referee.PackedEvents`) and are unpacked only when a view or a
record asks for them.

The referee stays the one decision point: the caller holds the match's lock while it waits,
the referee's checkpoint/rollback and the manager's commit-before-memory order are unchanged,
and the result is the one :func:`resolve_local` gives in-process (same state, events, digest),
so determinism and records are untouched. When a worker cannot be used (the pool is stopping,
a state that cannot be pickled, a worker that died) the point is resolved in-process instead.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from typing import Any, Sequence

from botwars.engine.events import Event
from botwars.engine.referee import PackedEvents, resolve_local
from botwars.engine.ruleset import Ruleset

log = logging.getLogger("botwars.server")

HEAVY_S = 0.01
"""A match whose decision point took more than this many seconds of CPU time to resolve in the
server's process is resolved in the rules pool from then on (an ordinary match takes about
1 ms; the largest arena map a request may give about 70 ms)."""

PROBE_FIRST = 2
"""The first decision points of a match whose resolution is timed (counted from the server's
start, so a heavy match is found again at once after a restart)."""

PROBE_EVERY = 16
"""After those, every this many-th point is timed (a match may grow heavy as it goes)."""

DEFAULT_WORKERS = 2
"""Worker processes of the rules pool (heavy matches beyond it wait their turn, each in its own
thread, never in the event loop)."""


def _init_worker() -> None:
    """Worker start-up: nothing of the server's environment, a lower CPU priority than the
    server's own process (which answers the requests)."""
    os.environ.clear()
    try:
        os.nice(19)
    except OSError:  # pragma: no cover
        pass


def _resolve_in_worker(game: str, state: Any, orders: dict[str, Any], history: bool
                       ) -> tuple[Any, bytes, str | None]:
    """In a worker: :func:`resolve_local` with the game's rule set; events packed."""
    from botwars.engine.ruleset import get_ruleset
    new_state, events, dig = resolve_local(get_ruleset(game), state, orders, history)
    return new_state, PackedEvents.pack(events), dig


class RulesPool:
    """A bounded pool of processes that resolve heavy matches' decision points.

    ``workers``: processes (default :data:`DEFAULT_WORKERS`). :meth:`start` before use,
    :meth:`stop` at the end. Thread-safe; :meth:`resolve` blocks its calling thread (never call
    it on the event loop).
    """

    def __init__(self, workers: int | None = None):
        self.workers = workers or DEFAULT_WORKERS
        self._pool = None
        self.remote = 0
        """Decision points resolved in a worker (for tests and the benchmark)."""

    def start(self) -> None:
        """Start the workers (forkserver, the games' modules loaded once)."""
        if self._pool is not None:
            return
        from pebble import ProcessPool

        from botwars.server.botpool import bot_modules
        if "forkserver" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["__main__", __name__, *bot_modules()])
        else:  # pragma: no cover - platforms without fork
            ctx = multiprocessing.get_context("spawn")
        self._pool = ProcessPool(max_workers=self.workers, initializer=_init_worker, context=ctx)

    def stop(self) -> None:
        """Stop the workers (a resolution in flight is finished in-process by its caller)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()
            pool.join(timeout=10)

    @property
    def running(self) -> bool:
        return self._pool is not None

    def resolve(self, ruleset: Ruleset, state: Any, orders: dict[str, Any], history: bool
                ) -> tuple[Any, Sequence[Event], str | None]:
        """A :data:`~botwars.engine.referee.Resolver`: :func:`resolve_local` in a worker
        (``(new state, events, digest)``; the events as :class:`PackedEvents`), or in this
        process when no worker can do it. Raises what the rules raise."""
        pool = self._pool
        if pool is not None:
            try:
                fut = pool.schedule(_resolve_in_worker, args=(ruleset.id, state, orders, history))
                new_state, packed, dig = fut.result()
            except Exception as exc:  # pool stopping, unpicklable state, dead worker: do it here
                log.warning("rules pool: resolving in-process (%s)", type(exc).__name__)
            else:
                self.remote += 1
                return new_state, PackedEvents(packed), dig
        return resolve_local(ruleset, state, orders, history)
