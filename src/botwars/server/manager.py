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
import queue
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from sqlalchemy import bindparam, select, update

from botwars.engine.errors import BotwarsError, ConfigError, InvalidOrders
from botwars.engine.events import Event, Outcome, filter_events
from botwars.engine.record import FORMAT_VERSION, Record, decision_digest, resimulate
from botwars.engine.ruleset import Ruleset, canonical_json, get_ruleset
from botwars.engine.timecontrol import Clock, TimeControl
from botwars.store import Store
from botwars.store.models import DecisionRow, MatchRow, OrderRow, SeatRow

log = logging.getLogger("botwars.server")

FAILURE_CODES = ("timeout", "crash", "memory", "malformed")

# The hot path's statements, built once (SQLAlchemy Core: a fraction of the ORM's cost per order)
_INSERT_ORDER = OrderRow.__table__.insert()
_INSERT_DECISION = DecisionRow.__table__.insert()
_M = MatchRow.__table__
_UPDATE_MATCH = (_M.update().where(_M.c.id == bindparam("mid"))
                 .values(decisions=bindparam("decisions"), turns=bindparam("turns"), opened_at=bindparam("opened_at"),
                         bank_left=bindparam("bank_left"), status=bindparam("status"), outcome=bindparam("outcome")))
_END_MATCH = _M.update().where(_M.c.id == bindparam("mid")).values(status="ended", outcome=bindparam("outcome"))
_FATAL = ("timeout", "crash", "memory")


class ApiError(Exception):
    """A refused request: HTTP ``status``, a short ``code`` and a ``message`` naming the problem."""

    def __init__(self, status: int, code: str, message: str, **extra: Any):
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra
        super().__init__(message)


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


def agent_seed(rs: Ruleset, seed: int, seat: str) -> int:
    """The seed a remote seat's agent gets: the rule set's :meth:`Ruleset.agent_seed` where it
    overrides it (submarine S-8.1), else a one-way derivation of the match seed. The server
    never hands the match seed itself to a player before the end (in games with hidden
    information it would reveal deals and seeded bots)."""
    if type(rs).agent_seed is not Ruleset.agent_seed:
        return rs.agent_seed(seed, seat)
    return int.from_bytes(hashlib.sha256(f"{seed}:{seat}".encode()).digest()[:4], "big")


@dataclass
class Accepted:
    """An order accepted for the open decision point (or a default applied for a seat).

    ``payload`` is what the seat sent (``None`` when its default orders apply), ``orders`` the
    parsed orders, ``errors`` what the record lists for the seat, ``time_used`` seconds from the
    opening of the decision point, ``clock_status`` ``""``, ``"expired"`` or ``"depleted"``.
    """

    payload: Any
    orders: Any
    errors: list[dict[str, Any]]
    time_used: float
    clock_status: str
    key: str = ""
    rejected: Any = None


