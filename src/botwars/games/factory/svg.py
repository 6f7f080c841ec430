"""The factory board as SVG: floor elements with short labels, walls and fences on their edges,
mounted pushers, lasers, blasers and eyes, device states, and the robots (seat colour, facing
arrow, HP; virtual robots hollow).  Only public state is drawn (F-14.1), so every seat and
spectators get the same picture."""

from __future__ import annotations

from html import escape
from typing import Any

from botwars.engine.events import Event
from botwars.games.factory.board import DIRS, sq_str
from botwars.render.svg import PLAYER_COLOURS, Svg

_FILL = {".": "#fbfbfb", "PT": "#222", "TD": "#bbb", "DB": "#c9a36b", "TP": "#cde", "CY": "#fff3b0",
         "CB": "#b9d4ff", "G": "#e0e0e0", "CR": "#f4b6b6", "SG": "#c8f0c8", "SR": "#f6c6c6", "BZ": "#f9d9a8",
         "W": "#e8e8ff", "F": "#fff", "UP": "#cfe3ff", "AR": "#ffd6d6"}
_ARROW = {0: "↑", 1: "→", 2: "↓", 3: "←"}
_DIRNAME = {0: "north", 1: "east", 2: "south", 3: "west"}


def describe_square(k: tuple, st: Any, sq: tuple[int, int]) -> str:
    """A square's floor in plain words for its tooltip (F-3 table; geeko gates G-2.1)."""
    kind = k[0]
    here = sq_str(sq)
    if kind == "CY":
        return f"{here}: yellow conveyor moving robots 1 square {_DIRNAME[k[1]]} (stages 3-4)"
    if kind == "CB":
        return f"{here}: blue express conveyor moving robots {_DIRNAME[k[1]]} (stages 3-4)"
    if kind == "G":
        return f"{here}: gear turning robots " + {"L": "left 90°", "R": "right 90°", "U": "180°"}[k[1]]
    if kind == "F":
        return f"{here}: flag {k[1]} (touch the flags in order to win)"
    if kind == "PT":
        return f"{here}: pit (a robot entering it is destroyed)"
    if kind == "TD":
        return f"{here}: trap door, now {'open (a pit)' if st.trapdoors[sq] else 'closed (floor)'}"
    if kind == "DB":
        return f"{here}: drawbridge, now {'lowered (floor)' if st.bridges[sq] == 'lowered' else 'raised (a pit except from its bridge side)'}"
    if kind == "TP":
        return f"{here}: teleporter {k[1]}, {'active' if st.teleporters[k[1]] else 'inactive'}"
    if kind in ("SG", "SR"):
        what = "green pressure switch" if kind == "SG" else "red toggle switch"
        return f"{here}: {what}, now {'on' if st.switches[sq] else 'off'}"
    if kind == "CR":
        return f"{here}: crusher: destroys robots on it in stages {', '.join(map(str, k[1]))}"
    if kind == "BZ":
        return f"{here}: buzzsaw (may damage a robot on it)"
    if kind == "W":
        return f"{here}: wrench x{k[1]} (repairs and sets the checkpoint)"
    if kind == "UP":
        return f"{here}: upgrade station"
    if kind == "AR":
        return f"{here}: armoury holding option {k[1]}"
    if kind == "GT":
        return f"{here}: gate, now {'OPEN: exit the room here' if _gate_open(st, sq, k) else 'CLOSED'}"
    return f"{here}: floor"


def _gate_open(st: Any, sq: tuple[int, int], k: tuple) -> bool:
    gates = getattr(st, "gates", None) or {}
    return bool(gates.get(sq, k[2] if len(k) > 2 else True))


def _label(k: tuple, st: Any, sq: tuple[int, int]) -> str:
    kind = k[0]
    if kind in ("CY", "CB"):
        return _ARROW[k[1]]
    if kind == "G":
        return {"L": "↺", "R": "↻", "U": "⟲"}[k[1]]
    if kind == "F":
        return f"F{k[1]}"
    if kind == "TP":
        return k[1] + ("" if st.teleporters[k[1]] else "·")
    if kind == "TD":
        return "TD" + ("+" if st.trapdoors[sq] else "-")
    if kind == "DB":
        return "DB" + ("v" if st.bridges[sq] else DIRS[k[1]])
    if kind in ("SG", "SR"):
        return kind + ("+" if st.switches[sq] else "")
    if kind == "CR":
        return "CR" + "".join(map(str, k[1]))
    if kind == "W":
        return "W" * k[1]
    if kind == "AR":
        return k[1]
    if kind == "GT":
        return "OPEN" if _gate_open(st, sq, k) else "SHUT"
    return {"PT": "", ".": "", "BZ": "BZ", "UP": "UP"}.get(kind, kind)


