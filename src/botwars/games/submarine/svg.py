"""The submarine ocean as SVG (issue 8, item 1), drawn ONLY from a recipient's observation.

:func:`submarine_svg` takes the observation that :func:`botwars.games.submarine.view.observation`
built for a seat or a spectator (S-8, S-12.3, S-12.5) and the events that recipient received, and
never the state: whatever the drawing shows, the recipient was already told. It draws the 7x7 board
in its own notation (A1..G7, S-2.1), the home rows (S-3.2), the scoring spaces with their values
(S-2.5), destroyed spaces (S-7.7), the seat's own mines and enemy mines it learned of through
``mine_not_placed`` (S-6.6), the seat's own subs (letter, HP, surfaced or submerged, plate,
ramming), enemy subs only where the observation lists them (surfaced, S-8.5), subs a sonar of
the seat detected this step (S-6.6, marked as a sighting), and highlights for this step's
visible events. A spectator gets surfaced subs only (S-8.8). The final observation of a finished
game reveals everything (H22), and so does its drawing.

Pieces are SVG groups with classes and ``data-*`` attributes (``class="sub" data-sub="a"
data-space="D4"``...) so pages and tests can find them.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event
from botwars.games.submarine.board import COLS, NO_MINE, SCORING, SIZE, adjacent, name, on_board, parse_space, step
from botwars.render.palette import seat_colours
from botwars.render.svg import Svg

#: Seat colours: p1 red, p2 blue (the platform's palette, render/palette.py).
_PALETTE = seat_colours(["p1", "p2"])
COLOURS = {s: c.fill for s, c in _PALETTE.items()}
_TINT = {"p1": "#fbe3e3", "p2": "#e1ecf8"}
HIGHLIGHT = "#e6007e"


def _cr(space: str) -> tuple[int, int]:
    """Space name → screen column/row (row 7 at the top). Raises ``ValueError`` for a bad name."""
    sp = parse_space(space)
    if sp is None:
        raise ValueError(f"{space!r} is not a space (A1 to G7)")
    return sp[0] - 1, SIZE - sp[1]


def _owner(letter: str) -> str:
    return "p1" if letter in "abcde" else "p2"


def submarine_svg(view: dict[str, Any], events: list[Event] | None = None,
                  names: dict[str, str] | None = None) -> str:
    """SVG document (a string) of one recipient's observation ``view``.

    ``events``: the kernel events of this step that the recipient may see (already filtered;
    ``None``: the ``events`` of the observation); ``names``: optional display names by seat,
    shown in the panel beside the seat's colour (render/palette.py). Raises ``ValueError`` on
    a malformed space.
    """
    seat = view.get("you")
    final = "state" in view  # S-12.5: the finished game, everything revealed (H22)
    setup = bool(view.get("setup"))
    title = f"submarine turn {view.get('turn', 0)} round {view.get('round', 0)}"
    if seat:
        title += f", as {seat}"
    svg = Svg(SIZE, SIZE, cell=54, margin=22, side=250, min_height=2 * 22 + SIZE * 54, title=title)
    # the page maps clicks and planned orders to spaces with this (docs/web.md)
    svg.add(f'<g class="grid-meta" data-cols="{SIZE}" data-rows="{SIZE}" data-cell="{svg.cell}" '
            f'data-margin="{svg.margin}" data-notation="A1"/>')
    home = {row: s for s, row in (view.get("home_rows") or {}).items()}
    if final:
        destroyed = set(view["state"]["destroyed_spaces"])
    else:
        destroyed = set(view.get("destroyed_spaces", []))
    hatch = svg.hatch("sub-destroyed", "#777", "#bbb")

    # ---- the sea: home rows, scoring spaces, destroyed spaces (all public, S-8.2)
    for row in range(SIZE, 0, -1):
        for ci, col in enumerate(COLS):
            sp = (ci + 1, row)
            nm = name(sp)
            c, r = ci, SIZE - row
            if nm in destroyed:
                svg.rect(c, r, hatch, "#555", cls="destroyed", title=f"{nm} destroyed")
            else:
                fill = _TINT[home[row]] if row in home else "#f4f9fc"
                desc = nm + (f", {home[row]} home row" if row in home else "")
                svg.rect(c, r, fill, "#9bb", cls="home" if row in home else "space", title=desc)
            v = SCORING.get(sp)
            if v:
                x, y = svg.xy(c, r)
                svg.open_group("scoring", f"{nm} scores {v}", space=nm, value=v)
                svg.add(f'<rect x="{x + 2}" y="{y + 2}" width="{svg.cell - 4}" height="{svg.cell - 4}" fill="#f2c14e" '
                        f'fill-opacity="{0.25 + 0.15 * v:g}" stroke="#c99a1a" stroke-width="1"/>')
                svg.text(x + svg.cell - 8, y + 9, str(v), 10, "#7a5a00", weight="bold")
                svg.close_group()
            if sp in NO_MINE:
                x, y = svg.xy(c, r)
                svg.text(x + 8, y + 9, "⊘", 8, "#a08030")
    svg.labels(list(COLS), [str(r) for r in range(SIZE, 0, -1)])
    for row, s in sorted(home.items()):
        x, y = svg.xy(0, SIZE - row)
        svg.add(f'<rect x="{x - svg.margin + 2}" y="{y + 3}" width="4" height="{svg.cell - 6}" fill="{COLOURS[s]}"/>')

    evs = list(events) if events is not None else [
        Event(e["type"], {k: v for k, v in e.items() if k != "type"}) for e in view.get("events", [])]

    # ---- mines: own (S-12.3), both players' in the final observation, enemy ones learned this step
    mines: dict[str, tuple[str, str]] = {}
    if final:
        for s, lst in view["state"]["mines"].items():
            for m in lst:
                mines[m] = (s, f"mine of {s} on {m}")
    elif seat:
        for m in view.get("own_mines", []):
            mines[m] = (seat, f"your mine on {m}")
        for e in evs:
            if e.kind == "mine_not_placed" and seat and e.data.get("space") and e.data["space"] not in mines \
                    and _owner(e.data.get("sub", "a" if seat == "p1" else "v")) == seat:
                sp = e.data["space"]
                mines[sp] = ("p2" if seat == "p1" else "p1", f"enemy mine on {sp} (your mine was not placed)")
            elif e.kind == "mine_triggered" and mines.get(e.data.get("space"), (seat,))[0] != seat:
                del mines[e.data["space"]]  # the enemy mine learned above went off later in this step
    for m, (owner, desc) in sorted(mines.items()):
        c, r = _cr(m)
        x, y = svg.centre(c, r)
        x, y = x - svg.cell * 0.3, y + svg.cell * 0.3
        svg.open_group("mine", desc, space=m, owner=owner)
        k = svg.cell * 0.13
        svg.add(f'<path d="M{x - k * 1.6:g},{y:g}H{x + k * 1.6:g}M{x:g},{y - k * 1.6:g}V{y + k * 1.6:g}" '
                f'stroke="#222" stroke-width="1.5"/>')
        svg.add(f'<circle cx="{x:g}" cy="{y:g}" r="{k:g}" fill="#222" stroke="{COLOURS[owner]}" stroke-width="1.5"/>')
        svg.close_group()

    _highlights(svg, evs, seat)

    # ---- submarines
    for letter, s in sorted(_subs(view).items()):
        _draw_sub(svg, letter, s, seat, final)
    for letter, sp, surfaced in _sightings(evs, seat, _subs(view)):
        c, r = _cr(sp)
        x, y = svg.centre(c, r)
        colour = COLOURS[_owner(letter)]
        svg.open_group("detected", f"sonar contact: {_PALETTE[_owner(letter)].name}'s sub {letter} on {sp}, "
                       f"{'surfaced' if surfaced else 'submerged'} when detected", sub=letter, space=sp)
        svg.add(f'<circle cx="{x:g}" cy="{y:g}" r="{svg.cell * 0.3:g}" fill="none" stroke="{colour}" '
                f'stroke-width="2" stroke-dasharray="2 3"/>')
        svg.text(x, y, letter + "?", 12, colour, weight="bold")
        svg.close_group()
    _panel(svg, view, evs, setup, final, names or {})
    return svg.to_string()


def _subs(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every sub the recipient may see: letter → {owner, space, surfaced, and for own subs (or
    in the final observation) hp, special, plate, ramming}."""
    seat = view.get("you")
    out: dict[str, dict[str, Any]] = {}
    if "state" in view:
        for k, s in view["state"]["subs"].items():
            out[k] = dict(s)
        return out
    if seat is None:
        for k, sp in (view.get("surfaced_subs") or {}).items():
            out[k] = {"owner": _owner(k), "space": sp, "surfaced": True}
        return out
    for k, s in (view.get("own_subs") or {}).items():
        out[k] = {"owner": seat, **s}
    for k, sp in (view.get("visible_enemy_subs") or {}).items():
        out[k] = {"owner": _owner(k), "space": sp, "surfaced": True}
    return out