@dataclass
class MatchSession:
    """One match in memory. Every field is changed only under ``lock`` and only after the
    change is committed to the store."""

    id: str
    rs: Ruleset
    config: dict[str, Any]
    seed: int
    seats: list[str]
    agents: dict[str, str]
    token_hashes: dict[str, str]
    clock_enabled: bool
    control: TimeControl
    bank_left: dict[str, float]
    created_at: float
    state: Any = None
    n: int = 0
    opened_at: float = 0.0
    accepted: dict[str, Accepted] = field(default_factory=dict)
    outcome: Outcome | None = None
    events: list[list[Event]] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    bots: dict[str, Any] = field(default_factory=dict)
    next_deadline: float | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def ended(self) -> bool:
        return self.outcome is not None

    @property
    def status(self) -> str:
        return "ended" if self.ended else "running"

    def pending(self) -> list[str]:
        """Seats whose orders the open decision point needs (empty once ended)."""
        return [] if self.ended else list(self.rs.pending(self.state))

    def awaited(self) -> list[str]:
        """Pending seats that have not been accepted yet."""
        return [s for s in self.pending() if s not in self.accepted]

    def clock(self) -> Clock:
        return Clock(self.control, dict(self.bank_left))

    def exempt(self) -> float | None:
        """Seconds allowed for the open decision point when it is not charged to the clock
        (:meth:`Ruleset.clock_exempt`, e.g. a setup phase), else ``None``."""
        return None if self.ended or not self.clock_enabled else self.rs.clock_exempt(self.state)

    def deadline(self, seat: str) -> float | None:
        """Server time by which ``seat``'s order must be accepted (``None``: no clock)."""
        if not self.clock_enabled:
            return None
        ex = self.exempt()
        if ex is not None:
            return self.opened_at + ex
        d = self.control.deadline(self.bank_left[seat])
        return None if d is None else self.opened_at + d

    def header(self) -> dict[str, Any]:
        return {"type": "header", "format": FORMAT_VERSION, "ruleset": self.rs.id,
                "rules_version": self.rs.rules_version, "config": self.config,
                "seats": [{"seat": s, "agent": self.agents[s]} for s in self.seats], "seed": self.seed}

    def outcome_line(self) -> dict[str, Any] | None:
        if self.outcome is None:
            return None
        return {"type": "outcome", "turns": self.rs.turn_number(self.state), **self.outcome.to_json()}


