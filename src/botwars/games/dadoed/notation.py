"""Move-list text of recorded dadoed orders (issue 14 item 2): the D-2.5 notation."""

from __future__ import annotations

from typing import Any


def notation(rs: Any, before: Any, seat: str, payload: Any) -> str:
    """A recorded order in D-2.5 notation (``east_3 F1 East 3``, ``super B: ... + ...``); a
    setup as ``supers A: charge + spread_fire, ...``; ``resign``. Raises
    :class:`~botwars.engine.errors.InvalidOrders` when ``payload`` is no order in ``before``."""
    from botwars.games.dadoed.engine import order_text
    if isinstance(payload, dict) and payload.get("type") == "setup":
        sup = payload.get("supers") or {}
        return "supers " + ", ".join(f"{k}: {' + '.join(map(str, v))}" for k, v in sorted(sup.items()))
    order = rs.parse_orders(before, seat, payload)
    if order.kind in ("command", "super"):
        return str(order_text(before, order))
    return str(order.kind)
