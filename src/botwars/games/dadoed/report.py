"""Human-readable DADOED output: the board with hazards, bots, reserves and the pool (D-2.6)."""

from __future__ import annotations

import json
from typing import Any



def render_state(rs: Any, state: Any, seat: str | None = None) -> str:
    """The D-2.6 board followed by one line per bot, the reserves, the pool and the result.

    Everything is public (D-12.1), except the other player's supers during setup.
    """
    view = rs.view(state, seat)
    lines = list(view["board"])
    if view["phase"] == "setup":
        lines.append("setup: supers being submitted")
    elif view["phase"] == "play":
        lines.append(f"turn {view['turn']}/{view['max_turns']}, {view['active']} to move"
                     + ("" if view["super_allowed"] else " (no supers this turn)"))
    for lb, b in view["bots"].items():
        where = b["tile"] or f"{b['owner']} reserve"
        sup = " + ".join(b["super"]) if b["super"] else "-"
        lines.append(f"  {lb} {b['owner']:<6} {where:<14}{' rooted' if b['rooted'] else '       '}  super {sup}")
    lines.append("reserves: " + ", ".join(f"{p} [{' '.join(v) or '-'}]" for p, v in view["reserves"].items()))
    pool = []
    for cid, c in view["pool"].items():
        pool.append(f"{cid} {'inf' if c['left'] is None else c['left']}/{'inf' if c['copies'] is None else c['copies']}")
    lines.append("pool: " + ", ".join(pool))
    lines.append(f"gold refreshes: {view['gold_refreshes']}")
    if view["result"]:
        lines.append(f"result: {view['result']['winner']} ({view['result']['reason']})")
    return "\n".join(lines)


def report(rs: Any, before: Any, after: Any, events: list) -> str:
    """One decision: who ordered what, the events, then the board after it."""
    if before.phase == "setup":
        head = "setup"
    elif before.phase == "ending":
        head = f"end of turn {before.turn}"
    else:
        head = f"turn {before.turn + 1} ({before.active})"
    order = after.log[-1]["order"] if len(after.log) > len(before.log) else "(no order executed)"
    lines = [f"{head}: {order}"]
    for e in events:
        lines.append("  " + json.dumps({"type": e.kind, **e.data}))
    lines.append(render_state(rs, after))
    return "\n".join(lines)
