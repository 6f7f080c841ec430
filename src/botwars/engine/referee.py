"""The referee: the one implementation of a decision point.

A match is a sequence of decision points. At each, the rule set names the seats whose orders
are awaited (:meth:`Ruleset.pending`); every one of them ends with exactly one of

- **accepted** orders (:meth:`Referee.submit`), which a later valid submission may replace
  where the rules allow it (``Ruleset.replaces_submissions``: factory F-5.5, geeko G-16.1);
- **default** orders (:meth:`Referee.default`): the agent failed (timeout, crash, memory,
  malformed reply) or gave up after a refusal;
- **expiry** (:meth:`Referee.expire`): the seat's time ran out; its default orders apply, or it
  loses at once when the time control says ``on_expiry="loss"`` (DADOED D-8.3, submarine S-7.8).

A refused submission (:class:`InvalidOrders` from :meth:`Ruleset.parse_orders`) changes nothing
that any other seat can see: the decision point stays open, its number does not move, and the
refusal is told to the refused seat only (submarine S-8.6). Where the rules count refusals
(:meth:`Ruleset.refusal_limit`, submarine S-7.10) the seat's orders become
:meth:`Ruleset.rejected_orders` once it reaches the limit.

When every pending seat is settled, :meth:`Referee.resolve_point` calls :meth:`Ruleset.resolve` (the
only caller in botwars), charges the clocks, and writes one record line. A record re-simulates
through :meth:`Referee.replay`, the same code that played it, so a record that was played always
verifies.

Times are seconds since the decision point opened, rounded to the microsecond before any use
(the record keeps them to that precision, so a replay charges clocks exactly as the live match).
The referee never reads a clock itself: its drivers (:class:`~botwars.engine.Match`, the server,
replay) measure time and pass it in.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, overload

from botwars.engine.codes import (NO_FAILURE_STATED, ClockStatus, FailureCode, KernelReason, NotAwaitedCode,
                                  OnExpiry, Receipt)
from botwars.engine.errors import BotwarsError, InvalidOrders, RecordError
from botwars.engine.events import Event, Outcome, filter_events
from botwars.engine.ruleset import Ruleset, canonical_json, digest
from botwars.engine.rulesport import RulesPort
from botwars.engine.timecontrol import Clock, TimeControl

RECORD_FORMAT = 2
"""Version of the record format written by :meth:`Referee.header` (see docs/kernel.md)."""


class NotAwaited(BotwarsError):
    """A submission for a seat that has nothing to give now (the match is over, it is not that
    seat's turn, or its orders are already settled and the rules do not allow replacing them).
    ``code`` is a :class:`~botwars.engine.codes.NotAwaitedCode`."""

    def __init__(self, message: str, code: NotAwaitedCode):
        self.code = code
        super().__init__(message)


def decision_digest(ruleset: Ruleset, state: Any, events: list[Event]) -> str:
    """Digest (16 hex digits) of the state after a decision point and of its events."""
    return digest({"state": ruleset.state_json(state), "events": [e.to_json() for e in events]})


def seat_view(rules: RulesPort, state: Any, seat: str | None, bank: dict[str, float] | None = None
              ) -> dict[str, Any]:
    """The observation of ``seat`` (``None``: a spectator) in ``state``: :meth:`Ruleset.view`,
    with the clocks (``bank``: seconds left per seat) put in by :meth:`Ruleset.clock_view` when
    given. The one way a view is built: :meth:`Referee.view` is this with the live clock; a
    rules-pool worker builds a heavy match's views with it, and pages that show a past position
    of a replay (no clock then) call it with ``bank=None``."""
    v = rules.view(state, seat)
    return v if bank is None else rules.clock_view(v, bank)


def resolve_local(ruleset: Ruleset, state: Any, orders: dict[str, Any], history: bool
                  ) -> tuple[Any, Sequence[Event], str | None]:
    """What :meth:`Referee.resolve_point` computes from the rules: :meth:`Ruleset.resolve` of
    ``state`` with the parsed ``orders`` (seat -> orders), and the point's
    :func:`decision_digest` when ``history`` (else ``None``). Returns ``(new state, events,
    digest)``. A pure function of its arguments: a :attr:`Referee.resolver` may run it in
    another process (the server does for heavy matches, issue 12) and get the same result."""
    new_state, events = ruleset.resolve(state, orders)
    return new_state, events, decision_digest(ruleset, new_state, events) if history else None


Resolver = Callable[[Any, Any, dict[str, Any], bool], tuple[Any, Sequence[Event], str | None]]
"""Signature of :attr:`Referee.resolver`: ``(rules, state, orders, history) -> (new state,
events, digest or None)``, as :func:`resolve_local` (whose ``rules`` is the
:class:`Ruleset`; a driver's resolver gets whatever :class:`RulesPort` the referee holds)."""


class PackedEvents(Sequence[Event]):
    """A decision point's events kept as bytes until someone reads them (a sequence of
    :class:`Event`). Built by :meth:`pack` where the events were made (e.g. a worker process);
    unpacking 16,000 events costs far more than resolving them in the first place, so a server
    unpacks only when a record or a view asks."""

    __slots__ = ("_blob", "_items")

    def __init__(self, blob: bytes):
        self._blob = blob
        self._items: list[Event] | None = None

    @staticmethod
    def pack(events: Sequence[Event]) -> bytes:
        """``events`` as bytes (plain tuples and dicts: quick to pickle and unpickle)."""
        return pickle.dumps([(e.kind, e.data, e.visible_to) for e in events], protocol=pickle.HIGHEST_PROTOCOL)

    def _all(self) -> list[Event]:
        if self._items is None:
            self._items = [Event(k, d, v) for k, d, v in pickle.loads(self._blob)]
            self._blob = b""
        return self._items

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, i: int) -> Event: ...

    @overload
    def __getitem__(self, i: slice) -> list[Event]: ...

    def __getitem__(self, i: int | slice) -> Event | list[Event]:
        return self._all()[i]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())