def factory_svg(st: Any, seat: str | None = None, events: list[Event] | None = None) -> str:
    """SVG document (a string) of a factory state."""
    b = st.board
    svg = Svg(b.cols, b.rows, cell=30, title=f"{b.board_id} turn {st.turn + 1}")
    cell = svg.cell
    # the page maps clicks and planned orders to squares with this (docs/web.md)
    svg.add(f'<g class="grid-meta" data-cols="{b.cols}" data-rows="{b.rows}" data-cell="{cell}" '
            f'data-margin="{svg.margin}" data-notation="rRcC"/>')

    def cr(sq):  # rRcC (row 1 south) -> screen column/row
        return sq[1] - 1, b.rows - sq[0]

    for sq in b.squares():
        k = b.kind[sq]
        c, r = cr(sq)
        fill = _FILL.get(k[0], "#fff")
        if k[0] == "TD" and st.trapdoors[sq]:
            fill = "#222"
        gate = k[0] == "GT"
        if gate:  # G-2.1: an open gate is a green way out, a closed one dark bars
            fill = "#2ca02c" if _gate_open(st, sq, k) else "#444"
        sw = b.switch_of(sq) if k[0] == "CR" else None
        title = describe_square(k, st, sq)
        if sw is not None:  # F-6.24a: a crusher over a switch
            on = "on" if st.switches[sq] else "off"
            title = (f"{sq_str(sq)} crusher stages {''.join(map(str, k[1]))} over switch {sw[0]}{sw[1]} {on}")
        svg.rect(c, r, fill, title=title)
        if gate and not _gate_open(st, sq, k):
            gx, gy = svg.xy(c, r)
            for i in (0.25, 0.5, 0.75):
                svg.add(f'<line x1="{gx + cell * i:g}" y1="{gy:g}" x2="{gx + cell * i:g}" y2="{gy + cell:g}" '
                        f'stroke="#ddd" stroke-width="2"/>')
        lab = _label(k, st, sq)
        if lab:
            x, y = svg.centre(c, r)
            svg.text(x, y + cell * 0.28, lab, 8, "#fff" if fill in ("#222", "#444", "#2ca02c") else "#333")
        if sw is not None:  # the switch and its state at the top of the square, coloured as SG/SR
            x, y = svg.centre(c, r)
            svg.text(x, y - cell * 0.3, sw[0] + ("+" if st.switches[sq] else ""), 7,
                     "#1a7f1a" if sw[0] == "SG" else "#b22222", weight="bold")
    # edges: walls and fences, drawn once per internal edge (N and E sides) plus the perimeter
    for sq in b.squares():
        c, r = cr(sq)
        x, y = svg.xy(c, r)
        for d in range(4):
            e = b.edges[(sq[0], sq[1], d)]
            if e in ("open", "void"):
                continue
            x1, y1, x2, y2 = {0: (x, y, x + cell, y), 1: (x + cell, y, x + cell, y + cell),
                              2: (x, y + cell, x + cell, y + cell), 3: (x, y, x, y + cell)}[d]
            colour, width, dash = ("#000", 3, "") if e == "wall" else ("#e6a400", 2, "4 2")
            svg.add(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{colour}" '
                    f'stroke-width="{width}"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")

    def mount(sq, d, colour, title):
        c, r = cr(sq)
        x, y = svg.centre(c, r)
        dx, dy = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}[d]
        mx, my = x + dx * cell * 0.38, y + dy * cell * 0.38
        svg.add(f'<circle cx="{mx:g}" cy="{my:g}" r="3.5" fill="{colour}"><title>{title}</title></circle>')

    for sq, (d, regs) in sorted(b.pushers.items()):
        mount(sq, d, "#7b3294", f"pusher {sq_str(sq)} {DIRS[d]} stages {''.join(map(str, sorted(regs)))}")
    for sq, d, n in b.turrets:
        mount(sq, d, "#d62728", f"laser {sq_str(sq)} {DIRS[d]} x{n}")
    for key, (ch, _) in sorted(b.blasers.items()):
        on = st.blasers[key]
        mount((key[0], key[1]), key[2], "#ff7f0e" if on else "#ccc", f"blaser ch{ch} {'on' if on else 'off'}")
    for key, ch in sorted(b.eyes.items()):
        on = st.eyes[key]
        mount((key[0], key[1]), key[2], "#2ca02c" if on else "#9c9", f"eye ch{ch} {'on' if on else 'off'}")
    svg.labels([f"c{c}" for c in range(1, b.cols + 1)], [f"r{r}" for r in range(b.rows, 0, -1)])
    _flags(svg, st, cr)
    alive = [(k, bot) for k, bot in enumerate(st.bots) if bot.alive and bot.sq is not None]
    share: dict[Any, list[Any]] = {}
    for _, bot in alive:
        share.setdefault(bot.sq, []).append(bot)
    for k, bot in alive:
        pl = st.players[bot.owner]
        c, r = cr(bot.sq)
        colour = PLAYER_COLOURS[bot.owner % len(PLAYER_COLOURS)]
        x, y = svg.centre(c, r)
        mates = share[bot.sq]
        rad = cell * 0.3
        if len(mates) > 1:  # robots sharing a square (virtual robots, F-6.5): side by side, each its own ring
            i = mates.index(bot)
            x += (i - (len(mates) - 1) / 2) * cell * 0.42
            rad = cell * 0.22
        fill = colour if bot.mode == "real" else "#fff"
        letter = getattr(bot, "letter", None)
        who = f"robot {letter} of {pl.name}" if letter else f"{pl.name}'s robot"
        # data-robot: the robot's index, the same in every picture of a match (the replay viewer
        # animates it from square to square, issue 14); data-letter: geeko's A / B (G-16.1)
        data = (f' data-robot="{k}" data-square="{sq_str(bot.sq)}" data-facing="{DIRS[bot.facing]}"'
                f' data-owner="{escape(pl.name)}"' + (f' data-letter="{letter}"' if letter else ""))
        svg.add(f'<g class="robot"{data}><title>{escape(who)} ({pl.colour}) on {sq_str(bot.sq)}, facing '
                f'{_DIRNAME[bot.facing]}, {bot.hp} HP, {"real" if bot.mode == "real" else "virtual (passes through robots)"}'
                f'{", rebooting" if bot.rebooting else ""}</title>'
                f'<circle cx="{x:g}" cy="{y - 2:g}" r="{rad:g}" fill="{fill}" stroke="{colour}" stroke-width="2.5"'
                + ('' if bot.mode == "real" else ' stroke-dasharray="3 2"') + '/>')
        dx, dy = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}[bot.facing]
        svg.add(f'<line x1="{x:g}" y1="{y - 2:g}" x2="{x + dx * (rad + cell * 0.12):g}" y2="{y - 2 + dy * (rad + cell * 0.12):g}" '
                f'stroke="#000" stroke-width="2"/>')
        svg.text(x, y - 2, letter or str(bot.hp), 9 if letter else 8, "#fff" if bot.mode == "real" else colour, weight="bold")
        svg.add("</g>")
    return svg.to_string()


