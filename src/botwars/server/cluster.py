"""Several workers over one PostgreSQL database (issue 27): leases with fencing tokens, the
match's version as a compare-and-set, and ``LISTEN/NOTIFY``.

Every worker (a ``botwars serve`` process, or one of ``--workers N``) keeps a cache of the
matches it served (:class:`~botwars.server.session.MatchSession`). The match row's ``version``
is bumped by every committed change of a match, in the change's own transaction, with
``UPDATE matches SET version = version + 1 WHERE id = :id AND version = :cached``: the row is
locked until the commit, and a worker whose cache was behind changes nothing (0 rows:
:class:`StaleMatch`), catches up (:meth:`MatchSync._sync`: the record lines and open-point
orders it has not seen, replayed from the checkpoint at the point's opening) and decides again.
So a decision point is resolved by exactly one worker, once, whatever two workers are told at
the same moment; the loser answers with the state it lost to (``this turn was already
played``).

The same transaction sends ``NOTIFY botwars_matches, 'ID VERSION WORKER'`` (delivered at commit):
every other worker's :class:`Listener` catches up on that match and wakes its WebSocket hub.

Leases (:class:`Leases`, table ``leases``): ``match:ID`` is held by the worker that plays the
match's built-in bots (a bot answer is committed only while its fencing token is still the
lease's: :meth:`Leases.check`); ``leader`` by the worker that runs the cluster's singletons
(deadline expiry, notice delivery, the league scheduler). A lease lasts ``lease_s`` (5 s),
renewed every second; an expired one is taken over by the next worker that looks, with the
token plus one. Times are the database's clock (``clock_timestamp()``), so machines' clocks
do not matter.

SQLite has none of this: one process per database (``--workers`` above 1 is refused).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from typing import Any, Callable, Iterable

from sqlalchemy import text

log = logging.getLogger("botwars.server")

CHANNEL = "botwars_matches"
"""The ``LISTEN/NOTIFY`` channel: payload ``"MATCH_ID VERSION WORKER"`` (the committing worker skips its own)."""

LEADER = "leader"
"""The leader lease's name."""

LEASE_S = 5.0
"""Default lease time in seconds: a dead worker's matches are taken over within about this."""

RENEW_S = 1.0
"""Default time between two renewals (and takeover scans) of a worker."""

RETRIES = 20
"""Tries of one action that keeps losing races to other workers before it is answered 503."""

_NOW = "EXTRACT(EPOCH FROM clock_timestamp())"


class StaleMatch(Exception):
    """Another worker committed a change of the match after this worker's cached version: the
    transaction changed nothing and was rolled back."""


class LostLease(Exception):
    """This worker no longer holds the lease a write needs (another worker took it over): the
    transaction changed nothing and was rolled back."""


def lease_from_env() -> float:
    """``$BOTWARS_LEASE_S`` (seconds a worker's leases last: a dead worker's matches are taken
    over within about this), default :data:`LEASE_S`. Raises :class:`ConfigError` naming it
    when it is not a number from 0.5 to 600."""
    from botwars.engine.errors import ConfigError
    raw = os.environ.get("BOTWARS_LEASE_S")
    if not raw:
        return LEASE_S
    try:
        v = float(raw)
    except ValueError:
        v = -1.0
    if not 0.5 <= v <= 600:
        raise ConfigError(f"BOTWARS_LEASE_S: give seconds from 0.5 to 600, got {raw!r}", source="BOTWARS_LEASE_S")
    return v


def match_lease(match_id: str) -> str:
    """The lease name of a match: ``match:ID``."""
    return "match:" + match_id


def new_worker_id() -> str:
    """A worker id: host name, process id and 4 random bytes (at most 64 characters)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


_CLAIM = text(f"""
INSERT INTO leases (name, holder, token, expires_at) VALUES (:name, :me, 1, {_NOW} + :ttl)
ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, token = leases.token + 1,
       expires_at = EXCLUDED.expires_at
