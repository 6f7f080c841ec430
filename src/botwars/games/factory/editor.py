"""The board editor's hooks for factory boards (issue 14 item 4; :class:`BoardEditor`).

:class:`FactoryEditor` describes the palette of every element of F-3.3 and F-3.4 and checks
board text for the editor page: every problem of ``botwars board check`` (F-3.1 to F-3.8 and
the flag reachability check), each placed on the square it concerns, the board's own SVG
drawing (:func:`botwars.games.factory.svg.factory_svg`) and the match to create on it.
Geeko's editor (:mod:`botwars.games.geeko.editor`) extends it with rooms and the G-11 test.
"""

from __future__ import annotations

import re
from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.plugin import BoardEditor
from botwars.games.factory.board import DIRS, OPTION_CODES, Board, parse_board, reachable, sq_str

SIDES = list(DIRS)
CHANNELS = [str(n) for n in range(1, 10)]


def _p(name: str, label: str, choices: list[str] | None = None, pattern: str | None = None,
       labels: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "label": label}
    if choices is not None:
        out["choices"] = choices
        if labels is not None:
            out["labels"] = labels
    if pattern is not None:
        out["pattern"] = pattern
    return out


DIR = _p("dir", "direction", SIDES, labels=["north", "east", "south", "west"])
CH = _p("ch", "channel", CHANNELS)
ST_DEV = _p("st", "at start", ["+", "-"], labels=["open / active (+)", "closed / inactive (-)"])
ST_ON = _p("st", "at start", ["+", "-"], labels=["on (+)", "off (-)"])
COLOUR = _p("colour", "colour", [chr(c) for c in range(ord("A"), ord("Z") + 1)])


def tool(tid: str, label: str, group: str, place: str, template: str = "", params: list[dict[str, Any]] | None = None,
         doc: str = "", modes: list[str] | None = None) -> dict[str, Any]:
    """One palette entry (see :class:`~botwars.engine.plugin.BoardEditor`)."""
    return {"id": tid, "label": label, "group": group, "place": place, "template": template,
            "params": params or [], "doc": doc, "modes": modes}


def factory_tools(regs: str = "[1-5]+", options: tuple[str, ...] = OPTION_CODES,
                  modes: list[str] | None = None) -> list[dict[str, Any]]:
    """The palette of F-3.3 (floor tokens) and F-3.4 (side items), plus the start square and
    the eraser; ``regs`` is the pattern of register digits (F-3.4; geeko rooms widen it)."""
    r = _p("regs", "active registers (ascending digits)", pattern=regs)
    return [
        tool("floor", "open floor .", "floor", "base", ".", doc="F-3.3 open floor"),
        tool("pit", "pit PT", "floor", "base", "PT", doc="F-3.3 pit"),
        tool("trapdoor", "trap door TD", "devices", "base", "TD{ch}{st}", [CH, ST_DEV], "F-3.3 trap door on a channel"),
        tool("drawbridge", "drawbridge DB", "devices", "base", "DB{dir}{ch}",
             [_p("dir", "bridge side", SIDES), CH], "F-3.3 drawbridge (raised at start)"),
        tool("teleporter", "teleporter TP", "devices", "base", "TP{colour}", [COLOUR], "F-3.3 teleporter, always active"),
        tool("teleporter-ch", "teleporter on a channel", "devices", "base", "TP{colour}{ch}{st}", [COLOUR, CH, ST_DEV],
             "F-3.3 teleporter switched by a channel"),
        tool("conveyor", "conveyor CY", "movers", "base", "CY{dir}", [DIR], "F-3.3 yellow (normal) conveyor"),
        tool("express", "express conveyor CB", "movers", "base", "CB{dir}", [DIR], "F-3.3 blue (express) conveyor"),
        tool("gear-left", "gear left GL", "movers", "base", "GL", doc="F-3.3 gear, left 90°"),
        tool("gear-right", "gear right GR", "movers", "base", "GR", doc="F-3.3 gear, right 90°"),
        tool("gear-u", "gear 180° GU", "movers", "base", "GU", doc="F-3.3 gear, 180°"),
        tool("crusher", "crusher CR", "hazards", "base", "CR{regs}", [r], "F-3.3 crusher active in these registers"),
        tool("crusher-switch", "crusher over a switch", "hazards", "base", "CR{regs}S{sw}{ch}",
             [r, _p("sw", "switch", ["G", "R"], labels=["green SG", "red SR"]), CH], "F-6.24a crusher over a switch"),
        tool("switch-green", "green switch SG", "switches", "base", "SG{ch}", [CH], "F-3.3 green pressure switch"),
        tool("switch-red", "red switch SR", "switches", "base", "SR{ch}", [CH], "F-3.3 red toggle switch"),
        tool("buzzsaw", "buzzsaw BZ", "hazards", "base", "BZ", doc="F-3.3 buzzsaw"),
        tool("wrench1", "wrench W1", "repair", "base", "W1", doc="F-3.3 one wrench"),
        tool("wrench2", "wrenches W2", "repair", "base", "W2", doc="F-3.3 two wrenches"),
        tool("flag", "flag F", "goals", "base", "F{n}", [_p("n", "flag number", CHANNELS)], "F-3.3 flag n", modes),
        tool("upgrade", "upgrade station UP", "repair", "base", "UP", doc="F-3.3 upgrade station"),
        tool("armoury", "armoury AR", "repair", "base", "AR{opt}", [_p("opt", "option", list(options))],
             "F-3.3 armoury holding an option (F-6.33)"),
        tool("wall", "wall w", "sides", "item", "w{side}", doc="F-3.4 wall on a side"),
        tool("fence", "fence f", "sides", "item", "f{side}", doc="F-3.4 electric fence on a side"),
        tool("pusher", "pusher p", "sides", "item", "p{side}{regs}", [r], "F-3.4 pusher mounted on a side"),
        tool("laser", "laser l", "sides", "item", "l{side}{beams}",
             [_p("beams", "beams", ["", "2", "3"], labels=["1", "2", "3"])], "F-3.4 laser turret on a side"),
        tool("blaser", "blaser b", "sides", "item", "b{side}{ch}{st}", [CH, ST_ON], "F-3.4 blaser on a side"),
        tool("eye", "electric eye e", "sides", "item", "e{side}{ch}", [CH], "F-3.4 electric eye on a side"),
        tool("start", "start square", "start", "start", doc="F-3.1 start square and facing"),
        tool("erase", "eraser", "start", "erase", doc="open floor, no side items"),
    ]