def _draw_sub(svg: Svg, letter: str, s: dict[str, Any], seat: str | None, final: bool) -> None:
    c, r = _cr(s["space"])
    x, y = svg.centre(c, r)
    owner = s["owner"]
    colour = COLOURS[owner]
    known = "hp" in s  # own sub, or the final observation
    desc = f"{_PALETTE[owner].name}'s sub {letter} on {s['space']}, {'surfaced' if s['surfaced'] else 'submerged'}"
    if known:
        desc += f", {s['hp']} HP, special: {str(s['special']).replace('_', ' ')}"
        if s.get("plate"):
            desc += ", plate"
        if s.get("ramming"):
            desc += ", ramming"
        if s.get("cancelled"):
            desc += ", cancelled"
    svg.open_group("sub", desc, sub=letter, owner=owner, space=s["space"],
                   surfaced=str(bool(s["surfaced"])).lower())
    rx, ry = svg.cell * 0.4, svg.cell * 0.22
    if s["surfaced"]:
        svg.add(f'<ellipse cx="{x:g}" cy="{y:g}" rx="{rx:g}" ry="{ry:g}" fill="{colour}" stroke="#000" stroke-width="1"/>')
        svg.add(f'<rect x="{x - 4:g}" y="{y - ry - 6:g}" width="8" height="7" fill="{colour}" stroke="#000" stroke-width="1"/>')
        fg = "#fff"
    else:  # submerged: hollow, dashed, under a wave line
        svg.add(f'<ellipse cx="{x:g}" cy="{y:g}" rx="{rx:g}" ry="{ry:g}" fill="#ffffff" fill-opacity="0.6" '
                f'stroke="{colour}" stroke-width="2" stroke-dasharray="4 2"/>')
        svg.add(f'<path d="M{x - rx:g},{y - ry - 4:g} q{rx / 4:g},-4 {rx / 2:g},0 t{rx / 2:g},0 t{rx / 2:g},0 t{rx / 2:g},0" '
                f'fill="none" stroke="#4a90c2" stroke-width="1.2"/>')
        fg = colour
    # the sub's own letter, lower case either way: capitals read as the board's columns A–G
    # (newcomer audit: "sub C on A1"); surfaced or not is the solid or hollow hull
    svg.text(x - (6 if known else 0), y, letter, 13, fg, weight="bold")
    if known:
        svg.text(x + 9, y + 1, str(s["hp"]), 10, fg)
        marks = ("◆" if s.get("plate") else "") + ("»" if s.get("ramming") else "")
        if marks:
            svg.text(x, y + ry + 8, marks, 9, "#333")
    svg.close_group()


