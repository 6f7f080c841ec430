"""Symbols for the factory floor (F-3.3, F-3.4, F-6) and geeko's gates (G-2.1), drawn as
pictures rather than text codes, shared by the board drawing (:mod:`.svg`) and its legend
(:func:`legend_svg`), so that the legend shows exactly what the board shows.

Every symbol is an SVG fragment (a string) for one square whose top-left pixel is ``(x, y)``
and whose side is ``k`` pixels, wrapped in ``<g class="el" data-el=NAME>`` with a ``<title>``
(a tooltip) in plain words. ``NAME`` is one of :data:`ELEMENTS`' keys; tests and pages find
elements by it. Edge symbols (walls, fences and the mounted pushers, lasers, blasers and eyes)
take the side ``d`` (0..3 = N E S W, F-2.2) of the square they sit on.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any, Iterable

#: Element name → its legend line in plain words (rule in brackets for the curious reader).
ELEMENTS: dict[str, str] = {
    "robot": "Robot: a disc in its player's colour with its HP in the middle; the pointer on the rim shows "
             "where it faces; dashed and pale: virtual (passes through robots)",
    "next-flag": "Pennant in a player's colour: the flag that player must touch next",
    "flag": "Flag with its number: touch the flags in number order to win",
    "conveyor": "Conveyor (yellow): carries a robot 1 square along the arrow in every register; "
                "a curved arrow turns the robot as it is carried round the bend",
    "express": "Express conveyor (blue, double arrow head): carries a robot 2 squares in every register",
    "gear-left": "Gear turning left: a robot on it turns 90° anticlockwise",
    "gear-right": "Gear turning right: a robot on it turns 90° clockwise",
    "gear-around": "Gear turning around: a robot on it turns 180°",
    "pit": "Pit: a robot that enters it falls in and is destroyed",
    "trapdoor": "Trap door: closed it is floor, open (black) it is a pit; a switch on its channel flips it",
    "drawbridge": "Drawbridge: raised (black, bridge folded up on one side) it is a pit except when entered "
                  "over its bridge side; lowered (planks) it is floor",
    "teleporter": "Teleporter A, B, C…: a robot entering an active one jumps to the next active, empty "
                  "teleporter in letter order (grey: inactive)",
    "switch-green": "Green pressure switch: the first robot to enter it turns it on (filled) and flips the "
                    "devices of its channel",
    "switch-red": "Red toggle switch: every robot that enters it flips it (lever right: on) and the devices "
                  "of its channel",
    "crusher": "Crusher: destroys every robot on it in the registers printed on it",
    "buzzsaw": "Buzzsaw: may damage a robot standing on it at the end of each register",
    "wrench": "Wrench square: at the end of the turn repairs 1 HP (two wrenches: 2 HP or an option) and "
              "makes this your restart point",
    "upgrade": "Upgrade station (blue screen): visit it to add an upgrade",
    "armoury": "Armoury (red shield): a robot stopping here takes the option named on it",
    "gate-open": "Open gate: the way out of this room",
    "gate-closed": "Closed gate (bars): a switch on its channel opens it",
    "wall": "Wall (thick dark line): robots and beams cannot cross it",
    "fence": "Electric fence (orange zigzag): cannot be crossed, and touching it costs HP",
    "pusher": "Pusher (purple plate with an arrow): pushes a robot on its square 1 square in the registers "
              "printed beside it",
    "laser": "Laser turret (red, with its beams): hits robots in the beam's line every register; "
             "each parallel beam is 1 damage",
    "blaser": "Blaser (orange, dashed beam): a laser a switch turns on and off; grey: off",
    "eye": "Electric eye (green): a beam reaching it flips the devices of its channel",
    "channel": "Channel number (small dark tag in the top corner): a switch or eye flips every trap door, bridge, "
               "teleporter, gate or blaser with the same number",
}

#: What each option does, in words (F-6.33's table), for the legend of a board with armouries.
OPTION_EFFECTS = {"RL": "also fires a laser backwards", "DL": "its laser hits count double",
                  "AA": "3 charges soak up damage before HP", "GS": "not turned by conveyors or gears",
                  "FI": "touching a fence costs no damage", "XM": "one card more in the hand",
                  "HC": "cannot be pushed", "MP": "board lasers do it no damage", "ML": "its main laser"}
OPTION_NAMES = {"RL": "Rear Laser", "DL": "Double Laser", "AA": "Ablative Armour", "GS": "Gyro Stabiliser",
                "FI": "Fence Insulation", "XM": "Extra Memory", "HC": "Heavy Chassis", "MP": "Mirror Plating",
                "ML": "Main Laser"}
DIRNAME = {0: "north", 1: "east", 2: "south", 3: "west"}
_UNIT = {0: (0.0, -1.0), 1: (1.0, 0.0), 2: (0.0, 1.0), 3: (-1.0, 0.0)}  # screen step of each direction


def _g(name: str, title: str, body: str, **data: Any) -> str:
    attrs = "".join(f' data-{k.replace("_", "-")}="{escape(str(v))}"' for k, v in sorted(data.items()))
    return f'<g class="el" data-el="{name}"{attrs}><title>{escape(title)}</title>{body}</g>'


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _poly(points: Iterable[tuple[float, float]], fill: str, stroke: str = "none", width: float = 0) -> str:
    pts = " ".join(f"{_f(a)},{_f(b)}" for a, b in points)
    return f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="{_f(width)}"/>'


def _text(x: float, y: float, s: str, size: float, fill: str, weight: str = "bold") -> str:
    return (f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" fill="{fill}" text-anchor="middle" '
            f'dominant-baseline="central" font-family="sans-serif" font-weight="{weight}">{escape(s)}</text>')


def _head(x: float, y: float, d: int, size: float, fill: str) -> str:
    """A triangular arrow head with its tip at (x, y), pointing in direction d."""
    ux, uy = _UNIT[d]
    px, py = -uy, ux
    bx, by = x - ux * size, y - uy * size
    return _poly([(x, y), (bx + px * size * 0.7, by + py * size * 0.7), (bx - px * size * 0.7, by - py * size * 0.7)],
                 fill)


def _edge_mid(x: float, y: float, k: float, d: int, inset: float = 0) -> tuple[float, float]:
    ux, uy = _UNIT[d]
    return x + k / 2 + ux * (k / 2 - inset), y + k / 2 + uy * (k / 2 - inset)


# ---- floor elements -----------------------------------------------------------------------------
def conveyor(x: float, y: float, k: float, d: int, express: bool, entries: Iterable[int] = (), where: str = "") -> str:
    """A conveyor (``express``: blue, two heads) carrying robots in direction ``d``; ``entries``:
    the sides robots are carried in from (F-6.21: from a side, the robot turns with the belt),
    drawn as curves into the exit; straight from the back when none is given."""
    fill, ink = ("#b9d4ff", "#1d4f91") if express else ("#fff1a8", "#8a6d00")
    name = "express" if express else "conveyor"
    back = (d + 2) % 4
    sides = sorted(set(entries)) or [back]
    ex, ey = _edge_mid(x, y, k, d, k * 0.16)
    cx, cy = x + k / 2, y + k / 2
    body = [f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="{fill}" rx="2"/>']
    turns = []
    for s in sides:
        sx, sy = _edge_mid(x, y, k, s, 1)
        if s == back:
            body.append(f'<path d="M{_f(sx)},{_f(sy)}L{_f(ex)},{_f(ey)}" stroke="{ink}" stroke-width="{_f(k * 0.1)}" '
                        f'fill="none"/>')
        else:
            turns.append("left" if s == (d + 3) % 4 else "right")  # from the west onto a north belt: left
            body.append(f'<path class="turn" d="M{_f(sx)},{_f(sy)}Q{_f(cx)},{_f(cy)} {_f(ex)},{_f(ey)}" stroke="{ink}" '
                        f'stroke-width="{_f(k * 0.1)}" fill="none"/>')
    hs = k * 0.2
    tx, ty = _edge_mid(x, y, k, d, 1)
    body.append(_head(tx, ty, d, hs, ink))
    if express:
        ux, uy = _UNIT[d]
        body.append(_head(tx - ux * hs * 0.9, ty - uy * hs * 0.9, d, hs, ink))
    what = "express conveyor" if express else "conveyor"
    turn = f", turning robots {' and '.join(sorted(set(turns)))} as they come round the bend" if turns else ""
    return _g(name, f"{where}{what} carrying robots {DIRNAME[d]}{turn}", "".join(body), towards="NESW"[d])


def gear(x: float, y: float, k: float, way: str, where: str = "") -> str:
    """A gear (F-6.23): ``way`` ``L`` (left 90°), ``R`` (right 90°) or ``U`` (180°), its turn drawn
    as an arrow round the cog."""
    cx, cy = x + k / 2, y + k / 2
    pts = []
    for i in range(32):
        a = i * math.pi / 16
        rad = k * (0.42 if (i % 4) in (0, 1) else 0.34)
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    body = [_poly(pts, "#b8bec6", "#6b7280", 0.8)]
    r = k * 0.22
    ink = "#1f2937"
    # screen angles (y down): sweep 1 turns clockwise on screen, 0 anticlockwise; 270° of arc
    # for a quarter turn, a half circle over the top for the U-turn
    if way == "U":
        a0, a1, sweep = math.pi * 0.95, math.pi * 0.05, 1
    elif way == "L":
        a0, a1, sweep = math.pi * 0.25, math.pi * 0.75, 0
    else:
        a0, a1, sweep = math.pi * 0.75, math.pi * 0.25, 1
    x0, y0 = cx + r * math.cos(a0), cy + r * math.sin(a0)
    x1, y1 = cx + r * math.cos(a1), cy + r * math.sin(a1)
    large = 1
    body.append(f'<path d="M{_f(x0)},{_f(y0)}A{_f(r)},{_f(r)} 0 {large} {sweep} {_f(x1)},{_f(y1)}" stroke="{ink}" '
                f'stroke-width="{_f(k * 0.08)}" fill="none"/>')
    # the head: tangent to the circle at the end, in the direction of travel
    t = (1 if sweep else -1)
    tx, ty = -math.sin(a1) * t, math.cos(a1) * t
    h = k * 0.17
    px, py = -ty, tx
    body.append(_poly([(x1 + tx * h, y1 + ty * h), (x1 + px * h * 0.75, y1 + py * h * 0.75),
                       (x1 - px * h * 0.75, y1 - py * h * 0.75)], ink))
    if way == "U":
        body.append(_text(cx - k * 0.04, cy + k * 0.2, "180°", k * 0.15, ink))
    name = {"L": "gear-left", "R": "gear-right", "U": "gear-around"}[way]
    what = {"L": "turns robots left 90° (anticlockwise)", "R": "turns robots right 90° (clockwise)",
            "U": "turns robots around (180°)"}[way]
    return _g(name, f"{where}gear: {what}", "".join(body), way=way)


def pit(x: float, y: float, k: float, where: str = "") -> str:
    """A pit (F-6.15): black, with a lighter rim."""
    return _g("pit", f"{where}pit: a robot entering it is destroyed",
              f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="#111" '
              f'stroke="#555" stroke-width="2"/>'
              f'<rect x="{_f(x + k * 0.25)}" y="{_f(y + k * 0.25)}" width="{_f(k * 0.5)}" height="{_f(k * 0.5)}" '
              f'fill="#000"/>')


def trapdoor(x: float, y: float, k: float, open_: bool, where: str = "") -> str:
    """A trap door (F-6.16): two door leaves; open, the square is black (a pit) and the leaves
    dashed."""
    i = k * 0.12
    leaf = "#666" if open_ else "#8d8d8d"
    dash = ' stroke-dasharray="2 2"' if open_ else ""
    fill = "#111" if open_ else "#c9c9c9"
    body = (f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="{fill}"/>'
            f'<rect x="{_f(x + i)}" y="{_f(y + i)}" width="{_f(k - 2 * i)}" height="{_f(k - 2 * i)}" fill="none" '
            f'stroke="{leaf}" stroke-width="1.5"{dash}/>'
            f'<line x1="{_f(x + k / 2)}" y1="{_f(y + i)}" x2="{_f(x + k / 2)}" y2="{_f(y + k - i)}" stroke="{leaf}" '
            f'stroke-width="1.5"{dash}/>')
    for dx in (-0.12, 0.12):  # the handles
        body += (f'<circle cx="{_f(x + k / 2 + dx * k)}" cy="{_f(y + k / 2)}" r="{_f(k * 0.04)}" '
                 f'fill="{leaf}"/>')
    state = "open: a pit" if open_ else "closed: floor"
    return _g("trapdoor", f"{where}trap door, now {state}", body, state="open" if open_ else "closed")


def drawbridge(x: float, y: float, k: float, side: int, lowered: bool, where: str = "") -> str:
    """A drawbridge (F-6.17): lowered, planks across the square; raised, a pit with the bridge
    folded up against its bridge ``side``."""
    wood, dark = "#c9a36b", "#6b4a1e"
    if lowered:
        body = f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="{wood}"/>'
        vertical = side in (0, 2)  # planks run across the way over the bridge
        for f in (0.25, 0.5, 0.75):
            if vertical:
                body += (f'<line x1="{_f(x + 2)}" y1="{_f(y + k * f)}" x2="{_f(x + k - 2)}" y2="{_f(y + k * f)}" '
                         f'stroke="{dark}" stroke-width="1"/>')
            else:
                body += (f'<line x1="{_f(x + k * f)}" y1="{_f(y + 2)}" x2="{_f(x + k * f)}" y2="{_f(y + k - 2)}" '
                         f'stroke="{dark}" stroke-width="1"/>')
    else:
        body = f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="#111"/>'
    # the bridge's hinge side: a thick wooden bar
    t = k * 0.16
    bx, by, bw, bh = {0: (x + 1, y + 1, k - 2, t), 2: (x + 1, y + k - 1 - t, k - 2, t),
                      3: (x + 1, y + 1, t, k - 2), 1: (x + k - 1 - t, y + 1, t, k - 2)}[side]
    body += (f'<rect x="{_f(bx)}" y="{_f(by)}" width="{_f(bw)}" height="{_f(bh)}" fill="{wood}" stroke="{dark}" '
             f'stroke-width="1"/>')
    state = "lowered: floor" if lowered else f"raised: a pit except when entered from the {DIRNAME[side]}"
    return _g("drawbridge", f"{where}drawbridge, {state}", body, state="lowered" if lowered else "raised")


def teleporter(x: float, y: float, k: float, letter: str, active: bool, where: str = "") -> str:
    """A teleporter (F-6.18): purple rings round its letter; grey and dashed while inactive."""
    ink = "#6b21a8" if active else "#9ca3af"
    cx, cy = x + k / 2, y + k / 2
    dash = "" if active else ' stroke-dasharray="2 2"'
    body = f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="#f3e8ff"/>'
    for rr in (0.44, 0.33):
        body += f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(k * rr)}" fill="none" stroke="{ink}" stroke-width="1.5"{dash}/>'
    body += f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(k * 0.22)}" fill="{ink}"/>'
    body += _text(cx, cy, letter, k * 0.3, "#fff")
    state = "active" if active else "inactive"
    return _g("teleporter", f"{where}teleporter {letter} ({state}): a robot entering it jumps to the next active, "
                            f"empty teleporter in letter order", body, teleporter=letter, state=state)


def switch(x: float, y: float, k: float, kind: str, on: bool, where: str = "", top: bool = False) -> str:
    """A floor switch (F-6.11 ``SG`` green pressure plate, F-6.12 ``SR`` red toggle lever); ``on``
    fills the plate / throws the lever right. ``top``: drawn small at the top of a square shared
    with a crusher (F-6.24a)."""
    s = k * (0.45 if top else 1)
    ox, oy = (x + (k - s) / 2, y + 1) if top else (x, y)
    cx, cy = ox + s / 2, oy + s / 2
    if kind == "SG":
        ink = "#15803d"
        body = (f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s * 0.36)}" fill="#dcfce7" stroke="{ink}" stroke-width="1.5"/>'
                f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s * 0.22)}" fill="{ink if on else "#fff"}" stroke="{ink}" '
                f'stroke-width="1.5"/>')
        name, what = "switch-green", "green pressure switch"
    else:
        ink = "#b91c1c"
        lx = cx + (s * 0.22 if on else -s * 0.22)
        body = (f'<rect x="{_f(cx - s * 0.3)}" y="{_f(cy + s * 0.05)}" width="{_f(s * 0.6)}" height="{_f(s * 0.22)}" '
                f'rx="2" fill="#fee2e2" stroke="{ink}" stroke-width="1.2"/>'
                f'<line x1="{_f(cx)}" y1="{_f(cy + s * 0.12)}" x2="{_f(lx)}" y2="{_f(cy - s * 0.28)}" stroke="{ink}" '
                f'stroke-width="{_f(max(1.5, s * 0.07))}"/>'
                f'<circle cx="{_f(lx)}" cy="{_f(cy - s * 0.28)}" r="{_f(s * 0.09)}" fill="{ink if on else "#fff"}" '
                f'stroke="{ink}" stroke-width="1.2"/>')
        name, what = "switch-red", "red toggle switch"
    return _g(name, f"{where}{what}, now {'on' if on else 'off'}", body, state="on" if on else "off")


def channel_tag(x: float, y: float, k: float, channel: int, what: str = "") -> str:
    """The channel number (F-3.7) of a switch or of a device it flips, as a small dark tag in the
    square's top-right corner, so that a player sees which switch opens which gate (newcomer
    audit); ``what``: the tooltip's words after "channel N" ("flips the gate on r1c4")."""
    w = max(7.0, k * 0.28)
    bx, by = x + k - w - 1, y + 1
    body = (f'<rect x="{_f(bx)}" y="{_f(by)}" width="{_f(w)}" height="{_f(w)}" rx="2" fill="#1f2937"/>'
            f'<text x="{_f(bx + w / 2)}" y="{_f(by + w * 0.8)}" font-size="{_f(w * 0.85)}" text-anchor="middle" '
            f'fill="#fff" font-family="sans-serif" font-weight="bold">{channel}</text>')
    return _g("channel", f"channel {channel}" + (f": {what}" if what else ""), body, channel=channel)


