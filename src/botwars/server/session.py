"""The server's vocabulary of a match: :class:`MatchSession` (one match in memory around its
referee), :class:`ApiError`, seat tokens, the turn a person is told and the game master's lines
of a record. Shared by the parts of :class:`~botwars.server.manager.MatchManager`.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from botwars.engine.events import Event, Outcome
from botwars.engine.referee import Referee
from botwars.engine.ruleset import Ruleset
from botwars.engine.timecontrol import TimeControl
from botwars.server import rulespool
from botwars.server.names import seat_label


GM_REQUEST = "gm"
"""First element of an order row's ``request_key`` when the game master set the orders
(``["gm", reason]``): a restart gives them back through :meth:`Referee.adjudicate`."""


class ApiError(Exception):
    """A refused request: HTTP ``status``, a short ``code`` and a ``message`` naming the problem."""

    def __init__(self, status: int, code: str, message: str, **extra: Any):
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra
        super().__init__(message)


#: what a match id can be (ours are 12 hexadecimal digits; older stores may hold other short ids)
_MATCH_ID = re.compile(r"[0-9A-Za-z_-]{1,32}")


GM_KEY = ""
"""Key of the game master's token in what :meth:`MatchManager.create` returns (no seat has an
empty name)."""


def shown_turn(turns_played: int, ended: bool) -> int:
    """The turn a person is told (issue 24 item 5: turn 1 is the first turn everywhere): while
    the match runs, the turn being played (``turns_played + 1``, where ``turns_played`` is
    :meth:`Ruleset.turn_number`); once it has ended, the last turn played."""
    return int(turns_played) if ended else int(turns_played) + 1


def token_hash(token: str) -> str:
    """SHA-256 hex of a seat token (tokens themselves are never stored)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    """A seat token: ``secrets.token_urlsafe(32)`` (256 random bits), drawn again when it starts
    with ``-`` so that it can never be mistaken for an option on a command line."""
    while True:
        t = secrets.token_urlsafe(32)
        if not t.startswith("-"):
            return t


MAX_RECORDED_REFUSALS = 16
"""Refused submissions kept per seat and decision point (in the record and the store); later
ones are still answered and counted towards a rule set's refusal limit only if recorded, so a
rule set's ``refusal_limit`` must not exceed it."""


@dataclass
class MatchSession:
    """One match in memory: its :class:`~botwars.engine.referee.Referee` (the only place a
    decision point is played) plus what the server adds: tokens, the server time the open point
    opened, request keys, built-in bots. Changed only under ``lock`` and only after the change is
    committed to the store (the referee rolls back when a commit fails)."""

    id: str
    rs: Ruleset
    ref: Referee
    token_hashes: dict[str, str]
    created_at: float
    opened_at: float = 0.0
    keys: dict[str, str] = field(default_factory=dict)
    bots: dict[str, Any] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    """Display names of the seats that have one (issue 24 item 2; :mod:`botwars.server.names`)."""
    next_deadline: float | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    resolved_here: int = 0
    """Decision points this process resolved for it since it was loaded (not replayed ones)."""
    heavy: bool = False
    """Its decision points take long to resolve (over :data:`~botwars.server.rulespool.HEAVY_S`),
    or its configuration is big (:func:`~botwars.server.rulespool.big_config`): it lives in the
    rules pool and its orders are taken off the event loop."""
    stays_here: bool = False
    """The rules pool could not take it (its game is not loaded there, its state cannot be
    pickled): it is resolved in this process."""
    gm_hash: str | None = None
    """SHA-256 of the game master's token (``None``: a match made before there were GMs)."""
    paused_at: float | None = None
    """Server time the game master paused the match (``None``: running): every clock stands."""
    extra: dict[str, float] = field(default_factory=dict)
    """Seconds the game master added to a seat's deadline at the open decision point."""
    last_seen: dict[str, float] = field(default_factory=dict)
    """Server time each seat's token was last used (since this process loaded the match)."""
    notes: list[dict[str, Any]] = field(default_factory=list)
    """The game master's actions and missed deadlines (:class:`GmActionRow` as dicts), in order."""
    defaults_played: dict[tuple[int, str], str] = field(default_factory=dict)
    """``(decision point, seat)`` -> the default orders played for a missed deadline, as move
    text: private to that seat (its notice, issue 24 item 4); kept in memory only."""
    version: int = 0
    """The match row's ``version`` this memory is up to (issue 27: another worker's commit
    bumps it, and this worker catches up before it acts)."""
    open_cp: Any = None
    """The referee's checkpoint at the opening of the open decision point (nothing settled):
    catching up with another worker starts from it (:mod:`botwars.server.cluster`)."""

    def clock_now(self, now: float) -> float:
        """The match's clock time at server time ``now``: the moment of the pause while paused."""
        return self.paused_at if self.paused_at is not None else now

    def elapsed(self, seat: str, now: float) -> float:
        """Seconds charged to ``seat`` at server time ``now`` for the open point: from its
        opening, less the pause and the game master's extension of its deadline (never below 0)."""
        return max(0.0, self.clock_now(now) - self.opened_at - self.extra.get(seat, 0.0))

    # the referee's facts, under the names the pages use
    @property
    def config(self) -> dict[str, Any]:
        return self.ref.config

    @property
    def seed(self) -> int:
        return self.ref.seed

    @property
    def seats(self) -> list[str]:
        return self.ref.seats

    @property
    def agents(self) -> dict[str, str]:
        return self.ref.agents

    @property
    def state(self) -> Any:
        """The rule set's state (a heavy match's is fetched from its rules-pool worker)."""
        s = self.ref.state
        rules = self.ref.ruleset
        return rules.local(s) if isinstance(rules, rulespool.RemoteRules) else s

    @property
    def n(self) -> int:
        return self.ref.n

    @property
    def events(self) -> list[list[Event]]:
        return self.ref.events

    @property
    def lines(self) -> list[dict[str, Any]]:
        return self.ref.lines

    @property
    def outcome(self) -> Outcome | None:
        return self.ref.outcome

    @property
    def clock_enabled(self) -> bool:
        return self.ref.clock_enabled

    @property
    def control(self) -> TimeControl:
        return self.ref.control

    @property
    def bank_left(self) -> dict[str, float]:
        return self.ref.bank

    @property
    def ended(self) -> bool:
        return self.ref.over

    @property
    def status(self) -> str:
        return "ended" if self.ended else "running"

    def pending(self) -> list[str]:
        """Seats whose orders the open decision point needs (empty once ended)."""
        return list(self.ref.pending())

    def awaited(self) -> list[str]:
        """Pending seats whose orders are not settled yet."""
        return self.ref.awaited()

    def submitted(self) -> list[str]:
        """Pending seats whose orders are settled."""
        return [s for s in self.ref.pending() if self.ref.settled(s) is not None]

    def exempt(self) -> float | None:
        """Seconds allowed for the open point when it is not charged (:meth:`Ruleset.clock_exempt`)."""
        return self.ref.exempt()

    def deadline(self, seat: str) -> float | None:
        """Server time by which ``seat``'s order must be accepted (``None``: no clock)."""
        d = self.ref.deadline(seat)
        return None if d is None else self.opened_at + d + self.extra.get(seat, 0.0)

    def header(self) -> dict[str, Any]:
        return self.ref.header()

    def outcome_line(self) -> dict[str, Any] | None:
        return self.ref.outcome_line()


