"""The DADOED arena as SVG (issue 8, item 1): tiles named A1..H8 (D-2.1), holes, fire, boulders,
bots with owner colour, label and a rooted marker, highlights for the last command's events, and
a side panel with the turn, supers, reserves and the pool's remaining copies.

Drawn from the seat's observation (:meth:`DadoedRuleset.view`, D-12.2), so the only thing that
differs between seats (the opponent's supers during setup, D-12.1) is hidden exactly as the view
hides it.
"""

from __future__ import annotations

import re
from typing import Any

from botwars.engine.events import Event
from botwars.games.dadoed.board import COLS, SIZE, parse_tile
from botwars.games.dadoed.icons import command_icon
from botwars.render.palette import colour_named
from botwars.render.svg import Svg

#: Owner colours: Blue and Orange (D-1.1).
COLOURS = {p: colour_named(p).fill for p in ("blue", "orange")}
HIGHLIGHT = "#e6007e"  # magenta: what happened in the last command
FIRE = "#ff5a1f"


def _cr(name: str) -> tuple[int, int]:
    """Tile name (``"C5"``) → screen column/row (row 8 at the top, D-2.1)."""
    col, row = parse_tile(name)
    return col, SIZE - 1 - row


def _flame(svg: Svg, c: int, r: int, title: str) -> None:
    x, y = svg.xy(c, r)
    k = svg.cell
    # a simple flame: a teardrop in orange with a yellow core
    svg.add(f'<g class="fire" data-tile="{title.split()[-1]}"><title>{title}</title>'
            f'<path d="M{x + k * .5:g},{y + k * .12:g} C{x + k * .78:g},{y + k * .42:g} {x + k * .86:g},{y + k * .62:g} '
            f'{x + k * .72:g},{y + k * .8:g} C{x + k * .6:g},{y + k * .92:g} {x + k * .4:g},{y + k * .92:g} '
            f'{x + k * .28:g},{y + k * .8:g} C{x + k * .14:g},{y + k * .62:g} {x + k * .22:g},{y + k * .42:g} '
            f'{x + k * .5:g},{y + k * .12:g} Z" fill="{FIRE}" fill-opacity="0.85"/>'
            f'<circle cx="{x + k * .5:g}" cy="{y + k * .7:g}" r="{k * .12:g}" fill="#ffd23f"/></g>')


def dadoed_svg(view: dict[str, Any], events: list[Event] | None = None, seat: str | None = None,
               commands: dict[str, tuple[str, str]] | None = None, names: dict[str, str] | None = None) -> str:
    """SVG document (a string) of a D-12.2 observation ``view``.

    ``events``: the events of the last decision point (D-12.3), highlighted: moves as arrows,
    new holes, falls, burns, blasts, fire lit or put out, patches, placed boulders, roots and
    drops. ``None``: the events of the last log entry of the view. Raises ``ValueError`` for a
    malformed tile name in the view or the events. ``commands``: id → (name, colour word) of the
    pool's commands (D-4.2; public), shown in the panel as icons in their colours
    (:mod:`.icons`) with their names; ``names``: optional display names by seat.
    """
    svg = Svg(SIZE, SIZE, cell=44, margin=22, side=230, min_height=2 * 22 + 8 * 44,
              title=f"dadoed turn {view['turn']}" + (f", {view['active']} to move" if view.get("active") else ""))
    # the page maps clicks and planned orders to tiles with this (docs/web.md)
    svg.add(f'<g class="grid-meta" data-cols="{SIZE}" data-rows="{SIZE}" data-cell="{svg.cell}" '
            f'data-margin="{svg.margin}" data-notation="A1"/>')
    holes = set(view["holes"])
    fire = set(view["fire"])
    hole_fill = svg.hatch("dadoed-hole", "#333", "#111")
    for row in range(SIZE, 0, -1):
        for ci, col in enumerate(COLS):
            name = f"{col}{row}"
            c, r = ci, SIZE - row
            if name in holes:
                svg.rect(c, r, hole_fill, "#000", cls="hole", title=f"hole {name}")
            else:
                svg.rect(c, r, "#efe9dc" if (c + r) % 2 else "#f7f3ea", "#b5ab98", cls="tile", title=name)
    svg.labels(list(COLS), [str(r) for r in range(SIZE, 0, -1)])
    for name in sorted(fire):
        c, r = _cr(name)
        _flame(svg, c, r, f"fire {name}")
    for name in sorted(view["boulders"]):
        c, r = _cr(name)
        svg.open_group("boulder", f"boulder {name}", tile=name)
        svg.circle(c, r, "#8c8c8c", 0.34, "#444")
        svg.close_group()

    evs = list(events) if events is not None else [
        Event(e["type"], {k: v for k, v in e.items() if k != "type"}) for e in (view["log"][-1]["events"] if view["log"] else [])]
    _highlights(svg, evs)

    for lb, b in view["bots"].items():
        if b["tile"] is None:
            continue
        c, r = _cr(b["tile"])
        colour = COLOURS[b["owner"]]
        desc = f"{str(b['owner']).capitalize()}'s bot {lb} on {b['tile']}" + (", rooted" if b["rooted"] else "") + \
            (", on fire" if b["tile"] in fire else "") + (f", super {' then '.join(_cmd_word(c, commands) for c in b['super'])}" if b["super"] else "")
        svg.open_group("bot", desc, bot=lb, owner=b["owner"], tile=b["tile"], rooted=str(b["rooted"]).lower())
        svg.circle(c, r, colour, 0.36, "#000")
        x, y = svg.centre(c, r)
        if b["rooted"]:  # rooted: a thick brown ring and a root mark under the bot (D-6.11)
            svg.add(f'<circle cx="{x:g}" cy="{y:g}" r="{svg.cell * 0.44:g}" fill="none" stroke="#6b3d12" '
                    f'stroke-width="3" class="rooted"/>')
            svg.text(x + svg.cell * 0.33, y + svg.cell * 0.33, "R", 9, "#6b3d12", weight="bold")
        svg.text(x, y, lb, 15, "#fff", weight="bold")
        svg.close_group()
    _panel(svg, view, commands or {}, names or {})
    return svg.to_string()


