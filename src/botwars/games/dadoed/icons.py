"""Command icons for DADOED (D-4.1, D-4.2): a rounded tile in the command's colour (blue moves a
bot, gold moves a hazard, red does something else, green drops a bot) with a white pictogram of
what it does. The board's side panel and the seat page's order controls (through the page
helpers) show the same icons.

:data:`COMMAND_COLOURS` is the one declaration of the four command colours' drawn shades.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

#: D-4.1 command colour word → drawn colour.
COMMAND_COLOURS = {"blue": "#1f77b4", "gold": "#c9a000", "red": "#b42318", "green": "#067647"}
_WALK = {"step": 1, "stride": 2, "dash": 3, "charge": 4}
_MARCH = {"north_3": 0, "east_3": 1, "south_3": 2, "west_3": 3}


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _pictogram(cid: str, x: float, y: float, s: float) -> str:
    """The white pictogram of command ``cid`` in the box (x, y, s x s); unknown ids get a dot."""
    w = "#fff"
    cx, cy = x + s / 2, y + s / 2
    sw = _f(max(1.2, s * 0.09))
    if cid in _WALK:  # n chevrons: walk n tiles in a direction chosen when played
        n = _WALK[cid]
        gap = s * 0.7 / max(n, 1)
        out = []
        for i in range(n):
            ty = y + s * 0.2 + i * gap
            out.append(f'<path d="M{_f(cx - s * 0.25)},{_f(ty + s * 0.16)}L{_f(cx)},{_f(ty)}L{_f(cx + s * 0.25)},'
                       f'{_f(ty + s * 0.16)}" stroke="{w}" stroke-width="{sw}" fill="none"/>')
        return "".join(out)
    if cid in _MARCH:  # a big arrow in its fixed direction, 3 tiles
        d = _MARCH[cid]
        ang = {0: -90, 1: 0, 2: 90, 3: 180}[d]
        return (f'<g transform="rotate({ang} {_f(cx)} {_f(cy)})">'
                f'<path d="M{_f(x + s * 0.18)},{_f(cy)}L{_f(x + s * 0.66)},{_f(cy)}" stroke="{w}" stroke-width="{sw}"/>'
                f'<polygon points="{_f(x + s * 0.86)},{_f(cy)} {_f(x + s * 0.6)},{_f(cy - s * 0.2)} {_f(x + s * 0.6)},'
                f'{_f(cy + s * 0.2)}" fill="{w}"/></g>'
                f'<text x="{_f(x + s * 0.2)}" y="{_f(y + s * 0.22)}" font-size="{_f(s * 0.3)}" fill="{w}" '
                f'text-anchor="middle" dominant-baseline="central" font-family="sans-serif" font-weight="bold">3</text>')
    flame = (f'<path d="M{_f(cx)},{_f(y + s * 0.15)}C{_f(cx + s * 0.3)},{_f(y + s * 0.42)} {_f(cx + s * 0.3)},'
             f'{_f(y + s * 0.8)} {_f(cx)},{_f(y + s * 0.85)}C{_f(cx - s * 0.3)},{_f(y + s * 0.8)} {_f(cx - s * 0.3)},'
             f'{_f(y + s * 0.42)} {_f(cx)},{_f(y + s * 0.15)}Z" fill="{w}"/>')
    arrow = (f'<path d="M{_f(x + s * 0.55)},{_f(y + s * 0.78)}L{_f(x + s * 0.9)},{_f(y + s * 0.78)}" stroke="{w}" '
             f'stroke-width="{sw}"/><polygon points="{_f(x + s * 0.96)},{_f(y + s * 0.78)} {_f(x + s * 0.82)},'
             f'{_f(y + s * 0.68)} {_f(x + s * 0.82)},{_f(y + s * 0.88)}" fill="{w}"/>')
    boulder = f'<circle cx="{_f(x + s * 0.4)}" cy="{_f(y + s * 0.42)}" r="{_f(s * 0.24)}" fill="{w}"/>'
    if cid == "ignite":
        return flame
    if cid == "spread_fire":
        return f'<g transform="translate({_f(-s * 0.12)} {_f(-s * 0.06)}) scale(1)">{flame}</g>' + arrow
    if cid == "nudge_boulder":
        return boulder + arrow
    if cid == "place_boulder":
        return (boulder + f'<path d="M{_f(x + s * 0.78)},{_f(y + s * 0.58)}V{_f(y + s * 0.9)}M{_f(x + s * 0.62)},'
                f'{_f(y + s * 0.74)}H{_f(x + s * 0.94)}" stroke="{w}" stroke-width="{sw}"/>')
    if cid == "root":  # a stem with roots spreading into the ground
        return (f'<path d="M{_f(cx)},{_f(y + s * 0.15)}V{_f(y + s * 0.6)}M{_f(cx)},{_f(y + s * 0.6)}L{_f(x + s * 0.22)},'
                f'{_f(y + s * 0.85)}M{_f(cx)},{_f(y + s * 0.6)}L{_f(x + s * 0.78)},{_f(y + s * 0.85)}M{_f(cx)},'
                f'{_f(y + s * 0.6)}V{_f(y + s * 0.88)}M{_f(x + s * 0.15)},{_f(y + s * 0.6)}H{_f(x + s * 0.85)}" '
                f'stroke="{w}" stroke-width="{sw}" fill="none"/>')
    if cid == "self_destruct":  # a starburst
        pts = []
        for i in range(16):
            a = i * math.pi / 8
            rr = s * (0.4 if i % 2 == 0 else 0.18)
            pts.append(f"{_f(cx + rr * math.cos(a))},{_f(cy + rr * math.sin(a))}")
        return f'<polygon points="{" ".join(pts)}" fill="{w}"/>'
    if cid == "douse":  # a drop of water
        return (f'<path d="M{_f(cx)},{_f(y + s * 0.14)}C{_f(cx + s * 0.08)},{_f(y + s * 0.35)} {_f(cx + s * 0.3)},'
                f'{_f(y + s * 0.55)} {_f(cx + s * 0.3)},{_f(y + s * 0.66)}A{_f(s * 0.3)},{_f(s * 0.24)} 0 0 1 '
                f'{_f(cx - s * 0.3)},{_f(y + s * 0.66)}C{_f(cx - s * 0.3)},{_f(y + s * 0.55)} {_f(cx - s * 0.08)},'
                f'{_f(y + s * 0.35)} {_f(cx)},{_f(y + s * 0.14)}Z" fill="{w}"/>')
    if cid == "patch":  # a plank over a hole
        return (f'<rect x="{_f(x + s * 0.2)}" y="{_f(y + s * 0.55)}" width="{_f(s * 0.6)}" height="{_f(s * 0.22)}" '
                f'fill="none" stroke="{w}" stroke-width="{sw}" stroke-dasharray="2 1.5"/>'
                f'<rect x="{_f(x + s * 0.12)}" y="{_f(y + s * 0.28)}" width="{_f(s * 0.76)}" height="{_f(s * 0.18)}" '
                f'rx="1" fill="{w}"/>')
    if cid == "drop_bot":  # a bot coming down onto a tile
        return (f'<circle cx="{_f(cx)}" cy="{_f(y + s * 0.62)}" r="{_f(s * 0.2)}" fill="{w}"/>'
                f'<path d="M{_f(cx)},{_f(y + s * 0.1)}V{_f(y + s * 0.3)}" stroke="{w}" stroke-width="{sw}"/>'
                f'<polygon points="{_f(cx)},{_f(y + s * 0.4)} {_f(cx - s * 0.12)},{_f(y + s * 0.26)} {_f(cx + s * 0.12)},'
                f'{_f(y + s * 0.26)}" fill="{w}"/>')
    return f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s * 0.15)}" fill="{w}"/>'


def command_icon(cid: str, colour: str, x: float, y: float, size: float, name: str = "") -> str:
    """An SVG fragment: the icon of command ``cid`` (D-4.2) of colour word ``colour`` (D-4.1) in
    the square box at (x, y) of ``size`` pixels, as ``<g class="cmd-icon" data-icon=...
    data-colour=...>`` with ``name`` (or the id) as its tooltip."""
    fill = COMMAND_COLOURS.get(colour, "#555")
    return (f'<g class="cmd-icon" data-icon="{escape(cid)}" data-colour="{escape(colour)}">'
            f'<title>{escape(name or cid)} ({escape(colour)})</title>'
            f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(size)}" height="{_f(size)}" rx="{_f(size * 0.18)}" fill="{fill}"/>'
            f'{_pictogram(cid, x, y, size)}</g>')


def icon_svg(cid: str, colour: str, size: int = 24, name: str = "") -> str:
    """The icon of ``cid`` as a standalone SVG document (for the page's order controls)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" '
            f'aria-hidden="true">{command_icon(cid, colour, 0, 0, size, name)}</svg>')


def page_helpers(rules: Any, state: Any, seat: str) -> dict[str, Any]:
    """Extra facts for the seat page's order controls (``Game.page_helpers``): every pool
    command's icon (an SVG document), name and colour, so the controls show the board's icons:
    ``{"commands": {id: {"name", "colour", "colour_hex", "icon"}}}``. The pool is public (D-4)."""
    return {"commands": {c.id: {"name": c.name, "colour": c.colour, "colour_hex": COMMAND_COLOURS.get(c.colour, "#555"),
                                "icon": icon_svg(c.id, c.colour, 20, c.name)} for c in state.pool.commands}}