def crusher(x: float, y: float, k: float, regs: Iterable[int], where: str = "") -> str:
    """A crusher (F-6.24): two toothed jaws with the registers in which it crushes between them."""
    regs = list(regs)
    jaw, tooth = "#4b5563", "#9ca3af"
    h = k * 0.16
    body = f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="#fde2e2"/>'
    for top in (True, False):
        yy = y + 1 if top else y + k - 1 - h
        body += f'<rect x="{_f(x + 1)}" y="{_f(yy)}" width="{_f(k - 2)}" height="{_f(h)}" fill="{jaw}"/>'
        n = 4
        w = (k - 2) / n
        for i in range(n):
            bx = x + 1 + i * w
            ty = yy + h if top else yy
            tip = ty + (h * 0.9 if top else -h * 0.9)
            body += _poly([(bx, ty), (bx + w, ty), (bx + w / 2, tip)], tooth)
    body += _text(x + k / 2, y + k / 2, " ".join(map(str, regs)), k * 0.27, "#b91c1c")
    return _g("crusher", f"{where}crusher: destroys robots on it in register{'s' if len(regs) > 1 else ''} "
                         f"{', '.join(map(str, regs))}", body, registers="".join(map(str, regs)))


def buzzsaw(x: float, y: float, k: float, where: str = "") -> str:
    """A buzzsaw (F-6.28): a toothed blade."""
    cx, cy = x + k / 2, y + k / 2
    pts = []
    for i in range(24):
        a = i * math.pi / 12
        rad = k * (0.42 if i % 2 == 0 else 0.3)
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    body = (_poly(pts, "#d1d5db", "#374151", 1) +
            f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(k * 0.09)}" fill="#374151"/>')
    return _g("buzzsaw", f"{where}buzzsaw: may damage a robot on it at the end of each register", body)