def _sightings(evs: list[Event], seat: str | None, drawn: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """Enemy subs this recipient's own sonar detected in this step (``sonar_result``, S-6.6) and
    that are not drawn anyway: (letter, space at detection, surfaced then)."""
    out = []
    for e in evs:
        if e.kind != "sonar_result" or seat is None:
            continue
        for d in e.data.get("detected", []):
            if d["sub"] not in drawn and _owner(d["sub"]) != seat:
                out.append((d["sub"], d["space"], bool(d.get("surfaced"))))
    return sorted(set(out))


def _outline(svg: Svg, space: str, cls: str, title: str, colour: str = HIGHLIGHT, dash: str = "") -> None:
    c, r = _cr(space)
    svg.open_group(cls, title, space=space)
    svg.rect(c, r, "none", colour, inset=2, stroke_width=2.5, dash=dash)
    svg.close_group()


def _highlights(svg: Svg, evs: list[Event], seat: str | None) -> None:
    """This step's events, in the form the recipient got them (S-12.4); absent fields are not drawn."""
    for e in evs:
        d = e.data
        try:
            k = e.kind
            if k == "move":
                a, b = _cr(d["from"]), _cr(d["to"])
                svg.arrow(a[0], a[1], b[0], b[1], HIGHLIGHT, 2.5, "5 3", cls="hl-move", shorten=0.42,
                          title=f"{d['sub']} moved {d['from']} to {d['to']}")
            elif k == "collision":
                at, de = d["attacker"], d["defender"]
                a, b = _cr(at["space"]), _cr(de["space"])
                svg.arrow(a[0], a[1], b[0], b[1], "#d00", 3, cls="hl-collision", shorten=0.42,
                          title=f"collision: {at['sub']} on {at['space']} (-{at['damage']}) rammed "
                                f"{de['sub']} on {de['space']} (-{de['damage']})")
                if d.get("push") not in (None, "edge", "chain", "none"):
                    p = _cr(d["push"])
                    svg.arrow(b[0], b[1], p[0], p[1], "#d00", 2, "3 2", cls="hl-push", shorten=0.42,
                              title=f"{de['sub']} pushed to {d['push']}")
            elif k == "torpedo_hit":
                if "from" in d:
                    a, b = _cr(d["from"]), _cr(d["space"])
                    svg.arrow(a[0], a[1], b[0], b[1], "#d00", 2, cls="hl-torpedo", shorten=0.42, title=f"torpedo from {d['from']}")
                _outline(svg, d["space"], "hl-torpedo-hit",
                         f"torpedo hit {d['target']} on {d['space']} (-{d['damage']}), travelling {d['dir']}", "#d00")
            elif k == "torpedo_miss":
                start = parse_space(d["from"])
                end = start
                for i in range(1, 4):
                    if on_board(step(start, d["dir"], i)):
                        end = step(start, d["dir"], i)
                if end != start:
                    a, b = _cr(d["from"]), _cr(name(end))
                    svg.arrow(a[0], a[1], b[0], b[1], "#999", 2, "2 2", cls="hl-torpedo-miss",
                              title=f"torpedo from {d['from']} {d['dir']} missed")
            elif k == "depth_charge":
                centre = parse_space(d["centre"])
                for sp in [centre] + adjacent(centre):
                    _outline(svg, name(sp), "hl-depth-charge", f"depth charge blast (centre {d['centre']})", "#d00", "4 2")
            elif k in ("mine_placed", "mine_not_placed", "mine_triggered", "heal", "surface", "submerge"):
                label = {"mine_placed": "mine placed", "mine_not_placed": "mine not placed, already mined",
                         "mine_triggered": f"mine triggered by {d.get('sub')}", "heal": "heal",
                         "surface": f"{d.get('sub')} surfaced", "submerge": f"{d.get('sub')} submerged"}[k]
                _outline(svg, d["space"], f"hl-{k.replace('_', '-')}", f"{label} on {d['space']}",
                         "#2a9d3a" if k == "heal" else HIGHLIGHT, "" if k == "mine_triggered" else "4 2")
            elif k == "sonar_result" and "from" in d:
                c0, r0 = _cr(d["from"])
                x, y = svg.centre(c0, r0)
                h = svg.cell * 2.5  # the distance-2 diamond around the sonar sub
                svg.add(f'<polygon class="hl-sonar" points="{x:g},{y - h:g} {x + h:g},{y:g} {x:g},{y + h:g} {x - h:g},{y:g}" '
                        f'fill="#4a90c2" fill-opacity="0.08" stroke="#4a90c2" stroke-dasharray="4 3"/>')
            elif k == "destroyed" and "space" in d:
                c, r = _cr(d["space"])
                svg.open_group("hl-destroyed", f"{d['sub']} destroyed on {d['space']}", space=d["space"], sub=d["sub"])
                svg.cross(c, r, "#d00", 3)
                svg.close_group()
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"submarine svg: malformed {e.kind} event {d!r}: {exc}") from None