def _highlights(svg: Svg, events: list[Event]) -> None:
    """Draw the last command's events (D-12.3) over the board, under the bots."""
    for e in events:
        d = e.data
        try:
            if e.kind == "move":
                a, b = _cr(d["from"]), _cr(d["to"])
                svg.arrow(a[0], a[1], b[0], b[1], HIGHLIGHT, 3, "5 3", cls="hl-move", shorten=0.42,
                          title=f"{d['object']} moved {d['from']} to {d['to']}")
            elif e.kind in ("hole", "patch", "boulder_placed", "fire_on", "fire_off", "drop"):
                c, r = _cr(d["tile"])
                label = {"hole": "new hole", "patch": "patched", "boulder_placed": "boulder placed",
                         "fire_on": "caught fire", "fire_off": "fire out", "drop": f"{d.get('bot')} dropped"}[e.kind]
                svg.rect(c, r, "none", HIGHLIGHT, cls=f"hl-{e.kind}", inset=2, stroke_width=2.5,
                         dash="" if e.kind in ("hole", "drop") else "4 2", title=f"{label} {d['tile']}")
            elif e.kind in ("fall", "burn", "blasted"):
                if d.get("tile") in (None, "off"):
                    continue  # fell off the board: the move arrow ends on the edge tile
                c, r = _cr(d["tile"])
                who = d.get("object") or d.get("bot")
                svg.open_group(f"hl-{e.kind}", f"{who} {e.kind} on {d['tile']}", tile=d["tile"])
                svg.cross(c, r, HIGHLIGHT, 3)
                svg.close_group()
            elif e.kind == "blast":
                cs = [_cr(t) for t in d["tiles"]]
                svg.area(min(c for c, _ in cs), min(r for _, r in cs), max(c for c, _ in cs), max(r for _, r in cs),
                         "#fd8d3c", HIGHLIGHT, 0.3, cls="hl-blast", title=f"blast at {d['centre']}")
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"dadoed svg: malformed {e.kind} event {d!r}: {exc}") from None


#: Why a game ended, in words (D-8.1 to D-8.5; the kernel's time, resign, refused): ``{w}`` the
#: winner, ``{l}`` the loser.
END_WORDS = {
    "elimination": "{w} wins: {l} has no bot left",
    "no_legal_order": "{w} wins: {l} had no legal order",
    "resign": "{w} wins: {l} resigned",
    "refused": "{w} wins: {l} sent too many refused orders",
    "time": "{w} wins: {l} ran out of time",
    "setup_forfeit": "{w} wins: {l} did not choose supers in time",
}


