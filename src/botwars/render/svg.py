"""Small SVG building blocks shared by every game's drawing."""

from __future__ import annotations

from html import escape

PLAYER_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


class Svg:
    """An SVG document under construction: ``cell`` pixels per square, ``margin`` for labels.

    Grid squares are addressed by column ``c`` (0-based, west to east) and row ``r`` (0-based,
    north to south, i.e. screen order); games convert their own notation to these.
    """

    def __init__(self, cols: int, rows: int, cell: int = 32, margin: int = 22, title: str = ""):
        self.cols, self.rows, self.cell, self.margin = cols, rows, cell, margin
        self.parts: list[str] = []
        self.title = title

    @property
    def width(self) -> int:
        return self.cols * self.cell + 2 * self.margin

    @property
    def height(self) -> int:
        return self.rows * self.cell + 2 * self.margin

    def xy(self, c: float, r: float) -> tuple[float, float]:
        """Pixel of the top-left corner of square (c, r)."""
        return self.margin + c * self.cell, self.margin + r * self.cell

    def centre(self, c: float, r: float) -> tuple[float, float]:
        x, y = self.xy(c, r)
        return x + self.cell / 2, y + self.cell / 2

    def add(self, s: str) -> None:
        self.parts.append(s)

    def rect(self, c: int, r: int, fill: str, stroke: str = "#999", cls: str = "", inset: float = 0) -> None:
        x, y = self.xy(c, r)
        self.add(f'<rect x="{x + inset:g}" y="{y + inset:g}" width="{self.cell - 2 * inset:g}" '
                 f'height="{self.cell - 2 * inset:g}" fill="{fill}" stroke="{stroke}" stroke-width="0.5"'
                 + (f' class="{cls}"' if cls else "") + "/>")

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
            self.text(x, self.height - m / 2, s, 9, "#555")
        for r, s in enumerate(row_labels):
            y = m + r * cell + cell / 2
            self.text(m / 2, y, s, 9, "#555")
            self.text(self.width - m / 2, y, s, 9, "#555")

    def to_string(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}" role="img" aria-label="{escape(self.title)}">')
        title = f"<title>{escape(self.title)}</title>" if self.title else ""
        return head + title + "".join(self.parts) + "</svg>\n"