# ---- the game master's lines (issue 24) ---------------------------------------------------------
def gm_row_json(row: Any) -> dict[str, Any]:
    """A :class:`GmActionRow` as the dict kept in :attr:`MatchSession.notes`."""
    return {"n": row.n, "at": row.at, "action": row.action, "seat": row.seat, "reason": row.reason,
            "detail": row.detail}


def with_gm_lines(lines: list[dict[str, Any]], notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A full record's ``lines`` (header first) with the game master's ``notes`` as lines
    ``{"type": "gm", "n", "at", "action", "seat", "reason", "detail"}``, each after decision
    line ``n`` (the point open when it happened; before the outcome line when that point never
    closed). Re-simulation passes over them (:func:`botwars.engine.record.read_record`)."""
    if not notes:
        return lines
    gm = [{"type": "gm", **{k: v for k, v in x.items() if k != "detail"}, "detail": json.loads(x["detail"] or "{}")}
          for x in notes]
    out = [lines[0]]
    i = 0
    for line in lines[1:]:
        if line.get("type") == "outcome":
            out.extend(gm[i:])
            i = len(gm)
        out.append(line)
        if line.get("type") == "decision":
            while i < len(gm) and gm[i]["n"] <= line["n"]:
                out.append(gm[i])
                i += 1
    out.extend(gm[i:])
    return out


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    if s % 86400 == 0 and s:
        return f"{s // 86400} day{'s' if s // 86400 != 1 else ''}"
    if s % 3600 == 0 and s:
        return f"{s // 3600} hour{'s' if s // 3600 != 1 else ''}"
    if s % 60 == 0 and s:
        return f"{s // 60} minute{'s' if s // 60 != 1 else ''}"
    return f"{s} second{'s' if s != 1 else ''}"


def note_text(note: dict[str, Any], seats: list[str], names: dict[str, str] | None = None) -> str:
    """One game-master action or missed deadline in plain words for every player (never the
    orders themselves, never a token): ``note`` as in :attr:`MatchSession.notes`. A seat is
    named as the pages name it (issue 24 item 2, :func:`~botwars.server.names.seat_label`):
    ``"Bruno (Blue)"`` with a display name in ``names`` (seat -> name), else ``"Blue (p2)"``,
    never the bare engine id ``p2``."""
    a, seat = note["action"], note.get("seat")
    d = json.loads(note.get("detail") or "{}")
    why = f" Reason: {note['reason']}" if note.get("reason") else ""
    if why and not why.endswith((".", "!", "?")):
        why += "."
    def call(s: str) -> str:
        return seat_label(s, seats, names or {}) if s in seats else f"seat {s}"
    who = call(seat) if seat else "every seat"
    if a == "pause":
        return "The game master paused the match: every clock stands still." + why
    if a == "resume":
        return f"The game master resumed the match after {_hms(d.get('paused_s', 0))}; deadlines moved by the pause." + why
    if a == "extend":
        return f"The game master gave {who} {_hms(d.get('seconds', 0))} more for this turn." + why
    if a == "replace":
        to = d.get("to", "")
        if to.startswith("builtin:"):
            return f"The game master handed {who} to the built-in bot {to[len('builtin:'):]}." + why
        if d.get("new_token"):
            return f"The game master gave {who} to a player with a new link (the old link no longer works)." + why
        return f"The game master gave {who} back to its player." + why
    if a == "adjudicate":
        return f"The game master set the orders of {who} for this turn." + why
    if a == "cancel":
        return f"The game master cancelled the orders of {who} for this turn; they are awaited again." + why
    if a == "end":
        w = d.get("winner")
        return ("The game master ended the match: " + (f"{call(w)} wins." if w else "a draw.")) + why
    if a == "abort":
        return "The game master aborted the match: no result." + why
    if a == "missed_deadline":
        if d.get("lost"):
            return f"{who} missed the deadline and lost on time."
        return f"{who} missed the deadline: its default orders were played."
    return f"The game master: {a}." + why
