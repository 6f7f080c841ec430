"""Tournament results: the ``tournaments`` and ``tournament_matches`` tables (Alembic migration
0004 of :mod:`botwars.store`) and the tournament folder's files.

A match is stored once it has finished, in this order: its record is written to a temporary
name and renamed to ``replays/<match id>.jsonl`` (so no half-written record ever has the final
name), then its row is inserted and committed. The row's primary key is the match id and the
insert does nothing when the row exists, so a match retried by a backend (a Ray worker that
died) or finished twice is counted once. A match with no row is played (again) on the next run.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from typing import Any, Iterator

from sqlalchemy import delete, select
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError

from botwars.engine.errors import ConfigError
from botwars.engine.ruleset import canonical_json
from botwars.league.runner import MatchReport
from botwars.store import Store
from botwars.store.models import TournamentMatchRow, TournamentRow
from botwars.store.repo import safe_url

MANIFEST = "tournament.json"
REPLAYS = "replays"


def default_db_url(out_dir: str) -> str:
    """``sqlite:///OUT/tournament.db`` (absolute path)."""
    return "sqlite:///" + os.path.abspath(os.path.join(out_dir, "tournament.db"))


def _db_name(url: str) -> str:
    if url.startswith("sqlite:///"):
        return url[len("sqlite:///"):]
    return safe_url(url)



@contextlib.contextmanager
def _interrupt_after() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) that arrives inside the block until the block is done, then raise
    :class:`KeyboardInterrupt` (a commit interrupted half-way leaves SQLAlchemy's transaction in
    a state it asserts against). Outside the main thread, or where SIGINT is not Python's default
    handler, the block runs as it is."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    got: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if got:
        raise KeyboardInterrupt

