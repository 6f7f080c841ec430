"""The planned path of a geeko program (issue 13; G-5, G-6): each of the seat's robots runs its
cards alone in the seat's room (the other robot taken off), stage by stage with the rules' own
``simulate_run``, from the seat's own view."""

from __future__ import annotations

from typing import Any

from botwars.engine.codes import RefusalCode
from botwars.engine.errors import InvalidOrders
from botwars.games.factory.plan import read_cards, where


def geeko_plan(rs: Any, view: dict[str, Any], payload: Any) -> list[dict[str, Any]]:
    """``payload``: ``{"A": [...], "B": [...]}`` (each robot's cards so far). Each robot's
    cards run alone in the seat's room (the other robot taken off), stage by stage with the
    rules' own ``simulate_run``. Steps carry ``"robot": "A"`` or ``"B"``."""
    from botwars.games.geeko.bots import room_from_view
    from botwars.games.geeko.state import LETTERS
    if not isinstance(payload, dict):
        raise InvalidOrders("the plan needs an object with 'A' and/or 'B'", code=RefusalCode.MALFORMED)
    run = room_from_view(rs, view)
    steps: list[dict[str, Any]] = []
    for i, letter in enumerate(LETTERS[:len(run.bots)]):
        cards = read_cards(payload.get(letter, []), letter)
        if not cards or not run.bots[i].alive:
            continue
        alone = run.copy()
        for j, b in enumerate(alone.bots):
            if j != i:
                b.sq, b.alive = None, False
        prev = where(alone.bots[i])
        for s in range(1, len(cards) + 1):
            sim = rs.simulate_run(alone, {i: cards}, len(cards), stages=s)
            now = where(sim.bots[i])
            steps.append({"robot": letter, "register": s, "from": prev[0], "to": now[0], "facing": now[1],
                          "alive": now[0] is not None})
            if now[0] is None:
                break
            prev = now
    return steps