@dataclass(slots=True)
class Settled:
    """How one seat's part of the open decision point ended.

    ``payload``: the accepted orders payload (``None`` when default orders apply); ``orders``:
    the parsed orders handed to :meth:`Ruleset.resolve`; ``errors``: what the record lists for
    the seat (refusals, failures, warnings: ``{"code", "detail"}``); ``time_s``: seconds from
    the opening of the point; ``expired``: the seat's time ran out.
    """

    payload: Any
    orders: Any
    errors: list[dict[str, Any]]
    time_s: float
    expired: bool = False


@dataclass(slots=True)
class Ticket:
    """The answer to one submission: the :class:`Receipt`, the refusal (an
    :class:`InvalidOrders`, only for ``refused``), and whether the seat is still awaited."""

    receipt: Receipt
    error: InvalidOrders | None = None
    awaited: bool = False
    warnings: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Checkpoint:
    state: Any
    n: int
    forced: Outcome | None
    bank: dict[str, float]
    settled: dict[str, Settled]
    refused: dict[str, list[Any]]
    refusal_errors: dict[str, list[dict[str, Any]]]
    lines: int
    events: int
    gm: dict[str, str] = field(default_factory=dict)


def _seconds(t: float) -> float:
    """``t`` seconds (negative: 0) rounded to the microsecond: the double nearest a whole
    number of microseconds, so that rounding it again gives it back (a replay charges clocks
    exactly as the live match did). Below 10^6 s the product with 10^6 is rounded to an integer
    and divided back (a tenth of :func:`round` with digits); that differs from ``round(t, 6)``
    only where ``t`` lies within 10^-10 s of a half microsecond, a time no clock measures."""
    if t.__class__ is float and 0.0 < t < 1e6:
        return round(t * 1e6) / 1e6
    return round(max(0.0, float(t)), 6)


_INF = math.inf
_copysign = math.copysign
_ACCEPTED, _REPLACED = Receipt.ACCEPTED, Receipt.REPLACED


