"""Server-side matches: the game master.

:class:`MatchManager` owns every match of one server process. Each match is a
:class:`MatchSession` in memory (the rule set's state, the orders accepted at the open
decision point, the clock) backed by the :class:`~botwars.store.Store`.

**How state survives a restart.** The kernel contract has no "state from JSON", so the server
stores what a record stores: the header (rule set, config, seats, seed) and one record line
per resolved decision point (the payloads each seat submitted, errors, time used, clock status
and the state digest), plus every accepted order of the open decision point. On start-up each
unfinished match is re-simulated from its seed with :func:`botwars.engine.record.resimulate`
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

One server process per database: two processes on one database would both drive its matches.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import logging
import pickle
import queue
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from sqlalchemy import bindparam, select, update

from botwars.engine.codes import ClockStatus, FailureCode, NotAwaitedCode, OnExpiry, Receipt
from botwars.engine.errors import BotwarsError, ConfigError, InvalidOrders, RecordError
from botwars.engine.events import Event, Outcome
from botwars.engine.referee import NotAwaited, Referee, Ticket
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import Ruleset, canonical_json, get_ruleset
from botwars.engine.timecontrol import TimeControl
from botwars.server import rulespool
from botwars.server.names import seat_label
from botwars.store import Store
from botwars.store.models import BotMemoryRow, DecisionRow, GmActionRow, MatchRow, OrderRow, RefusalRow, SeatRow

log = logging.getLogger("botwars.server")

# The hot path's statements, built once (SQLAlchemy Core: a fraction of the ORM's cost per order)
_INSERT_ORDER = OrderRow.__table__.insert()
_INSERT_DECISION = DecisionRow.__table__.insert()
_INSERT_REFUSAL = RefusalRow.__table__.insert()
_INSERT_GM = GmActionRow.__table__.insert()
_B = BotMemoryRow.__table__
_DELETE_MEMORY = _B.delete().where(_B.c.match_id == bindparam("mid"), _B.c.seat == bindparam("mseat"))
_INSERT_MEMORY = _B.insert()
_DELETE_MEMORIES = _B.delete().where(_B.c.match_id == bindparam("mid"))
_O = OrderRow.__table__
_DELETE_ORDER = _O.delete().where(_O.c.match_id == bindparam("mid"), _O.c.n == bindparam("dn"),
                                  _O.c.seat == bindparam("dseat"))
_M = MatchRow.__table__
_UPDATE_MATCH = (_M.update().where(_M.c.id == bindparam("mid"))
                 .values(decisions=bindparam("decisions"), turns=bindparam("turns"), opened_at=bindparam("opened_at"),
                         bank_left=bindparam("bank_left"), status=bindparam("status"), outcome=bindparam("outcome"),
                         extensions=None))

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


def answered_points(lines: list[dict[str, Any]], order_rows: list[Any], open_point: int) -> dict[str, int]:
    """The last decision point each seat's answer is stored for: the highest ``n`` of the
    record ``lines`` whose orders hold the seat, or ``open_point`` where an order row of the open
    point holds it (0: none yet). Used to check a built-in bot's stored memory against what was
    stored of its answers (:meth:`MatchManager._restore_bots`)."""
    out: dict[str, int] = {}
    for line in lines:
        for seat in line.get("orders", {}):
            out[seat] = max(out.get(seat, 0), int(line["n"]))
    for o in order_rows:
        if o.n == open_point:
            out[o.seat] = max(out.get(o.seat, 0), open_point)
    return out


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
        return self.ref.ruleset.local(s) if isinstance(s, rulespool.StateRef) else s

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


class MatchManager:
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
    """

    bot_pool: Any = None
    rules_pool: Any = None

    def __init__(self, store: Store, *, now: Callable[[], float] = time.time, background: bool = True,
                 notify: Callable[[str], None] | None = None, tick_s: float = 0.02,
                 heartbeat_s: float = 1.0):
        self.store = store
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

    # ---- life cycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Migrate the database, charge no one for downtime, reload unfinished matches, and
        (background mode) start the clock and bot threads."""
        self.store.migrate()
        now = self.now()
        last = self.store.last_heartbeat()
        with self.store.write() as s:
            if last is not None and now > last:
                s.execute(update(MatchRow).where(MatchRow.status == "running", MatchRow.paused_at.is_(None))
                          .values(opened_at=MatchRow.opened_at + (now - last)))
        self.store.heartbeat(now)
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
            for target, name in ((self._clock_loop, "botwars-clock"), (self._bot_loop, "botwars-bots")):
                t = threading.Thread(target=target, name=name, daemon=True)
                t.start()
                self._threads.append(t)

    def stop(self) -> None:
        """Stop the background threads (matches stay in the database)."""
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

    def _clock_loop(self) -> None:
        last_beat = 0.0
        while not self._stop.wait(self.tick_s):
            try:
                self.tick()
                now = self.now()
                if now - last_beat >= self.heartbeat_s:
                    self.store.heartbeat(now)
                    last_beat = now
            except Exception:  # pragma: no cover - keep the clock alive, log the bug
                log.exception("clock thread")

    def _bot_loop(self) -> None:
        """Background: start the decisions of awaited built-in bots (a match id on the queue),
        and apply what the bot pool answered (``(match id, seat, decision, BotResult)``)."""
        while True:
            item = self._bot_queue.get()
            if item is None:
                return
            try:
                sess = self.sessions[item if isinstance(item, str) else item[0]]
                if isinstance(item, str):
                    if not self._heavy_work(sess, None, self._play_bots, sess):
                        self._play_bots(sess)
                elif not self._heavy_work(sess, None, self._apply_answer, item):
                    self._apply_answer(item)
            except Exception:  # pragma: no cover
                log.exception("bot thread, %s", item if isinstance(item, str) else item[:3])

    def _apply_answer(self, item: tuple[str, str, int, Any]) -> None:
        """Apply what the bot pool answered for one decision (``(match id, seat, decision,
        BotResult)``)."""
        mid, seat, n, res = item
        sess = self.sessions[mid]
        try:
            with sess.lock:
                if seat not in sess.bots:
                    return  # the game master gave the seat back to a player meanwhile
                if res.agent is not None:
                    sess.bots[seat].bot = res.agent.bot  # its memory after the decision
                    if res.memory is not None and not sess.ended:  # n: points resolved when asked
                        self._save_memory(sess, seat, n + 1, res.memory)
                if sess.ended or sess.n != n or seat not in sess.awaited():
                    return  # the clock expired it meanwhile, or the match ended
                self._apply_bot(sess, seat, res.payload, res.failure, res.spent)
        finally:
            self.bot_pool.release((mid, seat))
        self._after_change(sess)

    # ---- creating and finding matches -----------------------------------------------------
    def create(self, game: str, seats: list[str] | None, config: dict[str, Any] | None, seed: int,
               clock: bool = True, names: list[str | None] | None = None,
               preset_s: float | None = None) -> tuple[MatchSession, dict[str, str]]:
        """Create a match; returns the session and the token of each seat, plus the game
        master's token under the key ``""`` (:data:`GM_KEY`; shown once, stored hashed).

        ``seats``: one spec per seat, ``remote`` (a player over the API) or ``builtin:NAME``
        (played by the server); ``None`` = ``remote`` for the rule set's minimum seat count.
        ``names``: display names in seat order (already checked by
        :func:`~botwars.server.names.clean_name`; ``None`` entries: no name yet). ``preset_s``:
        seconds per turn of a clock preset, turned into parameters by
        :meth:`Ruleset.clock_settings` (parameters in ``config`` win).
        Raises :class:`ApiError` 422 naming the bad game, seat spec, seat count, name list or
        parameter.
        """
        try:
            rs = get_ruleset(game)
            bots = get_game(game).builtin_bots()
        except BotwarsError as exc:
            raise ApiError(422, "unknown_game", str(exc)) from None
        specs = list(seats) if seats is not None else ["remote"] * rs.min_seats
        if not rs.min_seats <= len(specs) <= rs.max_seats:
            want = str(rs.min_seats) if rs.min_seats == rs.max_seats else f"{rs.min_seats} to {rs.max_seats}"
            raise ApiError(422, "bad_seats", f"{game} needs {want} seats, got {len(specs)}")
        for spec in specs:
            if spec == "remote":
                continue
            if spec.startswith("builtin:") and spec[len("builtin:"):] in bots:
                continue
            # bot options (builtin:NAME(KEY=VALUE), the command line's) are not offered here: a
            # client could otherwise buy server CPU time with a search bot's budget
            raise ApiError(422, "bad_seats", f"seat {spec!r}: use remote or builtin:NAME, without options "
                                             f"(built-in bots of {game}: {', '.join(sorted(bots)) or 'none'})")
        if names is not None and len(names) != len(specs):
            raise ApiError(422, "bad_seats", f"names: {len(names)} names for {len(specs)} seats (give one per "
                                             f"seat, null for a seat without a name)")
        display = names or []
        if preset_s is not None:
            config = {**rs.clock_settings(preset_s), **(config or {})}
        try:
            cfg = rs.validate_config(config or {}, source="config")
            names = rs.seat_names(len(specs))
            state = rs.setup(cfg, names, seed)
        except ConfigError as exc:
            raise ApiError(422, "bad_config", exc.one_line()) from None
        tokens = {s: new_token() for s in names}
        gm_token = new_token()
        now = self.now()
        ref = Referee(rs, cfg, names, seed, clock=clock, state=state, agents=dict(zip(names, specs)),
                      keep_free_refusals=False)
        sess = MatchSession(id=secrets.token_hex(6), rs=rs, ref=ref,
                            token_hashes={s: token_hash(t) for s, t in tokens.items()}, created_at=now, opened_at=now,
                            heavy=rulespool.big_config(cfg), gm_hash=token_hash(gm_token),
                            names={s: n for s, n in zip(names, display) if n})
        self._make_bots(sess)
        with self.store.write() as s:
            s.add(MatchRow(id=sess.id, ruleset=rs.id, rules_version=rs.rules_version, config=canonical_json(cfg),
                           seed=seed, clock_enabled=sess.clock_enabled, status=sess.status, created_at=now,
                           decisions=0, turns=rs.turn_number(state), opened_at=now,
                           bank_left=canonical_json(sess.bank_left),
                           outcome=canonical_json(sess.outcome.to_json()) if sess.outcome else None,
                           gm_token_hash=sess.gm_hash))
            s.flush()
            for i, name in enumerate(names):
                s.add(SeatRow(match_id=sess.id, seat=name, idx=i, agent=specs[i], token_hash=sess.token_hashes[name],
                              name=sess.names.get(name)))
        for seat, agent in sess.bots.items():  # as started: a restart before its first answer restores this
            self._save_memory(sess, seat, 0, pickle.dumps(agent, protocol=pickle.HIGHEST_PROTOCOL))
        with self._lock:
            self.sessions[sess.id] = sess
        if sess.heavy:
            with sess.lock:
                self._adopt(sess)
        self._after_change(sess)
        return sess, {**tokens, GM_KEY: gm_token}

    def get(self, match_id: str) -> MatchSession:
        """The session of a match (finished matches are loaded on demand); 404 if unknown
        (anything but 1-32 letters, digits, ``-`` or ``_`` is unknown without a look-up)."""
        sess = self.sessions.get(match_id)
        if sess is not None:
            return sess
        if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
            # not echoed: it may be a pasted token; and no other text (a NUL character, which
            # PostgreSQL text cannot hold) reaches a database look-up
            raise ApiError(404, "unknown_match", "no match with that id (match ids are 12 characters)")
        with self._lock:
            sess = self.sessions.get(match_id)
            if sess is None:
                sess = self._load(match_id)
                self.sessions[match_id] = sess
        return sess

    def authenticate(self, sess: MatchSession, token: str | None) -> str:
        """The seat ``token`` belongs to; 403 if missing or wrong (compared in constant time)."""
        if not token:
            raise ApiError(403, "token_required", "a seat token is required (Authorization: Bearer TOKEN "
                                                  "or ?token=TOKEN)")
        h = token_hash(token)
        found = None
        for seat in sess.seats:
            if hmac.compare_digest(h, sess.token_hashes[seat]):
                found = seat
        if found is None:
            raise ApiError(403, "bad_token", "this token is not a seat of this match")
        sess.last_seen[found] = self.now()
        return found

    def find_seat(self, token: str | None) -> tuple[MatchSession, str]:
        """The match and seat of a token (for clients that only hold a token); 403 if unknown."""
        if not token:
            raise ApiError(403, "token_required", "a seat token is required")
        with self.store.read() as s:
            row = s.scalar(select(SeatRow).where(SeatRow.token_hash == token_hash(token)))
        if row is None:
            raise ApiError(403, "bad_token", "this token is not a seat of any match")
        sess = self.get(row.match_id)
        return sess, self.authenticate(sess, token)

    def list(self, status: str | None = None, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """Public summaries of matches, newest first."""
        with self.store.read() as s:
            q = select(MatchRow).order_by(MatchRow.created_at.desc(), MatchRow.id).limit(limit).offset(offset)
            if status:
                q = q.where(MatchRow.status == status)
            rows = list(s.scalars(q))
            seat_rows = list(s.scalars(select(SeatRow).where(SeatRow.match_id.in_([r.id for r in rows]))
                                       .order_by(SeatRow.match_id, SeatRow.idx))) if rows else []
        by_match: dict[str, list[dict[str, str]]] = {}
        for sr in seat_rows:
            by_match.setdefault(sr.match_id, []).append({"seat": sr.seat, "agent": sr.agent, "name": sr.name})
        return [{"match": r.id, "game": r.ruleset, "status": r.status, "decisions": r.decisions,
                 "turn": shown_turn(r.turns, r.status == "ended"),
                 "created_at": r.created_at, "seats": by_match.get(r.id, []),
                 "outcome": json.loads(r.outcome) if r.outcome else None} for r in rows]

    # ---- loading ----------------------------------------------------------------------------
    def _load(self, match_id: str) -> MatchSession:
        """Rebuild a match from the store by replaying its record lines through the referee
        (digests checked), then its open decision point's stored refusals and orders. An
        unfinished match with a big configuration is moved into the rules pool first (when it
        runs), so its lines are re-simulated in its worker, not in this process."""
        with self.store.read() as s:
            row = s.get(MatchRow, match_id)
            if row is None:
                raise ApiError(404, "unknown_match", f"no match {match_id!r}")
            seat_rows = list(s.scalars(select(SeatRow).where(SeatRow.match_id == match_id).order_by(SeatRow.idx)))
            lines = [json.loads(x) for x in s.scalars(select(DecisionRow.line).where(DecisionRow.match_id == match_id)
                                                      .order_by(DecisionRow.n))]
            order_rows = list(s.scalars(select(OrderRow).where(OrderRow.match_id == match_id,
                                                               OrderRow.n == row.decisions + 1)
                                        .order_by(OrderRow.seat)))
            refusal_rows = list(s.scalars(select(RefusalRow).where(RefusalRow.match_id == match_id,
                                                                   RefusalRow.n == row.decisions + 1)
                                          .order_by(RefusalRow.seat, RefusalRow.k)))
            notes = [gm_row_json(g) for g in s.scalars(select(GmActionRow).where(GmActionRow.match_id == match_id)
                                                       .order_by(GmActionRow.id))]
        rs = get_ruleset(row.ruleset)
        if row.rules_version != rs.rules_version:
            log.warning("match %s was created under %s rules version %s, now %s", match_id, rs.id,
                        row.rules_version, rs.rules_version)
        config = json.loads(row.config)
        seats = [r.seat for r in seat_rows]
        ref = Referee(rs, config, seats, row.seed, clock=row.clock_enabled,
                      agents={r.seat: r.agent for r in seat_rows}, keep_free_refusals=False)
        sess = MatchSession(id=row.id, rs=rs, ref=ref, token_hashes={r.seat: r.token_hash for r in seat_rows},
                            created_at=row.created_at, opened_at=row.opened_at, heavy=rulespool.big_config(config),
                            gm_hash=row.gm_token_hash, paused_at=row.paused_at,
                            extra={k: float(v) for k, v in json.loads(row.extensions or "{}").items()},
                            notes=notes, names={r.seat: r.name for r in seat_rows if r.name})
        restored: set[str] = set()
        if not row.outcome:
            self._make_bots(sess)
            restored = self._restore_bots(sess, answered_points(lines, order_rows, row.decisions + 1))
            if sess.heavy:  # a big configuration: re-simulated where it will live (in its worker)
                with sess.lock:
                    self._adopt(sess)
        try:
            for line in lines:
                before = ref.state
                pend = set(ref.pending())
                ref.replay(line)
                self._replay_bots(sess, before, pend - restored)
            if row.outcome:
                return sess
            for r in refusal_rows:
                if r.seat in seats and ref.settled(r.seat) is None:
                    ref.apply_refusal(r.seat, json.loads(r.payload))
            for o in order_rows:
                if o.seat not in seats or not ref.pending() or o.seat not in ref.pending():
                    continue
                key = json.loads(o.request_key) if o.request_key.startswith('["gm"') else None
                if isinstance(key, list) and len(key) == 2 and key[0] == GM_REQUEST:
                    ref.adjudicate(o.seat, json.loads(o.payload), str(key[1]))  # the game master's orders
                else:
                    ref.apply_entry(o.seat, json.loads(o.payload), json.loads(o.errors), o.time_used,
                                    o.clock_status == ClockStatus.EXPIRED)
                sess.keys[o.seat] = o.request_key
        except (RecordError, NotAwaited, InvalidOrders) as exc:
            raise ApiError(409, "match_unreadable", f"match {match_id} cannot be re-simulated: {exc}") from None
        self._replay_bots(sess, ref.state, {s for s in ref.pending() if ref.settled(s) is not None} - restored)
        if ref.ready() or (ref.over and not row.outcome):
            with sess.lock:
                cp = ref.checkpoint()
                self._resolve_ready(sess)  # also points that await nobody (e.g. a game's ending step)
                self._commit(sess, cp, now=self.now())
        return sess

    def _make_bots(self, sess: MatchSession) -> None:
        from botwars.agents.base import AgentFailure, CallableAgent
        bots = get_game(sess.rs.id).builtin_bots()
        for seat, spec in sess.agents.items():
            if spec.startswith("builtin:"):
                agent = CallableAgent(bots[spec[len("builtin:"):]](), spec)
                try:
                    agent.start(sess.rs.id, seat, copy.deepcopy(sess.config), sess.rs.agent_seed(sess.seed, seat))
                except AgentFailure as exc:
                    log.warning("match %s: bot %s failed to start: %s", sess.id, spec, exc)
                sess.bots[seat] = agent

    def _save_memory(self, sess: MatchSession, seat: str, n: int, blob: bytes) -> None:
        """Store built-in bot ``seat``'s memory (its pickled agent) after decision point ``n``
        (0: as started), replacing the one stored before."""
        try:
            with self.store.write_core() as c:
                c.execute(_DELETE_MEMORY, {"mid": sess.id, "mseat": seat})
                c.execute(_INSERT_MEMORY, {"match_id": sess.id, "seat": seat, "decision": n, "state": blob})
        except Exception:  # the match goes on; a restart would replay this bot's views instead
            log.exception("match %s: the memory of bot %s was not stored", sess.id, seat)

    def _restore_bots(self, sess: MatchSession, answered: dict[str, int]) -> set[str]:
        """Put back the stored memory of the match's built-in bots (:meth:`_save_memory`);
        returns the seats restored. ``answered``: the last decision point each seat's answer is
        stored for (:func:`answered_points`). A memory stored after another point than that one
        is not restored: the server was killed between storing the bot's memory and its answer
        (or the memory could not be stored), and a bot asked again with a memory that already
        made that decision would decide differently. Such a bot, and those of a match stored
        before memories were kept, are replayed the views they answered instead
        (:meth:`_replay_bots`), so a restart never changes what they play."""
        with self.store.read() as s:
            rows = list(s.scalars(select(BotMemoryRow).where(BotMemoryRow.match_id == sess.id)))
        restored = set()
        for row in rows:
            if row.seat not in sess.bots:
                continue
            if row.decision != answered.get(row.seat, 0):
                log.info("match %s: the memory of bot %s is from decision %d, its last stored answer from %d: "
                         "its views are replayed", sess.id, row.seat, row.decision, answered.get(row.seat, 0))
                continue
            try:
                sess.bots[row.seat] = pickle.loads(row.state)  # botwars' own objects, stored by this server
            except Exception as exc:
                log.warning("match %s: the memory of bot %s cannot be restored (%s): its views are replayed",
                            sess.id, row.seat, type(exc).__name__)
                continue
            restored.add(row.seat)
        return restored

    def _replay_bots(self, sess: MatchSession, state: Any, seats: set[str]) -> None:
        """Feed bots the views they already answered so their memory matches (answers discarded)."""
        from botwars.agents.base import AgentFailure
        for seat, agent in sess.bots.items():
            if seat in seats:
                try:
                    agent.act(sess.ref.ruleset.view(state, seat), None)
                except AgentFailure:
                    pass

    def _resolve_ready(self, sess: MatchSession) -> None:
        """Resolve the open decision point while it is complete (under ``sess.lock``). A match
        whose resolution here took over :data:`~botwars.server.rulespool.HEAVY_S` of CPU time
        (measured on the first :data:`~botwars.server.rulespool.PROBE_FIRST` points this process
        resolves for it, also after a restart, and every
        :data:`~botwars.server.rulespool.PROBE_EVERY`-th after) becomes ``heavy``: with a running
        ``rules_pool`` its referee resolves there from then on (the same result, computed
        outside this process's GIL; issue 12)."""
        ref = sess.ref
        while ref.ready():
            self._adopt(sess)
            # CPU time, so that a busy machine does not make a match heavy; only now and then,
            # as reading a thread's CPU clock is a system call (perf_counter is not)
            k = sess.resolved_here
            probe = not sess.heavy and (k < rulespool.PROBE_FIRST or k % rulespool.PROBE_EVERY == 0)
            c0 = time.thread_time() if probe else 0.0
            ref.resolve_point()
            sess.resolved_here = k + 1
            if probe and time.thread_time() - c0 > rulespool.HEAVY_S:
                sess.heavy = True
                log.info("match %s is heavy: its decision points are resolved in the rules pool", sess.id)
            self._adopt(sess)

    def _adopt(self, sess: MatchSession) -> None:
        """Move a heavy match into the rules pool when it is not there (under ``sess.lock``):
        its state then lives in one worker process (:meth:`RulesPool.adopt`)."""
        pool = self.rules_pool
        if (sess.heavy and not sess.stays_here and pool is not None and pool.running
                and not isinstance(sess.ref.state, rulespool.StateRef)):
            if pool.adopt(sess.id, sess.ref, sess.lock):
                log.info("match %s now lives in the rules pool", sess.id)
            else:
                sess.stays_here = True

    # ---- committing what the referee did ------------------------------------------------------
    def _commit(self, sess: MatchSession, cp: Any, *, now: float, orders: list[dict[str, Any]] = (),
                refusals: list[dict[str, Any]] = (), replace: list[tuple[int, str]] = (),
                notes: list[dict[str, Any]] = ()) -> None:
        """Commit, in one transaction, the order and refusal rows of a change, the game
        master's ``notes`` (:class:`GmActionRow` dicts, added to ``sess.notes`` once committed)
        and every record line the referee wrote since ``cp`` (with the match row); on failure
        the referee is rolled back to ``cp`` and the error raised. A new decision point opens at
        ``now`` (while paused: at the moment of the pause, so that its clock stands still) with
        no extensions."""
        ref = sess.ref
        new_lines = ref.lines[cp.lines:]
        opened = sess.clock_now(now)
        try:
            with self.store.write_core() as c:
                for row in notes:
                    c.execute(_INSERT_GM, {"match_id": sess.id, **row})
                for n, seat in replace:
                    c.execute(_DELETE_ORDER, {"mid": sess.id, "dn": n, "dseat": seat})
                for row in orders:
                    c.execute(_INSERT_ORDER, row)
                for row in refusals:
                    c.execute(_INSERT_REFUSAL, row)
                for line in new_lines:
                    c.execute(_INSERT_DECISION, {"match_id": sess.id, "n": line["n"], "line": canonical_json(line)})
                if new_lines:
                    out = ref.outcome
                    if out:  # an ended match is never re-simulated with its bots: their memory goes
                        c.execute(_DELETE_MEMORIES, {"mid": sess.id})
                    c.execute(_UPDATE_MATCH, {"mid": sess.id, "decisions": ref.n, "turns": ref.turn(),
                                              "opened_at": opened, "bank_left": canonical_json(ref.bank),
                                              "status": "ended" if out else "running",
                                              "outcome": canonical_json(out.to_json()) if out else None})
        except BaseException:
            ref.rollback(cp)
            raise
        sess.notes.extend(notes)
        if new_lines:
            sess.opened_at = opened
            sess.keys = {}
            sess.extra = {}

    def _settle(self, sess: MatchSession, seat: str, key: str, now: float, elapsed: float, payload: Any,
                failure: dict[str, str] | None) -> Ticket:
        """Hand one submission (or an agent failure) to the referee, resolve when the point is
        complete, and commit it all; returns the referee's ticket. Whatever fails on the way
        leaves the referee as it was; a heavy match whose state is lost with its worker and
        cannot be rebuilt is a 503 ``rules_unavailable`` (nothing was accepted)."""
        cp = sess.ref.checkpoint()
        try:
            return self._settle_from(sess, cp, seat, key, now, elapsed, payload, failure)
        except rulespool.RulesUnavailable as exc:
            sess.ref.rollback(cp)
            raise ApiError(503, "rules_unavailable", str(exc)) from None
        except BaseException:
            sess.ref.rollback(cp)
            raise

    def _settle_from(self, sess: MatchSession, cp: Any, seat: str, key: str, now: float, elapsed: float,
                     payload: Any, failure: dict[str, str] | None) -> Ticket:
        ref = sess.ref
        n = ref.n + 1
        had = ref.settled(seat) is not None
        before = ref.refusals(seat)
        try:
            if failure is not None:
                tk = ref.default(seat, failure, elapsed)
            else:
                tk = ref.submit(seat, payload, elapsed)
        except NotAwaited as exc:
            raise ApiError(409, exc.code, str(exc)) from None
        orders: list[dict[str, Any]] = []
        refusals: list[dict[str, Any]] = []
        if ref.refusals(seat) > before and before < MAX_RECORDED_REFUSALS:
            refusals.append({"match_id": sess.id, "n": n, "seat": seat, "k": before + 1,
                             "payload": canonical_json(payload), "received_at": now})
        closed = ref.n >= n
        if closed:
            # the point closed (a loss on time): the seat's part is in the line; store it too
            line = ref.lines[-1] if ref.lines else {}
            if seat in line.get("orders", {}):
                orders.append({"match_id": sess.id, "n": n, "seat": seat,
                               "payload": canonical_json(line["orders"][seat]),
                               "errors": canonical_json(line.get("errors", {}).get(seat, [])),
                               "time_used": line.get("time_s", {}).get(seat, 0.0),
                               "clock_status": line.get("clock", {}).get(seat, ""), "received_at": now,
                               "request_key": key})
        else:
            st = ref.settled(seat)
            if st is not None and (not had or tk.receipt == Receipt.REPLACED):
                orders.append({"match_id": sess.id, "n": n, "seat": seat, "payload": canonical_json(st.payload),
                               "errors": canonical_json(st.errors), "time_used": st.time_s,
                               "clock_status": ClockStatus.EXPIRED.value if st.expired else "",
                               "received_at": now, "request_key": key})
        self._resolve_ready(sess)  # a point may await nobody (e.g. a game's ending step): resolve it too
        self._commit(sess, cp, now=now, orders=orders, refusals=refusals,
                     replace=[(n, seat)] if had and orders else [])
        if orders and ref.n + 1 == n:
            sess.keys[seat] = key
        return tk

    # ---- orders ------------------------------------------------------------------------------
    def submit(self, match_id: str, seat: str, decision: int, payload: Any,
               failure: dict[str, str] | None = None) -> dict[str, Any]:
        """Accept ``seat``'s orders for decision point ``decision``; returns the acknowledgement.

        ``failure`` (``{"code", "detail"}``, code in ``timeout crash memory malformed``) reports
        that the seat's agent failed: its default orders apply and the error is recorded, as in
        a local match. A later valid submission replaces an earlier one where the rules allow it
        (factory F-5.5, geeko G-16.1). Raises :class:`ApiError`: 409 when the match has ended,
        the decision point is not open, the seat is not awaited or already gave orders the rules
        do not let it replace, or its time ran out; 422 when the orders are invalid (the seat
        alone is told; it may submit again; the clock keeps running).
        """
        sess = self.get(match_id)
        with sess.lock:
            ack = self._submit_locked(sess, seat, decision, payload, failure)
        self._after_change(sess)
        return ack

    def _submit_locked(self, sess: MatchSession, seat: str, decision: int, payload: Any,
                       failure: dict[str, str] | None) -> dict[str, Any]:
        ref = sess.ref
        key = canonical_json([payload, failure])
        base = {"match": sess.id, "seat": seat, "decision": decision}
        if decision <= ref.n or (sess.ended and decision == ref.n + 1):
            old = self._stored_order(sess.id, decision, seat)
            if old is not None and old == key:
                return {**base, "accepted": True, "duplicate": True, "resolved": decision <= ref.n, "errors": []}
            if sess.ended:
                raise ApiError(409, NotAwaitedCode.MATCH_ENDED, f"match {sess.id} has ended")
            # one seat, one decision (issue 23 item 6): a tab that is behind never gives orders
            # for a point it did not show
            raise ApiError(409, "wrong_decision", f"this turn was already played: decision point {decision} is "
                                                  f"closed; the open one is {ref.n + 1}", already_played=True,
                           open_decision=ref.n + 1)
        if seat in sess.bots:
            raise ApiError(409, "seat_played_by_bot", f"seat {seat} is played by the built-in bot "
                                                      f"{sess.agents[seat].removeprefix('builtin:')} (the game "
                                                      "master handed it over); ask the game master for it back")
        if sess.ended:
            raise ApiError(409, NotAwaitedCode.MATCH_ENDED, f"match {sess.id} has ended")
        if decision != ref.n + 1:
            raise ApiError(409, "wrong_decision", f"decision point {decision} is not open; the open one is {ref.n + 1}")
        if seat not in ref.pending():
            raise ApiError(409, NotAwaitedCode.NOT_YOUR_TURN,
                           f"seat {seat} has no orders to give at decision point {decision} "
                           f"(awaited: {', '.join(ref.pending())})")
        st = ref.settled(seat)
        if st is not None:
            if sess.keys.get(seat) == key:
                return {**base, "accepted": True, "duplicate": True, "resolved": False, "errors": st.errors}
            if not (sess.rs.replaces_submissions and st.payload is not None):
                raise ApiError(409, NotAwaitedCode.ALREADY_SUBMITTED,
                               f"seat {seat} already gave orders for decision point {decision}")
        if failure is not None:
            try:
                code = FailureCode.parse(failure.get("code"))
            except ValueError as exc:
                raise ApiError(422, "bad_failure", str(exc)) from None
            failure = {"code": code.value, "detail": str(failure.get("detail", ""))[:500]}
        counted = ref.ruleset.refusal_limit(ref.state, seat) is not None
        now = self.now()
        elapsed = sess.elapsed(seat, now)
        tk = self._settle(sess, seat, key, now, elapsed, payload, failure)
        if tk.receipt == Receipt.TOO_LATE:
            raise ApiError(409, Receipt.TOO_LATE, f"seat {seat} ran out of time at decision point {decision}; "
                                                  + ("it lost on time" if sess.control.on_expiry == OnExpiry.LOSS
                                                     else "its default orders applied"))
        if tk.receipt == Receipt.REFUSED:
            exc = tk.error
            assert exc is not None
            extra: dict[str, Any] = {"rule_code": exc.code, "part": None if exc.part is None else str(exc.part)}
            if counted:
                extra["counted"] = True
            raise ApiError(422, "invalid_orders", exc.message, **extra)
        resolved = ref.n >= decision
        return {**base, "accepted": True, "duplicate": False, "resolved": resolved,
                **({"replaced": True} if tk.receipt == Receipt.REPLACED else {}), "errors": tk.warnings}

    def _stored_order(self, match_id: str, n: int, seat: str) -> str | None:
        with self.store.read() as s:
            row = s.get(OrderRow, (match_id, n, seat))
        return None if row is None else row.request_key

    def _expire(self, sess: MatchSession, seat: str, now: float) -> None:
        """``seat`` ran out of time: the referee applies its expiry (default orders, or a loss)."""
        ref = sess.ref
        if ref.over or seat not in ref.awaited():
            return
        allowed = ref.deadline(seat) or 0.0
        elapsed = max(allowed + 1e-6, sess.elapsed(seat, now))
        n = ref.n + 1
        cp = ref.checkpoint()
        ref.expire(seat, elapsed)
        st = ref.settled(seat) if ref.n + 1 == n else None
        if st is None:  # the point closed (loss on time): the line holds the seat's part
            line = ref.lines[-1]
            payload, errors = None, line.get("errors", {}).get(seat, [])
            t, expired = line.get("time_s", {}).get(seat, elapsed), True
        else:
            payload, errors, t, expired = None, st.errors, st.time_s, st.expired
        row = {"match_id": sess.id, "n": n, "seat": seat, "payload": canonical_json(payload),
               "errors": canonical_json(errors), "time_used": t,
               "clock_status": ClockStatus.EXPIRED.value if expired else "", "received_at": now,
               "request_key": canonical_json([None, {"code": FailureCode.TIMEOUT}])}
        lost = ref.over
        note = {"n": n, "at": now, "action": "missed_deadline", "seat": seat, "reason": "",
                "detail": canonical_json({"lost": lost})}
        if st is not None:  # the seat's own default orders, for its notice only
            try:
                sess.defaults_played[(n, seat)] = get_game(ref.ruleset.id).order_notation(
                    ref.state, seat, ref.ruleset.orders_json(st.orders))
            except Exception:  # noqa: BLE001 - a notice's detail is never worth a failed expiry
                log.exception("match %s: the default orders of %s could not be written out", sess.id, seat)
        try:
            self._resolve_ready(sess)
        except BaseException:
            ref.rollback(cp)
            raise
        self._commit(sess, cp, now=now, orders=[row], notes=[note])

    def set_name(self, sess: MatchSession, seat: str, name: str) -> dict[str, Any]:
        """Give ``seat`` the display name ``name`` (already checked by
        :func:`~botwars.server.names.clean_name`), once: :class:`ApiError` 409 ``name_set`` when
        the seat already has one (the stored name is unchanged). Stored before it is shown."""
        with sess.lock:
            if seat in sess.names:
                raise ApiError(409, "name_set", f"seat {seat} is already named {sess.names[seat]!r}; a name is "
                                                f"set once")
            with self.store.write() as s:
                row = s.get(SeatRow, (sess.id, seat))
                if row is not None:
                    row.name = name
            sess.names[seat] = name
        self.notify(sess.id)
        return {"match": sess.id, "seat": seat, "name": name}

    def resign(self, match_id: str, seat: str) -> dict[str, Any]:
        """``seat`` resigns: the rule set's ``timeout_outcome`` with reason ``resign`` ends the match
        (recorded as a line of its own). 409 if it has already ended."""
        sess = self.get(match_id)
        with sess.lock:
            if sess.ended:
                raise ApiError(409, NotAwaitedCode.MATCH_ENDED, f"match {sess.id} has ended")
            cp = sess.ref.checkpoint()
            sess.ref.resign(seat)
            self._commit(sess, cp, now=self.now())
        self._after_change(sess)
        assert sess.outcome is not None
        return {"match": sess.id, "seat": seat, "outcome": sess.outcome.to_json()}

    # ---- clocks and bots ----------------------------------------------------------------------
    def tick(self) -> None:
        """Apply every deadline that has passed (default orders, or loss on time). In
        background mode a heavy match's expiries are applied in the heavy-match thread
        (:meth:`_heavy_work`), so the clock never waits for a heavy point to resolve."""
        now = self.now()
        for sess in list(self.sessions.values()):
            nd = sess.next_deadline
            if nd is None or nd > now:
                continue
            if not self._heavy_work(sess, ("tick", sess.id), self._tick_one, sess, now):
                self._tick_one(sess, now)

    def _tick_one(self, sess: MatchSession, now: float) -> None:
        """Apply ``sess``'s deadlines that passed by ``now``."""
        changed = False
        with sess.lock:
            for seat in sess.awaited():
                dl = sess.deadline(seat)
                if dl is not None and now > dl and not sess.ended and sess.paused_at is None:
                    self._expire(sess, seat, now)
                    changed = True
        if changed:
            self._after_change(sess)
        else:
            self._update_deadline(sess)

    def _heavy_work(self, sess: MatchSession, key: Any, fn: Callable[..., None], *args: Any) -> bool:
        """Background mode, heavy ``sess`` (its points are resolved in the rules pool): run
        ``fn(*args)`` in the heavy-match thread instead of the calling (clock or bot) thread,
        in order, at most one at a time per ``key`` (``None``: no such limit). Returns ``False``
        (the caller does it itself) otherwise."""
        ex = self._heavy_ex
        if ex is None or not sess.heavy:
            return False
        if key is not None:
            with self._lock:
                if key in self._heavy_busy:
                    return True
                self._heavy_busy.add(key)

        def run() -> None:
            try:
                fn(*args)
            except Exception:  # pragma: no cover - keep the thread alive, log the bug
                log.exception("heavy-match thread, %s", key)
            finally:
                with self._lock:
                    self._heavy_busy.discard(key)
        try:
            ex.submit(run)
        except RuntimeError:  # stopping
            with self._lock:
                self._heavy_busy.discard(key)
        return True

    def _update_deadline(self, sess: MatchSession) -> None:
        if sess.paused_at is not None:  # paused by the game master: no deadline passes
            sess.next_deadline = None
            return
        dls = [d for d in (sess.deadline(s) for s in sess.awaited()) if d is not None]
        sess.next_deadline = min(dls) if dls else None

    def _after_change(self, sess: MatchSession) -> None:
        self._update_deadline(sess)
        self.notify(sess.id)
        if sess.bots and any(s in sess.bots for s in sess.awaited()):
            if self.background:
                self._bot_queue.put(sess.id)
            else:
                self._play_bots(sess)

    def _play_bots(self, sess: MatchSession) -> None:
        """Let built-in bots give their orders until no bot is awaited. With a running
        ``bot_pool`` (background mode), hand each awaited bot's decision to the pool instead and
        return at once; :meth:`_bot_loop` applies the answers. A bot's refused orders get
        its default orders, except where the rules count refusals (it is asked again)."""
        from botwars.agents.base import AgentFailure
        pool = self.bot_pool
        if pool is not None and pool.running and self.background:
            with sess.lock:
                self._adopt(sess)  # a heavy match's bots get views built in its worker
                n = sess.n
                for seat in [s for s in sess.awaited() if s in sess.bots]:
                    if pool.busy((sess.id, seat)):
                        continue
                    ex = sess.exempt()
                    limit = ex if ex is not None else (sess.control.deadline(sess.bank_left[seat])
                                                       if sess.clock_enabled else None)
                    if limit is not None:  # what is left of it: the decision point opened earlier
                        limit = max(0.0, limit - (self.now() - sess.opened_at))
                    pool.submit((sess.id, seat), sess.bots[seat], self._seat_view(sess, seat), limit,
                                lambda res, mid=sess.id, seat=seat: self._bot_queue.put((mid, seat, n, res)))
            return
        while True:
            with sess.lock:
                ref = sess.ref
                todo = [s for s in ref.awaited() if s in sess.bots]
                if not todo:
                    break
                seat = todo[0]
                view = ref.view(seat)
                limit = ref.deadline(seat)
                t0 = time.perf_counter()
                payload, failure = None, None
                try:
                    payload = sess.bots[seat].act(view, limit)
                except AgentFailure as exc:
                    failure = {"code": exc.code, "detail": exc.detail}
                spent = time.perf_counter() - t0
                self._save_memory(sess, seat, ref.n + 1, pickle.dumps(sess.bots[seat], protocol=pickle.HIGHEST_PROTOCOL))
                self._apply_bot(sess, seat, payload, failure, spent)
            self._update_deadline(sess)
            self.notify(sess.id)

    def _apply_bot(self, sess: MatchSession, seat: str, payload: Any, failure: dict[str, str] | None,
                   spent: float) -> None:
        """Hand a built-in bot's answer (or failure) to the referee (under ``sess.lock``). Its
        refused orders get its default orders with the refusal recorded, except where the rules
        count refusals: then it stays awaited and is asked again (submarine S-7.10)."""
        ref = sess.ref
        now = self.now()
        if failure is not None:
            try:
                failure = {"code": FailureCode.parse(failure.get("code")).value,
                           "detail": str(failure.get("detail", ""))[:500]}
            except ValueError:
                failure = {"code": FailureCode.CRASH.value, "detail": str(failure.get("detail", ""))[:500]}
        tk = self._settle(sess, seat, canonical_json([payload, failure]), now, spent, payload, failure)
        if (tk.receipt == Receipt.REFUSED and not ref.over and seat in ref.awaited()
                and ref.ruleset.refusal_limit(ref.state, seat) is None):
            err = tk.error
            assert err is not None
            self._settle(sess, seat, canonical_json([payload, {"code": err.code}]), now, spent, None,
                         {"code": err.code, "detail": err.message})

    # ---- what a seat may see --------------------------------------------------------------------
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

    @staticmethod
    def _seat_view(sess: MatchSession, seat: str | None) -> Any:
        """The seat's observation with the live clock (:meth:`Referee.view`) for a built-in
        bot; a heavy match's is built in its rules-pool worker and comes packed
        (:class:`~botwars.server.botpool.PackedView`), unpacked only in the bot's worker."""
        ref = sess.ref
        if isinstance(ref.state, rulespool.StateRef):
            from botwars.server.botpool import PackedView
            return PackedView(ref.ruleset.packed_view(ref.state, seat, dict(ref.bank) if ref.clock_enabled else None))
        return ref.view(seat)

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

    def _clock_json(self, sess: MatchSession) -> dict[str, Any]:
        c = sess.control
        now = sess.clock_now(self.now())
        left = {}
        if sess.clock_enabled and not sess.ended:
            for s in sess.awaited():
                d = sess.deadline(s)
                if d is not None:
                    left[s] = round(max(0.0, d - now), 3)
        return {"enabled": sess.clock_enabled, "move_limit_s": c.move_limit_s, "bank_s": c.bank_s,
                "increment_s": c.increment_s,
                "on_expiry": c.on_expiry, "bank_left_s": {s: round(v, 6) for s, v in sess.bank_left.items()},
                "elapsed_s": round(max(0.0, now - sess.opened_at), 3) if not sess.ended else 0.0,
                "time_left_s": left, "paused": sess.paused_at is not None,
                "extended_s": {s: v for s, v in sess.extra.items() if v}}

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
