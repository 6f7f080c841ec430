"""Keeping a worker's cached matches up to the database (part of
:class:`~botwars.server.manager.MatchManager`; issue 27, :mod:`botwars.server.cluster`).

Every action on a match runs through :meth:`MatchSync._locked`: under the match's lock the
cache is brought up to the database's version (:meth:`MatchSync._sync`), the action decides on
that, and its commit bumps the version it started from (:meth:`MatchSync._bump`). When another
worker committed in between, the commit changes nothing (:class:`StaleMatch`), the cache
catches up and the action decides again: an order for a point that closed meanwhile is then
answered 409 ("this turn was already played"), a complete point is resolved by whoever
completed it, once.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable, TypeVar

from sqlalchemy import bindparam, select, text

from botwars.engine import driver
from botwars.engine.errors import InvalidOrders, RecordError
from botwars.engine.referee import NotAwaited
from botwars.server.cluster import CHANNEL, LEADER, RETRIES, LostLease, StaleMatch, match_lease
from botwars.server.session import ApiError, MatchSession, gm_row_json
from botwars.store.models import DecisionRow, GmActionRow, MatchRow, OrderRow, RefusalRow, SeatRow

log = logging.getLogger("botwars.server")

T = TypeVar("T")

_M = MatchRow.__table__

_BUMP = _M.update().where(_M.c.id == bindparam("mid")).values(version=_M.c.version + 1)

_BUMP_IF = (_M.update().where(_M.c.id == bindparam("mid"), _M.c.version == bindparam("v"))
            .values(version=_M.c.version + 1))

_NOTIFY = text(f"SELECT pg_notify('{CHANNEL}', :payload)")


class MatchSync:
    """The cache of one worker against the database (mixed into
    :class:`~botwars.server.manager.MatchManager`). ``leases`` is ``None`` with one process
    per database (SQLite): then nothing here reads the database and every method is as cheap
    as before."""

    leases: Any = None

    # ---- what this worker does -----------------------------------------------------------------
    def _owns(self, sess: MatchSession) -> bool:
        """Whether this worker plays ``sess``'s built-in bots (it holds the match's lease)."""
        return self.leases is None or self.leases.holds(match_lease(sess.id))

    def _leads(self) -> bool:
        """Whether this worker runs the cluster's singletons (deadlines, notices, league)."""
        return self.leases is None or self.leases.holds(LEADER)

    # ---- acting on a match -------------------------------------------------------------------
    def _locked(self, sess: MatchSession, fn: Callable[[], T], *, point: bool = False,
                optimistic: bool = False) -> T:
        """``fn()`` under ``sess.lock`` on a cache brought up to the database; again (up to
        :data:`~botwars.server.cluster.RETRIES` times) when its commit lost a race with another
        worker. ``point``: the action is about the open decision point (a game master's
        orders or extension): if another worker closed that point meanwhile, it is answered
        409 ``already_played`` instead of being applied to the next one. Raises what ``fn``
        raises, and :class:`ApiError` 503 when it keeps losing.

        ``optimistic`` (the order path): the first try runs on the cache as it is, without
        reading the match's version first — the cache is kept current by the other workers'
        notifications, and a stale one cannot write (its commit's compare-and-set fails:
        :class:`StaleMatch`, then the cache catches up and ``fn`` runs again). An answer
        ``fn`` refuses without committing anything (409 "not open", 403 a token another
        worker just issued) may come from a stale cache: it is given only after one read has
        shown the cache current, else ``fn`` runs again on the caught-up cache. A refusal
        after ``fn``'s own commit stands (the commit proved the cache current). With several
        workers this saves a database round trip an order (issue 27 item 7)."""
        n0 = None
        fresh = not optimistic
        for _ in range(RETRIES):
            with sess.lock:
                if fresh:
                    self._sync(sess)
                if point:
                    if n0 is None:
                        n0 = sess.ref.n
                    elif sess.ref.n != n0:
                        raise ApiError(409, "wrong_decision", f"this turn was already played: decision point "
                                                              f"{n0 + 1} was closed by another request while "
                                                              f"this one was being stored; nothing was changed",
                                       already_played=True, open_decision=sess.ref.n + 1)
                v0 = sess.version
                try:
                    return fn()
                except StaleMatch:
                    fresh = True
                    continue
                except ApiError:
                    if fresh or sess.version != v0 or not self._sync(sess):
                        raise  # decided on a current cache (read, or proved by fn's own commit)
                    fresh = False  # just caught up: the next try needs no second read
                    continue
        raise ApiError(503, "busy", f"match {sess.id} changed {RETRIES} times while this request was being "
                                    "stored; nothing was changed: send it again")

    def _bump(self, conn: Any, sess: MatchSession, *, fence: bool = False) -> int:
        """In a write transaction: bump the match's version from the one this cache holds and
        return the new one. With several workers: only if the row still holds the cached
        version (:class:`StaleMatch` otherwise; the row stays locked until the commit), only
        while this worker owns the match when ``fence`` (:class:`LostLease`), and the other
        workers are notified at the commit."""
        v = sess.version
        if self.leases is None:
            conn.execute(_BUMP, {"mid": sess.id})
            return v + 1
        if conn.execute(_BUMP_IF, {"mid": sess.id, "v": v}).rowcount != 1:
            raise StaleMatch(sess.id)
        if fence:
            self.leases.check(conn, match_lease(sess.id))
        conn.execute(_NOTIFY, {"payload": f"{sess.id} {v + 1} {self.leases.me}"})
        return v + 1

    # ---- catching up ---------------------------------------------------------------------------
    def _sync(self, sess: MatchSession) -> bool:
        """Bring ``sess`` up to the database (under ``sess.lock``); returns whether anything
        changed. One read of the version when nothing did."""
        if self.leases is None:
            return False
        with self.store.read() as s:
            v = s.scalar(select(MatchRow.version).where(MatchRow.id == sess.id))
        if v is None or v == sess.version:
            return False
        self._catch_up(sess)
        return True

    def _catch_up(self, sess: MatchSession) -> None:
        """Apply what other workers committed since this cache's version: the record lines it
        has not played (replayed from the open point's opening, digests checked), then the open
        point's stored refusals and orders, the pause, extensions, notes, names and tokens. A
        seat handed to another agent, or a cache that does not replay, is loaded anew
        (:meth:`_reload`)."""
        ref = sess.ref
        with self.store.snapshot() as s:
            row = s.get(MatchRow, sess.id)
            seat_rows = list(s.scalars(select(SeatRow).where(SeatRow.match_id == sess.id).order_by(SeatRow.idx)))
            if ({r.seat: r.agent for r in seat_rows} != sess.agents or row.decisions < ref.n
                    or (sess.open_cp is None and not sess.ended)):
                fresh = None
            else:
                fresh = self._rows_since(s, sess, row)
        if fresh is None:
            self._reload(sess)
            return
        lines, refusal_rows, order_rows, notes = fresh
        if not sess.ended:
            try:
                ref.rollback(sess.open_cp)
                driver.replay_all(ref, lines)
                if lines:
                    sess.open_cp = None if ref.over else ref.checkpoint()
                if not ref.over:
                    self._apply_open(sess, refusal_rows, order_rows)
            except (RecordError, NotAwaited, InvalidOrders) as exc:
                log.warning("match %s: the cache did not catch up (%s); loading it again", sess.id, exc)
                self._reload(sess)
                return
        sess.version = row.version
        sess.opened_at, sess.paused_at = row.opened_at, row.paused_at
        sess.extra = {k: float(v) for k, v in json.loads(row.extensions or "{}").items()}
        sess.notes = notes
        sess.token_hashes = {r.seat: r.token_hash for r in seat_rows}
        sess.names = {r.seat: r.name for r in seat_rows if r.name}

    @staticmethod
    def _rows_since(s: Any, sess: MatchSession, row: Any) -> tuple[list[Any], ...]:
        """What a cache at ``sess.ref.n`` needs of match ``row`` (in one snapshot ``s``): the
        record lines after it, the open point's refusal and order rows, every note."""
        mid, n = sess.id, row.decisions + 1
        lines = [json.loads(x) for x in s.scalars(select(DecisionRow.line).where(
            DecisionRow.match_id == mid, DecisionRow.n > sess.ref.n).order_by(DecisionRow.n))]
        order_rows = list(s.scalars(select(OrderRow).where(OrderRow.match_id == mid, OrderRow.n == n)
                                    .order_by(OrderRow.seat)))
        refusal_rows = list(s.scalars(select(RefusalRow).where(RefusalRow.match_id == mid, RefusalRow.n == n)
                                      .order_by(RefusalRow.seat, RefusalRow.k)))
        notes = [gm_row_json(g) for g in s.scalars(select(GmActionRow).where(GmActionRow.match_id == mid)
                                                   .order_by(GmActionRow.id))]
        return lines, refusal_rows, order_rows, notes

    def _reload(self, sess: MatchSession) -> None:
        """Load ``sess`` anew from the database into the same object (its lock and identity
        kept): a full re-simulation, its bots restored from their stored memory."""
        fresh = self._load(sess.id)
        lock = sess.lock
        sess.__dict__.update(fresh.__dict__)
        sess.lock = lock

    def _on_notify(self, match_id: str, version: int) -> None:
        """Another worker committed version ``version`` of ``match_id`` (the listener): catch
        up when this worker has it cached (the leader loads it: it runs every deadline), then
        wake its WebSocket connections and, as its owner, its bots."""
        sess = self.sessions.get(match_id)
        if sess is None:
            if not self._leads():
                return
            sess = self.get(match_id)
        elif version <= sess.version:
            return
        else:
            with sess.lock:
                self._sync(sess)
        self._after_change(sess)

    def _catch_up_all(self) -> None:
        """Bring every cached running match up to the database (after notifications may
        have been missed), waking those that changed."""
        for sess in list(self.sessions.values()):
            if sess.ended:
                continue
            try:
                with sess.lock:
                    changed = self._sync(sess)
            except Exception:  # noqa: BLE001 - the next notification or request tries again
                log.exception("match %s: catching up", sess.id)
                continue
            if changed:
                self._after_change(sess)

    def _fenced(self, fn: Callable[[], T]) -> T | None:
        """``fn()``, or ``None`` when this worker lost the match's lease meanwhile (the write
        it tried changed nothing)."""
        try:
            return fn()
        except LostLease as exc:
            log.info("%s: another worker took it over; this worker's answer was dropped", exc)
            return None

    # ---- the worker's life in the cluster ----------------------------------------------------
    def _cluster_start(self) -> list[str]:
        """Join the cluster (at start): take the leader lease and the leases of matches
        without a live owner when free; returns the running matches to load now (all of them
        for the leader, else those it owns)."""
        from botwars.server.cluster import Leases, Listener
        self.leases = self.leases or Leases(self.store, self.worker_id, self.lease_s)
        self.leases.claim(LEADER)
        for mid in self.leases.orphans():
            self.leases.claim(match_lease(mid))
        with self.store.read() as s:
            ids = list(s.scalars(select(MatchRow.id).where(MatchRow.status == "running").order_by(MatchRow.id)))
        if self.listen:
            self._listener = Listener(self.store.url, self._on_notify, self._catch_up_all, self.leases.me)
            self._listener.start()
        return ids if self._leads() else [m for m in ids if self.leases.holds(match_lease(m))]

    def cluster_step(self) -> None:
        """One round of this worker's lease work (every ``renew_s`` in background mode; tests
        call it by hand): renew its leases (forgetting those taken over), take the leader
        lease when it is free, take over matches whose owner died (loaded anew, bots restored
        from their stored memory, then played), and as the leader load every running match
        it has not cached (it runs their deadlines)."""
        leases = self.leases
        if leases is None:
            return
        for name in leases.renew():
            log.warning("cluster: lease %s was taken over by another worker", name)
        if not leases.holds(LEADER) and leases.claim(LEADER) is not None:
            log.info("cluster: worker %s leads (deadlines, notices, league)", self.worker_id)
        for mid in leases.orphans():
            if leases.claim(match_lease(mid)) is not None:
                self._take_over(mid)
        self._kick_owned_bots()
        if leases.holds(LEADER):
            with self.store.read() as s:
                ids = list(s.scalars(select(MatchRow.id).where(MatchRow.status == "running")))
            for mid in ids:
                if mid not in self.sessions:
                    try:
                        self._after_change(self.get(mid))
                    except ApiError as exc:
                        log.error("match %s cannot be loaded: %s", mid, exc.message)

    def _kick_owned_bots(self) -> None:
        """Queue every match this worker owns whose built-in bots are awaited. A change seen
        while this worker's lease looked lapsed (a renewal late under load: :meth:`Leases.holds`
        is false until the next one) played no bot, and no later change may come to ask again;
        the bot loop skips seats whose answer is already being computed."""
        if not self.background or self.leases is None:
            return
        for name in list(self.leases.held):
            sess = self.sessions.get(name[len("match:"):]) if name.startswith("match:") else None
            if sess is not None and sess.bots and any(s in sess.bots for s in sess.awaited()):
                self._bot_queue.put(sess.id)

    def _take_over(self, match_id: str) -> None:
        """This worker now owns ``match_id``: load it anew (its cache may hold bots whose
        memory another owner moved on) and let its bots play."""
        log.warning("cluster: worker %s took over match %s (its owner left or its lease expired)", self.worker_id,
                    match_id)
        sess = self.sessions.get(match_id)
        try:
            if sess is None:
                sess = self.get(match_id)
            else:
                with sess.lock:
                    self._reload(sess)
        except ApiError as exc:
            log.error("match %s cannot be loaded: %s", match_id, exc.message)
            return
        self._after_change(sess)

    def _cluster_loop(self) -> None:
        while not self._stop.wait(self.renew_s):
            try:
                self.cluster_step()
            except Exception as exc:  # noqa: BLE001 - the database may be away: try again next round
                log.warning("cluster: lease round failed (%s: %s)", type(exc).__name__, str(exc).splitlines()[0]
                            if str(exc) else "")

    def _cluster_stop(self) -> None:
        """Leave the cluster: stop listening and give up every lease, so that another worker
        takes this one's matches and singletons at once."""
        listener, self._listener = getattr(self, "_listener", None), None
        if listener is not None:
            listener.stop()
        if self.leases is not None:
            try:
                self.leases.release()
            except Exception as exc:  # noqa: BLE001 - they expire by themselves
                log.warning("cluster: leases not released (%s); they expire in %.0f s", type(exc).__name__,
                            self.lease_s)