def _event_line(e: Event) -> str | None:
    d = e.data
    k = e.kind
    if k == "nullify":
        return (f"nullify: {str(d['special']).replace('_', ' ')} suppressed for {_name(d['player'])} until turn "
                f"{d['until_turn']}")
    if k == "detected":
        return f"enemy sonar detected {', '.join(d['subs'])}"
    if k == "damage":
        return f"{d['sub']} took {d['damage']} edge damage"
    if k == "destroyed":
        return f"{d['sub']} destroyed" + (f" on {d['space']}" if "space" in d else "")
    if k == "announce_25":
        return f"{_name(d['player'])} reached 25 points"
    if k == "ring_destroyed":
        return f"ring {d['ring']} destroyed"
    if k == "score":
        return f"scored {d['points']} (total {d['total']})"
    if k == "skipped":
        return f"skipped: {d['sub']} {d['action']} ({d['reason']})"
    if k == "sonar_result" and "detected" in d:
        return f"sonar found {len(d['detected'])}"
    return None


#: Why a game ended, in words (S-7.3 to S-7.11; the kernel's time, resign, refused): ``{w}`` the
#: winner, ``{l}`` the loser.
END_WORDS = {
    "elimination": "{w} wins: {l} has no sub left",
    "points": "{w} wins on points",
    "resign": "{w} wins: {l} resigned",
    "refused": "{w} wins: {l} sent too many refused orders",
    "time": "{w} wins: {l} ran out of time",
    "setup_forfeit": "{w} wins: {l} did not place the fleet in time",
}
DRAW_WORDS = {"mutual_destruction": "Draw: both fleets were destroyed at once",
              "round_cap": "Draw: the round limit was reached",
              "setup_forfeit": "Draw: neither side placed its fleet in time"}