class ResultStore:
    """The results database of one tournament run.

    Raises :class:`ConfigError` naming the database (its file for SQLite) when it cannot be
    opened or is not a botwars database (a corrupt file, another program's file).
    """

    def __init__(self, url: str):
        self.url = url
        self.name = _db_name(url)
        self.store = Store(url)
        try:
            self.store.migrate()
        except (DatabaseError, OperationalError) as exc:
            self.store.dispose()
            why = str(getattr(exc, "orig", exc)).splitlines()[0] if str(getattr(exc, "orig", exc)) else type(exc).__name__
            raise ConfigError(f"results database {self.name} cannot be used ({why}); move it away or "
                              "name another with --db", source="--db") from None
        except Exception as exc:  # alembic: a revision it does not know, a foreign schema
            self.store.dispose()
            raise ConfigError(f"results database {self.name} cannot be used ({exc}); move it away or "
                              "name another with --db", source="--db") from None

    def ensure_tournament(self, tid: str, game: str, settings: dict[str, Any]) -> None:
        """Insert the tournament's row unless it is there."""
        with self.store.write() as s:
            if s.get(TournamentRow, tid) is None:
                s.add(TournamentRow(id=tid, game=game, settings=canonical_json(settings), created_at=time.time()))

    def done_ids(self, tid: str) -> set[str]:
        """The ids of the tournament's stored matches."""
        with self.store.read() as s:
            return set(s.scalars(select(TournamentMatchRow.match_id).where(TournamentMatchRow.tournament_id == tid)))

    def commit(self, tid: str, report: MatchReport, out_dir: str) -> bool:
        """Store a finished match: its record under ``out_dir/replays`` (temporary name, fsync,
        rename), then its row. Returns ``False`` (and changes nothing in the database) when
        the match was stored already."""
        row = report.row
        mid = row["match_id"]
        rel = None
        if report.record:
            rel = f"{REPLAYS}/{mid}.jsonl"
            final = os.path.join(out_dir, rel)
            os.makedirs(os.path.dirname(final), exist_ok=True)
            tmp = final + ".part"
            with open(tmp, "w", encoding="utf-8", newline="\n") as f:
                f.write(report.record)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        try:
            with _interrupt_after():  # Ctrl-C inside the commit would break it half-way (exit 1, not 130)
                return self._insert(tid, row, rel)
        except IntegrityError:  # stored by another driver between our look and our insert
            return False

    def _insert(self, tid: str, row: dict[str, Any], rel: str | None) -> bool:
        mid = row["match_id"]
        with self.store.write() as s:
            if s.get(TournamentMatchRow, mid) is not None:
                return False
            s.add(TournamentMatchRow(
                match_id=mid, tournament_id=tid, round=row["round"], seq=row["seq"], game_index=row["game_index"],
                seed=row["seed"], agents=canonical_json(row["agents"]), seats=canonical_json(row["seats"]),
                status=row["status"], outcome=None if row["outcome"] is None else canonical_json(row["outcome"]),
                turns=row["turns"], errors=canonical_json(row["errors"]),
                error_detail=canonical_json(row["error_detail"]), replay=rel, wall_s=float(row["wall_s"]),
                finished_at=time.time()))
        return True

    def forget_failed(self, tid: str, out_dir: str, rounds: set[int] | None = None) -> int:
        """Delete the tournament's rows of status ``failed`` (in ``rounds`` only, when given)
        and any record file they name, so that the next run plays those matches again; returns
        how many were deleted. One transaction: on an error nothing is deleted."""
        with self.store.write() as s:
            q = select(TournamentMatchRow).where(TournamentMatchRow.tournament_id == tid,
                                                 TournamentMatchRow.status == "failed")
            if rounds is not None:
                q = q.where(TournamentMatchRow.round.in_(sorted(rounds)))
            rows = list(s.scalars(q))
            replays = [r.replay for r in rows if r.replay]
            if rows:
                s.execute(delete(TournamentMatchRow).where(
                    TournamentMatchRow.match_id.in_([r.match_id for r in rows])))
        for rel in replays:  # after the commit: a record without its row is played again anyway
            try:
                os.unlink(os.path.join(out_dir, rel))
            except OSError:
                pass
        return len(rows)

    def matches(self, tid: str) -> list[dict[str, Any]]:
        """The tournament's stored matches as dicts (JSON fields decoded), in the fixed order
        ``(round, seq, match_id)``."""
        with self.store.read() as s:
            rows = s.scalars(select(TournamentMatchRow).where(TournamentMatchRow.tournament_id == tid)
                             .order_by(TournamentMatchRow.round, TournamentMatchRow.seq,
                                       TournamentMatchRow.match_id)).all()
            return [{"match_id": r.match_id, "round": r.round, "seq": r.seq, "game_index": r.game_index,
                     "seed": r.seed, "agents": json.loads(r.agents), "seats": json.loads(r.seats),
                     "status": r.status, "outcome": None if r.outcome is None else json.loads(r.outcome),
                     "turns": r.turns, "errors": json.loads(r.errors), "error_detail": json.loads(r.error_detail),
                     "replay": r.replay, "wall_s": r.wall_s} for r in rows]

    def close(self) -> None:
        self.store.dispose()


def check_manifest(out_dir: str, settings: dict[str, Any]) -> None:
    """Write ``out_dir/tournament.json`` (the settings) for a new folder, or check that the
    folder's tournament has these settings. Raises :class:`ConfigError` naming the file and
    the first difference (another game, other agents, another seed...)."""
    path = os.path.join(out_dir, MANIFEST)
    if not os.path.exists(path):
        os.makedirs(out_dir, exist_ok=True)
        with open(path + ".part", "w", encoding="utf-8") as f:
            f.write(json.dumps(settings, indent=1, sort_keys=True) + "\n")
        os.replace(path + ".part", path)
        return
    try:
        with open(path, encoding="utf-8") as f:
            old = json.load(f)
        if not isinstance(old, dict):
            raise ValueError("not an object")
        if not isinstance(old.get("game"), str) or not isinstance(old.get("agents"), list):
            raise ValueError("it names no game or no agents")
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} is not a tournament manifest ({exc}); use another --out") from None
    if old.get("game") != settings["game"]:
        raise ConfigError(f"{out_dir} holds a tournament of {old.get('game')}, not {settings['game']}; "
                          "use another --out")
    if old.get("agents") != settings["agents"]:
        raise ConfigError(f"{out_dir} holds a tournament between {', '.join(map(str, old.get('agents') or []))}; "
                          "give the same agents in the same order, or use another --out")
    for k in sorted(set(old) | set(settings)):
        if old.get(k) != settings.get(k):
            raise ConfigError(f"{out_dir} holds a tournament with {k} = {canonical_json(old.get(k))}, "
                              f"not {canonical_json(settings.get(k))}; use the same settings or another --out")
