"""State every worker must see alike (issue 27 item 4), kept in the database rather than in a
process's memory, so that a client gains nothing by spreading its requests over workers.

- :class:`SharedRate`: fixed-window counters (table ``rate_hits``), one atomic upsert per hit.
- :class:`SharedConnections`: the WebSocket connections open on any worker (table
  ``live_connections``), each with an ``expires_at`` its worker renews (:meth:`renew`), so the
  rows of a worker that died lapse on their own.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, update

from botwars.store.models import LiveConnectionRow, RateHitRow


def _upsert(store: Any):
    """The dialect's ``INSERT`` with ``ON CONFLICT`` (SQLite and PostgreSQL both have it)."""
    if store.is_sqlite:
        from sqlalchemy.dialects.sqlite import insert
    else:
        from sqlalchemy.dialects.postgresql import insert
    return insert


class SharedRate:
    """Fixed-window rate counters in the database, shared by every worker on it.

    ``store``: a :class:`botwars.store.repo.Store` (migrated). Counts are exact across
    workers (one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` per hit); a fixed window
    lets up to twice the limit through around a window's edge, which the callers accept."""

    def __init__(self, store: Any):
        self.store = store

    def hit(self, key: str, limit: int, window_s: int, now: float | None = None) -> tuple[bool, float]:
        """Count one hit on ``key`` in the window of ``window_s`` seconds holding ``now``
        (epoch seconds, default the clock). Returns ``(allowed, reset_at)``: ``allowed`` is
        false when this hit is beyond ``limit`` (the hit is still counted); ``reset_at`` is
        when the window ends (epoch seconds). Raises ``ValueError`` for a window or limit
        below 1."""
        if window_s < 1 or limit < 1:
            raise ValueError(f"a rate needs a limit and a window of at least 1 (got {limit} per {window_s} s)")
        now = time.time() if now is None else now
        start = int(now // window_s) * window_s
        insert = _upsert(self.store)
        stmt = insert(RateHitRow).values(key=key[:300], window_start=start, hits=1, expires_at=start + window_s)
        stmt = stmt.on_conflict_do_update(index_elements=["key", "window_start"],
                                          set_={"hits": RateHitRow.hits + 1}).returning(RateHitRow.hits)
        with self.store.write_core() as conn:
            hits = conn.execute(stmt).scalar_one()
            if hits == 1:  # a new window: sweep the lapsed ones of every key (cheap, indexed by key)
                conn.execute(delete(RateHitRow).where(RateHitRow.expires_at < now))
        return hits <= limit, float(start + window_s)


class ConnectionsFull(Exception):
    """A new connection would exceed a cap; ``str()`` says which, in words for the client."""


class SharedConnections:
    """The WebSocket connections open on every worker of one database.

    ``store``: a migrated :class:`~botwars.store.repo.Store`; ``worker``: this worker's id
    (default a random one); ``ttl_s``: how long a row counts without :meth:`renew` (seconds)."""

    def __init__(self, store: Any, worker: str | None = None, ttl_s: float = 60.0):
        self.store = store
        self.worker = worker or secrets.token_hex(8)
        self.ttl_s = ttl_s

    def claim(self, match_id: str, address: str | None, per_match: int | None, per_address: int | None,
              now: float | None = None) -> str:
        """Count a new connection on ``match_id`` from ``address``; returns its id (for
        :meth:`release`). Raises :class:`ConnectionsFull` when the match already has
        ``per_match`` live connections or the address ``per_address`` (``None``: no cap).
        On PostgreSQL the check and the insert hold a transaction-scoped advisory lock, so two
        workers cannot both take the last place."""
        now = time.time() if now is None else now
        cid = secrets.token_hex(16)
        live = LiveConnectionRow.expires_at >= now
        with self.store.write_core() as conn:
            if not self.store.is_sqlite:
                conn.execute(select(func.pg_advisory_xact_lock(27_0004)))
            if per_match is not None:
                n = conn.execute(select(func.count()).select_from(LiveConnectionRow)
                                 .where(and_(LiveConnectionRow.match_id == match_id, live))).scalar_one()
                if n >= per_match:
                    raise ConnectionsFull(f"this match has {n} connections, the most this server allows")
            if address is not None and per_address is not None:
                a = conn.execute(select(func.count()).select_from(LiveConnectionRow)
                                 .where(and_(LiveConnectionRow.address == address, live))).scalar_one()
                if a >= per_address:
                    raise ConnectionsFull(f"{a} connections from your address, the most this server allows")
            conn.execute(LiveConnectionRow.__table__.insert().values(
                id=cid, worker=self.worker, address=address, match_id=match_id, expires_at=now + self.ttl_s))
        return cid

    def release(self, cid: str) -> None:
        """Forget connection ``cid`` (closed); unknown ids are ignored."""
        with self.store.write_core() as conn:
            conn.execute(delete(LiveConnectionRow).where(LiveConnectionRow.id == cid))

    def renew(self, now: float | None = None) -> int:
        """Push this worker's rows ``ttl_s`` into the future and delete every lapsed row (any
        worker's); call well within ``ttl_s``. Returns how many rows of this worker live."""
        now = time.time() if now is None else now
        with self.store.write_core() as conn:
            n = conn.execute(update(LiveConnectionRow).where(LiveConnectionRow.worker == self.worker)
                             .values(expires_at=now + self.ttl_s)).rowcount
            conn.execute(delete(LiveConnectionRow).where(
                or_(LiveConnectionRow.expires_at < now)))
        return n
