"""Records (replays): JSON Lines files that let a match be re-simulated and verified.

Line 1 is the header ``{"type": "header", "format": 1, "ruleset", "rules_version", "config",
"seats": [{"seat", "agent"}], "seed"}``; then one ``{"type": "decision", "n", "turn", "orders",
"errors", "time_s", "clock", "digest"}`` line per decision point (``orders[seat]`` is the payload
the seat submitted, ``null`` when its default orders applied); the last line is
``{"type": "outcome", ...}``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterator

from botwars.engine.errors import InvalidOrders, RecordError
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Ruleset, canonical_json, digest, get_ruleset

FORMAT_VERSION = 1


def decision_digest(ruleset: Ruleset, state: Any, events: list[Event]) -> str:
    """Digest of the state after a decision point and of its events."""
    return digest({"state": ruleset.state_json(state), "events": [e.to_json() for e in events]})


class RecordWriter:
    """Writes a record as the match goes (flushed after every line)."""

    def __init__(self, path: str, ruleset: Ruleset, config: dict[str, Any], seats: list[tuple[str, str]],
                 seed: int):
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        self.f = open(path, "w", encoding="utf-8", newline="\n")
        self._write({"type": "header", "format": FORMAT_VERSION, "ruleset": ruleset.id,
                     "rules_version": ruleset.rules_version, "config": config,
                     "seats": [{"seat": s, "agent": a} for s, a in seats], "seed": seed})

    def _write(self, obj: dict[str, Any]) -> None:
        self.f.write(canonical_json(obj) + "\n")
        self.f.flush()

    def decision(self, n: int, turn: int, orders: dict[str, Any], errors: dict[str, list], time_s: dict[str, float],
                 clock: dict[str, str], dig: str | None) -> None:
        self._write({"type": "decision", "n": n, "turn": turn, "orders": orders, "errors": errors,
                     "time_s": time_s, "clock": clock, "digest": dig})

    def finish(self, outcome: Outcome, turns: int) -> None:
        self._write({"type": "outcome", "turns": turns, **outcome.to_json()})
        self.f.close()


@dataclass
class Record:
    """A parsed record file."""

    header: dict[str, Any]
    decisions: list[dict[str, Any]]
    outcome: dict[str, Any] | None
    path: str = ""
    seats: list[str] = field(default_factory=list)

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.header["ruleset"])


def read_record(path: str) -> Record:
    """Parse a record file; raises :class:`RecordError` naming the line at fault."""
    try:
        f = open(path, encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror}") from None
    header = None
    decisions: list[dict[str, Any]] = []
    outcome = None
    with f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RecordError(f"{path}:{i}: not JSON: {exc.msg}") from None
            kind = obj.get("type") if isinstance(obj, dict) else None
            if i == 1:
                if kind != "header":
                    raise RecordError(f"{path}:1: first line must be the header")
                if obj.get("format") != FORMAT_VERSION:
                    raise RecordError(f"{path}:1: unsupported record format {obj.get('format')!r}")
                header = obj
            elif kind == "decision":
                decisions.append(obj)
            elif kind == "outcome":
                outcome = obj
            else:
                raise RecordError(f"{path}:{i}: unknown line type {kind!r}")
    if header is None:
        raise RecordError(f"{path}: empty record")
    seats = [s["seat"] for s in header.get("seats", [])]
    return Record(header, decisions, outcome, path, seats)


@dataclass
class Replayed:
    """One re-simulated decision point: the state before and after, and its events."""

    n: int
    turn: int
    before: Any
    after: Any
    events: list[Event]
    line: dict[str, Any]


def resimulate(rec: Record) -> Iterator[Replayed]:
    """Re-simulate a record decision by decision (no clocks: the record says who timed out)."""
    rs = rec.ruleset
    state = rs.setup(rec.header["config"], rec.seats, rec.header["seed"])
    for line in rec.decisions:
        orders = {}
        forced = False
        for seat in rs.pending(state):
            payload = line.get("orders", {}).get(seat)
            errs = line.get("errors", {}).get(seat) or []
            fatal = any(e.get("code") in ("timeout", "crash", "memory") for e in errs)
            if line.get("clock", {}).get(seat) == "expired" and rs.time_control(rec.header["config"]).on_expiry == "loss":
                forced = True
            if payload is None and (fatal or seat not in line.get("orders", {})):
                orders[seat] = rs.default_orders(state, seat)
                continue
            try:
                orders[seat] = rs.parse_orders(state, seat, payload)
            except InvalidOrders as exc:
                orders[seat] = rs.rejected_orders(state, seat, exc)
        if forced:
            yield Replayed(line["n"], line.get("turn", 0), state, state, [], line)
            return
        new_state, events = rs.resolve(state, orders)
        yield Replayed(line["n"], line.get("turn", 0), state, new_state, events, line)
        state = new_state


def verify_record(rec: Record) -> tuple[bool, str]:
    """Re-simulate and compare digests; returns (ok, message naming the first divergence)."""
    rs = rec.ruleset
    last = None
    count = 0
    for step in resimulate(rec):
        count += 1
        want = step.line.get("digest")
        if want is None:
            continue
        got = decision_digest(rs, step.after, step.events)
        if got != want:
            return False, (f"diverges at decision point {step.n} (turn {step.turn}): "
                           f"recorded digest {want}, re-simulated {got}")
        last = step
    if count != len(rec.decisions):
        return False, f"diverges at decision point {count + 1}: the game had already ended"
    if rec.outcome is not None and last is not None:
        out = rs.outcome(last.after)
        if out is not None:
            if out.winner != rec.outcome.get("winner") or out.reason != rec.outcome.get("reason"):
                return False, (f"outcome differs: recorded {rec.outcome.get('winner')!r} ({rec.outcome.get('reason')}), "
                               f"re-simulated {out.winner!r} ({out.reason})")
    return True, f"{len(rec.decisions)} decision points verified"