WHERE leases.expires_at < {_NOW}
RETURNING token""")

_RENEW = text(f"UPDATE leases SET expires_at = {_NOW} + :ttl WHERE holder = :me RETURNING name, token")

_CHECK = text("SELECT holder, token FROM leases WHERE name = :name FOR SHARE")

_ORPHANS = text(f"""
SELECT DISTINCT m.id FROM matches m JOIN seats s ON s.match_id = m.id AND s.agent LIKE 'builtin:%'
LEFT JOIN leases l ON l.name = 'match:' || m.id
WHERE m.status = 'running' AND (l.name IS NULL OR l.expires_at < {_NOW})
LIMIT 200""")


class Leases:
    """The leases of one worker (PostgreSQL): which it holds (name -> fencing token) and until
    when it may act on them by its own monotonic clock (a lease not renewed in time is treated
    as lost here before the database gives it to another worker)."""

    def __init__(self, store: Any, worker_id: str, lease_s: float = LEASE_S):
        self.store = store
        self.me = worker_id
        self.lease_s = lease_s
        self.held: dict[str, int] = {}
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def holds(self, name: str) -> bool:
        """Whether this worker holds ``name`` now (and renewed it in time)."""
        with self._lock:
            return name in self.held and time.monotonic() < self._until.get(name, 0.0)

    def token(self, name: str) -> int | None:
        """This worker's fencing token of ``name`` (``None``: not held)."""
        with self._lock:
            return self.held.get(name)

    def claim(self, name: str) -> int | None:
        """Take ``name`` when it is free or expired (the token goes up by one); returns the
        token, or ``None`` when another worker holds it. Already held: its token."""
        t0 = time.monotonic()
        with self._lock:
            if name in self.held:
                return self.held[name]
        with self.store.write_core() as c:
            tok = c.execute(_CLAIM, {"name": name, "me": self.me, "ttl": self.lease_s}).scalar()
        if tok is None:
            return None
        with self._lock:
            self.held[name] = int(tok)
            self._until[name] = t0 + self.lease_s * 0.8
        return int(tok)

    def renew(self) -> set[str]:
        """Extend every lease this worker holds; returns the names it lost (another worker
        took them over)."""
        t0 = time.monotonic()
        with self.store.write_core() as c:
            rows = {name: int(tok) for name, tok in c.execute(_RENEW, {"me": self.me, "ttl": self.lease_s})}
        with self._lock:
            lost = {n for n, t in self.held.items() if rows.get(n) != t}
            for n in lost:
                self.held.pop(n, None)
                self._until.pop(n, None)
            for n in self.held:
                self._until[n] = t0 + self.lease_s * 0.8
        return lost

    def release(self, names: Iterable[str] | None = None) -> None:
        """Give up ``names`` (default: every lease held), so that another worker takes them at
        once."""
        with self._lock:
            drop = list(self.held) if names is None else [n for n in names if n in self.held]
            for n in drop:
                self.held.pop(n, None)
                self._until.pop(n, None)
        if drop:
            with self.store.write_core() as c:
                c.execute(text("DELETE FROM leases WHERE holder = :me AND name = ANY(:names)"),
                          {"me": self.me, "names": drop})

    def check(self, conn: Any, name: str) -> None:
        """In a write transaction: raise :class:`LostLease` unless this worker still holds
        ``name`` with its token (the row is share-locked until the commit, so no takeover
        slips in between)."""
        tok = self.token(name)
        row = conn.execute(_CHECK, {"name": name}).first()
        if tok is None or row is None or row[0] != self.me or int(row[1]) != tok:
            raise LostLease(name)

    def orphans(self) -> list[str]:
        """Running matches with a built-in bot whose lease is missing or expired."""
        with self.store.read() as s:
            return [r[0] for r in s.execute(_ORPHANS)]


class Listener:
    """A thread that ``LISTEN``s on :data:`CHANNEL` over its own connection and calls
    ``on_change(match_id, version)`` for each notification of another worker (``me``: this
    worker's id, which its own notifications carry), ``on_reconnect()`` after the connection was
    lost and made again (notifications may have been missed meanwhile)."""

    def __init__(self, url: str, on_change: Callable[[str, int], None], on_reconnect: Callable[[], None],
                 me: str = ""):
        from sqlalchemy.engine import make_url
        u = make_url(url)
        self.conninfo = u.set(drivername="postgresql").render_as_string(hide_password=False)
        self.on_change = on_change
        self.me = me  # this worker's id: its own commits' notifications are skipped
        self.on_reconnect = on_reconnect
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected = threading.Event()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="botwars-listen", daemon=True)
        self._thread.start()
        self.connected.wait(10)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        import psycopg
        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.connected.set()
                    if not first:
                        self.on_reconnect()
                    first = False
                    while not self._stop.is_set():
                        for n in conn.notifies(timeout=0.5):
                            self._one(n.payload)
            except Exception as exc:  # the database went away: listen again in a moment
                self.connected.clear()
                if not self._stop.is_set():
                    log.warning("cluster: the notification connection failed (%s); reconnecting",
                                type(exc).__name__)
                    self._stop.wait(0.5)

    def _one(self, payload: str) -> None:
        """One notification, ``"MATCH VERSION WORKER"``: another worker's commit is caught up
        on; this worker's own is skipped (its cache holds it already: catching up on it cost a
        database read and a wait for the match's lock per order, issue 27 item 7)."""
        mid, v, origin = (payload.split(" ") + ["", ""])[:3]
        if self.me and origin == self.me:
            return
        try:
            self.on_change(mid, int(v or 0))
        except Exception:  # noqa: BLE001 - one match's trouble never stops the listener
            log.exception("cluster: catching up on match %s", mid)
