"""A resolved factory or geeko turn stage by stage (issue 14 item 1; F-5.8, F-9.1, G-3.4).

Resolution itself draws nothing (``Ruleset.resolve`` stays as fast as it is). The pictures are
made afterwards by re-simulating the turn from the state before it and the recorded orders
with a frame collector active (:data:`botwars.games.factory.rules.FRAMES`): the stage loop then
draws the board after every sub-step that changed the picture (cards S2, conveyors S3-S4,
pushers S5, gears S6, crushers S7, lasers S8, buzzsaws S9, stage end S10) and after the end of
turn. The re-simulated events must equal the recorded ones, so the pictures belong to the turn
that was played; otherwise :func:`turn_stages` returns ``None``.

Only public facts are drawn (F-14.1: the factory board is public; geeko draws each player's
own room, and each geeko section names the seat whose report it is, G-10.1).
"""

from __future__ import annotations

from typing import Any

from botwars.engine import driver
from botwars.engine.codes import NO_FAILURE_STATED, Receipt
from botwars.engine.events import Event
from botwars.engine.referee import NotAwaited, Referee

TABLES = ("stage", "end", "fused", "result")
"""The event kinds that carry a report table (F-9.3, F-9.8 to F-9.10; G-10)."""

SUBSTEP_LABELS = ("start", "cards", "conveyors", "pushers", "gears", "crushers", "lasers", "buzzsaws",
                  "stage end", "end of turn")
"""Frame labels in the order they can occur within a turn."""

STAGE_WORDS = {
    "start": "before the cards: the board as the register begins",
    "cards": "the program cards move the robots, highest priority first",
    "conveyors": "the conveyor belts carry the robots on them (express belts first)",
    "pushers": "the pushers of this register push",
    "gears": "the gears turn the robots on them",
    "crushers": "the crushers of this register crush",
    "lasers": "the lasers fire, the board's and the robots' at once",
    "buzzsaws": "the buzzsaws cut",
    "stage end": "the register ends: flags, checkpoints and armouries are touched",
    "end of turn": "the end of the turn: repairs, robots back from destruction, reboots",
    "unchanged": "nothing moved in this register: the board as it stood after the previous picture",
}
"""Each frame label (F-5.8's sub-steps S1–S10, F-5.11's end of turn) in a player's words: the
caption of its picture when the page plays the turn (issue 23 item 4)."""


class _Collector:
    """Collects the frames of every resolution context opened while it is active."""

    def __init__(self, draw: Any):
        self.draw = draw
        self.runs: list[tuple[Any, list[dict[str, Any]]]] = []

    def open(self, ctx: Any) -> list[dict[str, Any]]:
        frames: list[dict[str, Any]] = []
        self.runs.append((ctx.st, frames))
        return frames


def _draw(st: Any) -> str:
    from botwars.games.factory.svg import factory_svg
    return factory_svg(st, None, None)


def _section(seat: str | None, e: Event, frames: list[dict[str, Any]]) -> dict[str, Any]:
    d = e.data
    return {"seat": seat, "kind": e.kind, "stage": d.get("stage"), "turn": d.get("turn"),
            "title": str(d.get("header", "")).strip("= ").strip(), "header": d.get("header", ""),
            "rows": d.get("rows", []), "extra": list(d.get("extra", [])),
            "frames": [{"label": f["label"], "caption": STAGE_WORDS.get(f["label"], f["label"]), "svg": f["svg"]}
                       for f in frames]}


def _run_sections(seat: str | None, frames: list[dict[str, Any]], tables: list[Event]) -> list[dict[str, Any]]:
    out = []
    for e in tables:
        if e.kind == "stage":
            s = e.data["stage"]
            mine = [f for f in frames if f["stage"] == s or (s == 1 and f["stage"] == 0)]
            if not mine:  # nothing moved: the board as it stood after the previous picture
                before = [f for f in frames if f["stage"] < s]
                # "unchanged", not "stage end": the page said "nothing moved" for a real stage-end
                # picture too (flags touched); the fallback is its own label (newcomer audit)
                mine = [{"label": "unchanged", "svg": before[-1]["svg"]}] if before else []
            out.append(_section(seat, e, mine))
        elif e.kind == "end":
            mine = [f for f in frames if f["stage"] == 99]
            if not mine and frames:
                mine = [{"label": "end of turn", "svg": frames[-1]["svg"]}]
            out.append(_section(seat, e, mine))
        else:
            out.append(_section(seat, e, []))
    return out


