"""The factory board as SVG: every floor element, wall, fence and mount drawn as a symbol
(:mod:`.symbols`: conveyor arrows with their bends, gears with their turn, crushers and pushers
with their registers, lasers with their beams...), the robots (a disc in the seat's colour from
the palette, HP in the middle, a pointer for the facing, an optional name below) and each
player's next flag as a pennant. Only public state is drawn (F-14.1), so every seat and
spectators get the same picture. :func:`legend_svg` draws the legend from the same symbols."""

from __future__ import annotations

import re
import textwrap
from html import escape
from typing import Any

from botwars.engine.events import Event
from botwars.games.factory import symbols as sym
from botwars.games.factory.board import DELTA, DIRS, sq_str
from botwars.render.palette import SEAT_WORDS, SeatColour, colour_named, seat_colour
from botwars.render.svg import Svg

_DIRNAME = {0: "north", 1: "east", 2: "south", 3: "west"}
_EL_RE = re.compile(r'data-el="([a-z-]+)"')


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
        return f"{here}: drawbridge, now {'lowered (floor)' if st.bridges[sq] else 'raised (a pit except from its bridge side)'}"
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


def _conveyor_entries(b: Any, sq: tuple[int, int], d: int) -> tuple[int, ...]:
    """The sides from which conveyors carry robots onto conveyor ``sq`` (arrow ``d``) when one of
    them is a side (F-6.21: the robot turns); ``()`` for a straight belt."""
    feeders = []
    for s in range(4):
        nb = (sq[0] + DELTA[s][0], sq[1] + DELTA[s][1])
        k = b.kind.get(nb)
        if k and k[0] in ("CY", "CB") and k[1] == (s + 2) % 4 and b.edges.get((sq[0], sq[1], s)) == "open":
            feeders.append(s)
    ents = tuple(s for s in feeders if s != d)
    return ents if any(s != (d + 2) % 4 for s in ents) else ()


_DEVICE_WORDS = {"TD": "trap door", "DB": "drawbridge", "TP": "teleporter", "GT": "gate", "blaser": "blaser",
                 "SG": "green switch", "SR": "red switch", "eye": "electric eye"}


def _channel_of(k: tuple, b: Any, sq: tuple[int, int]) -> int | None:
    """The channel of the switch or device on ``sq`` (F-3.7; geeko gates G-2.2), else ``None``."""
    sw = b.switch_of(sq)
    if sw is not None:
        return sw[1]
    if k[0] == "TD":
        return k[1]
    if k[0] in ("DB", "TP") or (k[0] == "GT" and len(k) > 1):
        ch = k[2] if k[0] in ("DB", "TP") else k[1]
        return ch if isinstance(ch, int) else None
    return None


def _channel_words(b: Any, ch: int, switch: bool) -> str:
    """What channel ``ch`` links, in words: for a switch the devices it flips ("flips the gate on
    r1c4"), for a device what flips it ("flipped by the green switch on r3c2")."""
    members = b._cache.get("channel-members")
    if members is None:
        members = b._cache["channel-members"] = b.channel_members()
    side = members[1 if switch else 0].get(ch, [])
    said = [f"the {_DEVICE_WORDS.get(kind, kind)} on {sq_str(at)}" for kind, at in side]
    if not said:
        return "nothing on this board" if switch else "no switch on this board"
    return ("flips " if switch else "flipped by ") + ", ".join(said)


def floor_symbol(k: tuple, st: Any, sq: tuple[int, int], x: float, y: float, cell: float) -> str:
    """The symbol of square ``sq``'s floor (kind ``k``) in its current state, or ``""`` for open
    floor (:mod:`.symbols`); a switch or a device on a channel carries its channel's number
    (:func:`.symbols.channel_tag`, F-3.7)."""
    out = _floor_symbol(k, st, sq, x, y, cell)
    ch = _channel_of(k, st.board, sq)
    if out and ch is not None:
        out += sym.channel_tag(x, y, cell, ch, _channel_words(st.board, ch, st.board.switch_of(sq) is not None))
    return out


