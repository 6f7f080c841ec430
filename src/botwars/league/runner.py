"""Play one tournament match: the unit of work every backend runs (a local process pool, a Ray
task, the server's league scheduler).

:func:`play_match` builds the agents with :func:`botwars.agents.spec.make_agent`, plays through
:class:`botwars.engine.Match` (the referee, its time control and its
:class:`~botwars.engine.record.RecordWriter`), and returns a :class:`MatchReport`: the database
row and the record's text. It writes nothing the caller has to clean up, so it can run anywhere
(another process, another machine) and be retried; the caller stores the record and the row
(:func:`botwars.league.results.ResultStore.commit`).
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from botwars.agents.spec import make_agent
from botwars.engine import Match, get_ruleset
from botwars.engine.errors import BotwarsError, ConfigError

#: most bot-error details kept per match row (the record has them all)
MAX_ERROR_DETAIL = 20


@dataclass(frozen=True)
class MatchJob:
    """Everything needed to play one match (picklable): the game id, its full config, the
    agent specs in seat order, the game seed, whether the clock runs, and the fixture's place
    (``match_id``, ``round``, ``seq``, ``game_index``)."""

    match_id: str
    game: str
    config: dict[str, Any]
    specs: tuple[str, ...]
    seed: int
    round: int = 0
    seq: int = 0
    game_index: int = 0
    clock: bool = True
    names: tuple[str, ...] = ()
    """The agents' names in the tournament, in seat order (default: the specs); a spec given
    twice is named ``SPEC#2`` the second time."""
    budget_s: float | None = None
    """Seconds of thinking each bot program may use in the whole match (its decisions' time,
    restarts included; the trusted built-in bots are not charged): a bot that uses it up
    resigns, so loses the match (the league's per-match time budget, issue 25 item 3).
    ``None``: no budget."""
    max_match_s: float | None = None
    """Longest match in wall-clock seconds: past it, the bot program that used the most
    thinking time resigns. ``None``: no limit."""


@dataclass
class MatchReport:
    """What :func:`play_match` returns: ``row`` (the fields of
    :class:`~botwars.store.models.TournamentMatchRow` but ``tournament_id`` and ``replay``,
    JSON-able values) and ``record`` (the JSON Lines record's text, ``""`` when the match could
    not start)."""

    row: dict[str, Any]
    record: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def play_match(job: MatchJob, agent_factory: Callable[[str, str], Any] = make_agent) -> MatchReport:
    """Play ``job`` to its end and report it.

    Bot failures (a crash, a late or invalid reply) are the referee's business: they are
    recorded as errors of their seat and the match goes on (arena P10). A match that cannot be
    played (an agent that cannot be built, a rule-set error) gives a row with status
    ``failed`` and the reason in ``error_detail``; nothing is raised. ``agent_factory(spec,
    game)`` builds each agent (tests inject one).
    """
    rs = get_ruleset(job.game)
    seats = rs.seat_names(len(job.specs))
    t0 = time.perf_counter()
    base = {"match_id": job.match_id, "round": job.round, "seq": job.seq, "game_index": job.game_index,
            "seed": job.seed, "agents": list(job.names or job.specs), "seats": seats}
    fd, path = tempfile.mkstemp(prefix=f"botwars-{job.match_id}-", suffix=".jsonl")
    os.close(fd)
    agents: dict[str, Any] = {}
    try:
        try:
            for seat, spec in zip(seats, job.specs):
                agents[seat] = agent_factory(spec, job.game)
            budget = _Budget(job, agents)
            m = Match(rs, dict(job.config), budget.agents, job.seed, record=path, clock=job.clock,
                      agent_specs=dict(zip(seats, job.specs)))
            result = m.run(budget.check if budget.timed else None)
        except (BotwarsError, RuntimeError) as exc:
            for a in agents.values():
                _close(a)
            what = exc.one_line() if isinstance(exc, ConfigError) else str(exc)
            return MatchReport({**base, "status": "failed", "outcome": None, "turns": 0,
                                "errors": {s: 0 for s in seats},
                                "error_detail": [{"decision": 0, "seat": None, "code": "failed", "detail": what}],
                                "wall_s": time.perf_counter() - t0})
        except Exception as exc:  # a bug in a rule set: reported in the row, the tournament goes on
            for a in agents.values():
                _close(a)
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            return MatchReport({**base, "status": "failed", "outcome": None, "turns": 0,
                                "errors": {s: 0 for s in seats},
                                "error_detail": [{"decision": 0, "seat": None, "code": "crash", "detail": tb}],
                                "wall_s": time.perf_counter() - t0})
        counts = {s: 0 for s in seats}
        for e in result.errors:
            counts[e["seat"]] = counts.get(e["seat"], 0) + 1
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return MatchReport({**base, "status": "ok", "outcome": result.outcome.to_json(), "turns": result.turns,
                            "errors": counts, "error_detail": result.errors[:MAX_ERROR_DETAIL],
                            "wall_s": time.perf_counter() - t0}, text)
    finally:
        try:
            os.remove(path)
        except OSError:
            pass