def _wrench_path(cx: float, cy: float, k: float, angle: float, ink: str) -> str:
    s = k * 0.38
    ca, sa = math.cos(angle), math.sin(angle)
    x1, y1 = cx - s * ca, cy - s * sa
    x2, y2 = cx + s * ca * 0.55, cy + s * sa * 0.55
    hx, hy = cx + s * ca * 0.75, cy + s * sa * 0.75
    return (f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{ink}" stroke-width="{_f(k * 0.1)}" '
            f'stroke-linecap="round"/>'
            f'<circle cx="{_f(hx)}" cy="{_f(hy)}" r="{_f(k * 0.13)}" fill="{ink}"/>'
            f'<circle cx="{_f(hx + ca * k * 0.07)}" cy="{_f(hy + sa * k * 0.07)}" r="{_f(k * 0.065)}" fill="#e6f4ea"/>')


def wrench(x: float, y: float, k: float, n: int, where: str = "") -> str:
    """A wrench square (F-6.30): one or two (crossed) wrenches."""
    cx, cy = x + k / 2, y + k / 2
    ink = "#166534"
    body = f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="#e6f4ea"/>'
    body += _wrench_path(cx, cy, k, -math.pi / 4, ink)
    if n > 1:
        body += _wrench_path(cx, cy, k, -3 * math.pi / 4, ink)
    what = "repairs 1 HP" if n == 1 else "repairs 2 HP or gives an option"
    return _g("wrench", f"{where}wrench square ({n} wrench{'es' if n > 1 else ''}): {what} at the end of the turn and "
                        f"sets the restart point", body, wrenches=n)


