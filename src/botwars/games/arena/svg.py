"""The arena board as SVG: walls, spawn points, robots with owner colour and HP, and the
last turn's moves, attacks and blasts as highlights."""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event
from botwars.games.arena.board import parse_sq
from botwars.render.svg import PLAYER_COLOURS, Svg


def arena_svg(state: Any, seat: str | None = None, events: list[Event] | None = None) -> str:
    """SVG of an arena state (the arena is fully observable, R30: every seat sees everything)."""
    amap = state.amap
    w, h = amap.width, amap.height
    svg = Svg(w, h, cell=28, title=f"arena turn {state.turn}")
    owner = amap.spawn_owner()

    def cr(sq):  # X:Y (Y up) -> column/row on screen
        return sq[0] - 1, h - sq[1]

    for y in range(h, 0, -1):
        for x in range(1, w + 1):
            c, r = cr((x, y))
            if (x, y) in amap.walls:
                svg.rect(c, r, "#444", "#333")
            elif (x, y) in owner:
                svg.rect(c, r, "#f3f3f3")
                colour = PLAYER_COLOURS[owner[(x, y)] - 1]
                px, py = svg.xy(c, r)
                svg.add(f'<rect x="{px + 3}" y="{py + 3}" width="{svg.cell - 6}" height="{svg.cell - 6}" '
                        f'fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="3 2"/>')
            else:
                svg.rect(c, r, "#fbfbfb")
    svg.labels([str(x) for x in range(1, w + 1)], [str(y) for y in range(h, 0, -1)])
    for e in events or []:
        if e.kind == "move":
            a, b = cr(parse_sq(e.data["from"])), cr(parse_sq(e.data["to"]))
            svg.line(a[0], a[1], b[0], b[1], "#888", 2, "3 2")
        elif e.kind == "attack":
            a, b = cr(parse_sq(e.data["from"])), cr(parse_sq(e.data["to"]))
            svg.line(a[0], a[1], b[0], b[1], "#e6550d" if e.data.get("damage") else "#fdae6b", 3)
        elif e.kind == "blast":
            c, r = cr(parse_sq(e.data["at"]))
            x, y = svg.xy(c - 1, r - 1)
            svg.add(f'<rect x="{x}" y="{y}" width="{svg.cell * 3}" height="{svg.cell * 3}" fill="#fd8d3c" '
                    f'fill-opacity="0.25" stroke="#e6550d"/>')
    half = state.config["initial_hp"] / 2
    for sq, (rid, p, hp) in sorted(state.robots.items()):
        c, r = cr(sq)
        colour = PLAYER_COLOURS[p - 1]
        svg.circle(c, r, colour, 0.4 if hp >= half else 0.3, title=f"robot {rid} of player {p} at {sq[0]}:{sq[1]}, {hp} HP")
        cx, cy = svg.centre(c, r)
        svg.text(cx, cy, str(hp), 9, "#fff", weight="bold")
    return svg.to_string()