def _floor_symbol(k: tuple, st: Any, sq: tuple[int, int], x: float, y: float, cell: float) -> str:
    kind = k[0]
    here = f"{sq_str(sq)}: "
    b = st.board
    if kind in ("CY", "CB"):
        return sym.conveyor(x, y, cell, k[1], kind == "CB", _conveyor_entries(b, sq, k[1]), here)
    if kind == "G":
        return sym.gear(x, y, cell, k[1], here)
    if kind == "PT":
        return sym.pit(x, y, cell, here)
    if kind == "TD":
        return sym.trapdoor(x, y, cell, bool(st.trapdoors[sq]), here)
    if kind == "DB":
        return sym.drawbridge(x, y, cell, k[1], bool(st.bridges[sq]), here)
    if kind == "TP":
        return sym.teleporter(x, y, cell, k[1], bool(st.teleporters[k[1]]), here)
    if kind in ("SG", "SR"):
        return sym.switch(x, y, cell, kind, bool(st.switches[sq]), here)
    if kind == "CR":
        out = sym.crusher(x, y, cell, k[1], here)
        sw = b.switch_of(sq)
        if sw is not None:  # F-6.24a: a crusher over a switch
            out += sym.switch(x, y, cell, sw[0], bool(st.switches[sq]), here, top=True)
        return out
    if kind == "BZ":
        return sym.buzzsaw(x, y, cell, here)
    if kind == "W":
        return sym.wrench(x, y, cell, k[1], here)
    if kind == "F":
        return sym.flag(x, y, cell, k[1], here)
    if kind == "UP":
        return sym.upgrade(x, y, cell, here)
    if kind == "AR":
        return sym.armoury(x, y, cell, k[1], here)
    if kind == "GT":
        return sym.gate(x, y, cell, _gate_open(st, sq, k), here)
    return ""


def _beam_squares(b: Any, sq: tuple[int, int], d: int) -> list[tuple[int, int]]:
    """The squares a board laser mounted on side ``d`` of ``sq`` covers, walls and fences
    stopping it, robots ignored (F-6.25, F-3.9: "covers r11c12..r11c9")."""
    fire = (d + 2) % 4
    out = [sq]
    cur = sq
    while b.edges.get((cur[0], cur[1], fire)) == "open":
        cur = (cur[0] + DELTA[fire][0], cur[1] + DELTA[fire][1])
        if not b.on_board(cur):
            break
        out.append(cur)
    return out


def elements_on(st: Any) -> list[str]:
    """The names (:data:`symbols.ELEMENTS` keys) of the elements the drawing of ``st`` shows, in
    the legend's order."""
    b = st.board
    found: set[str] = set()
    for sq in b.squares():
        body = floor_symbol(b.kind[sq], st, sq, 0, 0, 30)
        found.update(_EL_RE.findall(body))
    edges = set(b.edges.values())
    found.update(e for e in ("wall", "fence") if e in edges)
    if b.pushers:
        found.add("pusher")
    if b.turrets:
        found.add("laser")
    if b.blasers:
        found.add("blaser")
    if b.eyes:
        found.add("eye")
    if any(bot.alive and bot.sq is not None for bot in st.bots):
        found.add("robot")
    if _next_flags(st):
        found.add("next-flag")
    return [name for name in sym.ELEMENTS if name in found]


def armoury_options(st: Any) -> list[str]:
    """The option codes (F-6.33) the armouries of ``st``'s board hold, sorted, each once."""
    b = st.board
    return sorted({b.kind[sq][1] for sq in b.squares() if b.kind[sq][0] == "AR"})


