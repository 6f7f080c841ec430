"""Server-side matches: the game master.

:class:`MatchManager` owns every match of one server process. Each match is a
:class:`MatchSession` in memory (the rule set's state, the orders accepted at the open
decision point, the clock) backed by the :class:`~botwars.store.Store`.

**How state survives a restart.** The kernel contract has no "state from JSON", so the server
stores what a record stores: the header (rule set, config, seats, seed) and one record line
per resolved decision point (the payloads each seat submitted, errors, time used, clock status
and the state digest), plus every accepted order of the open decision point. On start-up each
unfinished match is re-simulated from its seed with :func:`botwars.engine.driver.resimulate`
(the same code as ``botwars replay --verify``; digests are checked) and its accepted orders are
parsed again. Built-in bots are re-created and fed the same views again, so their own memory
and random streams are where they were.

**Durability.** An order is acknowledged only after the transaction that inserted it has
committed; when it completes a decision point the resolution (record line, clock, status,
outcome) is committed in the same transaction. ``orders`` has the primary key
``(match, decision, seat)``, so nothing is applied twice; a client that resends an order it
got no answer for gets ``duplicate: true`` back.

**Time.** Server time (``now()``, epoch seconds, injectable) runs the clocks: a seat's time
for a decision point is from the moment the point opened to the moment its order is accepted
(rejected orders do not stop it). A heartbeat row is written every second; at start-up every
open decision point is moved forward by the time since the last heartbeat, so time while the
server was down is charged to nobody (to within one heartbeat).

**Several workers (issue 27).** With PostgreSQL any number of processes (``botwars serve
--workers N``, or servers on several machines) share one database, and any of them answers any
request for any match: each keeps a cache of the matches it served, brings it up to the
database under the match's lock before it acts (:mod:`botwars.server.sync`), and commits only
from the version it read (compare-and-set on ``matches.version``), so a decision point is
resolved by exactly one worker, once. ``LISTEN/NOTIFY`` tells the other workers (their caches
and WebSocket connections follow); a match's built-in bots are played by its owner (a lease
with a fencing token), deadlines, notices and the league by the leader (a lease too), and a
dead worker's leases are taken over within the lease time (:mod:`botwars.server.cluster`).
With SQLite there is one process per database (``--workers`` above 1 is refused), and none of
this reads the database.

**The parts.** :class:`MatchManager` is made of four parts, each its own module:
:class:`~botwars.server.registry.MatchRegistry` (matches by id, seats, tokens),
:class:`~botwars.server.clock.MatchClock` (deadlines, expiry, pause),
:class:`~botwars.server.persistence.MatchPersistence` (commit and load) and
:class:`~botwars.server.play.SeatPlay` (submissions and bots through the seat driver,
:mod:`botwars.engine.driver`); :mod:`botwars.server.session` holds what they share.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Callable

from sqlalchemy import select, update

from botwars.engine.errors import BotwarsError
from botwars.store import Store
from botwars.store.models import MatchRow, ServerStateRow
from botwars.store.repo import insert_heartbeat
from botwars.server.clock import MatchClock
from botwars.server.cluster import LEASE_S, RENEW_S, Leases, new_worker_id
from botwars.server.persistence import MatchPersistence, answered_points
from botwars.server.play import SeatPlay
from botwars.server.registry import MatchRegistry
from botwars.server.sync import MatchSync
from botwars.server.session import (GM_KEY, GM_REQUEST, MAX_RECORDED_REFUSALS, ApiError, MatchSession, gm_row_json, new_token,
                                     note_text, shown_turn, token_hash, with_gm_lines)

log = logging.getLogger("botwars.server")

__all__ = ["GM_KEY", "GM_REQUEST", "MAX_RECORDED_REFUSALS", "ApiError", "MatchManager", "MatchSession", "answered_points",
           "gm_row_json", "new_token", "note_text", "shown_turn", "token_hash", "with_gm_lines"]


class MatchManager(MatchRegistry, MatchClock, MatchPersistence, SeatPlay, MatchSync):
    """All matches of one server.

    ``now`` is the server clock (epoch seconds; tests inject a fake one). With
    ``background=True`` (the real server) a thread enforces deadlines and writes the heartbeat
    and another plays built-in bots; with ``background=False`` (tests) bots play inline at the
    end of each call and deadlines are enforced only by :meth:`tick`.
    ``notify(match_id)`` is called (outside any lock) after every change of a match.
    ``bot_pool`` (a :class:`~botwars.server.botpool.BotPool`, set before :meth:`start`) plays
    built-in bots in worker processes with a time limit per decision (background mode);
    ``rules_pool`` (a :class:`~botwars.server.rulespool.RulesPool`) resolves heavy matches'
    decision points outside the server's process (:meth:`_resolve_ready`).

    ``cluster`` (default: whether the store is PostgreSQL) makes this manager one worker of
    several over its database (issue 27): leases of ``lease_s`` seconds renewed every
    ``renew_s`` (background mode; tests call :meth:`cluster_step`), and with ``listen``
    (default: ``background``) a thread listening for other workers' changes.
    """

    bot_pool: Any = None
    rules_pool: Any = None

    def __init__(self, store: Store, *, now: Callable[[], float] = time.time, background: bool = True,
                 notify: Callable[[str], None] | None = None, tick_s: float = 0.02,
                 heartbeat_s: float = 1.0, cluster: bool | None = None, lease_s: float = LEASE_S,
                 renew_s: float = RENEW_S, listen: bool | None = None):
        self.store = store
        self.worker_id = new_worker_id()
        self.lease_s = lease_s
        self.renew_s = renew_s
        self.listen = background if listen is None else listen
        clustered = (not store.is_sqlite) if cluster is None else cluster
        self.leases = Leases(store, self.worker_id, lease_s) if clustered else None
        self.now = now
        self.background = background
        self.notify = notify or (lambda _mid: None)
        self.tick_s = tick_s
        self.heartbeat_s = heartbeat_s
        self.sessions: dict[str, MatchSession] = {}
        self._lock = threading.Lock()
        self._bot_queue: queue.Queue[str | None] = queue.Queue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._heavy_ex: Any = None
        self._heavy_busy: set[Any] = set()
        self.started = False

    def start(self) -> None:
        """Migrate the database, charge no one for downtime, reload unfinished matches, and
        (background mode) start the clock and bot threads."""
        self.store.migrate()
        self._charge_downtime()
        if self.leases is not None:
            ids = self._cluster_start()
        else:
            with self.store.read() as s:
                ids = list(s.scalars(select(MatchRow.id).where(MatchRow.status == "running").order_by(MatchRow.id)))
        if self.background and self.rules_pool is not None:
            self.rules_pool.start()  # before loading: a big match is re-simulated in its worker
        for mid in ids:
            try:
                sess = self._load(mid)
            except BotwarsError as exc:
                log.error("match %s cannot be loaded: %s", mid, exc)
                continue
            with self._lock:  # registered, so that its built-in bots are played at once
                self.sessions.setdefault(mid, sess)
                sess = self.sessions[mid]
            self._after_change(sess)
        self.started = True
        if self.background:
            if self.bot_pool is not None:
                self.bot_pool.start()
            from concurrent.futures import ThreadPoolExecutor
            # one thread, in order: a heavy match's expiries, bot views and bot answers wait for
            # its rules-pool worker here, never in the clock or bot thread (issue 12)
            self._heavy_ex = ThreadPoolExecutor(max_workers=1, thread_name_prefix="botwars-heavy")
            loops = [(self._clock_loop, "botwars-clock"), (self._bot_loop, "botwars-bots")]
            if self.leases is not None:
                loops.append((self._cluster_loop, "botwars-cluster"))
            for target, name in loops:
                t = threading.Thread(target=target, name=name, daemon=True)
                t.start()
                self._threads.append(t)

    def _charge_downtime(self) -> None:
        """Move every open decision point forward by the time since the last heartbeat, so
        that time while the server was down is charged to nobody. With several workers only
        when the whole cluster was down (no heartbeat for a lease time), once: the heartbeat
        row is locked and written in the same transaction."""
        now = self.now()
        with self.store.write() as s:
            row = s.get(ServerStateRow, 1, with_for_update=self.leases is not None)
            last = None if row is None else row.heartbeat_at
            down = last is not None and now > last and (self.leases is None or now - last > self.lease_s)
            if down:
                s.execute(update(MatchRow).where(MatchRow.status == "running", MatchRow.paused_at.is_(None))
                          .values(opened_at=MatchRow.opened_at + (now - last), version=MatchRow.version + 1))
            if row is None:  # a new database: workers starting together race to write the one row
                insert_heartbeat(s, now)
            elif self.leases is None or down or now > row.heartbeat_at:
                row.heartbeat_at = now

    def stop(self) -> None:
        """Stop the background threads (matches stay in the database); with several workers,
        give up this one's leases."""
        self._stop.set()
        self._bot_queue.put(None)
        for t in self._threads:
            t.join(timeout=5)
        self._threads.clear()
        ex, self._heavy_ex = self._heavy_ex, None
        if ex is not None:
            ex.shutdown(wait=True, cancel_futures=True)
        if self.bot_pool is not None:
            self.bot_pool.stop()
        if self.rules_pool is not None:
            self.rules_pool.stop()
        self._cluster_stop()

    def snapshot(self, sess: MatchSession, seat: str | None, since: int | None = None) -> dict[str, Any]:
        """The state of the match as ``seat`` (``None`` = spectator) may see it.

        ``events`` are the events of decision points ``since + 1 .. n`` visible to the seat
        (default: the last one), each with its ``decision`` number; ``your_orders`` the
        seat's own accepted orders of the open point (``None``: none, or a spectator). Nothing
        here depends on another seat's refusals, orders or hidden facts (S-8.6).
        """
        with sess.lock:
            ref = sess.ref
            n = ref.n
            start = max(0, n - 1 if since is None else min(max(since, 0), n))
            pending = sess.pending()
            return {
                "match": sess.id, "game": sess.rs.id, "status": sess.status, "seat": seat,
                "decision": ref.decision, "turn": shown_turn(ref.turn(), sess.ended),
                "pending": pending, "submitted": sess.submitted(),
                "your_turn": seat is not None and seat in ref.awaited(), "names": dict(sess.names),
                "view": ref.view(seat), "events": ref.seat_events(seat, start), "clock": self._clock_json(sess),
                "outcome": sess.outcome.to_json() if sess.outcome else None,
                "notes": [{**x, "text": note_text(x, sess.seats, sess.names)} for x in sess.notes],
                "bots": {s: a.removeprefix("builtin:") for s, a in sess.agents.items() if a.startswith("builtin:")},
                # the seat's own orders of the open point, for "Change orders" in any browser
                # (issue 24 item 3); never in another seat's or a spectator's snapshot
                "your_orders": (st.payload if seat is not None and seat in pending
                                and (st := ref.settled(seat)) is not None else None),
                # the GM's reason when the GM set them (issue 24 item 1): the seat page says so
                "your_orders_by_gm": (ref._gm.get(seat) if seat is not None and seat in pending
                                      and ref.settled(seat) is not None else None),
            }

    def summary(self, sess: MatchSession) -> dict[str, Any]:
        """Public facts about a match (no view)."""
        with sess.lock:
            return {"match": sess.id, "game": sess.rs.id, "status": sess.status, "config": sess.config,
                    "seats": [{"seat": s, "agent": sess.agents[s], "name": sess.names.get(s)} for s in sess.seats],
                    "decision": sess.ref.decision, "turn": shown_turn(sess.ref.turn(), sess.ended),
                    "pending": sess.pending(), "submitted": sess.submitted(),
                    "clock": self._clock_json(sess), "created_at": sess.created_at,
                    "outcome": sess.outcome.to_json() if sess.outcome else None,
                    "paused": sess.paused_at is not None}

    def record(self, sess: MatchSession, seat: str | None) -> list[dict[str, Any]]:
        """Record lines: the full record (``seat=None``; only once the match has ended: 403
        before) or ``seat``'s own record (:meth:`Referee.record`: its orders, refusals, errors,
        time and the events it may see; no seed and no digests)."""
        with sess.lock:
            if seat is None and not sess.ended:
                raise ApiError(403, "match_running", "the full record is public once the match has ended; "
                                                     "a seat token gives that seat's own record")
            lines = sess.ref.record(seat)
            return with_gm_lines(lines, sess.notes) if seat is None else lines