def flag(x: float, y: float, k: float, n: int, where: str = "") -> str:
    """Flag ``n`` (F-6.29): a numbered flag on a pole."""
    px = x + k * 0.3
    body = (f'<line x1="{_f(px)}" y1="{_f(y + k * 0.12)}" x2="{_f(px)}" y2="{_f(y + k * 0.9)}" stroke="#374151" '
            f'stroke-width="{_f(k * 0.06)}"/>'
            + _poly([(px, y + k * 0.12), (x + k * 0.88, y + k * 0.3), (px, y + k * 0.56)], "#dc2626", "#7f1d1d", 0.8)
            + _text(px + k * 0.2, y + k * 0.33, str(n), k * 0.27, "#fff"))
    return _g("flag", f"{where}flag {n}: touch the flags in number order", body, flag=n)


def upgrade(x: float, y: float, k: float, where: str = "") -> str:
    """An upgrade station (F-6.31): a blue computer screen."""
    body = (f'<rect x="{_f(x + k * 0.16)}" y="{_f(y + k * 0.16)}" width="{_f(k * 0.68)}" height="{_f(k * 0.48)}" '
            f'rx="2" fill="#2563eb" stroke="#1e3a8a" stroke-width="1"/>'
            f'<rect x="{_f(x + k * 0.42)}" y="{_f(y + k * 0.64)}" width="{_f(k * 0.16)}" height="{_f(k * 0.1)}" fill="#1e3a8a"/>'
            f'<rect x="{_f(x + k * 0.28)}" y="{_f(y + k * 0.74)}" width="{_f(k * 0.44)}" height="{_f(k * 0.07)}" fill="#1e3a8a"/>'
            + _text(x + k / 2, y + k * 0.4, "+", k * 0.36, "#fff"))
    return _g("upgrade", f"{where}upgrade station: visit it to add an upgrade", body)


