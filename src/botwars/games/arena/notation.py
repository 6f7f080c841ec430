"""Move-list text of recorded arena orders (the replay viewer's moves, issue 14 item 2): the
P5 text notation, ``12:6-M-N,13:12-D``."""

from __future__ import annotations

from typing import Any

from botwars.games.arena.protocol import text_orders


def notation(rs: Any, before: Any, seat: str, payload: Any) -> str:
    """One seat's recorded orders (a P5 text or P12 JSON response) as the P5 tokens of the
    orders the rules accepted from it in ``before`` (P8: a token for a square without the seat's
    robot, or a second one for a robot, is left out), ``idle`` when none was (R11: every robot
    idles). User data (P7) is not shown: it is private to its player (R32). Raises
    :class:`~botwars.engine.errors.InvalidOrders` for a malformed response (P6, P12); the
    caller then shows the payload as recorded."""
    return text_orders(rs.parse_orders(before, seat, payload)) or "idle"
