"""A tournament: settings, schedule, resumable execution and standings.

:class:`Tournament` is what ``botwars tournament`` runs (and what a league scheduler can run):
it checks the settings, opens the results database, plays every scheduled match that has no
stored row on a backend (:mod:`botwars.league.backends`), stores each as it finishes, and
computes the standings from the stored rows. Running it again with the same settings and
folder continues where it stopped.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from botwars.agents.spec import make_agent
from botwars.engine import get_ruleset
from botwars.engine.errors import ConfigError
from botwars.engine.ruleset import canonical_json
from botwars.league import schedule
from botwars.league.ratings import ELO_DEFAULT_INITIAL
from botwars.league.results import ResultStore, check_manifest, default_db_url
from botwars.league.runner import MatchJob, MatchReport
from botwars.league.standings import standings, write_standings

MAX_MATCHES = 1_000_000
"""Most matches one tournament schedules (a larger one is refused before its schedule is built)."""


@dataclass
class TournamentSettings:
    """What defines a tournament (its id is a digest of these): ``game``; ``agents`` (specs, at
    least two; a spec given twice plays as ``SPEC#2``); ``format`` (round-robin, swiss, gauntlet); ``games_per_pair`` (≥ 1,
    each in every seat rotation); ``seed``; ``players`` per match (default: 2, or the game's
    only seat count); ``rounds`` (swiss; default ⌈log2 k⌉); ``overrides`` (parameters, as
    ``--set`` gives them); ``clock`` (time control on)."""

    game: str
    agents: list[str]
    format: str = "round-robin"
    games_per_pair: int = 1
    seed: int = 0
    players: int | None = None
    rounds: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    clock: bool = True


def agent_names(specs: list[str]) -> list[str]:
    """The agents' names: each spec, and ``SPEC#k`` for its ``k``-th appearance (k ≥ 2), so one
    bot can play against copies of itself."""
    seen: dict[str, int] = {}
    out = []
    for a in specs:
        seen[a] = seen.get(a, 0) + 1
        out.append(a if seen[a] == 1 else f"{a}#{seen[a]}")
    return out


class Tournament:
    """A checked tournament bound to its folder ``out_dir`` and database ``db_url`` (default
    ``sqlite:///OUT/tournament.db``).

    Raises :class:`ConfigError` (one line, naming what is wrong) for an unknown game, a bad
    agent spec, a seat count the game does not allow, more than :data:`MAX_MATCHES` matches,
    a folder that cannot be made or holds another tournament, or an unusable database."""

    def __init__(self, s: TournamentSettings, out_dir: str, db_url: str | None = None, check_agents: bool = True):
        rs = get_ruleset(s.game)
        self.ruleset = rs
        if s.format not in schedule.FORMATS:
            raise ConfigError(f"unknown format {s.format!r} (use {', '.join(schedule.FORMATS)})", source="--format")
        if len(s.agents) < 2:
            raise ConfigError(f"a tournament needs at least 2 agents, got {len(s.agents)}")
        self.names = agent_names(s.agents)
        players = s.players if s.players is not None else max(2, rs.min_seats)
        if not (max(2, rs.min_seats) <= players <= rs.max_seats):
            lo = max(2, rs.min_seats)
            want = str(lo) if lo == rs.max_seats else f"{lo} to {rs.max_seats}"
            raise ConfigError(f"{s.game} matches have {want} players, not {players}", source="--players")
        if players > len(s.agents):
            raise ConfigError(f"{players}-player matches need at least {players} agents, got {len(s.agents)}")
        if s.games_per_pair < 1:
            raise ConfigError("must be at least 1", source="--games-per-pair")
        if s.format == "swiss":
            if players != 2:
                raise ConfigError("swiss pairs two players; use round-robin or gauntlet for free-for-all",
                                  source="--format")
            rounds = s.rounds if s.rounds is not None else schedule.swiss_rounds(len(s.agents))
            if rounds < 1:
                raise ConfigError("must be at least 1", source="--rounds")
        elif s.rounds is not None:
            raise ConfigError("only for --format swiss", source="--rounds")
        else:
            rounds = 1
        k, g = len(s.agents), s.games_per_pair
        if s.format == "swiss":
            n = rounds * (k // 2) * g * 2
        else:
            n = math.comb(k if s.format == "round-robin" else k - 1, players - (s.format != "round-robin")) * g * players
        if n > MAX_MATCHES:
            raise ConfigError(f"{n} matches ({s.format}, {k} agents, {players} players, {g} game(s) per pairing"
                              f"{f', {rounds} rounds' if s.format == 'swiss' else ''}) is too many: at most "
                              f"{MAX_MATCHES} in one tournament")
        self.config = rs.validate_config(s.overrides)
        if check_agents:
            for a in dict.fromkeys(s.agents):  # a bad spec is named before anything is played
                make_agent(a, s.game).close()
        self.s = s
        self._total = n
        self.players = players
        self.rounds = rounds
        self.settings = {"game": s.game, "agents": list(s.agents), "format": s.format,
                         "games_per_pair": s.games_per_pair, "seed": s.seed, "players": players,
                         "rounds": rounds if s.format == "swiss" else None, "config": self.config,
                         "clock": s.clock}
        self.id = hashlib.sha256(canonical_json(self.settings).encode()).hexdigest()[:24]
        self.out_dir = out_dir
        if os.path.exists(out_dir) and not os.path.isdir(out_dir):
            raise ConfigError(f"{out_dir} is not a folder", source="--out")
        try:
            check_manifest(out_dir, self.settings)
        except OSError as exc:
            raise ConfigError(f"cannot make the tournament folder {out_dir}: {exc.strerror or exc}",
                              source="--out") from None
        self.db = ResultStore(db_url or default_db_url(out_dir))
        self.db.ensure_tournament(self.id, s.game, self.settings)
        self.elo_initial: float | None = None
        if players == 2:
            self.elo_initial = float(self.config.get("rating_initial", ELO_DEFAULT_INITIAL))

    # ---- the bots' check ----------------------------------------------------------------------
    def check_bots(self, decisions: int | None = None) -> list[str]:
        """Check every bot of the tournament before any match is played (issue 28 item 5): each
        distinct spec that is not a built-in bot plays the upload check
        (:func:`botwars.agents.check.load_problem`, ``decisions`` decision points per seat,
        default :data:`~botwars.agents.check.UPLOAD_DECISIONS`, in the sandbox). Returns the
        specs checked. Raises :class:`ConfigError` naming every bot that does not work (cannot
        load, crashes, invalid replies, never answers), with its own file and line where the
        fault has one, e.g. ``bad.py does not work: ... SyntaxError: invalid syntax (bad.py:3)``."""
        from botwars.agents.check import UPLOAD_DECISIONS, load_problem
        checked, problems = [], []
        for spec in dict.fromkeys(self.s.agents):
            if spec.startswith("builtin:"):
                continue
            checked.append(spec)
            problem = load_problem(spec, self.s.game, self.s.overrides,
                                   UPLOAD_DECISIONS if decisions is None else decisions)
            if problem is not None:
                problems.append(f"{spec} does not work: {problem}")
        if problems:
            n = len(problems)
            raise ConfigError(f"{n} bot{'s' if n != 1 else ''} refused before the tournament, no match played: "
                              + "; ".join(problems) + " (check one with `botwars bot check BOT --game "
                              f"{self.s.game}`)")
        return checked

    # ---- schedule ---------------------------------------------------------------------------
    def total(self) -> int:
        """The number of matches the whole tournament plays."""
        return self._total

    def _job(self, f: schedule.Fixture) -> MatchJob:
        return MatchJob(f.match_id, self.s.game, self.config, tuple(self.s.agents[i] for i in f.agents), f.seed,
                        f.round, f.seq, f.game_index, self.s.clock, tuple(self.names[i] for i in f.agents))

    def fixtures(self, round_: int = 0, previous: list[dict[str, Any]] | None = None,
                 met: set[frozenset[int]] | None = None, byes: set[int] | None = None) -> list[schedule.Fixture]:
        """The fixtures of ``round_`` (round-robin and gauntlet: all, in round 0). Swiss pairs
        by the standings of the stored matches of earlier rounds (``previous``), avoiding the
        pairs in ``met`` and giving the bye to an agent not in ``byes`` (both updated here)."""
        specs = self.names
        if self.s.format != "swiss":
            groups = schedule.groups_for(self.s.format, len(specs), self.players)
            return schedule.fixtures_for(self.id, self.s.seed, specs, groups, self.s.games_per_pair)
        met = met if met is not None else set()
        byes = byes if byes is not None else set()
        rows = {r["agent"]: r for r in standings(previous or [], specs)}
        pairs, bye = schedule.swiss_pairs([rows[a]["score"] for a in specs], [rows[a]["rating"] for a in specs],
                                          met, byes)
        met.update(frozenset(p) for p in pairs)
        if bye is not None:
            byes.add(bye)
        return schedule.fixtures_for(self.id, self.s.seed, specs, pairs, self.s.games_per_pair, round_,
                                     swiss=True)

    # ---- running ----------------------------------------------------------------------------
    def run(self, backend: Any, on_match: Callable[[MatchReport, bool], None] | None = None) -> None:
        """Play every match without a stored row on ``backend``, storing each as it finishes;
        ``on_match(report, stored)`` is called after each (``stored`` False: it was stored
        already). ``KeyboardInterrupt`` from the backend propagates; what was stored stays."""
        def done(report: MatchReport) -> None:
            stored = self.db.commit(self.id, report, self.out_dir)
            if on_match:
                on_match(report, stored)

        if self.s.format != "swiss":
            have = self.db.done_ids(self.id)
            backend.run([self._job(f) for f in self.fixtures() if f.match_id not in have], done)
            return
        met: set[frozenset[int]] = set()
        byes: set[int] = set()
        for r in range(self.rounds):
            stored = self.db.matches(self.id)
            previous = [m for m in stored if m["round"] < r]
            fx = self.fixtures(r, previous, met, byes)
            have = {m["match_id"] for m in stored}
            backend.run([self._job(f) for f in fx if f.match_id not in have], done)

    def retry_failed(self) -> int:
        """Forget the stored matches of status ``failed`` (a worker that died on every try, an
        agent that could not be built) so that :meth:`run` plays them again with the same seeds;
        returns how many. A swiss tournament pairs each round by the results of the rounds
        before, so there only failures in the last round played can be retried.
        Raises :class:`ConfigError` when an earlier swiss round holds a failed match."""
        rounds = None
        if self.s.format == "swiss":
            stored = self.db.matches(self.id)
            last = max((m["round"] for m in stored), default=0)
            early = sorted({m["round"] + 1 for m in stored if m["status"] == "failed" and m["round"] < last})
            if early:
                raise ConfigError(f"swiss round(s) {', '.join(map(str, early))} hold failed matches, and later "
                                  f"rounds were paired from their results: only failures of the last round "
                                  f"played ({last + 1}) can be retried", source="--retry-failed")
            rounds = {last}
        return self.db.forget_failed(self.id, self.out_dir, rounds)

    def failed_matches(self) -> list[dict[str, Any]]:
        """The stored matches of status ``failed`` (rows as :meth:`ResultStore.matches` gives them)."""
        return [m for m in self.db.matches(self.id) if m["status"] == "failed"]

    def done_count(self) -> int:
        """Matches stored so far."""
        return len(self.db.done_ids(self.id))

    def standings(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """``(rows, matches)``: the standings (:func:`botwars.league.standings.standings`) and
        the stored matches."""
        matches = self.db.matches(self.id)
        return standings(matches, self.names, self.elo_initial), matches

    def write_standings(self) -> tuple[list[dict[str, Any]], str, str]:
        """Compute the standings and write ``standings.json`` and ``standings.html``."""
        rows, matches = self.standings()
        j, h = write_standings(self.out_dir, rows, matches, self.settings)
        return rows, j, h

    def close(self) -> None:
        self.db.close()