def armoury(x: float, y: float, k: float, code: str, where: str = "") -> str:
    """An armoury (F-6.32) holding option ``code`` (F-6.33): a red shield with the option's code,
    its name in the tooltip."""
    cx = x + k / 2
    body = (f'<path d="M{_f(cx)},{_f(y + k * 0.1)}L{_f(x + k * 0.84)},{_f(y + k * 0.24)}L{_f(x + k * 0.78)},'
            f'{_f(y + k * 0.62)}L{_f(cx)},{_f(y + k * 0.92)}L{_f(x + k * 0.22)},{_f(y + k * 0.62)}L{_f(x + k * 0.16)},'
            f'{_f(y + k * 0.24)}Z" fill="#dc2626" stroke="#7f1d1d" stroke-width="1"/>'
            + _text(cx, y + k * 0.46, code, k * 0.26, "#fff"))
    return _g("armoury", f"{where}armoury holding option {code} ({OPTION_NAMES.get(code, code)}): a robot stopping "
                         f"here takes it", body, option=code)


def gate(x: float, y: float, k: float, open_: bool, where: str = "") -> str:
    """A geeko gate (G-2.1, G-2.2): open, a green doorway with an arrow out; closed, dark bars."""
    if open_:
        body = (f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="#2ca02c"/>'
                f'<line x1="{_f(x + k / 2)}" y1="{_f(y + k * 0.62)}" x2="{_f(x + k / 2)}" y2="{_f(y + k * 0.22)}" '
                f'stroke="#fff" stroke-width="{_f(k * 0.08)}"/>' + _head(x + k / 2, y + k * 0.1, 0, k * 0.16, "#fff")
                + _text(x + k / 2, y + k * 0.8, "OPEN", k * 0.22, "#fff"))
    else:
        body = f'<rect x="{_f(x + 1)}" y="{_f(y + 1)}" width="{_f(k - 2)}" height="{_f(k - 2)}" fill="#444"/>'
        for i in (0.25, 0.5, 0.75):
            body += (f'<line x1="{_f(x + k * i)}" y1="{_f(y + 1)}" x2="{_f(x + k * i)}" y2="{_f(y + k * 0.62)}" '
                     f'stroke="#ddd" stroke-width="2"/>')
        body += _text(x + k / 2, y + k * 0.8, "SHUT", k * 0.22, "#fff")
    return _g("gate-open" if open_ else "gate-closed",
              f"{where}gate, now {'OPEN: exit the room here' if open_ else 'CLOSED'}", body)


