"""``botwars bot check``: play a bot through matches and name every protocol fault in plain words.

The bot (any agent spec) plays a whole match (or, for the short check, at most ``decisions``
decision points) against a built-in bot of the game, once in each seat (so it sees every observation shape a seat can get: player 1 and
player 2 views), through the real kernel loop (:class:`botwars.engine.Match`, sandbox and time
control on). Every error the match records for the bot's seat is a :class:`Fault`:

- ``timeout``: a late reply (no complete line within the seat's time);
- ``malformed``: an invalid reply (not UTF-8, not JSON, not one line, too long, not the
  game's orders object);
- ``crash`` / ``memory``: the program died, exited, closed its output, or (a Python host) its
  code raised — with the decision and the view's turn and seat, so a crash on one observation
  shape is found;
- any refusal or warning code of the rules (arena: ``no_robot``, ``duplicate``,
  ``user_data_truncated``, ...): an order the rules refuse or cut;
- ``no_exit``: at the end (its input closed) a persistent program did not exit within
  ``exit_s`` seconds.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any

from botwars.agents.spec import make_agent
from botwars.agents.subprocess_agent import close_input
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset

#: plain words for the recorded codes (others are shown as "refused by the rules (CODE)")
WORDS = {
    "timeout": "late reply",
    "malformed": "invalid reply",
    "crash": "crashed",
    "memory": "ran out of memory",
    "no_robot": "order refused by the rules: no robot of yours there",
    "duplicate": "order refused by the rules: a second order for the same robot",
    "user_data_truncated": "user data cut to the allowed length",
    "no_exit": "did not exit at the end",
    "extra_lines": "wrote more than one line per view",
}


@dataclass
class Fault:
    """One protocol fault: ``match`` (1-based), ``seat``, ``decision`` (0: at start, -1: at the
    end), ``code`` (the recorded code), ``words`` (plain words), ``detail`` (what was wrong)."""

    match: int
    seat: str
    decision: int
    code: str
    words: str
    detail: str

    def line(self) -> str:
        when = {0: "at start", -1: "at the end"}.get(self.decision, f"decision {self.decision}")
        return f"match {self.match} (seat {self.seat}), {when}: {self.words} — {self.detail}"


@dataclass
class CheckReport:
    """What :func:`check_bot` found: ``faults`` (empty: the bot passed) and per match
    ``matches`` (``{"seat", "seed", "decisions", "faults"}``)."""

    spec: str
    game: str
    opponent: str
    faults: list[Fault] = field(default_factory=list)
    matches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec, "game": self.game, "opponent": self.opponent, "ok": self.ok,
                "matches": self.matches, "faults": [asdict(f) for f in self.faults]}


def default_opponent(game: str) -> str:
    """``builtin:NAME`` of the game's first built-in bot (alphabetically)."""
    from botwars.engine.plugin import get_game
    bots = sorted(get_game(game).builtin_bots())
    return f"builtin:{bots[0]}"


def check_bot(spec: str, game: str, *, opponent: str | None = None, decisions: int | None = None, seed: int = 1,
              overrides: dict[str, Any] | None = None, exit_s: float = 2.0) -> CheckReport:
    """Play ``spec`` against ``opponent`` (default :func:`default_opponent`) in every seat
    order, each match to its end (``decisions`` ``None``, the default: a fault that starts late
    in a match is found, issue 28 item 5) or for at most ``decisions`` decision points (the
    short check); return the :class:`CheckReport`.

    ``overrides``: match parameters (validated by the game). Raises ``ConfigError`` /
    ``RulesetError`` for an unknown spec, game or parameter (before anything runs).
    """
    rs = get_ruleset(game)
    config = rs.validate_config(overrides or {})
    opponent = opponent or default_opponent(game)
    make_agent(opponent, game).close()  # refuse a bad opponent spec up front
    report = CheckReport(spec, game, opponent)
    seats = rs.seat_names(max(2, rs.min_seats))
    for k, seat in enumerate(seats[:2]):
        other = seats[1 - k] if k < 2 else seats[0]
        agents = {s: make_agent(spec if s == seat else opponent, game) for s in seats}
        n = len(report.faults)
        with tempfile.TemporaryDirectory(prefix="botwars-check-") as tmp:
            path = os.path.join(tmp, "check.jsonl")
            m = Match(rs, copy.deepcopy(config), agents, seed + k, record=path)
            played = _play(m, seat, decisions, report, k + 1, exit_s)
            _from_record(path, seat, report, k + 1)
        report.faults[n:] = sorted(report.faults[n:], key=lambda f: (f.decision < 0, f.decision))
        report.matches.append({"seat": seat, "opponent_seat": other, "seed": seed + k, "decisions": played,
                               "faults": len(report.faults) - n})
    return report


