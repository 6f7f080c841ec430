"""Records (replays): JSON Lines files that let a match be re-simulated and verified.

Line 1 is the header ``{"type": "header", "format": 2, "ruleset", "rules_version", "config",
"seats": [{"seat", "agent"}], "seed", "clock"}``; then one line per decision point as the
:class:`~botwars.engine.referee.Referee` writes it — ``{"type": "decision", "n", "turn",
"orders", "errors", "time_s", "clock", "digest"}`` plus ``"refused"`` (refused payloads by
seat, in order) when there were refusals, ``"resign"`` on a resignation line,
``"adjudicated"`` (seat -> the game master's reason) where the game master set a seat's orders
and ``"gm_end"`` (``winner``, ``note``, ``abort``) where the game master ended the match;
``orders[seat]`` is the accepted payload, ``null`` when the seat's default orders applied —
and last ``{"type": "outcome", "turns", "winner", "scores", "reason", "ranking", "details"}``.
A record without its outcome line is incomplete (a match still running, or cut short).
A server's record also holds the game master's actions and the missed deadlines as lines
``{"type": "gm", "n", "at", "action", "seat", "reason", "detail"}`` (``n``: the decision point
open at the time), placed after decision line ``n``; they change no state (what changed the
game is in the decision lines) and re-simulation passes over them (:attr:`Record.gm`).

Re-simulation goes through :meth:`Referee.replay`, the code that played the match.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from typing import Any, Iterator

from botwars.engine import driver
from botwars.engine.errors import BotwarsError, ConfigError, RecordError
from botwars.engine.events import Event
from botwars.engine.referee import RECORD_FORMAT, Referee, decision_digest
from botwars.engine.ruleset import Ruleset, canonical_json, get_ruleset
from botwars.engine.safeload import Limits, load_json, quote

FORMAT_VERSION = RECORD_FORMAT
__all__ = ["FORMAT_VERSION", "Record", "RecordWriter", "Replayed", "decision_digest", "read_record",
           "referee_for", "resimulate", "verify_record"]


class RecordWriter:
    """Writes a record as the match goes (flushed after every line).

    Raises :class:`~botwars.engine.ConfigError` naming ``path`` when it cannot be written (a
    folder, a missing parent that cannot be made, no permission)."""

    def __init__(self, path: str, header: dict[str, Any]):
        if os.path.isdir(path):
            raise ConfigError("is a folder; name a file for the record", source=path)
        try:
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            self.f = open(path, "w", encoding="utf-8", newline="\n")
        except OSError as exc:
            raise ConfigError(f"cannot write the record: {exc.strerror or exc}", source=path) from None
        self._write(header)

    def _write(self, obj: dict[str, Any]) -> None:
        self.f.write(canonical_json(obj) + "\n")
        self.f.flush()

    def line(self, line: dict[str, Any]) -> None:
        """Append one decision line."""
        self._write(line)

    def finish(self, outcome_line: dict[str, Any]) -> None:
        """Append the outcome line and close the file."""
        self._write(outcome_line)
        self.f.close()


@dataclass
class Record:
    """A parsed record file: its header, decision lines, outcome line (``None``: incomplete)."""

    header: dict[str, Any]
    decisions: list[dict[str, Any]]
    outcome: dict[str, Any] | None
    path: str = ""
    seats: list[str] = field(default_factory=list)
    gm: list[dict[str, Any]] = field(default_factory=list)
    """The game master's lines (``type`` ``gm``), in order."""

    @property
    def ruleset(self) -> Ruleset:
        """The rule set the record was played under."""
        return get_ruleset(self.header["ruleset"])


def _check_header(header: dict[str, Any], path: str) -> list[str]:
    where = f"{path}:1"
    if header.get("format") != FORMAT_VERSION:
        raise RecordError(f"{where}: unsupported record format {quote(header.get('format'))} (this botwars reads "
                          f"format {FORMAT_VERSION}; older records must be played again)")
    rs_id = header.get("ruleset")
    if not isinstance(rs_id, str):
        raise RecordError(f"{where}: 'ruleset' must be a game id, got {quote(rs_id)}")
    try:
        get_ruleset(rs_id)
    except BotwarsError as exc:
        raise RecordError(f"{where}: {exc}") from None
    seats = header.get("seats")
    if not isinstance(seats, list) or not seats or not all(
            isinstance(s, dict) and isinstance(s.get("seat"), str) for s in seats):
        raise RecordError(f"{where}: 'seats' must be a list of {{\"seat\": NAME, \"agent\": SPEC}}")
    names = [s["seat"] for s in seats]
    if len(set(names)) != len(names):
        raise RecordError(f"{where}: seat names repeat: {quote(names)}")
    seed = header.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError(f"{where}: 'seed' must be an integer, got {quote(seed)}")
    if not isinstance(header.get("config"), dict):
        raise RecordError(f"{where}: 'config' must be an object")
    if not isinstance(header.get("clock", False), bool):
        raise RecordError(f"{where}: 'clock' must be true or false")
    return names


RECORD_MAX_BYTES = 256 << 20
"""The largest record file :func:`read_record` reads, in bytes (a 1000-turn match of any shipped
game is a few megabytes)."""

