"""Match: a rule set played by agents, with time control, a record and an outcome."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from botwars.engine.errors import InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.record import RecordWriter, decision_digest
from botwars.engine.ruleset import Ruleset
from botwars.engine.timecontrol import Clock


def _agent_failure() -> type:
    """:class:`botwars.agents.base.AgentFailure` (imported late: agents import the engine)."""
    from botwars.agents.base import AgentFailure
    return AgentFailure


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


class Match:
    """One game between agents.

    ``agents`` maps seat name to an :class:`~botwars.agents.Agent`; seats are taken in the
    rule set's order. ``clock=False`` disables time control (tests, replays). ``record`` is a
    path for the JSON Lines record, or ``None``. ``time_source`` is injectable for tests
    (a function returning seconds).
    """

    def __init__(self, ruleset: Ruleset, config: dict[str, Any], agents: dict[str, Any], seed: int = 0,
                 *, record: str | None = None, clock: bool = True, agent_specs: dict[str, str] | None = None,
                 time_source: Callable[[], float] = time.perf_counter, max_decisions: int = 1_000_000):
        self.ruleset = ruleset
        self.config = config
        self.seats = list(agents)
        self.agents = agents
        self.seed = seed
        self.state = ruleset.setup(config, self.seats, seed)
        control = ruleset.time_control(config)
        self.clock = Clock.start(control, self.seats) if clock else None
        self.time_source = time_source
        self.decisions = 0
        self.errors: list[dict[str, Any]] = []
        self.forced_outcome: Outcome | None = None
        # seconds a seat already spent on refused submissions of the turn it is still to play
        # (its clock keeps running across resubmissions, submarine S-7.8)
        self.carry: dict[str, float] = {}
        self.max_decisions = max_decisions
        self.record_path = record
        self.writer = None
        if record:
            specs = agent_specs or {s: getattr(a, "spec", "") for s, a in agents.items()}
            self.writer = RecordWriter(record, ruleset, config, [(s, specs.get(s, "")) for s in self.seats], seed)

    # ------------------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        return self.forced_outcome or self.ruleset.outcome(self.state)

    def start_agents(self) -> None:
        from botwars.agents.base import AgentFailure
        for seat, agent in self.agents.items():
            try:
                agent.start(self.ruleset.id, seat, copy.deepcopy(self.config), self.ruleset.agent_seed(self.seed, seat))
            except AgentFailure as exc:
                self.errors.append({"decision": 0, "seat": seat, "code": exc.code, "detail": exc.detail})

    def step(self) -> list[Event]:
        """Collect orders from every pending seat and resolve one decision point.

        A refused submission after which the same seat is still to move in the same turn (rule
        sets whose :meth:`~botwars.engine.ruleset.Ruleset.rejected_orders` allows resubmission)
        does not stop that seat's clock: its time is carried into the next attempt and charged
        with it, as one turn."""
        rs = self.ruleset
        state = self.state
        n = self.decisions + 1
        orders: dict[str, Any] = {}
        payloads: dict[str, Any] = {}
        errors: dict[str, list[dict[str, Any]]] = {}
        used: dict[str, float] = {}
        clock_status: dict[str, str] = {}
        exempt = rs.clock_exempt(state) if self.clock else None
        charged = self.clock is not None and exempt is None
        totals: dict[str, float] = {}
        bank_before: dict[str, float] = {}
        refused: list[str] = []
        for seat in rs.pending(state):
            view = rs.view(state, seat)
            if self.clock:
                view = rs.clock_view(view, dict(self.clock.bank_left))
            carried = self.carry.get(seat, 0.0) if charged else 0.0
            if exempt is not None:
                deadline = exempt
            else:
                deadline = self.clock.deadline(seat) if self.clock else None
                if deadline is not None:
                    deadline = max(0.0, deadline - carried)
            t0 = self.time_source()
            payload = None
            err = None
            rejected = None
            try:
                payload = self.agents[seat].act(view, deadline)
            except _agent_failure() as exc:  # evaluated only when act raises
                err = {"code": exc.code, "detail": exc.detail}
            spent = self.time_source() - t0
            used[seat] = round(spent, 6)
            if exempt is not None:
                if spent > exempt and err is None:
                    err = {"code": "timeout", "detail": f"no reply in time ({spent:.3f} s)"}
            elif self.clock:
                totals[seat] = spent + carried
                bank_before[seat] = self.clock.bank_left[seat]
                status = self.clock.spend(seat, spent + carried)
                if status != "ok":
                    clock_status[seat] = status
                if status == "expired":
                    if err is None or err["code"] != "timeout":
                        err = {"code": "timeout", "detail": f"no reply in time ({spent:.3f} s)"}
                    payload = None
                    if self.clock.control.on_expiry == "loss":
                        self.forced_outcome = rs.timeout_outcome(state, seat, "time")
            if err is None:
                try:
                    orders[seat] = rs.parse_orders(state, seat, payload)
                    payloads[seat] = payload
                    warn = getattr(orders[seat], "errors", None)
                    if warn:
                        errors[seat] = list(warn)
                except InvalidOrders as exc:
                    err = {"code": exc.code, "detail": exc.message}
                    rejected = exc
                    refused.append(seat)
            if err is not None:
                payloads[seat] = payload if err["code"] not in ("timeout", "crash", "memory") else None
                errors[seat] = [err]
                orders[seat] = (rs.rejected_orders(state, seat, rejected) if rejected is not None
                                else rs.default_orders(state, seat))
                self.errors.append({"decision": n, "seat": seat, **err})
        if self.forced_outcome is not None:
            if self.writer:
                self.writer.decision(n, rs.turn_number(state), payloads, errors, used, clock_status, None)
            self.decisions = n
            return []
        new_state, events = rs.resolve(state, orders)
        self.state = new_state
        self.decisions = n
        if charged:
            again = set(rs.pending(new_state)) if rs.outcome(new_state) is None else set()
            same_turn = rs.turn_number(new_state) == rs.turn_number(state)
            for seat in totals:
                if seat in refused and seat in again and same_turn:
                    self.carry[seat] = totals[seat]
                    self.clock.bank_left[seat] = bank_before[seat]
                else:
                    self.carry.pop(seat, None)
        for seat, status in clock_status.items():
            if status == "depleted" and rs.outcome(new_state) is None and self.forced_outcome is None:
                self.forced_outcome = rs.timeout_outcome(new_state, seat, "time")
        if self.writer:
            self.writer.decision(n, rs.turn_number(state), payloads, errors, used, clock_status,
                                 decision_digest(rs, new_state, events))
        return events

    def run(self, progress: Callable[[Match], None] | None = None) -> MatchResult:
        """Play to the end; ``progress`` is called after every decision point."""
        self.start_agents()
        try:
            while self.outcome() is None:
                if self.decisions >= self.max_decisions:
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
        out = self.outcome()
        assert out is not None
        if self.writer:
            self.writer.finish(out, self.ruleset.turn_number(self.state))
        return MatchResult(out, self.ruleset.turn_number(self.state), self.decisions, self.errors,
                           self.record_path)