def _play(m: Match, seat: str, decisions: int | None, report: CheckReport, no: int, exit_s: float) -> int:
    m.start_agents()
    for e in m.errors:
        if e["seat"] == seat:
            report.faults.append(Fault(no, seat, 0, e["code"], WORDS.get(e["code"], e["code"]), e["detail"]))
    played = 0
    try:
        while m.outcome() is None and (decisions is None or played < decisions):
            m.step()
            played += 1
        agent = m.agents[seat]
        count = getattr(agent, "count_extra_lines", None)
        if callable(count) and count():
            report.faults.append(Fault(no, seat, -1, "extra_lines", WORDS["extra_lines"],
                                       f"{agent.extra_lines} line(s) after its replies: answer each view "
                                       "with exactly one line (print debugging output to stderr)"))
        proc = getattr(agent, "proc", None)
        if proc is not None and proc.poll() is None:
            if not close_input(proc, exit_s):
                report.faults.append(Fault(no, seat, -1, "no_exit", WORDS["no_exit"],
                                           f"still running {exit_s:g} s after its input was closed "
                                           "(exit when stdin ends)"))
    finally:
        for a in m.agents.values():
            try:
                a.close()
            except Exception:
                pass
        if m.writer:
            m.writer.finish(m.referee.outcome_line() or {})
    return played


def _from_record(path: str, seat: str, report: CheckReport, no: int) -> None:
    """Every error the record lists for ``seat`` (failures, refusals, warnings: P14 and the like)."""
    with open(path, encoding="utf-8") as f:
        for text in f:
            line = json.loads(text)
            if line.get("type") != "decision":
                continue
            for e in (line.get("errors") or {}).get(seat, []):
                code = str(e.get("code", ""))
                words = WORDS.get(code, f"refused by the rules ({code})")
                detail = str(e.get("detail", ""))[:300]
                report.faults.append(Fault(no, seat, int(line.get("n", 0)), code, words,
                                           f"{detail} (turn {line.get('turn')})"))


UPLOAD_DECISIONS = 4
"""Decision points per seat of the short check an upload (and a tournament's bot) passes first."""

#: the recorded codes that mean a bot does not work (refusals by the rules are allowed)
BROKEN = ("crash", "memory", "malformed")


def load_problem(spec: str, game: str, overrides: dict[str, Any] | None = None,
                 decisions: int | None = UPLOAD_DECISIONS) -> str | None:
    """The check a league upload and every bot of a tournament pass before they play (issue 28
    item 5): :func:`check_bot` for ``decisions`` decision points per seat; the first fault that
    means the bot does not work (it cannot be built or loaded, crashes, runs out of memory,
    answers invalid replies, or never answers) as one line naming the bot's own file and line
    where there is one, or ``None`` when it works. Refusals of orders by the rules are allowed.
    Never raises for a bad spec, game or parameter: that is the returned line."""
    from botwars.engine.errors import BotwarsError, ConfigError
    try:
        rep = check_bot(spec, game, decisions=decisions, overrides=overrides)
    except BotwarsError as exc:
        return exc.one_line() if isinstance(exc, ConfigError) else str(exc)
    for f in rep.faults:
        if f.code in BROKEN:
            return f.line()
    played = sum(m["decisions"] for m in rep.matches)
    late = [f for f in rep.faults if f.code == "timeout"]
    if played and len(late) >= played:
        return "never answered: " + late[0].line()
    return None