class Referee:
    """One match's decision points, from set-up (or a given position) to the outcome.

    ``seats``: seat names in the rule set's order; ``clock``: whether the rule set's time
    control applies (``False`` for tests, replays of unclocked matches, analysis);
    ``state``: start from this position instead of :meth:`Ruleset.setup` (scenarios);
    ``history``: keep every record line and every decision point's events (needed for records,
    per-seat event feeds and digests; a benchmark loop may turn it off).
    ``keep_free_refusals``: record refused payloads even where the rules do not count refusals
    (local matches: the record shows what a bot sent); the server turns it off, so that only
    refusals that matter for the outcome (submarine S-7.10) are kept and published.

    Raises :class:`~botwars.engine.ConfigError` from :meth:`Ruleset.setup`.
    """

    def __init__(self, ruleset: Ruleset, config: dict[str, Any], seats: list[str], seed: int, *,
                 clock: bool = True, state: Any = None, history: bool = True,
                 agents: dict[str, str] | None = None, keep_free_refusals: bool = True):
        self.ruleset: RulesPort = ruleset
        """The rules as the referee calls them during the match (:class:`RulesPort`): the rule
        set itself, or a port that answers for it elsewhere (the server's rules pool)."""
        self.config = config
        self.seats = list(seats)
        self.seed = seed
        self.agents = dict(agents or {s: "" for s in self.seats})
        self.state = ruleset.setup(config, self.seats, seed) if state is None else state
        control = ruleset.time_control(config) if clock else TimeControl()
        self.clock_enabled = bool(clock) and control.move_limit_s is not None
        self.control = control
        self.bank: dict[str, float] = {s: float(control.bank_s) for s in self.seats}
        self.n = 0
        self.history = history
        self.keep_free_refusals = keep_free_refusals
        self.lines: list[dict[str, Any]] = []
        self.events: list[Sequence[Event]] = []
        self._forced: Outcome | None = None
        self._settled: dict[str, Settled] = {}
        self._refused: dict[str, list[Any]] = {}
        self._refusal_errors: dict[str, list[dict[str, Any]]] = {}
        self._gm: dict[str, str] = {}
        """Seats of the open point whose orders the game master set, with the reason given."""
        self.last_line: dict[str, Any] = {}
        # what the rules say of the current state, computed once per state (states are
        # immutable; a driver may swap in an equal one, see _refresh)
        self._facts_of: Any = object()
        self._outcome: Outcome | None = None
        self._pending: list[str] = []
        self._exempt: float | None = None
        self._free = -1.0
        self.resolver: Resolver = resolve_local
        """How :meth:`resolve_point` gets the rules' result: :func:`resolve_local` (in this
        process), or a driver's function with the same result computed elsewhere (the server's
        rules pool for heavy matches, issue 12)."""

    # ---- what the decision point is -----------------------------------------------------------
    def _refresh(self) -> None:
        """Ask the rules about the current state once: its outcome (:meth:`Ruleset.outcome`),
        its pending seats, its clock exemption and the free time (:meth:`_free_s`)."""
        state = self.state
        rs = self.ruleset
        out = self._outcome = rs.outcome(state)
        self._pending = [] if out is not None else list(rs.pending(state))
        ex = self._exempt = None if not self.clock_enabled or out is not None or self._forced is not None \
            else rs.clock_exempt(state)
        c = self.control
        self._free = _INF if not self.clock_enabled else ex if ex is not None else (
            c.move_limit_s if c.increment_s is None and c.move_limit_s is not None else -1.0)
        self._facts_of = state

    @property
    def outcome(self) -> Outcome | None:
        """The result once the match is over (forced by time, refusals or resignation, or the
        rule set's :meth:`Ruleset.outcome`), else ``None``."""
        if self._forced is not None:
            return self._forced
        if self._facts_of is not self.state:
            self._refresh()
        return self._outcome

    @property
    def over(self) -> bool:
        """True once the match has an outcome."""
        if self._forced is not None:
            return True
        if self._facts_of is not self.state:
            self._refresh()
        return self._outcome is not None

    @property
    def decision(self) -> int:
        """The number of the open decision point (1-based); once over, of the last one."""
        return self.n if self.over else self.n + 1

    def turn(self) -> int:
        """The game's own turn counter now (:meth:`Ruleset.turn_number`)."""
        return self.ruleset.turn_number(self.state)

    def pending(self) -> list[str]:
        """Seats whose orders the open decision point needs, in seat order (empty once over)."""
        if self._facts_of is not self.state:
            self._refresh()
        return self._pending if self._forced is None else []

    def awaited(self) -> list[str]:
        """Pending seats whose part is not settled yet."""
        return [s for s in self.pending() if s not in self._settled]

    def settled(self, seat: str) -> Settled | None:
        """``seat``'s settled part of the open decision point, if any."""
        return self._settled.get(seat)

    def refusals(self, seat: str) -> int:
        """Refused submissions of ``seat`` at the open decision point."""
        return len(self._refused.get(seat, ()))

    def ready(self) -> bool:
        """True when every pending seat is settled (the point can be resolved)."""
        return not self.over and all(s in self._settled for s in self.pending())

    def exempt(self) -> float | None:
        """Seconds allowed for the open point when it is not charged to the clock
        (:meth:`Ruleset.clock_exempt`, e.g. the DADOED set-up, D-3.5), else ``None``."""
        if self._facts_of is not self.state:
            self._refresh()
        return self._exempt

    def _free_s(self) -> float:
        """Seconds after the opening of the point within which a seat is never late and is
        charged nothing (no clock: infinite; an exempt point: its allowance; a plain clock: the
        move limit; an increment clock: none, -1). A shortcut only: :meth:`_late` and
        :meth:`Clock.spend` give the same answers for such times."""
        if self._facts_of is not self.state:
            self._refresh()
        return self._free

    @property
    def charged(self) -> bool:
        """True when the open point's time is charged to the seats' clocks."""
        return self.clock_enabled and self.exempt() is None

    def deadline(self, seat: str) -> float | None:
        """Seconds after the opening of the point by which ``seat`` must be settled (``None``:
        no limit): the exempt allowance, or move limit + bank left (S-7.8, P10, D-8.3)."""
        if not self.clock_enabled:
            return None
        if self._facts_of is not self.state:
            self._refresh()
        ex = self._exempt
        if ex is not None:
            return ex
        return self.control.deadline(self.bank[seat])

    # ---- per-seat projection ---------------------------------------------------------------------
    def view(self, seat: str | None) -> dict[str, Any]:
        """The observation of ``seat`` (``None`` = spectator): :meth:`Ruleset.view`, with the live
        clock where the rule set shows it (:meth:`Ruleset.clock_view`)."""
        return seat_view(self.ruleset, self.state, seat, dict(self.bank) if self.clock_enabled else None)

    def seat_events(self, seat: str | None, since: int = 0) -> list[dict[str, Any]]:
        """Events of decision points ``since + 1 .. n`` that ``seat`` may see, each as JSON with
        its ``decision`` number (requires ``history``)."""
        out: list[dict[str, Any]] = []
        for k in range(max(0, since), len(self.events)):
            out += [{"decision": k + 1, **e.to_json()} for e in filter_events(self.events[k], seat)]
        return out

    def header(self) -> dict[str, Any]:
        """The record's first line (format :data:`RECORD_FORMAT`)."""
        return {"type": "header", "format": RECORD_FORMAT, "ruleset": self.ruleset.id,
                "rules_version": self.ruleset.rules_version, "config": self.config,
                "seats": [{"seat": s, "agent": self.agents.get(s, "")} for s in self.seats],
                "seed": self.seed, "clock": self.clock_enabled}

    def outcome_line(self) -> dict[str, Any] | None:
        """The record's last line, once the match is over."""
        out = self.outcome
        if out is None:
            return None
        return {"type": "outcome", "turns": self.turn(), **out.to_json()}

    def record(self, seat: str | None = None) -> list[dict[str, Any]]:
        """Record lines. ``seat=None``: the full record (header, decision lines, outcome line when
        over). A seat: that seat's own record — its orders, refusals, errors, time and the events
        it may see; no seed, no digests, nothing of another seat's submissions (S-8.6)."""
        last = self.outcome_line()
        if seat is None:
            out = [self.header(), *self.lines]
            if last is not None:
                out.append(last)
            return out
        head = {k: v for k, v in self.header().items() if k != "seed"}
        out = [{**head, "seat": seat}]
        for line, events in zip(self.lines, self.events):
            own: dict[str, Any] = {"type": "decision", "n": line["n"], "turn": line["turn"]}
            for key in ("orders", "errors", "time_s", "clock", "refused"):
                own[key] = {k: v for k, v in line.get(key, {}).items() if k == seat}
            if "resign" in line:
                own["resign"] = line["resign"]
            own["events"] = [e.to_json() for e in filter_events(events, seat)]
            out.append(own)
        if last is not None:
            out.append(last)
        return out

    # ---- settling seats ------------------------------------------------------------------------
    def _check_awaited(self, seat: str) -> None:
        if seat in self.pending() and seat not in self._settled:
            return  # the common case
        if self.over:
            raise NotAwaited("the match has ended", NotAwaitedCode.MATCH_ENDED)
        if seat not in self.pending():
            raise NotAwaited(f"seat {seat} has no orders to give at decision point {self.n + 1} "
                             f"(awaited: {', '.join(self.pending()) or 'nobody'})", NotAwaitedCode.NOT_YOUR_TURN)
        if seat in self._settled and not (self.ruleset.replaces_submissions
                                          and self._settled[seat].payload is not None):
            raise NotAwaited(f"seat {seat} already gave orders for decision point {self.n + 1}",
                             NotAwaitedCode.ALREADY_SUBMITTED)

    def _late(self, seat: str, t: float) -> bool:
        """True when ``t`` seconds is past ``seat``'s time for the open point."""
        if t <= self._free_s():  # no clock, within an exempt allowance or a plain clock's move limit
            return False
        ex = self.exempt()
        if ex is not None:
            return True  # past the exempt allowance (the free time above)
        probe = Clock(self.control, {seat: self.bank[seat]})
        return probe.spend(seat, t) == ClockStatus.EXPIRED

    def submit(self, seat: str, payload: Any, elapsed_s: float) -> Ticket:
        """``seat`` submits ``payload`` (JSON value or the game's text notation) ``elapsed_s``
        seconds after the point opened.

        Returns a :class:`Ticket`: ``accepted`` or ``replaced``; ``refused`` with the
        :class:`InvalidOrders` (nothing another seat can see changes; where the rules count
        refusals, reaching the limit settles the seat with :meth:`Ruleset.rejected_orders`);
        ``too_late`` when the seat's time had run out (its expiry applied instead).
        Orders the seat gives itself replace any the game master set (:meth:`adjudicate`):
        the point's record line no longer marks them ``adjudicated``.
        Raises :class:`NotAwaited` when the seat has nothing to give now.
        """
        self._check_awaited(seat)
        t = _seconds(elapsed_s)
        if self._late(seat, t):
            self.expire(seat, t)
            return Ticket(Receipt.TOO_LATE, awaited=False)
        rs = self.ruleset
        try:
            orders = rs.parse_orders(self.state, seat, payload)
        except InvalidOrders as exc:
            return self._refuse(seat, payload, exc, t)
        self._gm.pop(seat, None)  # the seat's own orders replace any the game master set
        return self._accept(seat, payload, orders, t)

    def _accept(self, seat: str, payload: Any, orders: Any, t: float) -> Ticket:
        """Settle ``seat`` with accepted ``orders`` (recorded as ``payload``) at ``t`` seconds,
        their ignored parts (:meth:`Ruleset.order_warnings`) kept with its errors."""
        warn = self.ruleset.order_warnings(orders)
        replaced = seat in self._settled
        prior = self._refusal_errors.get(seat)
        self._settled[seat] = Settled(payload, orders, prior + warn if prior else list(warn), t)
        return Ticket(_REPLACED if replaced else _ACCEPTED, None, False, warn)

    def _refuse(self, seat: str, payload: Any, exc: InvalidOrders, t: float) -> Ticket:
        limit = self.ruleset.refusal_limit(self.state, seat)
        if limit is None and not self.keep_free_refusals:
            # refusals that count for nothing (F-5.5: "changes nothing") are only answered
            return Ticket(Receipt.REFUSED, exc, awaited=seat not in self._settled or self.ruleset.replaces_submissions)
        self._refused.setdefault(seat, []).append(payload)
        errs = self._refusal_errors.setdefault(seat, [])
        errs.append({"code": exc.code, "detail": exc.message})
        if limit is not None and len(self._refused[seat]) >= limit:
            # S-7.10: out of refusals; the rule set says what that means (submarine: the seat
            # loses, or forfeits its set-up)
            self._settled[seat] = Settled(None, self.ruleset.rejected_orders(self.state, seat, exc), list(errs), t)
            return Ticket(Receipt.REFUSED, exc, awaited=False)
        return Ticket(Receipt.REFUSED, exc, awaited=seat not in self._settled or self.ruleset.replaces_submissions)

    def default(self, seat: str, error: dict[str, Any], elapsed_s: float) -> Ticket:
        """``seat`` settles with its default orders (:meth:`Ruleset.default_orders`) because of
        ``error`` (``{"code", "detail"}``: its agent failed, or gave up after a refusal).
        When its time had run out, this is its expiry instead. Raises :class:`NotAwaited`."""
        self._check_awaited(seat)
        if seat in self._settled:
            raise NotAwaited(f"seat {seat} already gave orders for decision point {self.n + 1}",
                             NotAwaitedCode.ALREADY_SUBMITTED)
        t = _seconds(elapsed_s)
        if self._late(seat, t):
            self.expire(seat, t)
            return Ticket(Receipt.TOO_LATE)
        err = {"code": str(error.get("code", "")), "detail": str(error.get("detail", ""))}
        errs = self._refusal_errors.get(seat, [])
        if not errs or errs[-1] != err:
            errs = errs + [err]
        self._settled[seat] = Settled(None, self.ruleset.default_orders(self.state, seat), errs, t)
        return Ticket(Receipt.ACCEPTED)

    def submit_parsed(self, seat: str, orders: Any, elapsed_s: float) -> Ticket:
        """``seat``'s trusted in-process agent (a built-in bot answering
        :meth:`Ruleset.native_view` with ``act_native``) settles with orders already in the rule
        set's parsed form, ``elapsed_s`` seconds after the point opened: no payload to parse.
        The record line shows :meth:`Ruleset.orders_json` of them, which :meth:`submit` turns
        back into the same orders (the round-trip contract), so the record replays through
        :meth:`replay` like any other. Returns ``accepted``, ``replaced`` or ``too_late``.
        Raises :class:`NotAwaited`."""
        if self._facts_of is not self.state:
            self._refresh()
        if seat in self._settled or seat not in self._pending or self._forced is not None:
            self._check_awaited(seat)
        t = _seconds(elapsed_s)
        if t > self._free and self._late(seat, t):
            self.expire(seat, t)
            return Ticket(Receipt.TOO_LATE, awaited=False)
        self._gm.pop(seat, None)  # the seat's own orders replace any the game master set
        # without history no record line is written: the orders themselves stand in for the payload
        return self._accept(seat, self.ruleset.orders_json(orders) if self.history else orders, orders, t)

    def native_view(self, seat: str) -> Any:
        """:meth:`Ruleset.native_view` of the current state for ``seat`` (rule sets with
        :attr:`Ruleset.native_observations` only)."""
        return self.ruleset.native_view(self.state, seat)

    def settle_parsed(self, seat: str, orders: Any) -> None:
        """Settle ``seat`` with orders the rule set has already built (a scenario file's own
        notation, an analysis tool): never for a player's submission, which goes through
        :meth:`submit`. The record line shows :meth:`Ruleset.orders_json` of them.
        Raises :class:`NotAwaited`."""
        self._check_awaited(seat)
        self._settled[seat] = Settled(self.ruleset.orders_json(orders), orders, [], 0.0)

    def expire(self, seat: str, elapsed_s: float) -> None:
        """``seat``'s time ran out after ``elapsed_s`` seconds: its default orders apply, or,
        with ``on_expiry`` :attr:`OnExpiry.LOSS` on a charged point, it loses at once and the point closes
        (the record line then has no digest). Raises :class:`NotAwaited`."""
        if self.over:
            raise NotAwaited("the match has ended", NotAwaitedCode.MATCH_ENDED)
        if seat not in self.pending():
            raise NotAwaited(f"seat {seat} has no orders to give at decision point {self.n + 1}",
                             NotAwaitedCode.NOT_YOUR_TURN)
        if seat in self._settled:
            return
        t = _seconds(elapsed_s)
        err = {"code": FailureCode.TIMEOUT.value, "detail": f"no orders in time ({t:.3f} s)"}
        charged = self.charged
        self._settled[seat] = Settled(None, self.ruleset.default_orders(self.state, seat),
                                      self._refusal_errors.get(seat, []) + [err], t, expired=charged)
        if charged and self.control.on_expiry == OnExpiry.LOSS:
            self._close(self.ruleset.timeout_outcome(self.state, seat, KernelReason.TIME))

    def resign(self, seat: str) -> Outcome:
        """``seat`` resigns the match (:meth:`Ruleset.timeout_outcome` with reason ``resign``);
        recorded as a line of its own. Raises :class:`NotAwaited` once the match is over."""
        if self.over:
            raise NotAwaited("the match has ended", NotAwaitedCode.MATCH_ENDED)
        if seat not in self.seats:
            raise NotAwaited(f"no seat {seat!r}", NotAwaitedCode.NOT_YOUR_TURN)
        out = self.ruleset.timeout_outcome(self.state, seat, KernelReason.RESIGN)
        self._close(out, resign=seat)
        return out

    # ---- the game master (issue 24 item 1) -----------------------------------------------------
    def adjudicate(self, seat: str, payload: Any, reason: str) -> Ticket:
        """The game master sets ``seat``'s orders for the open decision point to ``payload``
        (whatever the seat had settled is replaced, also where the rules let no player replace
        orders), for ``reason`` (text, kept in the point's record line under ``adjudicated``).
        The orders pass the same check as a player's (:meth:`Ruleset.parse_orders`); a refusal
        is raised, not counted against the seat, and changes nothing. They cost the seat no
        time (``time_s`` 0), so they replay through :meth:`submit` like any other orders.
        Raises :class:`~botwars.engine.errors.InvalidOrders` and :class:`NotAwaited` (the match
        is over, or ``seat`` has no orders to give at this point)."""
        if self.over:
            raise NotAwaited("the match has ended", NotAwaitedCode.MATCH_ENDED)
        if seat not in self.pending():
            raise NotAwaited(f"seat {seat} has no orders to give at decision point {self.n + 1} "
                             f"(awaited: {', '.join(self.pending()) or 'nobody'})", NotAwaitedCode.NOT_YOUR_TURN)
        orders = self.ruleset.parse_orders(self.state, seat, payload)  # InvalidOrders: nothing changed
        self._settled.pop(seat, None)
        tk = self._accept(seat, payload, orders, 0.0)
        self._gm[seat] = str(reason)
        return tk

    def cancel(self, seat: str) -> bool:
        """The game master cancels ``seat``'s settled orders of the open decision point: the
        seat is awaited again (its clock runs on from the opening of the point). Returns
        ``False`` when it had nothing settled. Raises :class:`NotAwaited` once the match is
        over or when ``seat`` has no orders to give at this point."""
        if self.over:
            raise NotAwaited("the match has ended", NotAwaitedCode.MATCH_ENDED)
        if seat not in self.pending():
            raise NotAwaited(f"seat {seat} has no orders to give at decision point {self.n + 1}",
                             NotAwaitedCode.NOT_YOUR_TURN)
        self._gm.pop(seat, None)
        return self._settled.pop(seat, None) is not None

    def gm_outcome(self, winner: str | None, note: str, abort: bool = False) -> Outcome:
        """The outcome the game master gives when ending the match: ``winner`` (a seat, or
        ``None`` for a draw) scores 1 and the others 0 (a draw: 0.5 each), ranked winner first;
        ``abort``: no winner, every seat 0, reason ``aborted``. ``details`` keeps ``note``.
        Raises :class:`ValueError` for a winner that is no seat."""
        if winner is not None and winner not in self.seats:
            raise ValueError(f"no seat {winner!r} (seats: {', '.join(self.seats)})")
        if abort:
            return Outcome(None, {s: 0.0 for s in self.seats}, KernelReason.ABORTED.value, [list(self.seats)],
                           {"by": "game master", "note": note})
        if winner is None:
            return Outcome(None, {s: 0.5 for s in self.seats}, KernelReason.ADJUDICATED.value, [list(self.seats)],
                           {"by": "game master", "note": note})
        rest = [s for s in self.seats if s != winner]
        return Outcome(winner, {s: 1.0 if s == winner else 0.0 for s in self.seats}, KernelReason.ADJUDICATED.value,
                       [[winner]] + ([rest] if rest else []), {"by": "game master", "note": note})

    def end(self, winner: str | None, note: str, abort: bool = False) -> Outcome:
        """The game master ends the match now (:meth:`gm_outcome`): recorded as a line of its
        own with ``gm_end`` (``winner``, ``note``, ``abort``), which :meth:`replay` re-plays.
        Raises :class:`NotAwaited` once the match is over, :class:`ValueError` for a winner
        that is no seat."""
        if self.over:
            raise NotAwaited("the match has ended", NotAwaitedCode.MATCH_ENDED)
        out = self.gm_outcome(winner, note, abort)
        self._close(out, gm_end={"winner": winner, "note": note, "abort": bool(abort)})
        return out

    # ---- resolution ------------------------------------------------------------------------------
    def _line(self, clock: dict[str, str], dig: str | None) -> dict[str, Any]:
        line: dict[str, Any] = {
            "type": "decision", "n": self.n + 1, "turn": self.turn(),
            "orders": {s: x.payload for s, x in self._settled.items()},
            "errors": {s: x.errors for s, x in self._settled.items() if x.errors},
            "time_s": {s: x.time_s for s, x in self._settled.items()},
            "clock": clock, "digest": dig}
        gm = {s: r for s, r in self._gm.items() if s in self._settled}
        if gm:
            line["adjudicated"] = gm
        refused = {s: list(p) for s, p in self._refused.items() if p}
        if refused:
            line["refused"] = refused
            for s, errs in self._refusal_errors.items():
                if s not in self._settled and errs:
                    line["errors"][s] = list(errs)
        return line

    def _open_next(self) -> None:
        self.n += 1
        self._settled = {}
        self._refused = {}
        self._refusal_errors = {}
        self._gm = {}

    def _close(self, outcome: Outcome, resign: str | None = None, gm_end: dict[str, Any] | None = None) -> None:
        """End the match now with ``outcome`` (loss on time, resignation, the game master's end):
        one record line with no digest (the state did not change)."""
        clock = {s: ClockStatus.EXPIRED.value for s, x in self._settled.items() if x.expired}
        line = self._line(clock, None)
        if resign is not None:
            line["resign"] = resign
        if gm_end is not None:
            line["gm_end"] = gm_end
        if self.history:
            self.lines.append(line)
            self.events.append([])
        self._forced = outcome
        self._open_next()
        self.last_line = line

    def resolve_point(self) -> Sequence[Event]:
        """Resolve the open decision point (every pending seat settled): charge the clocks,
        call :meth:`Ruleset.resolve`, apply loss on a depleted bank (D-8.3), write the record
        line (:attr:`lines`), open the next point. Returns the point's events (all of them;
        project with :meth:`seat_events` or :func:`filter_events`).
        Raises :class:`NotAwaited` when a pending seat is not settled."""
        settled = self._settled
        if self._facts_of is not self.state:
            self._refresh()
        pending = self._pending
        orders = {}
        for s in pending:
            x = settled.get(s)
            if x is None:
                break
            orders[s] = x.orders
        if self._forced is not None or self._outcome is not None or len(orders) < len(pending):
            raise NotAwaited(f"decision point {self.n + 1} still awaits {', '.join(self.awaited())}",
                             NotAwaitedCode.NOT_READY)
        rs = self.ruleset
        clock: dict[str, str] = {}
        if self.clock_enabled and self._exempt is None:
            c = None
            free = self._free
            bank = self.bank
            for s in pending:
                t = settled[s].time_s
                b = bank[s]
                if t <= free and (b > 0.0 or (b == 0.0 and _copysign(1.0, b) > 0.0)):
                    continue  # within the move limit of a plain clock: nothing charged, bank as it was
                c = c or Clock(self.control, bank)
                status = c.spend(s, t)
                if status is not ClockStatus.OK:
                    clock[s] = status.value
        new_state, events, dig = self.resolver(rs, self.state, orders, self.history)
        if self.history:
            line = self._line(clock, dig)
            self.lines.append(line)
            self.events.append(events if isinstance(events, PackedEvents) else list(events))
            self.last_line = line
        self.state = new_state
        self._open_next()
        if clock and self.outcome is None:
            for s, written in clock.items():
                if written == ClockStatus.DEPLETED:
                    self._forced = rs.timeout_outcome(new_state, s, KernelReason.TIME)
                    break
        return events

    # ---- undo (the server commits before it changes memory) ------------------------------------
    def checkpoint(self) -> _Checkpoint:
        """Everything a submission or resolution may change (cheap: states are immutable)."""
        return _Checkpoint(self.state, self.n, self._forced, dict(self.bank), dict(self._settled),
                           {k: list(v) for k, v in self._refused.items()},
                           {k: list(v) for k, v in self._refusal_errors.items()}, len(self.lines), len(self.events),
                           dict(self._gm))

    def rollback(self, cp: _Checkpoint) -> None:
        """Return to ``cp`` (when the store could not commit what was done since). ``cp`` is
        left as it was, so the referee may return to it again."""
        self.state, self.n, self._forced, self.bank = cp.state, cp.n, cp.forced, dict(cp.bank)
        self._settled = dict(cp.settled)
        self._refused = {k: list(v) for k, v in cp.refused.items()}
        self._refusal_errors = {k: list(v) for k, v in cp.refusal_errors.items()}
        self._gm = dict(cp.gm)
        del self.lines[cp.lines:]
        del self.events[cp.events:]
        self._facts_of = object()  # _forced may have changed for the same state

    # ---- re-simulation ----------------------------------------------------------------------------
    def apply_entry(self, seat: str, payload: Any, errors: list[dict[str, Any]], time_s: float,
                    expired: bool) -> None:
        """Settle ``seat`` as a stored entry says (a record line's, or the server's stored order):
        a payload is submitted and must be accepted; ``None`` means its default orders (or its
        expiry, when ``expired``). Raises :class:`RecordError` when the entry does not replay."""
        if payload is None:
            if expired:
                self.expire(seat, time_s)
                return
            fail = ([e for e in errors if e.get("code") != FailureCode.TIMEOUT] or errors
                    or [{"code": NO_FAILURE_STATED, "detail": ""}])
            tk = self.default(seat, fail[-1], time_s)
            if tk.receipt == Receipt.TOO_LATE and not any(e.get("code") == FailureCode.TIMEOUT for e in errors):
                raise RecordError(f"decision point {self.n + 1}: {seat}'s time ran out on replay", decision=self.n + 1)
            return
        tk = self.submit(seat, payload, time_s)
        if tk.receipt not in (Receipt.ACCEPTED, Receipt.REPLACED):
            why = tk.error.message if tk.error else tk.receipt.value
            raise RecordError(f"decision point {self.n + 1}: {seat}'s recorded orders are not accepted on "
                              f"replay ({why})", decision=self.n + 1)

    def apply_refusal(self, seat: str, payload: Any) -> None:
        """Replay a refused submission of ``seat``; raises :class:`RecordError` if it is accepted."""
        tk = self.submit(seat, payload, 0.0)
        if tk.receipt != Receipt.REFUSED:
            raise RecordError(f"decision point {self.n + 1}: {seat}'s refused orders are accepted on replay",
                              decision=self.n + 1)

    def replay(self, line: dict[str, Any]) -> Sequence[Event]:
        """Re-play one record line through the same code that wrote it and check its digest.

        Returns the point's events. Raises :class:`RecordError` naming the decision point when
        the line is malformed, does not replay, or its digest differs.
        """
        n = self.n + 1
        try:
            if not isinstance(line, dict) or line.get("type") != "decision":
                raise RecordError(f"decision point {n}: not a decision line", decision=n)
            if line.get("n") != n:
                raise RecordError(f"decision point {n}: the line is numbered {line.get('n')!r}", decision=n)
            if self.over:
                raise RecordError(f"decision point {n}: the game had already ended", decision=n)
            orders, errors, times, clock, refused, adjudicated = (
                line.get(k, {}) for k in ("orders", "errors", "time_s", "clock", "refused", "adjudicated"))
            for name, part in (("orders", orders), ("errors", errors), ("time_s", times), ("clock", clock),
                               ("refused", refused)):
                if not isinstance(part, dict):
                    raise RecordError(f"decision point {n}: {name!r} must be an object, got {type(part).__name__}",
                                      decision=n)
            if "resign" in line:
                self.resign(str(line["resign"]))
                return []
            gm_end = line.get("gm_end")
            if gm_end is not None:
                if not isinstance(gm_end, dict):
                    raise RecordError(f"decision point {n}: 'gm_end' must be an object", decision=n)
                try:
                    self.end(gm_end.get("winner"), str(gm_end.get("note", "")), bool(gm_end.get("abort")))
                except ValueError as exc:
                    raise RecordError(f"decision point {n}: the game master's end: {exc}", decision=n) from None
                return []
            for seat in list(self.pending()):
                if self.over:
                    break
                ref = refused.get(seat, [])
                if not isinstance(ref, list):
                    raise RecordError(f"decision point {n}: refused[{seat!r}] must be a list", decision=n)
                for p in ref:
                    self.apply_refusal(seat, p)
                if self.over or seat in self._settled:
                    continue
                if seat not in orders:
                    raise RecordError(f"decision point {n}: no orders recorded for {seat}", decision=n)
                t = times.get(seat, 0.0)
                errs = errors.get(seat, [])
                if not isinstance(t, (int, float)) or isinstance(t, bool) or not isinstance(errs, list) \
                        or not all(isinstance(e, dict) for e in errs):
                    raise RecordError(f"decision point {n}: malformed time or errors for {seat}", decision=n)
                self.apply_entry(seat, orders[seat], errs, float(t), clock.get(seat) == ClockStatus.EXPIRED)
                if isinstance(adjudicated, dict) and seat in adjudicated:
                    self._gm[seat] = str(adjudicated[seat])  # the game master's orders (adjudicate)
            if self.over:
                if line.get("digest") is not None:
                    raise RecordError(f"diverges at decision point {n}: the match ended here on replay",
                                      decision=n)
                return []
            if not self.ready():
                raise RecordError(f"decision point {n}: no orders recorded for {', '.join(self.awaited())}",
                                  decision=n)
            events = self.resolve_point()
        except InvalidOrders as exc:  # pragma: no cover - parse errors are refusals
            raise RecordError(f"decision point {n}: {exc.message}", decision=n) from None
        except NotAwaited as exc:
            raise RecordError(f"decision point {n}: {exc}", decision=n) from None
        want = line.get("digest")
        got = self.last_line.get("digest")
        if want is not None and got != want:
            raise RecordError(f"diverges at decision point {n} (turn {line.get('turn')}): recorded digest {want}, "
                              f"re-simulated {got}", decision=n)
        return events

    def check_outcome(self, recorded: dict[str, Any]) -> None:
        """Compare the re-simulated outcome with a record's outcome line; raises
        :class:`RecordError` when it differs or the match is not over."""
        out = self.outcome
        if out is None:
            raise RecordError(f"the record has an outcome line but the game is not over after decision point "
                              f"{self.n}", decision=self.n + 1)
        got = out.to_json()
        want = {k: recorded.get(k) for k in got}
        if canonical_json(got) != canonical_json(want):
            raise RecordError(f"outcome differs: recorded {want.get('winner')!r} ({want.get('reason')}), "
                              f"re-simulated {got['winner']!r} ({got['reason']})", decision=self.n)