def turn_stages(rs: Any, before: Any, orders: dict[str, Any], events: list[Event]) -> list[dict[str, Any]] | None:
    """The turn resolved from ``before`` with the recorded ``orders`` (seat → the record line's
    payload, ``None``: default orders) as report sections, in report order.

    Each section: ``{"seat": None | seat (geeko: the player whose report it is), "kind":
    "stage" | "end" | "fused" | "result", "stage": s, "turn": t, "title", "header", "rows",
    "extra", "frames": [{"label", "svg"}]}`` where ``frames`` are the board pictures (SVG text)
    after each sub-step of that stage that changed the picture (stage 1 starts with the board
    at the start of the turn; ``end``: after the end of turn). ``rows`` are the F-9.3 table,
    label first. Returns ``None`` when the turn cannot be re-simulated to the recorded
    ``events`` (then nothing would be drawn truthfully)."""
    from botwars.games.factory.rules import FRAMES
    # the turn is played again through the one referee and its driver (submit / fail / resolve), from
    # the position before it, with the frame collector on; nothing here resolves by itself
    ref = Referee(rs, before.config, list(before.seats), 0, clock=False, state=before, history=False)
    try:
        for seat in list(ref.pending()):
            payload = (orders or {}).get(seat)
            if payload is None:
                driver.fail(ref, seat, {"code": NO_FAILURE_STATED, "detail": ""}, 0.0)
            elif ref.submit(seat, payload, 0.0).receipt not in (Receipt.ACCEPTED, Receipt.REPLACED):
                return None
    except NotAwaited:
        return None
    if not ref.ready():
        return None
    coll = _Collector(_draw)
    token = FRAMES.set(coll)
    try:
        again = driver.close_point(ref)
    finally:
        FRAMES.reset(token)
    if [e.to_json() for e in again] != [e.to_json() for e in events]:
        return None
    sections: list[dict[str, Any]] = []
    public = [e for e in events if e.kind in TABLES and e.visible_to is None]
    for st, frames in coll.runs:  # geeko: one run per racing player, its own reports (G-10.1)
        seat = rs.report_seat(st)
        if seat is None:  # factory: one public board and public reports
            sections += _run_sections(None, frames, public)
            public = []
            continue
        mine = [e for e in events if e.kind in TABLES and e.visible_to is not None and seat in e.visible_to]
        sections += _run_sections(seat, frames, mine)
    sections += _run_sections(None, [], public)
    return sections


def _card(x: Any) -> str:
    from botwars.games.factory.cards import CARD_TYPE, card_str
    return card_str(x) if isinstance(x, int) and x in CARD_TYPE else str(x)


def notation(rs: Any, before: Any, seat: str, payload: Any) -> str:
    """A recorded factory or geeko order as move-list text: card names in register order
    (F-2.6 names, ``FWD2 710``), geeko's robots ``A:``/``B:`` (G-16.1), a reboot declaration
    and ``resign``. Raises ``TypeError`` for a payload that is not an order object."""
    if not isinstance(payload, dict):
        raise TypeError("not an order object")
    if payload.get("type") == "resign":
        return "resign"
    parts = []
    if "cards" in payload:
        parts.append(", ".join(_card(x) for x in payload["cards"]) or "no cards")
    for letter in ("A", "B"):
        if letter in payload:
            parts.append(f"{letter}: " + (", ".join(_card(x) for x in payload[letter]) or "-"))
    if "cards" not in payload and not any(k in payload for k in ("A", "B")):
        parts.append("no cards")
    reboot = payload.get("reboot")
    if reboot:
        parts.append("reboot" + (f" {reboot}" if isinstance(reboot, str) else ""))
    if payload.get("standing"):
        parts.append("standing " + ", ".join(f"{k}={v}" for k, v in sorted(payload["standing"].items())))
    return "; ".join(parts)