# ---- edges and mounts ---------------------------------------------------------------------------
def _edge_line(x: float, y: float, k: float, d: int) -> tuple[float, float, float, float]:
    return {0: (x, y, x + k, y), 1: (x + k, y, x + k, y + k), 2: (x, y + k, x + k, y + k), 3: (x, y, x, y + k)}[d]


def wall(x: float, y: float, k: float, d: int, where: str = "") -> str:
    """A wall (F-6.9) on side ``d`` of the square."""
    x1, y1, x2, y2 = _edge_line(x, y, k, d)
    return _g("wall", f"{where}wall on the {DIRNAME[d]} side",
              f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="#1f2937" stroke-width="4" '
              f'stroke-linecap="square"/>', side="NESW"[d])


def fence(x: float, y: float, k: float, d: int, where: str = "") -> str:
    """An electric fence (F-6.10) on side ``d``: an orange zigzag along the edge."""
    x1, y1, x2, y2 = _edge_line(x, y, k, d)
    n = 6
    pts = []
    for i in range(n + 1):
        t = i / n
        off = (2.2 if i % 2 else -2.2) if 0 < i < n else 0
        px, py = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
        if y1 == y2:
            py += off
        else:
            px += off
        pts.append(f"{_f(px)},{_f(py)}")
    return _g("fence", f"{where}electric fence on the {DIRNAME[d]} side: touching it costs HP",
              f'<polyline points="{" ".join(pts)}" fill="none" stroke="#f59e0b" stroke-width="2"/>', side="NESW"[d])


