"""What the seat page's order entry (``entry.js``) needs beyond the view (docs/plugins.md)."""

from __future__ import annotations

from typing import Any

from botwars.games.submarine.state import ACTIONS


def page_helpers(rules: Any, state: Any, seat: str) -> dict[str, Any]:
    """``{"actions": [...]}``: every useful single action of ``seat`` now
    (:meth:`SubmarineRuleset.legal_actions` with ``useful``), each with its ``cost`` in action
    points (S-4.3 table), for the page's AP counter (S-12.2)."""
    return {"actions": [dict(a, cost=ACTIONS.get(a.get("action"), (0, None))[0])
                        for a in rules.legal_actions(state, seat, True)]}
