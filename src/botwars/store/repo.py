"""The :class:`Store`: engine, migrations and short transactions."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from sqlalchemy import create_engine, event, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from botwars.engine.errors import ConfigError
from botwars.store.models import ServerStateRow

MIGRATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrations")


def safe_url(url: str) -> str:
    """``url`` fit to show: the password (if any) replaced by ``***``; a URL that cannot be
    parsed is not shown at all."""
    try:
        from sqlalchemy.engine import make_url
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<database URL>"


def default_url() -> str:
    """``$BOTWARS_DATABASE_URL``, else SQLite file ``botwars.db`` in the working directory."""
    return os.environ.get("BOTWARS_DATABASE_URL") or "sqlite:///" + os.path.abspath("botwars.db")


def insert_heartbeat(s: Any, now: float) -> None:
    """Write the ``server_state`` row of a new database in session ``s`` (``now``: epoch
    seconds). Workers that start together on an empty database all try; the first wins and the
    others' inserts are rolled back to a savepoint (their transactions go on)."""
    from sqlalchemy.exc import IntegrityError
    try:
        with s.begin_nested():
            s.add(ServerStateRow(id=1, heartbeat_at=now))
    except IntegrityError:
        pass  # another worker wrote it first: its time is as good


class Store:
    """A database of matches.

    ``url`` is a SQLAlchemy URL: ``sqlite:///PATH`` (WAL journal, ``synchronous=NORMAL``: a
    commit survives the server process being killed, which is the durability the server
    promises; it may not survive a power cut) or ``postgresql+psycopg://USER@HOST:PORT/DB``.
    Raises :class:`ConfigError` for a URL SQLAlchemy cannot use.

    SQLite allows one writer at a time, so writes are serialised by a process-wide lock here
    instead of by SQLite's busy-retry loop (which can fail with "database is locked").
    """

    def __init__(self, url: str | None = None):
        self.url = url or default_url()
        try:
            if self.url.startswith("sqlite"):
                self.engine: Engine = create_engine(self.url, connect_args={"check_same_thread": False,
                                                                            "timeout": 60})
                event.listen(self.engine, "connect", _sqlite_pragmas)
                self.is_sqlite = True
            else:
                self.engine = create_engine(self.url, pool_size=10, max_overflow=20, pool_pre_ping=True)
                self.is_sqlite = False
        except Exception as exc:  # ArgumentError, NoSuchModuleError, ...
            msg = str(exc).replace(self.url, safe_url(self.url))
            raise ConfigError(f"cannot use database URL {safe_url(self.url)}: {msg}", source="--db") from None
        self.Session = sessionmaker(self.engine, expire_on_commit=False)
        self._write_lock = threading.Lock() if self.is_sqlite else None

    # ------------------------------------------------------------------------------------
    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision (idempotent)."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", MIGRATIONS)
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        with self.engine.begin() as conn:
            if not self.is_sqlite:  # several workers starting at once migrate one at a time
                conn.execute(text("SELECT pg_advisory_xact_lock(2027110027)"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A transaction that commits on exit (rolls back on an exception)."""
        if self._write_lock is not None:
            with self._write_lock:
                with self.Session.begin() as s:
                    yield s
        else:
            with self.Session.begin() as s:
                yield s

    @contextmanager
    def write_core(self) -> Iterator[Connection]:
        """A Core connection in a transaction that commits on exit (the hot path: no ORM)."""
        if self._write_lock is not None:
            with self._write_lock:
                with self.engine.begin() as conn:
                    yield conn
        else:
            with self.engine.begin() as conn:
                yield conn

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only session."""
        with self.Session() as s:
            yield s

    @contextmanager
    def snapshot(self) -> Iterator[Session]:
        """A read-only session whose queries all see one snapshot of the database (PostgreSQL:
        ``REPEATABLE READ``; SQLite: one read transaction), so that rows read one after the
        other belong together even while other workers commit (issue 27)."""
        with self.Session() as s:
            if not self.is_sqlite:
                s.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            yield s

    # ------------------------------------------------------------------------------------
    def heartbeat(self, now: float) -> None:
        """Record that the server was alive at ``now`` (epoch seconds)."""
        with self.write() as s:
            row = s.get(ServerStateRow, 1)
            if row is None:
                insert_heartbeat(s, now)
            else:
                row.heartbeat_at = now

    def last_heartbeat(self) -> float | None:
        """When the server was last known alive, or ``None`` for a new database."""
        with self.read() as s:
            return s.scalar(select(ServerStateRow.heartbeat_at).where(ServerStateRow.id == 1))

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
