"""Small SVG building blocks shared by every game's drawing."""

from __future__ import annotations

import math
import textwrap
from html import escape

from botwars.render.palette import PALETTE

#: The drawn seat colours in seat order (render/palette.py is the only declaration).
PLAYER_COLOURS = [c.fill for c in PALETTE]


class Svg:
    """An SVG document under construction: ``cell`` pixels per square, ``margin`` for labels.

    Grid squares are addressed by column ``c`` (0-based, west to east) and row ``r`` (0-based,
    north to south, i.e. screen order); games convert their own notation to these.
    """

    def __init__(self, cols: int, rows: int, cell: int = 32, margin: int = 22, title: str = "",
                 side: int = 0, min_height: int = 0):
        self.cols, self.rows, self.cell, self.margin = cols, rows, cell, margin
        self.side = side  # width in pixels of a text panel right of the board (0: none)
        self.min_height = min_height  # the panel may need more height than the board
        self.parts: list[str] = []
        self.defs: list[str] = []
        self.title = title

    @property
    def board_width(self) -> int:
        """Width of the board with its label margins (the panel, if any, starts here)."""
        return self.cols * self.cell + 2 * self.margin

    @property
    def width(self) -> int:
        return self.board_width + self.side

    @property
    def height(self) -> int:
        return max(self.rows * self.cell + 2 * self.margin, self.min_height)

    def xy(self, c: float, r: float) -> tuple[float, float]:
        """Pixel of the top-left corner of square (c, r)."""
        return self.margin + c * self.cell, self.margin + r * self.cell

    def centre(self, c: float, r: float) -> tuple[float, float]:
        x, y = self.xy(c, r)
        return x + self.cell / 2, y + self.cell / 2

    def add(self, s: str) -> None:
        self.parts.append(s)

    def rect(self, c: int, r: int, fill: str, stroke: str = "#999", cls: str = "", inset: float = 0,
             title: str = "", stroke_width: float = 0.5, dash: str = "") -> None:
        """Square (c, r), shrunk by ``inset`` pixels on each side; ``title`` becomes a tooltip."""
        x, y = self.xy(c, r)
        attrs = (f'x="{x + inset:g}" y="{y + inset:g}" width="{self.cell - 2 * inset:g}" '
                 f'height="{self.cell - 2 * inset:g}" fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width:g}"'
                 + (f' stroke-dasharray="{dash}"' if dash else "") + (f' class="{cls}"' if cls else ""))
        if title:
            self.add(f"<rect {attrs}><title>{escape(title)}</title></rect>")
        else:
            self.add(f"<rect {attrs}/>")

    def area(self, c1: int, r1: int, c2: int, r2: int, fill: str, stroke: str, opacity: float = 0.25,
             cls: str = "", title: str = "") -> None:
        """A translucent rectangle over squares c1..c2 x r1..r2 (inclusive, any order), e.g. a blast."""
        ca, cb = sorted((c1, c2))
        ra, rb = sorted((r1, r2))
        x, y = self.xy(ca, ra)
        t = f"<title>{escape(title)}</title>" if title else ""
        self.add(f'<rect x="{x:g}" y="{y:g}" width="{(cb - ca + 1) * self.cell:g}" height="{(rb - ra + 1) * self.cell:g}" '
                 f'fill="{fill}" fill-opacity="{opacity:g}" stroke="{stroke}" stroke-width="2"'
                 + (f' class="{cls}"' if cls else "") + f">{t}</rect>")

    def cross(self, c: float, r: float, stroke: str, width: float = 2, size: float = 0.35, cls: str = "") -> None:
        """An X over square (c, r) (``size``: half the arm length in cells)."""
        x, y = self.centre(c, r)
        d = self.cell * size
        k = f' class="{cls}"' if cls else ""
        self.add(f'<path d="M{x - d:g},{y - d:g}L{x + d:g},{y + d:g}M{x - d:g},{y + d:g}L{x + d:g},{y - d:g}" '
                 f'stroke="{stroke}" stroke-width="{width:g}" fill="none"{k}/>')

    def arrow(self, c1: float, r1: float, c2: float, r2: float, stroke: str, width: float = 2, dash: str = "",
              cls: str = "", title: str = "", shorten: float = 0) -> None:
        """A line from the centre of (c1, r1) to the centre of (c2, r2) with an arrow head at the end,
        which stops ``shorten`` cells short of that centre (so a piece drawn there leaves it visible)."""
        x1, y1 = self.centre(c1, r1)
        x2, y2 = self.centre(c2, r2)
        ang = math.atan2(y2 - y1, x2 - x1)
        if shorten and (x1, y1) != (x2, y2):
            cut = min(shorten * self.cell, math.hypot(x2 - x1, y2 - y1) / 2)
            x2, y2 = x2 - cut * math.cos(ang), y2 - cut * math.sin(ang)
        h = max(5.0, self.cell * 0.22)
        p1 = (x2 - h * math.cos(ang - 0.45), y2 - h * math.sin(ang - 0.45))
        p2 = (x2 - h * math.cos(ang + 0.45), y2 - h * math.sin(ang + 0.45))
        d = f' stroke-dasharray="{dash}"' if dash else ""
        t = f"<title>{escape(title)}</title>" if title else ""
        k = f' class="{cls}"' if cls else ""
        self.add(f'<g{k}>{t}'
                 f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}" stroke-width="{width:g}"{d}/>'
                 f'<polygon points="{x2:.1f},{y2:.1f} {p1[0]:.1f},{p1[1]:.1f} {p2[0]:.1f},{p2[1]:.1f}" '
                 f'fill="{stroke}"/></g>')

    def open_group(self, cls: str, title: str = "", **data: object) -> None:
        """Start a ``<g class=cls data-KEY=VALUE...>`` (close it with :meth:`close_group`); games tag
        pieces this way so pages and tests can find them (``data_sub="a"`` → ``data-sub="a"``)."""
        attrs = "".join(f' data-{k.replace("_", "-")}="{escape(str(v))}"' for k, v in sorted(data.items()))
        self.add(f'<g class="{escape(cls)}"{attrs}>' + (f"<title>{escape(title)}</title>" if title else ""))

    def close_group(self) -> None:
        self.add("</g>")

    def panel(self, lines: list[tuple[str, str]], top: float | None = None, size: int = 11,
              line_height: float = 15) -> float:
        """Text lines in the side panel, top to bottom: ``(text, colour)`` pairs; a text starting
        with ``"# "`` is drawn bold without the marker. Lines wider than the panel are wrapped
        (estimated at 0.58 ``size`` per character); the drawing grows to fit. Returns the y below
        the last line. Raises ``ValueError`` if the drawing has no panel."""
        if not self.side:
            raise ValueError("this drawing has no side panel (side=0)")
        x = self.board_width + 4
        y = self.margin if top is None else top
        width = max(10, int((self.side - 8) / (0.58 * size)))
        for s, colour in lines:
            bold = s.startswith("# ")
            body = s[2:] if bold else s
            for part in textwrap.wrap(body, width, subsequent_indent="  ") or [""]:
                self.text(x, y, part, size, colour or "#222", anchor="start", weight="bold" if bold else "normal")
                y += line_height
        self.min_height = max(self.min_height, int(y + line_height))
        return y

    def text(self, x: float, y: float, s: str, size: int = 10, fill: str = "#222", anchor: str = "middle",
             weight: str = "normal") -> None:
        self.add(f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
                 f'dominant-baseline="central" font-family="sans-serif" font-weight="{weight}">{escape(s)}</text>')

    def circle(self, c: int, r: int, fill: str, radius: float = 0.38, stroke: str = "#000", title: str = "") -> None:
        x, y = self.centre(c, r)
        t = f"<title>{escape(title)}</title>" if title else ""
        self.add(f'<circle cx="{x:g}" cy="{y:g}" r="{self.cell * radius:g}" fill="{fill}" stroke="{stroke}" '
                 f'stroke-width="1">{t}</circle>')

    def line(self, c1: float, r1: float, c2: float, r2: float, stroke: str, width: float = 2, dash: str = "") -> None:
        x1, y1 = self.centre(c1, r1)
        x2, y2 = self.centre(c2, r2)
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}" stroke-width="{width}"{d}/>')

    def labels(self, col_labels: list[str], row_labels: list[str]) -> None:
        """Coordinate labels: ``col_labels[c]`` above and below, ``row_labels[r]`` left and right."""
        m, cell = self.margin, self.cell
        for c, s in enumerate(col_labels):
            x = m + c * cell + cell / 2
            self.text(x, m / 2, s, 9, "#555")
            self.text(x, self.rows * cell + m + m / 2, s, 9, "#555")
        for r, s in enumerate(row_labels):
            y = m + r * cell + cell / 2
            self.text(m / 2, y, s, 9, "#555")
            self.text(self.board_width - m / 2, y, s, 9, "#555")

    def to_string(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" role="img" aria-label="{escape(self.title)}">')
        title = f"<title>{escape(self.title)}</title>" if self.title else ""
        defs = f"<defs>{''.join(self.defs)}</defs>" if self.defs else ""
        return head + title + defs + "".join(self.parts) + "</svg>\n"

    def hatch(self, pid: str, colour: str, background: str) -> str:
        """Define (once) a diagonal hatch pattern and return its ``url(#pid)`` fill reference."""
        if not any(f'id="{pid}"' in d for d in self.defs):
            self.defs.append(f'<pattern id="{pid}" width="6" height="6" patternUnits="userSpaceOnUse" '
                             f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{background}"/>'
                             f'<line x1="0" y1="0" x2="0" y2="6" stroke="{colour}" stroke-width="2"/></pattern>')
        return f"url(#{pid})"
