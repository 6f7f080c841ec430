"""Match: a rule set played by local agents through the :class:`~botwars.engine.referee.Referee`,
with time control, a record and an outcome."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from botwars.engine.codes import FailureCode, Receipt
from botwars.engine.errors import AgentFailure
from botwars.engine.events import Event, Outcome
from botwars.engine.record import RecordWriter
from botwars.engine.referee import Referee
from botwars.engine.ruleset import Ruleset
from botwars.engine.timecontrol import Clock


class SeatAgent(Protocol):
    """What :class:`Match` needs of an agent (:class:`botwars.agents.Agent` is one): ``start``
    once with the game id, seat name, a copy of the config and the seat's one-way seed; ``act``
    per decision with the seat's view and the seconds it may take (``None``: unlimited),
    returning the orders payload or raising :class:`~botwars.engine.errors.AgentFailure`;
    ``close`` at the end."""

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None: ...

    def act(self, view: dict[str, Any], deadline_s: float | None) -> Any: ...

    def close(self) -> None: ...


@dataclass
class MatchResult:
    """What :meth:`Match.run` returns: the outcome, decision points played, the errors of
    the seats' agents (``{"decision": n, "seat": s, "code": c, "detail": d}``) and the record path."""

    outcome: Outcome
    turns: int
    decisions: int
    errors: list[dict[str, Any]] = field(default_factory=list)
    replay: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``botwars match --json`` object."""
        return {"winner": self.outcome.winner, "scores": self.outcome.scores, "turns": self.turns,
                "reason": self.outcome.reason, "replay": self.replay, "errors": self.errors}


_FAILURES = frozenset(c.value for c in FailureCode)
_TOO_LATE = Receipt.TOO_LATE
_ATOMS = frozenset({str, int, float, bool, type(None)})


def _copy_config(config: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``config`` for an agent (``copy.deepcopy``; a flat dict of immutable
    values, the usual case, is copied as a plain dict, which is the same thing)."""
    if config.__class__ is dict and all(v.__class__ in _ATOMS for v in config.values()):
        return dict(config)
    return copy.deepcopy(config)


