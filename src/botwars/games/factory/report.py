"""Factory reports (§9): the stage, end-of-turn, fused and result tables.

Each table is built once, during resolution, into a public :class:`Event` whose data holds
``header`` (the ``=== ... ===`` line), ``rows`` (``[label, cell, ...]``), ``extra`` (lines
after the table, e.g. ``BOARD: ...``) and ``lines`` (the F-9.2 text).  The text and Rich
forms are both made from those rows, and HTML from the Rich form.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event
from botwars.games.factory.board import DIRS, sq_str
from botwars.games.factory.cards import SET_TYPES, card_str


def table_lines(rows: list[list[str]], header: bool = False) -> list[str]:
    """F-9.2 layout: cells joined by `` | ``, columns left-aligned to their widest cell, no
    trailing spaces."""
    if not rows:
        return []
    widths = [max(map(len, col)) for col in zip(*rows)]
    return [" | ".join([cell.ljust(w) for cell, w in zip(r, widths)]).rstrip() for r in rows]


def _names(rs: Any, st: Any) -> list[str]:
    return [rs.column_name(st, i) for i in range(len(st.bots))]


def stage_event(rs: Any, c: Any, s: int, modes: list[str], revealed: dict[int, int]) -> Event:
    """The F-9.3 stage table of stage ``s`` as a public event."""
    st = c.st
    n = len(st.bots)
    rows = [["NAME"] + _names(rs, st), ["MODE"] + modes,
            ["CARDS"] + [card_str(revealed[i]) if i in revealed else "-" for i in range(n)]]
    moves = []
    for i in range(n):
        own = revealed.get(i)
        ents = []
        for card, evs in c.moves[i]:
            ents.append(("" if card == own else f"@{card} ") + ", ".join(evs))
        moves.append("; ".join(ents) or "-")
    rows.append(["MOVES"] + moves)
    rows.append(["MECH"] + [", ".join(m) or "-" for m in c.mech])
    rows.append(["COMBAT"] + list(c.combat))
    rows.append(["HITS"] + [", ".join(h) or "-" for h in c.hits])
    rows.append(["HP"] + [rs.hp_cell(st, i) for i in range(n)])
    check = [", ".join(x) or "-" for x in c.check]
    if any(x != "-" for x in check):
        rows.append(["CHECK"] + check)
    header = rs.stage_header(c, s)
    extra = [f"BOARD: {'; '.join(c.board_line)}"] if c.board_line else []
    lines = [header] + table_lines(rows) + extra
    return Event("stage", {"turn": c.t, "stage": s, "header": header, "rows": rows, "extra": extra, "lines": lines})


def end_event(rs: Any, c: Any, modes: list[str], repair: list[list[str]]) -> list[Event]:
    """The F-9.8 end table and, if any robot has fused registers, the F-9.9 fused table."""
    st = c.st
    rows = [["NAME"] + _names(rs, st), ["MODE"] + modes]
    reinst, flags, rep, upg, opts, reboot = [], [], [], [], [], []
    for i, b in enumerate(st.bots):
        pl = st.players[b.owner]
        reinst.append("-" if pl.out else sq_str(pl.checkpoint))
        flags.append(",".join(str(f) for f in range(1, pl.next_flag)) or "-")
        rep.append(", ".join(repair[i]) or "-")
        if pl.stations:
            types = [t for name in ("A", "B", "C") if name in pl.sets for t in SET_TYPES[name]]
            upg.append(", ".join(sq_str(x) for x in pl.stations) + ("; " + " ".join(types) if types else ""))
        else:
            upg.append("-")
        opts.append(", ".join(f"AA({o['charges']})" if o["code"] == "AA" else o["code"] for o in b.options) or "-")
        if pl.out:
            reboot.append("out")
        else:
            reboot.append(f"{b.hp if b.alive else 0} HP, {pl.robots_left} robots, "
                          f"{'reboot' if b.rebooting else 'run'}")
    rows += [["REINST"] + reinst, ["FLAGS"] + flags]
    for label, cells in (("REPAIR", rep), ("UPGRADES", upg), ("OPTIONS", opts)):
        if any(x != "-" for x in cells):
            rows.append([label] + cells)
    rows.append(["REBOOT"] + reboot)
    header = f"=== TURN {c.t} END ==="
    out = [Event("end", {"turn": c.t, "header": header, "rows": rows, "extra": [],
                         "lines": [header] + table_lines(rows)})]
    cols = [(i, rs.fused_cell(b)) for i, b in enumerate(st.bots) if b.alive and rs.fused_cell(b)]
    if cols:
        frows = [["NAME"] + [_names(rs, st)[i] for i, _ in cols], ["FUSED"] + [cell for _, cell in cols]]
        h = f"=== TURN {c.t} FUSED ==="
        out.append(Event("fused", {"turn": c.t, "header": h, "rows": frows, "extra": [],
                                   "lines": [h] + table_lines(frows)}))
    return out


def result_event(rs: Any, c: Any, ranks: list[tuple[int, int]]) -> Event:
    """The F-9.10 result table."""
    st = c.st
    rows = [["RANK", "NAME", "FLAGS", "ROBOTS", "HP", "STATUS"]]
    for p, r in ranks:
        pl = st.players[p]
        hp = sum(b.hp for b in st.bots if b.owner == p and b.alive)
        status = "winner" if p in st.winners else ("out" if pl.out else "-")
        rows.append([str(r), f"{pl.name} ({pl.colour})", ",".join(str(f) for f in range(1, pl.next_flag)) or "-",
                     str(pl.robots_left), str(hp), status])
    header = "=== RESULT ==="
    return Event("result", {"turn": c.t, "header": header, "rows": rows, "extra": [], "reason": st.result["reason"],
                            "lines": [header] + table_lines(rows)})


def rich_report(events: list[Event]) -> Any:
    """The report tables of ``events`` as one Rich renderable (a :class:`rich.console.Group`)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text
    parts: list[Any] = []
    for e in events:
        if e.kind not in ("stage", "end", "fused", "result") or not e.visible(None):
            continue
        rows = e.data["rows"]
        title = e.data["header"].strip("= ").strip()
        if e.kind == "result":
            t = Table(title=title, title_justify="left")
            for h in rows[0]:
                t.add_column(h)
            for r in rows[1:]:
                t.add_row(*r)
        else:
            t = Table(title=title, title_justify="left", show_header=True)
            t.add_column(rows[0][0], style="bold")
            for h in rows[0][1:]:
                t.add_column(h)
            for r in rows[1:]:
                t.add_row(*r)
        parts.append(t)
        for line in e.data.get("extra", []):
            parts.append(Text(line))
    return Group(*parts)