def _mount_box(x: float, y: float, k: float, d: int, depth: float, length: float) -> tuple[float, float, float, float]:
    """The rectangle (x, y, w, h) of a mount of ``depth`` x ``length`` (fractions of k) on side d."""
    dp, ln = k * depth, k * length
    if d == 0:
        return x + (k - ln) / 2, y + 1, ln, dp
    if d == 2:
        return x + (k - ln) / 2, y + k - 1 - dp, ln, dp
    if d == 3:
        return x + 1, y + (k - ln) / 2, dp, ln
    return x + k - 1 - dp, y + (k - ln) / 2, dp, ln


def pusher(x: float, y: float, k: float, d: int, regs: Iterable[int], where: str = "") -> str:
    """A pusher (F-6.22) mounted on side ``d``, pushing toward the opposite side in the listed
    registers: a purple plate, an arrow into the square and the register numbers."""
    regs = list(regs)
    bx, by, bw, bh = _mount_box(x, y, k, d, 0.14, 0.7)
    push = (d + 2) % 4
    ux, uy = _UNIT[push]
    sx, sy = _edge_mid(x, y, k, d, k * 0.14)
    tx, ty = sx + ux * k * 0.3, sy + uy * k * 0.3
    body = (f'<rect x="{_f(bx)}" y="{_f(by)}" width="{_f(bw)}" height="{_f(bh)}" fill="#7b3294"/>'
            f'<line x1="{_f(sx)}" y1="{_f(sy)}" x2="{_f(tx)}" y2="{_f(ty)}" stroke="#7b3294" stroke-width="2"/>'
            + _head(tx + ux * k * 0.06, ty + uy * k * 0.06, push, k * 0.12, "#7b3294"))
    # the registers beside the arrow
    px, py = -uy, ux
    lx, ly = sx + ux * k * 0.2 + px * k * 0.26, sy + uy * k * 0.2 + py * k * 0.26
    body += _text(lx, ly, "".join(map(str, regs)), k * 0.22, "#581c87")
    return _g("pusher", f"{where}pusher on the {DIRNAME[d]} side, pushing {DIRNAME[push]} in register"
                        f"{'s' if len(regs) > 1 else ''} {', '.join(map(str, regs))}", body,
              side="NESW"[d], registers="".join(map(str, regs)))


def emitter(x: float, y: float, k: float, d: int, kind: str, on: bool = True, strength: int = 1,
            channel: int | None = None, where: str = "") -> str:
    """A laser turret (F-6.26, ``kind`` ``laser``, ``strength`` beams), a blaser (``blaser``, on or
    off) or an electric eye (F-6.13, ``eye``) mounted on side ``d``."""
    bx, by, bw, bh = _mount_box(x, y, k, d, 0.16, 0.4)
    cx, cy = bx + bw / 2, by + bh / 2
    if kind == "eye":
        ink = "#15803d" if on else "#86efac"
        ex, ey = _edge_mid(x, y, k, d, k * 0.12)
        rx, ry = (k * 0.2, k * 0.1) if d in (0, 2) else (k * 0.1, k * 0.2)
        body = (f'<ellipse cx="{_f(ex)}" cy="{_f(ey)}" rx="{_f(rx)}" ry="{_f(ry)}" fill="#fff" stroke="{ink}" stroke-width="1.5"/>'
                f'<circle cx="{_f(ex)}" cy="{_f(ey)}" r="{_f(k * 0.06)}" fill="{ink}"/>')
        return _g("eye", f"{where}electric eye on the {DIRNAME[d]} side (channel {channel}), now {'on' if on else 'off'}",
                  body, side="NESW"[d], state="on" if on else "off")
    fire = (d + 2) % 4
    ux, uy = _UNIT[fire]
    colour = "#dc2626" if kind == "laser" else ("#f97316" if on else "#9ca3af")
    body = (f'<rect x="{_f(bx)}" y="{_f(by)}" width="{_f(bw)}" height="{_f(bh)}" rx="1.5" fill="{colour}" '
            f'stroke="#450a0a" stroke-width="0.8"/>'
            f'<line x1="{_f(cx)}" y1="{_f(cy)}" x2="{_f(cx + ux * k * 0.14)}" y2="{_f(cy + uy * k * 0.14)}" '
            f'stroke="#450a0a" stroke-width="{_f(k * 0.07)}"/>')
    if kind == "laser":
        what = f"laser turret on the {DIRNAME[d]} side firing {DIRNAME[fire]}, {strength} beam{'s' if strength > 1 else ''}"
        return _g("laser", f"{where}{what}", body, side="NESW"[d], strength=strength)
    what = f"blaser on the {DIRNAME[d]} side firing {DIRNAME[fire]} (channel {channel}), now {'on' if on else 'off'}"
    return _g("blaser", f"{where}{what}", body, side="NESW"[d], state="on" if on else "off")