RECORD_LINE_LIMITS = Limits(max_bytes=8 << 20)
"""What one line of a record may cost (:mod:`botwars.engine.safeload`: bytes, nesting depth,
integer digits)."""


def _lines(f: Any, path: str) -> Iterator[tuple[int, str]]:
    """The numbered non-blank lines of the binary file ``f``, each read no further than
    :data:`RECORD_LINE_LIMITS` allows, the whole no further than :data:`RECORD_MAX_BYTES`."""
    total = 0
    cap = RECORD_LINE_LIMITS.max_bytes
    for i in itertools.count(1):
        raw = f.readline(cap + 2)
        if not raw:
            return
        total += len(raw)
        if total > RECORD_MAX_BYTES:
            raise RecordError(f"{path}: over the limit of {RECORD_MAX_BYTES} bytes for a record")
        if len(raw.rstrip(b"\r\n")) > cap:
            raise RecordError(f"{path}:{i}: a line over the limit of {cap} bytes")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(f"{path}:{i}: not UTF-8 text") from None
        if line.strip():
            yield i, line


def read_record(path: str) -> Record:
    """Parse a record file, read as data from a stranger: each line through
    :func:`botwars.engine.safeload.load_json` (:data:`RECORD_LINE_LIMITS`), the file no
    further than :data:`RECORD_MAX_BYTES`. Raises :class:`RecordError` naming the file and
    line at fault (unreadable, too big, not JSON, nested too deeply, unknown line type, bad
    header, decision lines out of order); its message quotes at most
    :data:`~botwars.engine.safeload.QUOTE_CHARS` characters of a value."""
    if os.path.isdir(path):
        raise RecordError(f"{path}: is a folder, not a record")
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror}") from None
    header: dict[str, Any] | None = None
    decisions: list[dict[str, Any]] = []
    outcome: dict[str, Any] | None = None
    gm: list[dict[str, Any]] = []
    with f:
        for i, line in _lines(f, path):
            try:
                obj = load_json(line, "", RECORD_LINE_LIMITS)
            except ConfigError as exc:
                raise RecordError(f"{path}:{i}: {exc.message}") from None
            kind = obj.get("type") if isinstance(obj, dict) else None
            if header is None:
                if kind != "header":
                    raise RecordError(f"{path}:{i}: first line must be the header")
                header = obj
                continue
            if outcome is not None:
                raise RecordError(f"{path}:{i}: a line after the outcome line")
            if kind == "decision":
                want = len(decisions) + 1
                if obj.get("n") != want:
                    raise RecordError(f"{path}:{i}: decision line numbered {quote(obj.get('n'))}, expected {want}")
                decisions.append(obj)
            elif kind == "outcome":
                outcome = obj
            elif kind == "gm":
                gm.append(obj)
            else:
                raise RecordError(f"{path}:{i}: unknown line type {quote(kind)}")
    if header is None:
        raise RecordError(f"{path}: empty record")
    seats = _check_header(header, path)
    return Record(header, decisions, outcome, path, seats, gm)


def referee_for(rec: Record) -> Referee:
    """A referee at the start of ``rec``'s match (header config validated again, as a game
    master's server validates a stranger's: a map, board, room set or pool must be a shipped
    name or the text itself, never a path to a file, issue 25).
    Raises :class:`RecordError` naming the header when the config is not valid."""
    rs = rec.ruleset
    try:
        table = rs.param_table()
        config = rs.validate_config({k: v for k, v in rec.header["config"].items() if k in table},
                                    source=f"{rec.path}:1: config", allow_paths=False)
        return Referee(rs, config, rec.seats, rec.header["seed"], clock=bool(rec.header.get("clock", False)),
                       agents={s["seat"]: str(s.get("agent", "")) for s in rec.header["seats"]})
    except ConfigError as exc:
        raise RecordError(exc.one_line()) from None


@dataclass
class Replayed:
    """One re-simulated decision point: the state before and after, and its events."""

    n: int
    turn: int
    before: Any
    after: Any
    events: list[Event]
    line: dict[str, Any]


def resimulate(rec: Record, referee: Referee | None = None) -> Iterator[Replayed]:
    """Re-simulate a record decision by decision through :meth:`Referee.replay` (digests are
    checked as it goes). Raises :class:`RecordError` naming the first decision point that does
    not replay. The loop is :func:`botwars.engine.driver.resimulate`, the one re-simulation path."""
    ref = referee or referee_for(rec)
    for p in driver.resimulate(ref, rec.decisions):
        line = p.line
        yield Replayed(line.get("n", ref.n), int(line.get("turn", 0) or 0), p.before, p.after, list(p.events), line)


def verify_record(rec: Record) -> tuple[bool, str]:
    """Re-simulate and check every digest and the outcome.

    Returns ``(ok, message)``; the message names the first diverging decision point, or says
    the record is incomplete (no outcome line: ``ok`` is False).
    """
    ref = referee_for(rec)
    try:
        for _ in resimulate(rec, ref):
            pass
        if rec.outcome is None:
            state = "the game is over" if ref.over else "the game is not over"
            return False, (f"incomplete: {len(rec.decisions)} decision points verified but the record has no "
                           f"outcome line ({state})")
        ref.check_outcome(rec.outcome)
    except RecordError as exc:
        return False, str(exc)
    return True, f"{len(rec.decisions)} decision points verified"