class MatchManager:
    """All matches of one server.

    ``now`` is the server clock (epoch seconds; tests inject a fake one). With
    ``background=True`` (the real server) a thread enforces deadlines and writes the heartbeat
    and another plays built-in bots; with ``background=False`` (tests) bots play inline at the
    end of each call and deadlines are enforced only by :meth:`tick`.
    ``notify(match_id)`` is called (outside any lock) after every change of a match.
    ``bot_pool`` (a :class:`~botwars.server.botpool.BotPool`, set before :meth:`start`) plays
    built-in bots in worker processes with a time limit per decision (background mode).
    """

    bot_pool: Any = None

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
                s.execute(update(MatchRow).where(MatchRow.status == "running")
                          .values(opened_at=MatchRow.opened_at + (now - last)))
        self.store.heartbeat(now)
        with self.store.read() as s:
            ids = list(s.scalars(select(MatchRow.id).where(MatchRow.status == "running").order_by(MatchRow.id)))
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
        if self.bot_pool is not None:
            self.bot_pool.stop()

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
                if isinstance(item, str):
                    self._play_bots(self.sessions[item])
                    continue
                mid, seat, n, res = item
                sess = self.sessions[mid]
                try:
                    with sess.lock:
                        if res.agent is not None:
                            sess.bots[seat].bot = res.agent.bot  # its memory after the decision
                        if sess.ended or sess.n != n or seat not in sess.awaited():
                            continue  # the clock expired it meanwhile, or the match ended
                        acc = self._parse_bot(sess, seat, res.payload, res.failure, res.spent)
                        self._accept(sess, seat, acc, self.now())
                finally:
                    self.bot_pool.release((mid, seat))
                self._after_change(sess)
            except Exception:  # pragma: no cover
                log.exception("bot thread, %s", item if isinstance(item, str) else item[:3])

    # ---- creating and finding matches -----------------------------------------------------
    def create(self, game: str, seats: list[str] | None, config: dict[str, Any] | None, seed: int,
               clock: bool = True) -> tuple[MatchSession, dict[str, str]]:
        """Create a match; returns the session and the token of each seat.

        ``seats``: one spec per seat, ``remote`` (a player over the API) or ``builtin:NAME``
        (played by the server); ``None`` = ``remote`` for the rule set's minimum seat count.
        Raises :class:`ApiError` 422 naming the bad game, seat spec, seat count or parameter.
        """
        try:
            rs = get_ruleset(game)
        except BotwarsError as exc:
            raise ApiError(422, "unknown_game", str(exc)) from None
        specs = list(seats) if seats is not None else ["remote"] * rs.min_seats
        if not rs.min_seats <= len(specs) <= rs.max_seats:
            want = str(rs.min_seats) if rs.min_seats == rs.max_seats else f"{rs.min_seats} to {rs.max_seats}"
            raise ApiError(422, "bad_seats", f"{game} needs {want} seats, got {len(specs)}")
        bots = rs.builtin_bots()
        for spec in specs:
            if spec == "remote":
                continue
            if spec.startswith("builtin:") and spec[len("builtin:"):] in bots:
                continue
            raise ApiError(422, "bad_seats", f"seat {spec!r}: use remote or builtin:NAME "
                                             f"(built-in bots of {game}: {', '.join(sorted(bots)) or 'none'})")
        try:
            cfg = rs.validate_config(config or {}, source="config")
            names = rs.seat_names(len(specs))
            state = rs.setup(cfg, names, seed)
        except ConfigError as exc:
            raise ApiError(422, "bad_config", exc.one_line()) from None
        control = rs.time_control(cfg)
        tokens = {s: new_token() for s in names}
        now = self.now()
        sess = MatchSession(id=secrets.token_hex(6), rs=rs, config=cfg, seed=seed, seats=names,
                            agents=dict(zip(names, specs)), token_hashes={s: token_hash(t) for s, t in tokens.items()},
                            clock_enabled=clock and control.move_limit_s is not None, control=control,
                            bank_left={s: float(control.bank_s) for s in names}, created_at=now,
                            state=state, opened_at=now)
        self._make_bots(sess)
        with self.store.write() as s:
            s.add(MatchRow(id=sess.id, ruleset=rs.id, rules_version=rs.rules_version, config=canonical_json(cfg),
                           seed=seed, clock_enabled=sess.clock_enabled, status="running", created_at=now,
                           decisions=0, turns=rs.turn_number(state), opened_at=now,
                           bank_left=canonical_json(sess.bank_left), outcome=None))
            s.flush()
            for i, name in enumerate(names):
                s.add(SeatRow(match_id=sess.id, seat=name, idx=i, agent=specs[i], token_hash=sess.token_hashes[name]))
        if rs.outcome(state) is not None:  # a game over before it starts (degenerate config)
            self._end(sess, rs.outcome(state))
        with self._lock:
            self.sessions[sess.id] = sess
        self._after_change(sess)
        return sess, tokens

    def get(self, match_id: str) -> MatchSession:
        """The session of a match (finished matches are loaded on demand); 404 if unknown."""
        sess = self.sessions.get(match_id)
        if sess is not None:
            return sess
        if not isinstance(match_id, str) or len(match_id) > 32:  # not echoed: it may be a pasted token
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
            by_match.setdefault(sr.match_id, []).append({"seat": sr.seat, "agent": sr.agent})
        return [{"match": r.id, "game": r.ruleset, "status": r.status, "decisions": r.decisions, "turn": r.turns,
                 "created_at": r.created_at, "seats": by_match.get(r.id, []),
                 "outcome": json.loads(r.outcome) if r.outcome else None} for r in rows]

    # ---- loading ----------------------------------------------------------------------------
    def _load(self, match_id: str) -> MatchSession:
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
        rs = get_ruleset(row.ruleset)
        if row.rules_version != rs.rules_version:
            log.warning("match %s was created under %s rules version %s, now %s", match_id, rs.id,
                        row.rules_version, rs.rules_version)
        config = json.loads(row.config)
        seats = [r.seat for r in seat_rows]
        control = rs.time_control(config)
        sess = MatchSession(id=row.id, rs=rs, config=config, seed=row.seed, seats=seats,
                            agents={r.seat: r.agent for r in seat_rows},
                            token_hashes={r.seat: r.token_hash for r in seat_rows},
                            clock_enabled=row.clock_enabled, control=control,
                            bank_left={k: float(v) for k, v in json.loads(row.bank_left).items()},
                            created_at=row.created_at, opened_at=row.opened_at)
        if not row.outcome:
            self._make_bots(sess)
        rec = Record(sess.header(), lines, None, f"match {match_id}", seats)
        state = rs.setup(config, seats, row.seed)
        for step in resimulate(rec):
            want = step.line.get("digest")
            if want is not None and decision_digest(rs, step.after, step.events) != want:
                raise BotwarsError(f"match {match_id} diverges at decision point {step.n} when re-simulated")
            self._replay_bots(sess, step.before, set(rs.pending(step.before)))
            sess.events.append(list(step.events))
            sess.lines.append(step.line)
            state = step.after
        sess.state = state
        sess.n = len(lines)
        if row.outcome:
            sess.outcome = Outcome.from_json(json.loads(row.outcome))
            return sess
        for o in order_rows:
            if o.seat not in seats:
                continue
            payload = json.loads(o.payload)
            errors = json.loads(o.errors)
            if payload is None or any(e.get("code") in _FATAL for e in errors):
                orders = rs.default_orders(state, o.seat)
            else:
                try:
                    orders = rs.parse_orders(state, o.seat, payload)
                except InvalidOrders:
                    orders = rs.default_orders(state, o.seat)
            sess.accepted[o.seat] = Accepted(payload, orders, errors, o.time_used, o.clock_status, o.request_key)
        self._replay_bots(sess, state, set(sess.accepted))
        with sess.lock:
            self._maybe_resolve(sess)
        return sess

    def _make_bots(self, sess: MatchSession) -> None:
        from botwars.agents.base import AgentFailure, CallableAgent
        bots = sess.rs.builtin_bots()
        for seat, spec in sess.agents.items():
            if spec.startswith("builtin:"):
                agent = CallableAgent(bots[spec[len("builtin:"):]](), spec)
                try:
                    agent.start(sess.rs.id, seat, copy.deepcopy(sess.config), sess.rs.agent_seed(sess.seed, seat))
                except AgentFailure as exc:
                    log.warning("match %s: bot %s failed to start: %s", sess.id, spec, exc)
                sess.bots[seat] = agent

    def _replay_bots(self, sess: MatchSession, state: Any, seats: set[str]) -> None:
        """Feed bots the views they already answered so their memory matches (answers discarded)."""
        from botwars.agents.base import AgentFailure
        for seat, agent in sess.bots.items():
            if seat in seats:
                try:
                    agent.act(sess.rs.view(state, seat), None)
                except AgentFailure:
                    pass

    # ---- orders ------------------------------------------------------------------------------
    def submit(self, match_id: str, seat: str, decision: int, payload: Any,
               failure: dict[str, str] | None = None) -> dict[str, Any]:
        """Accept ``seat``'s orders for decision point ``decision``; returns the acknowledgement.

        ``failure`` (``{"code", "detail"}``, code in ``timeout crash memory malformed``) reports
        that the seat's agent failed: its default orders apply and the error is recorded, as in
        a local match. Raises :class:`ApiError`: 409 when the match has ended, the decision
        point is not open, the seat is not awaited or already sent different orders, or its time
        ran out; 422 when the orders are invalid (nothing is stored; the clock keeps running).
        """
        sess = self.get(match_id)
        with sess.lock:
            ack = self._submit_locked(sess, seat, decision, payload, failure)
        self._after_change(sess)
        return ack

    def _submit_locked(self, sess: MatchSession, seat: str, decision: int, payload: Any,
                       failure: dict[str, str] | None) -> dict[str, Any]:
        key = canonical_json([payload, failure])
        base = {"match": sess.id, "seat": seat, "decision": decision}
        if decision <= sess.n or (sess.ended and decision == sess.n + 1):
            old = self._stored_order(sess.id, decision, seat)
            if old is not None and old == key:
                return {**base, "accepted": True, "duplicate": True, "resolved": decision <= sess.n, "errors": []}
            if sess.ended:
                raise ApiError(409, "match_ended", f"match {sess.id} has ended")
            raise ApiError(409, "wrong_decision", f"decision point {decision} is closed; the open one is {sess.n + 1}")
        if sess.ended:
            raise ApiError(409, "match_ended", f"match {sess.id} has ended")
        if decision != sess.n + 1:
            raise ApiError(409, "wrong_decision", f"decision point {decision} is not open; the open one is {sess.n + 1}")
        if seat not in sess.pending():
            raise ApiError(409, "not_your_turn", f"seat {seat} has no orders to give at decision point {decision} "
                                                 f"(awaited: {', '.join(sess.pending())})")
        if seat in sess.accepted:
            if sess.accepted[seat].key == key:
                return {**base, "accepted": True, "duplicate": True, "resolved": False,
                        "errors": sess.accepted[seat].errors}
            raise ApiError(409, "already_submitted", f"seat {seat} already gave orders for decision point {decision}")
        now = self.now()
        used = max(0.0, now - sess.opened_at)
        dl = sess.deadline(seat)
        if dl is not None and now > dl + 1e-9:
            self._expire(sess, seat, now)
            raise ApiError(409, "too_late", f"seat {seat} ran out of time at decision point {decision}; "
                                            + ("it lost on time" if sess.control.on_expiry == "loss"
                                               else "its default orders applied"))
        acc = self._parse(sess, seat, payload, failure, used)
        acc.key = key
        resolved = self._accept(sess, seat, acc, now)
        if acc.rejected is not None:
            exc = acc.rejected
            raise ApiError(422, "invalid_orders", exc.message, rule_code=exc.code,
                           part=None if exc.part is None else str(exc.part), counted=True)
        return {**base, "accepted": True, "duplicate": False, "resolved": resolved, "errors": acc.errors}

    def _parse(self, sess: MatchSession, seat: str, payload: Any, failure: dict[str, str] | None,
               used: float) -> Accepted:
        rs, state = sess.rs, sess.state
        status = ""
        if sess.clock_enabled and sess.exempt() is None:
            status = sess.clock().spend(seat, used)
            status = "" if status == "ok" else status
        if failure is not None:
            err = {"code": failure["code"], "detail": failure.get("detail", "")}
            stored = None
            if failure["code"] == "malformed" and payload is not None:
                try:  # keep a malformed payload in the record only if it really is malformed
                    rs.parse_orders(state, seat, payload)
                except InvalidOrders:
                    stored = payload
                except Exception:
                    stored = None
            return Accepted(stored, rs.default_orders(state, seat), [err], used, status)
        try:
            orders = rs.parse_orders(state, seat, payload)
        except InvalidOrders as exc:
            if type(rs).rejected_orders is not Ruleset.rejected_orders:
                # the rules count a refused submission (submarine S-4.3, S-7.10): it is recorded
                # and resolved like any order, and the seat is told it was refused
                acc = Accepted(payload, rs.rejected_orders(state, seat, exc),
                               [{"code": exc.code, "detail": exc.message}], used, status)
                acc.rejected = exc
                return acc
            raise ApiError(422, "invalid_orders", exc.message, rule_code=exc.code,
                           part=None if exc.part is None else str(exc.part)) from None
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
            raise ApiError(422, "invalid_orders", f"orders could not be read ({type(exc).__name__})",
                           rule_code="malformed") from None
        warn = getattr(orders, "errors", None)
        return Accepted(payload, orders, list(warn) if warn else [], used, status)

    def _stored_order(self, match_id: str, n: int, seat: str) -> str | None:
        with self.store.read() as s:
            row = s.get(OrderRow, (match_id, n, seat))
        return None if row is None else row.request_key

    def _accept(self, sess: MatchSession, seat: str, acc: Accepted, now: float) -> bool:
        """Store an accepted order; resolve if it completes the decision point (one transaction).
        Returns True if the decision point was resolved."""
        n = sess.n + 1
        row = dict(match_id=sess.id, n=n, seat=seat, payload=canonical_json(acc.payload),
                   errors=canonical_json(acc.errors), time_used=acc.time_used, clock_status=acc.clock_status,
                   received_at=now, request_key=acc.key)
        sess.accepted[seat] = acc
        try:
            return self._maybe_resolve(sess, extra=row, now=now)
        except BaseException:
            sess.accepted.pop(seat, None)
            raise

    def _maybe_resolve(self, sess: MatchSession, extra: dict[str, Any] | None = None,
                       now: float | None = None) -> bool:
        """Resolve the open decision point if every pending seat has orders (commit first, then
        update memory). ``extra`` is an order row to commit in the same transaction."""
        rs = sess.rs
        now = self.now() if now is None else now
        pending = sess.pending()
        expired_loss = [s for s in pending if s in sess.accepted and sess.accepted[s].clock_status == "expired"
                        and sess.control.on_expiry == "loss"]
        if not expired_loss and any(s not in sess.accepted for s in pending):
            if extra is not None:
                with self.store.write_core() as c:
                    c.execute(_INSERT_ORDER, extra)
            return False
        n = sess.n + 1
        state = sess.state
        clock = sess.clock()
        charged = sess.clock_enabled and sess.exempt() is None
        payloads: dict[str, Any] = {}
        errors: dict[str, list] = {}
        used: dict[str, float] = {}
        statuses: dict[str, str] = {}
        orders: dict[str, Any] = {}
        for seat in pending:
            acc = sess.accepted.get(seat)
            if acc is None:
                continue
            payloads[seat] = acc.payload
            if acc.errors:
                errors[seat] = acc.errors
            used[seat] = round(acc.time_used, 6)
            orders[seat] = acc.orders
            if charged:
                st = clock.spend(seat, acc.time_used)
                if st != "ok":
                    statuses[seat] = st
        refused = [s for s in pending if s in sess.accepted and sess.accepted[s].rejected is not None]
        carry = False
        if expired_loss:
            outcome = rs.timeout_outcome(state, expired_loss[0], "time")
            new_state, events, dig = state, [], None
        else:
            new_state, events = rs.resolve(state, orders)
            outcome = rs.outcome(new_state)
            for seat, st in statuses.items():
                if st == "depleted" and outcome is None:
                    outcome = rs.timeout_outcome(new_state, seat, "time")
            dig = decision_digest(rs, new_state, events)
            if charged and refused and outcome is None:
                # a refused submission does not stop the seat's clock (as Match): when the same
                # seats are to move again in the same turn, the decision point keeps its start
                # and the refused attempt's time is charged with the next one
                again = rs.pending(new_state)
                if again and all(x in refused for x in again) and rs.turn_number(new_state) == rs.turn_number(state):
                    carry = True
        line = {"type": "decision", "n": n, "turn": rs.turn_number(state), "orders": payloads, "errors": errors,
                "time_s": used, "clock": statuses, "digest": dig}
        bank = dict(clock.bank_left)
        if carry:
            for x in refused:
                bank[x] = sess.bank_left[x]
            now = sess.opened_at
        with self.store.write_core() as c:
            if extra is not None:
                c.execute(_INSERT_ORDER, extra)
            c.execute(_INSERT_DECISION, {"match_id": sess.id, "n": n, "line": canonical_json(line)})
            c.execute(_UPDATE_MATCH, {"mid": sess.id, "decisions": n, "turns": rs.turn_number(new_state),
                                      "opened_at": now, "bank_left": canonical_json(bank),
                                      "status": "ended" if outcome else "running",
                                      "outcome": canonical_json(outcome.to_json()) if outcome else None})
        sess.state = new_state
        sess.n = n
        sess.bank_left = bank
        sess.opened_at = now
        sess.accepted = {}
        sess.events.append(list(events))
        sess.lines.append(line)
        sess.outcome = outcome
        return True

    def _expire(self, sess: MatchSession, seat: str, now: float) -> None:
        """``seat`` ran out of time: its default orders apply (or it loses, per ``on_expiry``)."""
        if seat in sess.accepted or seat not in sess.pending():
            return
        ex = sess.exempt()
        allowed = ex if ex is not None else (sess.control.deadline(sess.bank_left[seat]) or 0.0)
        used = max(allowed + 1e-6, now - sess.opened_at)
        err = {"code": "timeout", "detail": f"no orders in time ({used:.3f} s)"}
        acc = Accepted(None, sess.rs.default_orders(sess.state, seat), [err], used,
                       "" if ex is not None else "expired", canonical_json([None, _failure_of([err])]))
        self._accept(sess, seat, acc, now)

    def resign(self, match_id: str, seat: str) -> dict[str, Any]:
        """``seat`` resigns: the rule set's ``timeout_outcome(..., "resign")`` ends the match.
        409 if it has already ended."""
        sess = self.get(match_id)
        with sess.lock:
            if sess.ended:
                raise ApiError(409, "match_ended", f"match {sess.id} has ended")
            self._end(sess, sess.rs.timeout_outcome(sess.state, seat, "resign"))
        self._after_change(sess)
        return {"match": sess.id, "seat": seat, "outcome": sess.outcome.to_json()}

    def _end(self, sess: MatchSession, outcome: Outcome) -> None:
        with self.store.write_core() as c:
            c.execute(_END_MATCH, {"mid": sess.id, "outcome": canonical_json(outcome.to_json())})
        sess.outcome = outcome

    # ---- clocks and bots ----------------------------------------------------------------------
    def tick(self) -> None:
        """Apply every deadline that has passed (default orders, or loss on time)."""
        now = self.now()
        for sess in list(self.sessions.values()):
            nd = sess.next_deadline
            if nd is None or nd > now:
                continue
            changed = False
            with sess.lock:
                for seat in sess.awaited():
                    dl = sess.deadline(seat)
                    if dl is not None and now > dl and not sess.ended:
                        self._expire(sess, seat, now)
                        changed = True
            if changed:
                self._after_change(sess)
            else:
                self._update_deadline(sess)

    def _update_deadline(self, sess: MatchSession) -> None:
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
        return at once; :meth:`_bot_loop` applies the answers."""
        from botwars.agents.base import AgentFailure
        pool = self.bot_pool
        if pool is not None and pool.running and self.background:
            with sess.lock:
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
                todo = [s for s in sess.awaited() if s in sess.bots]
                if not todo:
                    break
                seat = todo[0]
                state = sess.state
                view = self._seat_view(sess, seat)
                bank = sess.bank_left[seat]
                ex = sess.exempt()
                limit = ex if ex is not None else (sess.control.deadline(bank) if sess.clock_enabled else None)
                t0 = time.perf_counter()
                payload, failure = None, None
                try:
                    payload = sess.bots[seat].act(view, limit)
                except AgentFailure as exc:
                    failure = {"code": exc.code, "detail": exc.detail}
                spent = time.perf_counter() - t0
                acc = self._parse_bot(sess, seat, payload, failure, spent)
                self._accept(sess, seat, acc, self.now())
            self._update_deadline(sess)
            self.notify(sess.id)

    def _parse_bot(self, sess, seat, payload, failure, spent) -> Accepted:
        try:
            acc = self._parse(sess, seat, payload, failure, spent)
        except ApiError as exc:  # malformed bot output: P10-style default orders, recorded
            acc = self._parse(sess, seat, payload, {"code": "malformed", "detail": exc.message}, spent)
        acc.key = canonical_json([acc.payload, failure])
        return acc

    # ---- what a seat may see --------------------------------------------------------------------
    def snapshot(self, sess: MatchSession, seat: str | None, since: int | None = None) -> dict[str, Any]:
        """The state of the match as ``seat`` (``None`` = spectator) may see it.

        ``events`` are the events of decision points ``since + 1 .. n`` visible to the seat
        (default: the last one), each with its ``decision`` number.
        """
        with sess.lock:
            rs = sess.rs
            n = sess.n
            start = max(0, n - 1 if since is None else min(max(since, 0), n))
            events = [{"decision": k + 1, **e.to_json()} for k in range(start, n)
                      for e in filter_events(sess.events[k], seat)]
            pending = sess.pending()
            return {
                "match": sess.id, "game": rs.id, "status": sess.status, "seat": seat,
                "decision": n if sess.ended else n + 1, "turn": rs.turn_number(sess.state),
                "pending": pending, "submitted": [s for s in pending if s in sess.accepted],
                "your_turn": seat is not None and seat in pending and seat not in sess.accepted,
                "view": self._seat_view(sess, seat), "events": events, "clock": self._clock_json(sess),
                "outcome": sess.outcome.to_json() if sess.outcome else None,
            }

    @staticmethod
    def _seat_view(sess: MatchSession, seat: str | None) -> dict[str, Any]:
        """``Ruleset.view`` plus the live clock where the rule set shows it (``clock_view``)."""
        view = sess.rs.view(sess.state, seat)
        if sess.clock_enabled:
            view = sess.rs.clock_view(view, dict(sess.bank_left))
        return view

    def summary(self, sess: MatchSession) -> dict[str, Any]:
        """Public facts about a match (no view)."""
        with sess.lock:
            return {"match": sess.id, "game": sess.rs.id, "status": sess.status, "config": sess.config,
                    "seats": [{"seat": s, "agent": sess.agents[s]} for s in sess.seats],
                    "decision": sess.n if sess.ended else sess.n + 1, "turn": sess.rs.turn_number(sess.state),
                    "pending": sess.pending(), "submitted": [s for s in sess.pending() if s in sess.accepted],
                    "clock": self._clock_json(sess), "created_at": sess.created_at,
                    "outcome": sess.outcome.to_json() if sess.outcome else None}

    def _clock_json(self, sess: MatchSession) -> dict[str, Any]:
        c = sess.control
        now = self.now()
        left = {}
        if sess.clock_enabled and not sess.ended:
            for s in sess.awaited():
                d = sess.deadline(s)
                if d is not None:
                    left[s] = round(max(0.0, d - now), 3)
        return {"enabled": sess.clock_enabled, "move_limit_s": c.move_limit_s, "increment_s": c.increment_s,
                "on_expiry": c.on_expiry, "bank_left_s": {s: round(v, 6) for s, v in sess.bank_left.items()},
                "elapsed_s": round(max(0.0, now - sess.opened_at), 3) if not sess.ended else 0.0,
                "time_left_s": left}

    def record(self, sess: MatchSession, seat: str | None) -> list[dict[str, Any]]:
        """Record lines: the full record (``seat=None``; only once the match has ended: 403
        before) or ``seat``'s own record (its orders, errors, time and the events it may see,
        no seed and no digests, which could reveal hidden information)."""
        with sess.lock:
            if seat is None:
                if not sess.ended:
                    raise ApiError(403, "match_running", "the full record is public once the match has ended; "
                                                         "a seat token gives that seat's own record")
                return [sess.header(), *sess.lines, sess.outcome_line()]
            head = {k: v for k, v in sess.header().items() if k != "seed"}
            out = [{**head, "seat": seat}]
            for line, events in zip(sess.lines, sess.events):
                out.append({"type": "decision", "n": line["n"], "turn": line["turn"],
                            "orders": {k: v for k, v in line["orders"].items() if k == seat},
                            "errors": {k: v for k, v in line["errors"].items() if k == seat},
                            "time_s": {k: v for k, v in line["time_s"].items() if k == seat},
                            "clock": {k: v for k, v in line["clock"].items() if k == seat},
                            "events": [e.to_json() for e in filter_events(events, seat)]})
            if sess.ended:
                out.append(sess.outcome_line())
            return out


def _failure_of(errors: list[dict[str, Any]]) -> dict[str, str] | None:
    for e in errors:
        if e.get("code") in FAILURE_CODES:
            return {"code": e["code"], "detail": e.get("detail", "")}
    return None