def beam(points: list[tuple[float, float]], strength: int, kind: str, d: int) -> str:
    """A board laser's beam along the squares' centres ``points`` (pixels; the first is the
    emitter's square): ``strength`` parallel lines, dashed for a blaser."""
    if len(points) < 1:
        return ""
    ux, uy = _UNIT[d]
    px, py = -uy, ux
    colour = "#dc2626" if kind == "laser" else "#f97316"
    dash = ' stroke-dasharray="4 2"' if kind == "blaser" else ""
    (x1, y1), (x2, y2) = points[0], points[-1]
    out = []
    for i in range(strength):
        off = (i - (strength - 1) / 2) * 3
        out.append(f'<line x1="{_f(x1 + px * off)}" y1="{_f(y1 + py * off)}" x2="{_f(x2 + px * off)}" '
                   f'y2="{_f(y2 + py * off)}" stroke="{colour}" stroke-width="1.2" stroke-opacity="0.8"{dash}/>')
    return f'<g class="beam" data-kind="{kind}" data-strength="{strength}" pointer-events="none">{"".join(out)}</g>'


# ---- robots and markers -------------------------------------------------------------------------
def robot_disc(cx: float, cy: float, rad: float, k: float, fill: str, edge: str, ink: str, facing: int, hp: int,
               virtual: bool) -> str:
    """A robot's disc: ``fill`` (its seat colour), the ``hp`` in the middle in ``ink``, and a
    pointer outside the rim toward ``facing`` (so the HP number is never crossed); a virtual
    robot is pale and dashed (F-6.7)."""
    ux, uy = _UNIT[facing]
    px, py = -uy, ux
    tip = rad + k * 0.16
    base = rad - 0.5
    w = k * 0.12
    pointer = _poly([(cx + ux * tip, cy + uy * tip), (cx + ux * base + px * w, cy + uy * base + py * w),
                     (cx + ux * base - px * w, cy + uy * base - py * w)], "#111")
    op = ' fill-opacity="0.45" stroke-dasharray="3 2"' if virtual else ""
    disc = (f'<circle class="disc" cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(rad)}" fill="{fill}" stroke="{edge}" '
            f'stroke-width="2"{op}/>')
    hp_text = (f'<text class="hp" x="{_f(cx)}" y="{_f(cy)}" font-size="{_f(max(8, rad * 0.95))}" fill="{"#111" if virtual else ink}" '
               f'text-anchor="middle" dominant-baseline="central" font-family="sans-serif" font-weight="bold">{hp}</text>')
    return pointer + disc + hp_text


def pennant(x: float, y: float, k: float, i: int, fill: str, edge: str) -> str:
    """A next-flag marker: a small pennant (not a disc, so never taken for a robot) along the
    bottom of the flag's square, the ``i``-th of the players aiming at it."""
    px = x + k * 0.08 + i * k * 0.2
    py = y + k - 2
    return (f'<line x1="{_f(px)}" y1="{_f(py)}" x2="{_f(px)}" y2="{_f(py - k * 0.3)}" stroke="#111" stroke-width="1"/>'
            + _poly([(px, py - k * 0.3), (px + k * 0.17, py - k * 0.23), (px, py - k * 0.15)], fill, edge, 0.8))
