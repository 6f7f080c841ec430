"""The factory board as SVG: floor elements with short labels, walls and fences on their edges,
mounted pushers, lasers, blasers and eyes, device states, and the robots (seat colour, facing
arrow, HP; virtual robots hollow).  Only public state is drawn (F-14.1), so every seat and
spectators get the same picture."""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event
from botwars.games.factory.board import DIRS, sq_str
from botwars.render.svg import PLAYER_COLOURS, Svg

_FILL = {".": "#fbfbfb", "PT": "#222", "TD": "#bbb", "DB": "#c9a36b", "TP": "#cde", "CY": "#fff3b0",
         "CB": "#b9d4ff", "G": "#e0e0e0", "CR": "#f4b6b6", "SG": "#c8f0c8", "SR": "#f6c6c6", "BZ": "#f9d9a8",
         "W": "#e8e8ff", "F": "#fff", "UP": "#cfe3ff", "AR": "#ffd6d6"}
_ARROW = {0: "↑", 1: "→", 2: "↓", 3: "←"}


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
    return {"PT": "", ".": "", "BZ": "BZ", "UP": "UP"}.get(kind, kind)


def factory_svg(st: Any, seat: str | None = None, events: list[Event] | None = None) -> str:
    """SVG document (a string) of a factory state."""
    b = st.board
    svg = Svg(b.cols, b.rows, cell=30, title=f"{b.board_id} turn {st.turn}")
    cell = svg.cell

    def cr(sq):  # rRcC (row 1 south) -> screen column/row
        return sq[1] - 1, b.rows - sq[0]

    for sq in b.squares():
        k = b.kind[sq]
        c, r = cr(sq)
        fill = _FILL.get(k[0], "#fff")
        if k[0] == "TD" and st.trapdoors[sq]:
            fill = "#222"
        sw = b.switch_of(sq) if k[0] == "CR" else None
        title = ""
        if sw is not None:  # F-6.24a: a crusher over a switch
            on = "on" if st.switches[sq] else "off"
            title = (f"{sq_str(sq)} crusher stages {''.join(map(str, k[1]))} over switch {sw[0]}{sw[1]} {on}")
        svg.rect(c, r, fill, title=title)
        lab = _label(k, st, sq)
        if lab:
            x, y = svg.centre(c, r)
            svg.text(x, y + cell * 0.28, lab, 8, "#fff" if fill == "#222" else "#333")
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
    for k, bot in enumerate(st.bots):
        if not bot.alive:
            continue
        pl = st.players[bot.owner]
        # a group per robot (issue 14: the replay viewer animates it from square to square)
        svg.open_group("robot", robot=k, square=sq_str(bot.sq), facing=DIRS[bot.facing])
        c, r = cr(bot.sq)
        colour = PLAYER_COLOURS[bot.owner % len(PLAYER_COLOURS)]
        x, y = svg.centre(c, r)
        fill = colour if bot.mode == "real" else "none"
        svg.add(f'<circle cx="{x:g}" cy="{y - 2:g}" r="{cell * 0.3:g}" fill="{fill}" stroke="{colour}" '
                f'stroke-width="2"><title>{pl.name} ({pl.colour}) {sq_str(bot.sq)} {DIRS[bot.facing]} '
                f'{bot.hp} HP {bot.mode}{", reboot" if bot.rebooting else ""}</title></circle>')
        dx, dy = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}[bot.facing]
        svg.add(f'<line x1="{x:g}" y1="{y - 2:g}" x2="{x + dx * cell * 0.42:g}" y2="{y - 2 + dy * cell * 0.42:g}" '
                f'stroke="#000" stroke-width="2"/>')
        svg.text(x, y - 2, str(bot.hp), 8, "#fff" if bot.mode == "real" else colour, weight="bold")
        svg.close_group()
    return svg.to_string()
