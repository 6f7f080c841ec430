"""Human-readable DADOED output: the board with hazards, bots, reserves and the pool (D-2.6)."""

from __future__ import annotations

from typing import Any

from botwars.engine.referee import seat_view


def render_state(rs: Any, state: Any, seat: str | None = None) -> str:
    """The D-2.6 board followed by one line per bot, the reserves, the pool and the result.

    Everything is public (D-12.1), except the other player's supers during setup.
    """
    view = seat_view(rs, state, seat)
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


_WORDS = {
    "move": "{object} moves from {from} to {to}",
    "hole": "a hole opens at {tile} (the tile the walking bot left, D-6.6)",
    "fall": "{object} falls ({tile})",
    "fire_on": "fire starts on {tile}",
    "fire_off": "the fire on {tile} goes out",
    "root": "{bot} is rooted",
    "unroot": "{bot} is no longer rooted",
    "boulder_placed": "a boulder is placed on {tile}",
    "patch": "the hole at {tile} is patched",
    "drop": "{owner} drops {bot} on {tile}",
    "blast": "a blast centred on {centre} hits {tiles}",
    "blasted": "{bot} is blasted off {tile} into {reserve}'s reserve",
    "burn": "{bot} burns on {tile}",
    "rejected": "{player}'s setup is refused (refusal {count})",
    "result": "result: {winner} wins ({reason})",
}


def event_line(kind: str, data: dict[str, Any]) -> str:
    """One event in words for the report (no JSON): the phrases above, lists joined with
    commas, ``off`` for a tile off the board; an unknown kind as ``kind: key value, ...``."""
    vals = {k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else ("off the board" if v == "off" else v)
            for k, v in data.items()}
    if kind == "supers":
        return "supers revealed: " + "; ".join(f"{k}: {v}" for k, v in sorted(vals.items()))
    if kind == "result" and vals.get("winner") is None:
        return f"result: a draw ({vals.get('reason')})"
    try:
        return _WORDS[kind].format(**vals)
    except (KeyError, IndexError):
        return f"{kind.replace('_', ' ')}: " + ", ".join(f"{k} {v}" for k, v in vals.items())


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
        lines.append("  " + event_line(e.kind, e.data))
    lines.append(render_state(rs, after))
    return "\n".join(lines)