def legend_svg(st: Any, names: list[str] | None = None) -> str:
    """The legend of ``st``'s drawing as an SVG document: one row per element shown on the board
    (:func:`elements_on`, or the given ``names``), its symbol drawn by the same function as on
    the board, then its meaning in words."""
    names = elements_on(st) if names is None else names
    cell, width, line = 30, 520, 13
    rows: list[tuple[str, list[str]]] = []
    for n in names:
        text = sym.ELEMENTS[n]
        if n == "armoury":  # the shield shows the option's code: say here what each code on this board is
            text += "; on this board: " + "; ".join(
                f"{c} = {sym.OPTION_NAMES.get(c, c)} ({sym.OPTION_EFFECTS.get(c, '')})" for c in armoury_options(st))
        rows.append((n, textwrap.wrap(text, 68)))
    height = 8 + sum(max(cell + 6, len(t) * line + 10) for _, t in rows)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="legend" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="Legend: what the board shows">'
           '<title>Legend: what the board shows</title>']
    y = 4.0
    for n, text in rows:
        h = max(cell + 6, len(text) * line + 10)
        out.append(f'<g class="legend-row" data-el="{n}">')
        x0, y0 = 6.0, y + (h - cell) / 2
        out.append(f'<rect x="{x0}" y="{y0}" width="{cell}" height="{cell}" fill="#fbfbfb" stroke="#999" stroke-width="0.5"/>')
        out.append(_sample(n, x0, y0, cell))
        for i, t in enumerate(text):
            ty = y + h / 2 + (i - (len(text) - 1) / 2) * line
            out.append(f'<text x="{x0 + cell + 10}" y="{ty:g}" font-size="11" fill="#222" dominant-baseline="central" '
                       f'font-family="sans-serif">{escape(t)}</text>')
        out.append("</g>")
        y += h
    out.append("</svg>\n")
    return "".join(out)


def _sample(name: str, x: float, y: float, k: float) -> str:
    """One example of element ``name`` in a legend square, drawn by the board's own symbol."""
    if name in ("conveyor", "express"):
        return sym.conveyor(x, y, k, 0, name == "express", (1,))
    if name.startswith("gear"):
        return sym.gear(x, y, k, {"gear-left": "L", "gear-right": "R", "gear-around": "U"}[name])
    simple = {"pit": lambda: sym.pit(x, y, k), "trapdoor": lambda: sym.trapdoor(x, y, k, False),
              "drawbridge": lambda: sym.drawbridge(x, y, k, 2, False), "teleporter": lambda: sym.teleporter(x, y, k, "A", True),
              "switch-green": lambda: sym.switch(x, y, k, "SG", False), "switch-red": lambda: sym.switch(x, y, k, "SR", False),
              "crusher": lambda: sym.crusher(x, y, k, (2, 4)), "buzzsaw": lambda: sym.buzzsaw(x, y, k),
              "wrench": lambda: sym.wrench(x, y, k, 1), "flag": lambda: sym.flag(x, y, k, 1),
              "upgrade": lambda: sym.upgrade(x, y, k), "armoury": lambda: sym.armoury(x, y, k, "RL"),
              "gate-open": lambda: sym.gate(x, y, k, True), "gate-closed": lambda: sym.gate(x, y, k, False),
              "wall": lambda: sym.wall(x, y, k, 3), "fence": lambda: sym.fence(x, y, k, 3),
              "pusher": lambda: sym.pusher(x, y, k, 3, (2, 4)),
              "laser": lambda: sym.beam([(x + k / 2, y + k / 2), (x + k, y + k / 2)], 1, "laser", 1)
              + sym.emitter(x, y, k, 3, "laser"),
              "blaser": lambda: sym.beam([(x + k / 2, y + k / 2), (x + k, y + k / 2)], 1, "blaser", 1)
              + sym.emitter(x, y, k, 3, "blaser"),
              "eye": lambda: sym.emitter(x, y, k, 0, "eye", True, channel=1),
              "channel": lambda: sym.switch(x, y, k, "SG", False) + sym.channel_tag(x, y, k, 1)}
    if name in simple:
        return simple[name]()
    c = seat_colour(0)
    if name == "robot":
        return ('<g class="robot-sample">' + sym.robot_disc(x + k / 2, y + k / 2, k * 0.3, k, c.fill, c.edge, c.ink, 1, 9, False)
                + "</g>")
    if name == "next-flag":
        return sym.pennant(x, y, k, 0, c.fill, c.edge)
    raise KeyError(f"no legend sample for {name!r}")