def end_words(res: dict[str, Any], who: Any = str) -> str:
    """The result of a finished game (``view["result"]``: ``winner`` a side or ``"draw"``,
    ``reason``) as a sentence for the board's panel, never the engine's reason word (issue 23):
    "Blue wins: Orange has no bot left", "Draw: the turn limit was reached".
    ``who(side)`` names a side."""
    w, reason = res.get("winner"), str(res.get("reason") or "")
    if w in (None, "draw"):
        return {"turn_limit": "Draw: the turn limit was reached", "max_turns": "Draw: the turn limit was reached",
                "setup_forfeit": "Draw: neither side chose supers in time"}.get(reason, "Draw")
    loser = "orange" if w == "blue" else "blue"
    return END_WORDS.get(reason, "{w} wins").format(w=who(w), l=who(loser))


def _cmd_word(cid: str, commands: dict[str, tuple[str, str]] | None) -> str:
    """A command as a player reads it (D-4.2): its name from ``commands``, else its id in words
    ("spread fire", never ``spread_fire``)."""
    return (commands or {}).get(cid, (cid.replace("_", " "), ""))[0]


def _panel(svg: Svg, view: dict[str, Any], commands: dict[str, tuple[str, str]], names: dict[str, str]) -> None:
    def cname(cid: str) -> str:
        return commands.get(cid, (cid, ""))[0]

    def who(p: str) -> str:
        word = colour_named(p).name if p in COLOURS else p
        return f"{word} ({names[p]})" if names.get(p) else word

    lines: list[tuple[str, str]] = []
    if view.get("phase") == "setup":
        lines.append(("# setup: supers being chosen", ""))
    elif view.get("result"):
        res = view["result"]
        lines.append((f"# {end_words(res, who)}", ""))
    else:
        lines.append((f"# turn {view['turn']}: {who(view['active'])} to move", COLOURS.get(view.get("active"), "")))
        if not view.get("super_allowed", True):
            lines.append(("no supers this turn", "#666"))
    if view.get("log"):
        last = view["log"][-1]
        order = re.sub(r"\b[a-z]+(?:_[a-z0-9]+)*\b", lambda m: commands.get(m.group(0), (m.group(0), ""))[0], last["order"])
        lines.append((f"last: {who(last['player'])} {order}", HIGHLIGHT))  # commands by name (D-4.2), not ids
    lines.append(("", ""))
    lines.append(("# bots", ""))
    for lb, b in view["bots"].items():
        where = b["tile"] or "reserve"
        sup = " + ".join(cname(c) for c in b["super"]) if b["super"] else "?"
        lines.append((f"{lb} {who(b['owner'])} {where}{' rooted' if b['rooted'] else ''}, super: {sup}",
                      COLOURS[b["owner"]]))
    for p in ("blue", "orange"):
        lines.append((f"{who(p)} reserve: {' '.join(view['reserves'][p]) or '-'}", COLOURS[p]))
    lines.append(("", ""))
    # the pool in words (D-4.3, D-4.4): copies left of the copies in all; the gold copies come back
    # together once all are used ("gold refreshes 0" read as engine talk to the audit's newcomer)
    refills = int(view.get("gold_refreshes", 0))
    if refills:
        lines.append((f"gold commands refilled {refills} time{'s' if refills != 1 else ''}", ""))
    lines.append(("# command pool (copies left/in all)", ""))
    y = svg.panel(lines, size=10, line_height=13)
    # the pool: each command's icon in its colour, its name, and copies left/initial
    x0, k = svg.board_width + 4, 15
    for cid, c in view["pool"].items():
        left = "∞" if c["left"] is None else c["left"]
        name, colour = commands.get(cid, (cid, ""))
        used_up = c["left"] == 0
        svg.add(f'<g class="pool-command" data-pool="{cid}"' + (' opacity="0.35"' if used_up else "") + ">"
                + command_icon(cid, colour, x0, y - k / 2 - 1, k, name))
        svg.text(x0 + k + 5, y, f"{name} {left}/{'∞' if c['copies'] is None else c['copies']}", 10,
                 "#888" if used_up else "#222", anchor="start")
        svg.add("</g>")
        y += k + 3
    svg.min_height = max(svg.min_height, int(y + 8))