def _flags(svg: Svg, st: Any, cr: Any) -> None:
    """Each player's next flag: a small ring in the player's colour in the flag square's corner
    (F-7: flags are touched in order; the touched ones are listed in the tooltip)."""
    b = st.board
    flags = {k[1]: sq for sq, k in b.kind.items() if k[0] == "F"}
    players = getattr(st, "players", None) or []
    for i, pl in enumerate(players):
        nxt = getattr(pl, "next_flag", None)
        if nxt is None or nxt not in flags or getattr(pl, "out", False):
            continue
        c, r = cr(flags[nxt])
        x, y = svg.xy(c, r)
        colour = PLAYER_COLOURS[i % len(PLAYER_COLOURS)]
        off = 5 + 7 * i
        svg.add(f'<g class="next-flag" data-owner="{escape(pl.name)}"><title>next flag of {escape(pl.name)}: '
                f'F{nxt}</title><circle cx="{x + off:g}" cy="{y + 5:g}" r="3.5" fill="{colour}" stroke="#000" '
                f'stroke-width="0.8"/><text x="{x + off:g}" y="{y + 5:g}" font-size="5" fill="#fff" '
                f'text-anchor="middle" dominant-baseline="central" font-family="sans-serif" '
                f'font-weight="bold">{i + 1}</text></g>')  # the seat number, not the colour alone
