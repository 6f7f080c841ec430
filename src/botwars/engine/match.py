"""Match: a rule set played by local agents through the :class:`~botwars.engine.referee.Referee`,
with time control, a record and an outcome."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from botwars.engine.codes import FailureCode
from botwars.engine.driver import SeatAgent, SeatDriver, copy_config
from botwars.engine.events import Event, Outcome
from botwars.engine.record import RecordWriter
from botwars.engine.referee import Referee
from botwars.engine.ruleset import Ruleset
from botwars.engine.timecontrol import Clock

__all__ = ["Match", "MatchResult", "SeatAgent"]

_copy_config = copy_config  # the name older callers import


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
    """One game between local agents, driven through one :class:`Referee`.

    ``agents`` maps seat name to a :class:`SeatAgent` (e.g. :class:`~botwars.agents.Agent`);
    seats are taken in the rule set's order. ``clock=False`` disables time control (tests,
    replays). ``native=False`` makes built-in bots answer the JSON view like any other agent
    instead of the rule set's own observation objects (:meth:`Ruleset.native_view`; same game,
    record lines in text notation). ``record`` is a path for the JSON Lines record, or ``None``. ``time_source`` is
    injectable for tests (a function returning seconds). ``parallel=False`` asks every seat in
    turn; by default the due seats whose agents run outside this process are asked at once
    (:class:`~botwars.engine.driver.SeatDriver`, issue 28 item 2), with the same record.

    A refused submission is told to its seat only. Where the rules count refusals (submarine
    S-7.10) the agent is asked again, with the clock still running (S-7.8), until it is accepted,
    runs out of refusals or of time; elsewhere its default orders apply at once (arena P10).
    """

    def __init__(self, ruleset: Ruleset, config: dict[str, Any], agents: dict[str, SeatAgent], seed: int = 0,
                 *, record: str | None = None, clock: bool = True, agent_specs: dict[str, str] | None = None,
                 time_source: Callable[[], float] = time.perf_counter, max_decisions: int = 1_000_000,
                 native: bool = True, parallel: bool = True):
        self.ruleset = ruleset
        self.config = config
        self.seats = list(agents)
        self.agents = agents
        self.seed = seed
        specs = agent_specs or {s: getattr(a, "spec", "") for s, a in agents.items()}
        self.referee = Referee(ruleset, config, self.seats, seed, clock=clock, history=record is not None,
                               agents={s: specs.get(s, "") for s in self.seats})
        self.time_source = time_source
        self.max_decisions = max_decisions
        self.record_path = record
        self.writer: RecordWriter | None = None
        if record:
            self.writer = RecordWriter(record, self.referee.header())
        self.driver = SeatDriver(self.referee, agents, time_source=time_source, record=self.writer,
                                 parallel=parallel, native=native)
        self.errors = self.driver.errors

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
        self.driver.start_agents(self.ruleset.id, self.config)

    def step(self) -> list[Event]:
        """Settle every pending seat (asking its agent, :meth:`SeatDriver.play_point`) and
        resolve one decision point. Returns the point's events (empty when the match ended
        without a resolution)."""
        return self.driver.play_point()

    def resign(self, seat: str, detail: str = "") -> Outcome:
        """End the match now with ``seat`` resigning (:meth:`Referee.resign`: the rule set's
        ``timeout_outcome`` with reason ``resign``), its line written to the record so that the
        record re-simulates; ``detail`` (why, e.g. "used up its time budget") is kept as a
        ``timeout`` error of the seat. Call it between decision points (e.g. from the
        ``progress`` callback of :meth:`run`). Raises
        :class:`~botwars.engine.referee.NotAwaited` once the match is over."""
        out = self.referee.resign(seat)
        self.driver.write_last()
        if detail:
            self.errors.append({"decision": self.referee.n, "seat": seat, "code": FailureCode.TIMEOUT.value,
                                "detail": detail})
        return out

    def run(self, progress: Callable[["Match"], None] | None = None) -> MatchResult:
        """Play to the end; ``progress`` is called after every decision point.
        Raises :class:`RuntimeError` if the match outlasts ``max_decisions``."""
        self.start_agents()
        play = self.driver.play_point  # what step() does, without the extra call per point
        ref = self.referee
        try:
            while ref.outcome is None:
                if ref.n >= self.max_decisions:
                    raise RuntimeError(f"match did not end within {self.max_decisions} decisions")
                play()
                if progress:
                    progress(self)
        finally:
            self.driver.close()
        out = self.referee.outcome
        assert out is not None
        if self.writer:
            self.writer.finish(self.referee.outcome_line() or {})
        return MatchResult(out, self.ruleset.turn_number(self.state), self.referee.n, self.errors,
                           self.record_path)
