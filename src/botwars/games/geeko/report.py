"""Geek-o reports (G-10): the end table, fused table and result table for two robots per
player; the stage table is factory's (``factory.report.stage_event``) through the
``column_name``/``stage_header``/``mode_text`` hooks."""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event
from botwars.games.factory.board import DIRS, sq_str
from botwars.games.factory.cards import SET_TYPES
from botwars.games.factory.report import table_lines


def end_events(rs: Any, c: Any, modes: list[str], repair: list[list[str]]) -> list[Event]:
    """G-10.3: ``NAME MODE ROOM [REPAIR] [UPGRADES] [OPTIONS] REBOOT``, then the F-9.9 fused table."""
    run = c.st
    names = [rs.column_name(run, i) for i in range(len(run.bots))]
    rows = [["NAME"] + names, ["MODE"] + modes, ["ROOM"] + [rs.room_cell(run, i) for i in range(len(run.bots))]]
    rep, upg, opts, reboot = [], [], [], []
    for i, b in enumerate(run.bots):
        rep.append(", ".join(repair[i]) or "-")
        if b.stations:
            types = [t for name in ("A", "B", "C") if name in b.sets for t in SET_TYPES[name]]
            upg.append(", ".join(f"R{k} {sq_str(sq)}" for k, sq in sorted(b.stations.items()))
                       + ("; " + " ".join(types) if types else ""))
        else:
            upg.append("-")
        opts.append(", ".join(f"AA({o['charges']})" if o["code"] == "AA" else o["code"] for o in b.options) or "-")
        reboot.append(f"{b.hp} HP, {'reboot' if b.rebooting else 'run'}")
    for label, cells in (("REPAIR", rep), ("UPGRADES", upg), ("OPTIONS", opts)):
        if any(x != "-" for x in cells):
            rows.append([label] + cells)
    rows.append(["REBOOT"] + reboot)
    header = f"=== TURN {c.t} END ==="
    out = [Event("end", {"turn": c.t, "header": header, "rows": rows, "extra": [],
                         "lines": [header] + table_lines(rows)})]
    cols = [(i, rs.fused_cell(b)) for i, b in enumerate(run.bots) if rs.fused_cell(b)]
    if cols:
        frows = [["NAME"] + [names[i] for i, _ in cols], ["FUSED"] + [cell for _, cell in cols]]
        h = f"=== TURN {c.t} FUSED ==="
        out.append(Event("fused", {"turn": c.t, "header": h, "rows": frows, "extra": [],
                                   "lines": [h] + table_lines(frows)}))
    return out


def result_event(rs: Any, gs: Any, rows: list[tuple[int, int, str]], t: int) -> Event:
    """G-10.5: ``RANK | NAME | TURNS | ROOMS | LOST | STATUS`` (public)."""
    table = [["RANK", "NAME", "TURNS", "ROOMS", "LOST", "STATUS"]]
    for p, rank, status in rows:
        run = gs.runs[p]
        turns = str(run.finished) if run.finished is not None and not run.out else "-"
        table.append([str(rank), run.players[0].name, turns, str(run.rooms_done()), str(run.lost), status])
    header = "=== RESULT ==="
    return Event("result", {"turn": t, "header": header, "rows": table, "extra": [], "reason": gs.result["reason"],
                            "lines": [header] + table_lines(table)})


_GLYPH = {".": ".", "PT": "o", "TD": "t", "DB": "d", "TP": "p", "CY": "y", "CB": "b", "G": "g", "CR": "x",
          "SG": "s", "SR": "s", "BZ": "z", "W": "w", "F": "F", "UP": "u", "AR": "a", "GT": "="}
LEGEND = ("A/B robots (a/b parked), = gate (open) / # gate (closed), o pit, t trap door, d drawbridge, "
          "p teleporter, y/b conveyor/express, g gear, x crusher, s switch, z buzzsaw, w wrench, u upgrade, a armoury")


def render_room(rs: Any, run: Any) -> str:
    """One player's room as text, then the robots' places."""
    b = run.board
    here = {}
    for bot in run.bots:
        if bot.sq is not None and bot.place in ("board", "parked"):
            here[bot.sq] = bot.letter if bot.place == "board" else bot.letter.lower()
    pl = run.players[0]
    state = (f"finished in turn {run.finished}" if run.finished is not None else ("out" if pl.out
                                                                                     else f"room {run.room}"))
    lines = [f"{pl.name}: {b.board_id}, turn {run.turn}, {state}, {run.lost} robots lost"]
    for r in range(b.rows, 0, -1):
        row = []
        for col in range(1, b.cols + 1):
            k = b.kind[(r, col)]
            g = _GLYPH.get(k[0], "?")
            if k[0] == "GT" and not run.gates[(r, col)]:
                g = "#"
            row.append(here.get((r, col), g))
        lines.append(f"r{r:<3}" + " ".join(row))
    for i, bot in enumerate(run.bots):
        where = (f"{sq_str(bot.sq)} {DIRS[bot.facing]} " if bot.sq is not None else "") + rs.room_cell(run, i)
        lines.append(f"{rs.bot_name(run, i)}: {where}, {bot.hp} HP, {rs.mode_text(run, i)}")
    return "\n".join(lines)


def render_text(rs: Any, gs: Any, seat: str | None) -> str:
    """The seat's own room (G-1.3); a spectator gets every room after the game and only room
    numbers during it (G-10.6)."""
    if seat is not None:
        return render_room(rs, gs.runs[gs.player_of(seat)]) + "\n" + LEGEND
    if gs.over:
        return "\n\n".join(render_room(rs, r) for r in gs.runs) + "\n" + LEGEND
    return "\n".join(f"{r.players[0].name}: " + (f"finished in turn {r.finished}" if r.finished is not None else
                                                 ("out" if r.out else f"room {r.room}")) for r in gs.runs)
