"""Human-readable arena output: the board as text and the result table."""

from __future__ import annotations

from typing import Any

from botwars.games.arena.board import sq_str


def render_board(state: Any) -> str:
    """The board as text, top row first, with X/Y coordinates (R1).

    ``#`` wall, ``1``/``2`` empty spawn point, ``A``/``B`` robot of player 1/2 (lower case when
    under half of ``initial_hp``), ``.`` empty. A robot list with squares and HP follows.
    """
    amap = state.amap
    owner = amap.spawn_owner()
    half = state.config["initial_hp"] / 2
    w = amap.width
    lines = [f"turn {state.turn}/{state.config['max_turns']}"]
    if w <= 99:
        lines.append("    " + "".join(str(x // 10) if x >= 10 else " " for x in range(1, w + 1)))
        lines.append("    " + "".join(str(x % 10) for x in range(1, w + 1)))
    for y in range(amap.height, 0, -1):
        row = []
        for x in range(1, w + 1):
            r = state.robots.get((x, y))
            if r is not None:
                ch = "A" if r[1] == 1 else "B"
                row.append(ch if r[2] >= half else ch.lower())
            elif (x, y) in amap.walls:
                row.append("#")
            elif (x, y) in owner:
                row.append(str(owner[(x, y)]))
            else:
                row.append(".")
        lines.append(f"{y:>3} " + "".join(row))
    for p, letter in ((1, "A"), (2, "B")):
        rs = sorted((sq, r) for sq, r in state.robots.items() if r[1] == p)
        lines.append(f"player {p} ({letter}): {len(rs)} robots, {sum(r[2] for _, r in rs)} HP: "
                     + ", ".join(f"{sq_str(sq)}({r[2]})" for sq, r in rs))
    return "\n".join(lines)


#: why a move failed (the ``why`` of a ``move_failed`` event), in words, with the rule
MOVE_FAILURE = {"wall": "a wall or the edge, R16a", "contested": "another robot moves there too, R16b",
                "swap": "head-on swap, R16c", "blocked": "a robot stays there, R17"}


def _describe(kind: str, d: dict[str, Any]) -> str:
    """One event as a short English line."""
    if kind == "orders":
        errs = ", ".join(f"{e['code']} {e.get('detail', '')}".strip() for e in d.get("errors") or [])
        return f"player {d['player']} ({d['seat']}): {d['orders'] or 'no orders'}" + (f"  [{errs}]" if errs else "")
    if kind == "move":
        return f"robot {d['robot']} moves {d['from']} -> {d['to']}"
    if kind == "move_failed":
        why = MOVE_FAILURE.get(str(d.get("why")))
        return (f"robot {d['robot']} fails to move" + (f" to {d['to']}" if "to" in d else "")
                + f", stays on {d['at']}" + (f" ({why})" if why else ""))
    if kind == "collision":  # rules=robotgame (rgkit's collision damage)
        return f"robot {d['robot']} on {d['at']} collides with robot {d['with']}: -{d['damage']}"
    if kind == "spawn_kill":
        return f"robot {d['robot']} (player {d['player']}) dies on spawn point {d['at']}"
    if kind == "spawn":
        return f"robot {d['robot']} (player {d['player']}) spawns on {d['at']}"
    if kind == "attack":
        if "target" not in d:
            return f"robot {d['robot']} on {d['from']} attacks {d['to']}: miss"
        return f"robot {d['robot']} on {d['from']} hits robot {d['target']} on {d['to']} for {d['damage']}"
    if kind == "blast":
        hits = ", ".join(f"robot {h['robot']} on {h['at']} -{h['damage']}" for h in d["hits"]) or "no one"
        return f"robot {d['robot']} explodes on {d['at']}: {hits}"
    if kind == "removed":
        return f"robot {d['robot']} (player {d['player']}) on {d['at']} removed ({d['cause']}, HP {d['hp']})"
    return f"{kind} {d}"


STEP = {"orders": "orders", "move": "3 move", "move_failed": "3 move", "collision": "3 move", "spawn_kill": "4 spawn",
        "spawn": "4 spawn", "attack": "5 attack", "blast": "6 blast", "removed": "removal"}


def turn_report(before: Any, after: Any, events: list) -> Any:
    """``botwars replay --report``: one turn's events by resolution step (R12), then the board.

    Returns a Rich renderable (a table of events and the board text after the turn).
    """
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"arena turn {after.turn}", title_justify="left")
    t.add_column("step")
    t.add_column("what happened")
    for e in events:
        t.add_row(STEP.get(e.kind, e.kind), _describe(e.kind, e.data))
    if not events:
        t.add_row("", "nothing")
    return Group(t, Text(render_board(after)))