def square_at(text: str, line: int | None, column: int | None) -> str | None:
    """The square ``rRcC`` whose cell token covers ``line``:``column`` (1-based) of ``text``,
    read from the row label and the token count; ``None`` when it is not in a row line."""
    if not line:
        return None
    lines = text.split("\n")
    if line > len(lines):
        return None
    toks = [(m.start() + 1, m.end()) for m in re.finditer(r"[^ \t]+", lines[line - 1])]
    if len(toks) < 2 or not re.fullmatch(r"r\d+", lines[line - 1][toks[0][0] - 1:toks[0][1]]):
        return None
    row = lines[line - 1][toks[0][0] - 1:toks[0][1]]
    if column is None:
        return None
    for k, (a, b) in enumerate(toks[1:], 1):
        if a <= column <= b:
            return f"{row}c{k}"
    return None


def problem(message: str, square: str | None = None, line: int | None = None,
            column: int | None = None) -> dict[str, Any]:
    """One problem as the editor page shows it."""
    return {"square": square, "line": line, "column": column, "message": message}


def board_problems(b: Board) -> list[dict[str, Any]]:
    """``b.problems`` (F-3.5 to F-3.8 and a variant's checks), each with its square."""
    where = {pos: sq for sq, pos in b.lines.items()}
    out = []
    for msg, ln, col in b.problems:
        sq = where.get((ln, col)) if ln is not None else None
        out.append(problem(msg, sq_str(sq) if sq else None, ln, col))
    return out


def board_json(b: Board) -> dict[str, Any]:
    """The parsed grid for the page: id, name, size, start entries and tokens, north row first."""
    starts = b.starts or [(b.start, b.start_facing)]
    return {"id": b.board_id, "name": b.name, "rows": b.rows, "cols": b.cols,
            "starts": [[sq_str(sq), DIRS[f]] for sq, f in starts],
            "cells": [[b.cells[(r, c)].token() for c in range(1, b.cols + 1)] for r in range(b.rows, 0, -1)]}


def preview_svg(b: Board) -> str | None:
    """The board drawn by the factory renderer with devices as at start and no robots; ``None``
    when this (faulty) board cannot be drawn."""
    from botwars.games.factory.rules import FactoryRuleset
    from botwars.games.factory.svg import factory_svg
    rs = FactoryRuleset()
    try:
        st = rs.empty_state(rs.validate_config(None), ["editor"], "editor", b)
        return factory_svg(st, None, None)
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return None


def parse_or_problem(text: str, board_cls: type[Board] = Board) -> tuple[Board | None, list[dict[str, Any]]]:
    """``(board, [])`` for text that parses (its F-3.8 problems recorded on it), else
    ``(None, [the parse error on its square])``."""
    try:
        return parse_board(text, "board", check=False, board_cls=board_cls), []
    except ConfigError as exc:
        return None, [problem(exc.message, square_at(text, exc.line, exc.column), exc.line, exc.column)]


class FactoryEditor(BoardEditor):
    """The factory board editor: one mode, ``board`` (F-3: 2-40 rows and columns, one start)."""

    def spec(self, rules: Any) -> dict[str, Any]:
        """The one mode and the F-3.3/F-3.4 palette."""
        return {"modes": [{"id": "board", "label": "factory board", "rows": [2, 40], "cols": [2, 40], "size": [8, 8],
                           "starts": 1, "verdict": False}],
                "tools": factory_tools()}

    def check(self, rules: Any, text: str, mode: str) -> dict[str, Any]:
        """Every problem ``botwars board check --game factory`` reports, on its square."""
        if mode != "board":
            raise ConfigError(f"factory: no editor mode {mode!r} (board)")
        b, probs = parse_or_problem(text)
        if b is None:
            return {"parsed": False, "problems": probs, "verdict": None, "board": None, "svg": None, "play": None}
        probs = board_problems(b)
        if b.on_board(b.start) and not any("flags" in p[0] for p in b.problems):
            seen = reachable(b, b.start)
            for n, sq in sorted(b.flags().items()):
                if sq not in seen:
                    probs.append(problem(f"flag {n} at {sq_str(sq)} is not reachable from the start square",
                                         sq_str(sq), *b.lines.get(sq, (None, None))))
        play = None if probs else {"game": "factory", "config": {"board": text}}
        return {"parsed": True, "problems": probs, "verdict": None, "board": board_json(b), "svg": preview_svg(b),
                "play": play}


EDITOR = FactoryEditor()
