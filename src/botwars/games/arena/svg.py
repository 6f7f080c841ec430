"""The arena board as SVG: walls, spawn points, robots with owner colour and HP, and the
last turn's moves, attacks and blasts as highlights."""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event
from botwars.games.arena.board import parse_sq
from botwars.render.palette import seat_colour
from botwars.render.svg import PLAYER_COLOURS, Svg


def arena_svg(state: Any, seat: str | None = None, events: list[Event] | None = None,
              names: dict[str, str] | None = None) -> str:
    """SVG of an arena state (the arena is fully observable, R30: every seat sees everything).

    Robots are ``<g class="robot">`` with ``data-player`` (1, 2), ``data-colour`` (the seat's
    palette word) and their HP in the middle in the colour's ink; player 1's are discs, player
    2's squares. ``names``: optional display names by seat (``p1``, ``p2``), in the tooltips."""
    amap = state.amap
    w, h = amap.width, amap.height
    svg = Svg(w, h, cell=28, title=f"arena turn {state.turn + 1}")
    owner = amap.spawn_owner()
    # the page maps clicks and planned orders to squares with this (docs/web.md)
    svg.add(f'<g class="grid-meta" data-cols="{w}" data-rows="{h}" data-cell="{svg.cell}" '
            f'data-margin="{svg.margin}" data-notation="X:Y"/>')

    def cr(sq):  # X:Y (Y up) -> column/row on screen
        return sq[0] - 1, h - sq[1]

    for y in range(h, 0, -1):
        for x in range(1, w + 1):
            c, r = cr((x, y))
            if (x, y) in amap.walls:
                svg.rect(c, r, "#444", "#333", title=f"{x}:{y} wall")
            elif (x, y) in owner:
                svg.rect(c, r, "#f3f3f3", title=f"{x}:{y}, {seat_colour(owner[(x, y)] - 1).name}'s spawn point: new robots "
                                                 f"appear here on spawn turns, and a robot standing here then dies")
                colour = PLAYER_COLOURS[owner[(x, y)] - 1]
                px, py = svg.xy(c, r)
                svg.add(f'<rect x="{px + 3}" y="{py + 3}" width="{svg.cell - 6}" height="{svg.cell - 6}" '
                        f'fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="3 2"/>')
                # the owner as a number too, not by colour alone (issue 13 item 8)
                svg.add(f'<text class="spawn-owner" x="{px + svg.cell - 5:g}" y="{py + 7:g}" font-size="7" '
                        f'fill="#333" text-anchor="end" dominant-baseline="central" '
                        f'font-family="sans-serif">{owner[(x, y)]}</text>')
            else:
                svg.rect(c, r, "#fbfbfb", title=f"{x}:{y}")
    svg.labels([str(x) for x in range(1, w + 1)], [str(y) for y in range(h, 0, -1)])
    letters: list[tuple[float, float, str, str]] = []  # defend / self-destruct marks, drawn over the robots
    for e in events or []:
        if e.kind == "orders":  # the last turn's orders of each player (R12), drawn as dashed arrows
            letters += _orders(svg, cr, e.data)
        elif e.kind == "move":
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
        pal = seat_colour(p - 1)
        colour = pal.fill
        who = (f"{names[f'p{p}']} ({pal.name})" if names and names.get(f"p{p}") else pal.name)
        svg.open_group("robot", f"{who}'s robot on {sq[0]}:{sq[1]}, {hp} HP",
                       square=f"{sq[0]}:{sq[1]}", player=p, colour=pal.word)
        if p == 2:  # a square for player 2, a disc for player 1: told apart without colour
            px, py = svg.xy(c, r)
            k = svg.cell * (0.1 if hp >= half else 0.2)
            svg.add(f'<rect x="{px + k:g}" y="{py + k:g}" width="{svg.cell - 2 * k:g}" height="{svg.cell - 2 * k:g}" '
                    f'rx="3" fill="{colour}" stroke="#000" stroke-width="0.6"/>')
        else:
            svg.circle(c, r, colour, 0.4 if hp >= half else 0.3)
        cx, cy = svg.centre(c, r)
        # the HP as large as the piece allows (legible on a phone's 16-square board, issue 23), and
        # a bar along the square's foot: the health left at a glance (R7: robots start with initial_hp)
        svg.text(cx, cy, str(hp), 11 if hp < 100 else 10, pal.ink, weight="bold")
        px, py = svg.xy(c, r)
        full = svg.cell - 4
        part = max(1.0, full * min(1.0, hp / max(1, state.config["initial_hp"])))
        svg.add(f'<rect class="hp-bar" x="{px + 2:g}" y="{py + svg.cell - 3.5:g}" width="{full:g}" height="2.5" fill="#ddd"/>'
                f'<rect class="hp-bar" x="{px + 2:g}" y="{py + svg.cell - 3.5:g}" width="{part:g}" height="2.5" '
                f'fill="{"#2ca02c" if hp >= half else "#d62728"}"/>')
        svg.close_group()
    for px, py, act, colour in letters:  # on a white badge over the robot's corner (audit: hidden behind the disc)
        svg.add(f'<circle class="order-mark" cx="{px + svg.cell - 5:g}" cy="{py + 6:g}" r="5" fill="#fff" '
                f'stroke="{colour}" stroke-width="1"/>')
        svg.text(px + svg.cell - 5, py + 6, act, 8, colour, weight="bold")
    return svg.to_string()


_STEP = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


def _orders(svg: Svg, cr: Any, data: dict[str, Any]) -> list[tuple[float, float, str, str]]:
    """Arrows for one player's orders event (``"X:Y-M-D,X:Y-A-D,..."``): moves dashed, attacks
    solid, in the player's colour. Returns the defend and self-destruct orders (R12) as letters
    for the square's corner, ``(x, y, "D" or "S", colour)`` with ``x, y`` the square's top-left
    pixel, which the caller draws over the robots."""
    colour = PLAYER_COLOURS[(int(data.get("player", 1)) - 1) % len(PLAYER_COLOURS)]
    marks: list[tuple[float, float, str, str]] = []
    for tok in str(data.get("orders", "")).split(","):
        parts = tok.split("-")
        if len(parts) < 2 or ":" not in parts[0]:
            continue
        try:
            x, y = (int(v) for v in parts[0].split(":"))
        except ValueError:
            continue
        act, d = parts[1], parts[2] if len(parts) > 2 else ""
        a = cr((x, y))
        if act in ("M", "A") and d in _STEP:
            b = cr((x + _STEP[d][0], y + _STEP[d][1]))
            svg.arrow(a[0], a[1], b[0], b[1], colour, 2 if act == "M" else 3, "4 3" if act == "M" else "",
                      cls=f"last-{'move' if act == 'M' else 'attack'}", shorten=0.3,
                      title=f"player {data.get('player')}: {'move' if act == 'M' else 'attack'} {d} from {x}:{y}")
        elif act in ("D", "S"):
            px, py = svg.xy(a[0], a[1])
            marks.append((px, py, act, colour))
    return marks
