"""Submarine records seen by one seat, and the referee's record of a finished game.

A record (JSON Lines, :mod:`botwars.engine.record`) holds every seat's orders, the seed and state
digests: it is referee material. A player may only ever be given :func:`filter_record_for_seat`
of it (S-8.6): the server uses this for "download my replay" while a game runs, and the spectator
form (``seat=None``) for public replays. :func:`god_record` exists only for finished games.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.errors import RecordError
from botwars.engine.record import Record, read_record, resimulate


def _load(record: Record | str) -> Record:
    rec = read_record(record) if isinstance(record, str) else record
    if rec.header.get("ruleset") != "submarine":
        raise RecordError(f"{rec.path or 'record'}: not a submarine record")
    return rec


def filter_record_for_seat(record: Record | str, seat: str | None) -> list[dict[str, Any]]:
    """The part of a (possibly unfinished) record that ``seat`` (``None``: a spectator) may see.

    Returns JSON-able line objects:

    - ``{"type": "header", "format", "ruleset", "rules_version", "config", "seats", "you"}`` —
      no seed (S-8.1: the match seed is hidden) and no digests anywhere (a digest of the full state
      could be searched for hidden positions);
    - one ``{"type": "decision", "turn", "events"[, "orders", "errors", "time_s"]}`` per decision
      point that was the seat's own (its own payload, its refused payloads under ``refused``,
      errors and time only) or that produced
      events it receives (in its form, S-12.4). Decision points where only the opponent acted and
      nothing reached the seat (a refused enemy order) are left out entirely, and lines carry no
      global decision numbers, so hidden refusals cannot be counted (S-8.6);
    - once the game is over, ``{"type": "outcome", "winner", "reason", "scores", "final"}`` where
      ``final`` is the S-12.5 final observation (everything revealed, H22).

    Raises :class:`~botwars.engine.errors.RecordError` for an unreadable or non-submarine record.
    """
    from botwars.games.submarine.view import final_observation
    rec = _load(record)
    rs = rec.ruleset
    h = rec.header
    out: list[dict[str, Any]] = [{"type": "header", "format": h.get("format"), "ruleset": h.get("ruleset"),
                                  "rules_version": h.get("rules_version"), "config": h.get("config"),
                                  "seats": h.get("seats"), "you": seat}]
    last_state = None
    for step in resimulate(rec):
        last_state = step.after
        own = seat is not None and seat in rs.pending(step.before)
        evs = [{"type": e.kind, **e.data} for e in step.events if e.visible(seat)]
        if not own and not evs:
            continue
        obj: dict[str, Any] = {"type": "decision", "turn": rs.turn_number(step.before), "events": evs}
        if own:
            obj["orders"] = (step.line.get("orders") or {}).get(seat)
            obj["errors"] = (step.line.get("errors") or {}).get(seat, [])
            obj["time_s"] = (step.line.get("time_s") or {}).get(seat)
            refused = (step.line.get("refused") or {}).get(seat)
            if refused:
                obj["refused"] = refused
        out.append(obj)
    if last_state is not None and last_state.result is not None:
        r = last_state.result
        out.append({"type": "outcome", "winner": r["winner"], "reason": r["reason"], "scores": r["scores"],
                    "final": final_observation(last_state, seat)})
    elif rec.outcome is not None and last_state is not None:
        # ended by the match clock (S-7.8): the result comes from the record, the state is final
        o = rec.outcome
        result = {"winner": o.get("winner") or "draw", "reason": o.get("reason"),
                  "scores": {k: int(v) for k, v in (o.get("scores") or {}).items()}}
        out.append({"type": "outcome", **result, "final": final_observation(last_state, seat, result)})
    return out


def god_record(record: Record | str) -> dict[str, Any]:
    """The referee's view of a finished game: header (with seed), every decision's orders from
    both seats, the full-form history (S-12.5) and the outcome. Raises
    :class:`~botwars.engine.errors.RecordError` if the record has no outcome (a running game)."""
    rec = _load(record)
    if rec.outcome is None:
        raise RecordError(f"{rec.path or 'record'}: the god view exists only for finished games")
    state = None
    for step in resimulate(rec):
        state = step.after
    return {"header": rec.header, "decisions": rec.decisions, "outcome": rec.outcome,
            "history": list(state.history) if state is not None else []}
