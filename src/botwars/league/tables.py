"""The standings and cross tables for a terminal (issue 28 item 4), drawn with Rich.

At any width from 80 columns every number is shown whole: the agents' names are folded onto
more lines (never cut), the number columns are never shrunk, and below the width the boxed
table needs the tables are drawn compact (no box, one space between columns). The cross table
is split into several tables of fewer columns when all the opponents do not fit side by side.
``botwars tournament --json``-style output (``standings.json``) is not affected.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

MIN_WIDTH = 80
"""The narrowest terminal (in columns) the tables are made for; narrower is drawn as at 80."""
MIN_NAME = 12
"""Fewest columns given to the agent's name (longer names are folded onto more lines)."""


def standings_cells(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """``(headers, cells)`` of the standings table: rank, agent, games, W, D, L, score, rating
    (openskill ordinal), μ ± σ, Elo (when any row has one) and errors (bot errors and failed
    matches), as the strings shown."""
    has_elo = any(r["elo"] is not None for r in rows)
    headers = ["#", "agent", "games", "W", "D", "L", "score", "rating", "mu ± sigma"]
    headers += ["Elo"] if has_elo else []
    headers += ["errors"]
    cells = []
    for r in rows:
        c = [str(r["rank"]), r["agent"], str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
             f"{r['score']:g}", f"{r['rating']:.2f}", f"{r['mu']:.2f} ± {r['sigma']:.2f}"]
        if has_elo:
            c.append(f"{r['elo']:.1f}")
        c.append(str(r["errors"] + r["failed"]))
        cells.append(c)
    return headers, cells


def _widths(headers: list[str], cells: list[list[str]]) -> list[int]:
    return [max([cell_len(h)] + [cell_len(c[i]) for c in cells]) for i, h in enumerate(headers)]


def _boxed_width(widths: list[int]) -> int:
    """Columns a boxed Rich table (padding 1 each side, a rule between columns and at both
    edges) of these content widths takes."""
    return sum(widths) + 3 * len(widths) + 1


def _table(title: str, compact: bool) -> Table:
    if compact:
        return Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True,
                     padding=(0, 1))
    return Table(title=title)


def standings_tables(game: str, rows: list[dict[str, Any]], width: int) -> list[Table]:
    """The standings table and the cross table (row vs column: wins-draws-losses; split into
    several when the columns do not fit) of ``rows`` (:func:`botwars.league.standings.standings`
    rows with their ``rank``) for a terminal ``width`` columns wide (at least :data:`MIN_WIDTH`
    is assumed). Every number is whole in every table; names are folded, never cut."""
    width = max(width, MIN_WIDTH)
    headers, cells = standings_cells(rows)
    widths = _widths(headers, cells)
    compact = _boxed_width(widths) > width
    t = _table(f"{game} standings", compact)
    for i, h in enumerate(headers):
        if h == "agent":
            t.add_column(h, justify="left", overflow="fold", min_width=min(widths[i], MIN_NAME))
        else:
            t.add_column(h, justify="left" if i == 1 else "right", no_wrap=True, min_width=widths[i])
    for c in cells:
        t.add_row(*[Text(x) for x in c])  # agent specs verbatim, never read as console markup
    return [t, *cross_tables(rows, width)]


def cross_tables(rows: list[dict[str, Any]], width: int) -> list[Table]:
    """The cross table (row vs column: wins-draws-losses, columns by rank) as one table, or as
    several, each with every row and as many opponents' columns as fit in ``width``."""
    width = max(width, MIN_WIDTH)
    labels = [f"{r['rank']}. {r['agent']}" for r in rows]
    grid = [["-" if c["agent"] == r["agent"] else "{wins}-{draws}-{losses}".format(**r["cross"][c["agent"]])
             for c in rows] for r in rows]
    cell_w = max([cell_len(str(r["rank"])) for r in rows] + [cell_len(x) for line in grid for x in line] + [1])
    label_w = min(max([cell_len(x) for x in labels] + [1]), max(MIN_NAME, width // 3))
    boxed = _boxed_width([label_w] + [cell_w] * len(rows)) <= width
    per = len(rows) if boxed else max(1, (width - label_w - 1) // (cell_w + 1))
    out = []
    for start in range(0, max(len(rows), 1), per):
        part = rows[start:start + per]
        title = "cross table (row vs column: wins-draws-losses)"
        if len(part) < len(rows):
            title += f", columns {part[0]['rank']}-{part[-1]['rank']}"
        x = _table(title, not boxed)
        x.add_column("", overflow="fold", min_width=min(label_w, MIN_NAME))
        for c in part:
            x.add_column(str(c["rank"]), justify="right", no_wrap=True, min_width=cell_w)
        for i, label in enumerate(labels):
            x.add_row(Text(label), *grid[i][start:start + per])
        out.append(x)
    return out