def end_words(res: dict[str, Any], who: Any = str) -> str:
    """The result of a finished game (``winner`` a seat or ``"draw"``, ``reason``) as a
    sentence for the board's panel, never the engine's reason word (issue 23): "Red wins: Blue
    has no sub left", "Draw: the round limit was reached". ``who(seat)`` names a seat."""
    w, reason = res.get("winner"), str(res.get("reason") or "")
    if w in (None, "draw"):
        return DRAW_WORDS.get(reason, "Draw")
    loser = "p2" if w == "p1" else "p1"
    return END_WORDS.get(reason, "{w} wins").format(w=who(w), l=who(loser))


def _name(p: Any) -> str:
    """A seat as its colour's name ("Red"), the seat id itself when it has none."""
    return _PALETTE[p].name if p in _PALETTE else str(p)


def _panel(svg: Svg, view: dict[str, Any], evs: list[Event], setup: bool, final: bool,
           names: dict[str, str]) -> None:
    seat = view.get("you")
    lines: list[tuple[str, str]] = []

    def who(p: Any) -> str:  # "Red" (the palette's word), with a display name when given
        word = _PALETTE[p].name if p in _PALETTE else str(p)
        return f"{word} ({names[p]})" if names.get(p) else word

    if final and view.get("result"):  # a replay's revealed drawing mid-game has no result yet
        res = view["result"]
        w = res["winner"]
        sc = res.get("scores", {})
        lines.append((f"# {end_words(res, who)}", COLOURS.get(w, "")))
        if sc:
            lines.append((f"scores: {who('p1')} {sc.get('p1')}, {who('p2')} {sc.get('p2')}", ""))
    elif setup:
        lines.append(("# setup: placing subs", ""))
    else:
        lines.append((f"# turn {view['turn']}, round {view['round']}: {who(view['active'])} to move",
                      COLOURS.get(view.get("active"), "")))
    hr = view.get("home_rows") or {}
    if hr:
        lines.append((f"home rows: {who('p1')} row {hr.get('p1')}, {who('p2')} row {hr.get('p2')}", ""))
    if seat:
        lines.append((f"you: {who(seat)}", COLOURS[seat]))
        if not final and not setup:
            ap = view.get("ap")
            lines.append((f"score {view.get('score')}" + (f", AP {ap}" if ap is not None else ""), ""))
    subs = _subs(view)
    if not setup:
        lines.append(("", ""))
        lines.append(("# subs", ""))
        for k, s in sorted(subs.items()):
            txt = f"{k} {s['space']} {'surfaced' if s['surfaced'] else 'submerged'}"
            if "hp" in s:
                txt += f" {s['hp']}HP {str(s['special']).replace('_', ' ')}" + (" plate" if s.get("plate") else "")
            lines.append((txt, COLOURS[s["owner"]]))
        ds = view.get("destroyed_subs") or (view.get("state") or {}).get("destroyed_subs") or {}
        gone = [k for p in ("p1", "p2") for k in ds.get(p, [])]
        if gone:
            lines.append((f"destroyed: {' '.join(gone)}", "#666"))
        supp = view.get("suppressed") or (view.get("state") or {}).get("suppressed") or {}
        for p in ("p1", "p2"):
            for w in supp.get(p, []):
                lines.append((f"{str(w['special']).replace('_', ' ')} suppressed for {who(p)} to turn {w['until_turn']}",
                              "#666"))
    shown = [t for t in (_event_line(e) for e in evs) if t]
    if shown:
        lines.append(("", ""))
        lines.append(("# this step", HIGHLIGHT))
        lines += [(t, "#444") for t in shown[:12]]
    svg.panel(lines, size=10, line_height=13)