def factory_svg(st: Any, seat: str | None = None, events: list[Event] | None = None,
                names: dict[str, str] | None = None) -> str:
    """SVG document (a string) of a factory state (public, F-14.1: the same for every seat).

    ``names``: optional display names by seat (or player name), drawn small under each robot
    (escaped). Robots are ``<g class="robot">`` groups (``data-robot`` index, ``data-square``,
    ``data-facing``, ``data-owner``, ``data-colour``); board elements ``<g class="el"
    data-el=NAME>`` (:data:`symbols.ELEMENTS`)."""
    b = st.board
    svg = Svg(b.cols, b.rows, cell=32, title=f"{b.board_id} turn {st.turn + 1}")
    cell = svg.cell
    # the page maps clicks and planned orders to squares with this (docs/web.md)
    svg.add(f'<g class="grid-meta" data-cols="{b.cols}" data-rows="{b.rows}" data-cell="{cell}" '
            f'data-margin="{svg.margin}" data-notation="rRcC"/>')

    def cr(sq):  # rRcC (row 1 south) -> screen column/row
        return sq[1] - 1, b.rows - sq[0]

    for sq in b.squares():
        k = b.kind[sq]
        c, r = cr(sq)
        svg.rect(c, r, "#fbfbfb", title=describe_square(k, st, sq) if k[0] == "." else "")
        x, y = svg.xy(c, r)
        symbol = floor_symbol(k, st, sq, x, y, cell)
        if symbol:
            svg.add(symbol)
    # board lasers' beams (under the edges, mounts and robots), walls stopping them (F-6.25)
    for sq, d, n in b.turrets:
        pts = [svg.centre(*cr(q)) for q in _beam_squares(b, sq, d)]
        svg.add(sym.beam(pts, n, "laser", (d + 2) % 4))
    for key, (ch, _) in sorted(b.blasers.items()):
        if st.blasers[key]:
            sq = (key[0], key[1])
            pts = [svg.centre(*cr(q)) for q in _beam_squares(b, sq, key[2])]
            svg.add(sym.beam(pts, 1, "blaser", (key[2] + 2) % 4))
    # edges: walls and fences, each drawn on every square side that has one
    for sq in b.squares():
        c, r = cr(sq)
        x, y = svg.xy(c, r)
        for d in range(4):
            e = b.edges[(sq[0], sq[1], d)]
            if e == "wall":
                svg.add(sym.wall(x, y, cell, d, f"{sq_str(sq)}: "))
            elif e == "fence":
                svg.add(sym.fence(x, y, cell, d, f"{sq_str(sq)}: "))
    for sq, (d, regs) in sorted(b.pushers.items()):
        x, y = svg.xy(*cr(sq))
        svg.add(sym.pusher(x, y, cell, d, sorted(regs), f"{sq_str(sq)}: "))
    for sq, d, n in b.turrets:
        x, y = svg.xy(*cr(sq))
        svg.add(sym.emitter(x, y, cell, d, "laser", strength=n, where=f"{sq_str(sq)}: "))
    for key, (ch, _) in sorted(b.blasers.items()):
        x, y = svg.xy(*cr((key[0], key[1])))
        svg.add(sym.emitter(x, y, cell, key[2], "blaser", bool(st.blasers[key]), channel=ch,
                            where=f"{sq_str((key[0], key[1]))}: "))
    for key, ch in sorted(b.eyes.items()):
        x, y = svg.xy(*cr((key[0], key[1])))
        svg.add(sym.emitter(x, y, cell, key[2], "eye", bool(st.eyes[key]), channel=ch,
                            where=f"{sq_str((key[0], key[1]))}: "))
    svg.labels([f"c{c}" for c in range(1, b.cols + 1)], [f"r{r}" for r in range(b.rows, 0, -1)])
    _flags(svg, st, cr)
    alive = [(k, bot) for k, bot in enumerate(st.bots) if bot.alive and bot.sq is not None]
    share: dict[Any, list[Any]] = {}
    for _, bot in alive:
        share.setdefault(bot.sq, []).append(bot)
    for k, bot in alive:
        pl = st.players[bot.owner]
        c, r = cr(bot.sq)
        pal = _colour(pl, bot.owner)
        x, y = svg.centre(c, r)
        mates = share[bot.sq]
        rad = cell * 0.3
        if len(mates) > 1:  # robots sharing a square (virtual robots, F-6.5): side by side, each its own disc
            i = mates.index(bot)
            x += (i - (len(mates) - 1) / 2) * cell * 0.46
            rad = cell * 0.22
        y -= cell * 0.06
        letter = getattr(bot, "letter", None)
        who = f"{pal.name}'s robot {letter}" if letter else f"{pal.name}'s robot"
        label = (names or {}).get(getattr(pl, "seat", pl.name)) or (names or {}).get(pl.name)
        # data-robot: the robot's index, the same in every picture of a match (the replay viewer
        # animates it from square to square, issue 14); data-letter: geeko's A / B (G-16.1)
        data = (f' data-robot="{k}" data-square="{sq_str(bot.sq)}" data-facing="{DIRS[bot.facing]}"'
                f' data-owner="{escape(pl.name)}" data-colour="{pal.word}"' + (f' data-letter="{letter}"' if letter else ""))
        svg.add(f'<g class="robot"{data}><title>{escape(who)} on {sq_str(bot.sq)}, facing '
                f'{_DIRNAME[bot.facing]}, {bot.hp} HP{"" if bot.mode == "real" else ", virtual (passes through robots)"}'
                f'{", rebooting" if bot.rebooting else ""}</title>'
                + sym.robot_disc(x, y, rad, cell, pal.fill, pal.edge, pal.ink, bot.facing, bot.hp, bot.mode != "real"))
        if letter:  # geeko's robot letter, in a small tag at the lower left (the HP stays in the middle)
            svg.add(f'<text class="letter" x="{x - rad:g}" y="{y + rad:g}" font-size="8" fill="#111" '
                    f'stroke="#fff" stroke-width="2" paint-order="stroke" text-anchor="middle" '
                    f'dominant-baseline="central" font-family="sans-serif" font-weight="bold">{letter}</text>')
        if label:
            short = label if len(label) <= 9 else label[:8] + "…"
            svg.add(f'<text class="name" x="{x:g}" y="{y + rad + cell * 0.17:g}" font-size="7" fill="#111" '
                    f'stroke="#fff" stroke-width="2" paint-order="stroke" text-anchor="middle" '
                    f'dominant-baseline="central" font-family="sans-serif">{escape(short)}</text>')
        svg.add("</g>")
    return svg.to_string()