def report_html(events: list[Event]) -> str:
    """The report tables of ``events`` as an HTML page (Rich's HTML export)."""
    from rich.console import Console
    con = Console(record=True, width=200, file=open("/dev/null", "w"))
    con.print(rich_report(events))
    return con.export_html()


def report_text(events: list[Event]) -> str:
    """The plain F-9 text of ``events``' report tables (what players receive)."""
    return "\n".join(line for e in events if e.kind in ("stage", "end", "fused", "result")
                     for line in e.data["lines"])


_GLYPH = {".": ".", "PT": "o", "TD": "t", "DB": "d", "TP": "p", "CY": "y", "CB": "b", "G": "g", "CR": "x",
          "SG": "s", "SR": "s", "BZ": "z", "W": "w", "F": "F", "UP": "u", "AR": "a"}
LEGEND = ("robots A-H (seat 1-8, * = several), flags 1-9, o pit, t trap door, d drawbridge, p teleporter, "
          "y/b conveyor/express, g gear, x crusher, s switch, z buzzsaw, w wrench, u upgrade, a armoury")


def render_board(st: Any) -> str:
    """The board as text: one glyph per square (robots as letters A-H by seat, flags as digits,
    elements as the lower-case letters of :data:`LEGEND`), then a robot list with square,
    facing, HP and mode."""
    b = st.board
    here: dict[tuple[int, int], str] = {}
    for bot in st.bots:
        if bot.alive:
            here[bot.sq] = chr(65 + bot.owner % 26) if bot.sq not in here else "*"
    lines = [f"{b.board_id}: turn {st.turn}" + (" (over)" if st.over else "")]
    for r in range(b.rows, 0, -1):
        row = []
        for c in range(1, b.cols + 1):
            k = b.kind[(r, c)]
            g = here.get((r, c)) or (str(k[1]) if k[0] == "F" else _GLYPH.get(k[0], "?"))
            row.append(g)
        lines.append(f"r{r:<3}" + " ".join(row))
    for bot in st.bots:
        pl = st.players[bot.owner]
        where = f"{sq_str(bot.sq)} {DIRS[bot.facing]} {bot.hp} HP {bot.mode}" if bot.alive else (
            "out" if pl.out else "destroyed")
        lines.append(f"{chr(65 + bot.owner % 26)} {pl.name} ({pl.colour}): {where}; robots {pl.robots_left}; "
                     f"next flag {pl.next_flag}")
    lines.append(LEGEND)
    return "\n".join(lines)
