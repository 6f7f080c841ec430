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
            m = Match(rs, dict(job.config), agents, job.seed, record=path, clock=job.clock,
                      agent_specs=dict(zip(seats, job.specs)))
            result = m.run()
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


def _close(agent: Any) -> None:
    try:
        agent.close()
    except Exception:
        pass