def _colour(pl: Any, index: int) -> SeatColour:
    """A player's palette colour: by its colour word (F-2.9; geeko's runs hold one player each,
    coloured by its seat), else by its place in seat order."""
    word = getattr(pl, "colour", None)
    return colour_named(word) if word in SEAT_WORDS else seat_colour(index)


def _next_flags(st: Any) -> list[tuple[int, Any, int]]:
    """``(player index, player, next flag number)`` of every player still in, whose next flag is
    on the board (F-7)."""
    flags = {k[1] for k in st.board.kind.values() if k[0] == "F"}
    out = []
    for i, pl in enumerate(getattr(st, "players", None) or []):
        nxt = getattr(pl, "next_flag", None)
        if nxt is not None and nxt in flags and not getattr(pl, "out", False):
            out.append((i, pl, nxt))
    return out


def _flags(svg: Svg, st: Any, cr: Any) -> None:
    """Each player's next flag: a pennant in the player's colour along the bottom of the flag's
    square (F-7: flags are touched in order). A pennant, not a disc: it cannot be taken for a
    robot."""
    flags = {k[1]: sq for sq, k in st.board.kind.items() if k[0] == "F"}
    at: dict[int, int] = {}
    for i, pl, nxt in _next_flags(st):
        x, y = svg.xy(*cr(flags[nxt]))
        pal = _colour(pl, i)
        j = at.get(nxt, 0)
        at[nxt] = j + 1
        svg.add(f'<g class="next-flag" data-owner="{escape(pl.name)}" data-colour="{pal.word}"><title>{pal.name}\'s '
                f'next flag: flag {nxt}</title>' + sym.pennant(x, y, svg.cell, j, pal.fill, pal.edge)
                + "</g>")