class Match:
    """One game between local agents, driven through one :class:`Referee`.

    ``agents`` maps seat name to a :class:`SeatAgent` (e.g. :class:`~botwars.agents.Agent`);
    seats are taken in the rule set's order. ``clock=False`` disables time control (tests,
    replays). ``native=False`` makes built-in bots answer the JSON view like any other agent
    instead of the rule set's own observation objects (:meth:`Ruleset.native_view`; same game,
    record lines in text notation). ``record`` is a path for the JSON Lines record, or ``None``. ``time_source`` is
    injectable for tests (a function returning seconds).

    A refused submission is told to its seat only. Where the rules count refusals (submarine
    S-7.10) the agent is asked again, with the clock still running (S-7.8), until it is accepted,
    runs out of refusals or of time; elsewhere its default orders apply at once (arena P10).
    """

    def __init__(self, ruleset: Ruleset, config: dict[str, Any], agents: dict[str, SeatAgent], seed: int = 0,
                 *, record: str | None = None, clock: bool = True, agent_specs: dict[str, str] | None = None,
                 time_source: Callable[[], float] = time.perf_counter, max_decisions: int = 1_000_000,
                 native: bool = True):
        self.ruleset = ruleset
        self.config = config
        self.seats = list(agents)
        self.agents = agents
        self.seed = seed
        specs = agent_specs or {s: getattr(a, "spec", "") for s, a in agents.items()}
        self.referee = Referee(ruleset, config, self.seats, seed, clock=clock, history=record is not None,
                               agents={s: specs.get(s, "") for s in self.seats})
        self.time_source = time_source
        # trusted in-process bots that answer the rule set's own observation objects (act_native)
        self._native: dict[str, Callable[[Any, float | None], Any]] = {}
        if ruleset.native_observations and native:
            for seat, agent in agents.items():
                fn = getattr(agent, "act_native", None)
                if callable(fn):
                    self._native[seat] = fn
        self.errors: list[dict[str, Any]] = []
        self.max_decisions = max_decisions
        self.record_path = record
        self.writer: RecordWriter | None = None
        if record:
            self.writer = RecordWriter(record, self.referee.header())

    @property
    def state(self) -> Any:
        """The current game state (owned by the referee)."""
        return self.referee.state

    @property
    def clock(self) -> Clock | None:
        """The seats' clocks (bank left per seat, seconds), ``None`` when time control is off."""
        ref = self.referee
        return Clock(ref.control, ref.bank) if ref.clock_enabled else None

    @property
    def decisions(self) -> int:
        """Decision points resolved so far."""
        return self.referee.n

    def outcome(self) -> Outcome | None:
        """The result once over, else ``None``."""
        return self.referee.outcome

    def start_agents(self) -> None:
        """Start every agent with its seat's one-way seed (:meth:`Ruleset.agent_seed`)."""
        for seat, agent in self.agents.items():
            try:
                agent.start(self.ruleset.id, seat, _copy_config(self.config), self.ruleset.agent_seed(self.seed, seat))
            except AgentFailure as exc:
                self.errors.append({"decision": 0, "seat": seat, "code": exc.code, "detail": exc.detail})

    def _note(self, seat: str, code: str, detail: str) -> None:
        """Keep an error of ``seat``'s agent (``code``: a failure or refusal code) for :class:`MatchResult`."""
        self.errors.append({"decision": self.referee.n + 1, "seat": seat, "code": code, "detail": detail})

    def _failed(self, seat: str, exc: AgentFailure, spent: float) -> None:
        """``seat``'s agent failed after ``spent`` seconds: its default orders (or its expiry)."""
        tk = self.referee.default(seat, {"code": exc.code, "detail": exc.detail}, spent)
        if tk.receipt == Receipt.TOO_LATE and exc.code != FailureCode.TIMEOUT:
            self._note(seat, FailureCode.TIMEOUT, f"no reply in time ({spent:.3f} s)")
        else:
            self._note(seat, exc.code, exc.detail)

    def _play_seat(self, seat: str) -> None:
        """``seat``'s turn through the JSON view and its payload (every agent but the trusted
        in-process bots, which :meth:`step` plays on the native path)."""
        ref = self.referee
        counted = self.ruleset.refusal_limit(ref.state, seat) is not None
        t0 = self.time_source()
        spent = 0.0  # the clock runs on across refused submissions (S-7.8)
        while not ref.over and seat in ref.pending() and ref.settled(seat) is None:
            deadline = ref.deadline(seat)
            left = None if deadline is None else max(0.0, deadline - spent)
            try:
                payload = self.agents[seat].act(ref.view(seat), left)
            except AgentFailure as exc:
                self._failed(seat, exc, self.time_source() - t0)
                return
            spent = self.time_source() - t0
            tk = ref.submit(seat, payload, spent)
            if tk.receipt == Receipt.TOO_LATE:
                self._note(seat, FailureCode.TIMEOUT, f"no reply in time ({spent:.3f} s)")
                return
            if tk.warnings:
                # failures that did not void the response (e.g. one rgkit robot's crash): listed too
                for w in tk.warnings:
                    if w.get("code") in _FAILURES:
                        self._note(seat, w["code"], w.get("detail", ""))
            if tk.receipt == Receipt.REFUSED:
                assert tk.error is not None
                self._note(seat, tk.error.code, tk.error.message)
                if not counted and seat in ref.awaited():
                    ref.default(seat, {"code": tk.error.code, "detail": tk.error.message}, spent)
            # accepted / replaced: done; counted refusal: ask again while awaited

    def step(self) -> list[Event]:
        """Settle every pending seat (asking its agent) and resolve one decision point.
        Returns the point's events (empty when the match ended without a resolution)."""
        ref = self.referee
        native = self._native
        now = self.time_source
        pending = ref.pending()  # empty once over
        for seat in pending:
            fn = native.get(seat)
            if fn is None:
                self._play_seat(seat)
            else:
                # a trusted in-process bot on the rule set's own observation objects
                # (Ruleset.native_view -> parsed orders -> Referee.submit_parsed): the same
                # decision point without the JSON view and the payload parsing. Timed here only:
                # a late reply is the referee's expiry (too_late), as a timeout would give
                t0 = now()
                try:
                    orders = fn(ref.native_view(seat), None)
                except AgentFailure as exc:
                    self._failed(seat, exc, now() - t0)
                else:
                    spent = now() - t0
                    if ref.submit_parsed(seat, orders, spent).receipt is not _TOO_LATE:
                        continue  # accepted: the match goes on
                    self._note(seat, FailureCode.TIMEOUT, f"no reply in time ({spent:.3f} s)")
            if ref.over:  # a seat's expiry or refusals may end the match (S-7.8, D-8.3)
                break
        if not ref.over:  # every pending seat settled (there may be none: a point of the rules alone)
            events = ref.resolve_point()
            if self.writer:
                self.writer.line(ref.last_line)
            # a list of the point's events (the referee keeps a copy of its own where it keeps history)
            return events if events.__class__ is list else list(events)
        # the match ended before a resolution (it was over, or a seat's expiry ended it)
        if self.writer and ref.last_line:
            self.writer.line(ref.last_line)
        return []

    def resign(self, seat: str, detail: str = "") -> Outcome:
        """End the match now with ``seat`` resigning (:meth:`Referee.resign`: the rule set's
        ``timeout_outcome`` with reason ``resign``), its line written to the record so that the
        record re-simulates; ``detail`` (why, e.g. "used up its time budget") is kept as a
        ``timeout`` error of the seat. Call it between decision points (e.g. from the
        ``progress`` callback of :meth:`run`). Raises
        :class:`~botwars.engine.referee.NotAwaited` once the match is over."""
        out = self.referee.resign(seat)
        if self.writer and self.referee.last_line:
            self.writer.line(self.referee.last_line)
        if detail:
            self.errors.append({"decision": self.referee.n, "seat": seat, "code": FailureCode.TIMEOUT.value,
                                "detail": detail})
        return out

    def run(self, progress: Callable[["Match"], None] | None = None) -> MatchResult:
        """Play to the end; ``progress`` is called after every decision point.
        Raises :class:`RuntimeError` if the match outlasts ``max_decisions``."""
        self.start_agents()
        try:
            while self.referee.outcome is None:
                if self.referee.n >= self.max_decisions:
                    raise RuntimeError(f"match did not end within {self.max_decisions} decisions")
                self.step()
                if progress:
                    progress(self)
        finally:
            for agent in self.agents.values():
                try:
                    agent.close()
                except Exception:
                    pass
        out = self.referee.outcome
        assert out is not None
        if self.writer:
            self.writer.finish(self.referee.outcome_line() or {})
        return MatchResult(out, self.ruleset.turn_number(self.state), self.referee.n, self.errors,
                           self.record_path)