class TimedAgent:
    """A bot program's agent that counts the seconds its decisions take (:attr:`spent`) and
    never lets one run past what is left of ``budget_s`` (the deadline it is given is cut to
    that). Everything else is the wrapped agent's."""

    def __init__(self, agent: Any, budget_s: float | None):
        self.agent = agent
        self.budget_s = budget_s
        self.spent = 0.0

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        self.agent.start(game, seat, config, seed)

    def act(self, view: Any, deadline_s: float | None) -> Any:
        if self.budget_s is not None:
            left = max(0.0, self.budget_s - self.spent)
            deadline_s = left if deadline_s is None else min(deadline_s, left)
        t0 = time.perf_counter()
        try:
            return self.agent.act(view, deadline_s)
        finally:
            self.spent += time.perf_counter() - t0

    def close(self) -> None:
        self.agent.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)


class _Budget:
    """The time limits of one match (:attr:`MatchJob.budget_s`, :attr:`MatchJob.max_match_s`):
    :attr:`agents` are the seats' agents, bot programs wrapped in :class:`TimedAgent`
    (trusted in-process built-in bots, which answer the rule set's own observations, are not);
    :meth:`check`, the match's ``progress`` callback, makes a seat over its budget resign (and,
    past ``max_match_s``, the bot program that used the most time)."""

    def __init__(self, job: MatchJob, agents: dict[str, Any]):
        self.budget_s = job.budget_s
        self.max_match_s = job.max_match_s
        self.timed = self.budget_s is not None or self.max_match_s is not None
        self.t0 = time.perf_counter()
        self.agents = dict(agents)
        self.clocks: dict[str, TimedAgent] = {}
        if self.timed:
            for seat, a in agents.items():
                if not callable(getattr(a, "act_native", None)):
                    self.clocks[seat] = self.agents[seat] = TimedAgent(a, self.budget_s)

    def check(self, match: Match) -> None:
        """Between decision points: end the match when a bot is over its budget or the match
        over its wall-clock limit."""
        if match.referee.outcome is not None or not self.clocks:
            return
        if self.budget_s is not None:
            for seat, t in self.clocks.items():
                if t.spent >= self.budget_s:
                    match.resign(seat, f"used up its time budget of {self.budget_s:g} s for the match "
                                       f"({t.spent:.1f} s): resigns")
                    return
        if self.max_match_s is not None and time.perf_counter() - self.t0 >= self.max_match_s:
            seat = max(self.clocks, key=lambda s: (self.clocks[s].spent, s))
            match.resign(seat, f"the match reached its limit of {self.max_match_s:g} s; this bot used the "
                               f"most time ({self.clocks[seat].spent:.1f} s): resigns")


def _close(agent: Any) -> None:
    try:
        agent.close()
    except Exception:
        pass
