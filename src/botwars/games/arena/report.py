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
