"""The board editor's hooks for geeko (issue 14 item 4): two modes.

* ``entry``: the 7×7 entry board (a factory board, G-11) with the validator V1–V8 run live:
  ``ACCEPT`` or one ``REJECT Vn: reason`` problem per failed check, on its square where it has
  one (V1's board problems, V7's unreachable flags). Played as a factory match.
* ``room``: a room (G-2.1, G-2.2: 7 columns, 7–9 rows, two starts, gates in the top row,
  register digits 1–9, armoury ``ML``), checked as ``botwars board check --game geeko`` does;
  played as room 1 of a room set whose rooms 2–5 are the standard ones (§14).
"""

from __future__ import annotations

import re
from typing import Any

from botwars.engine.errors import ConfigError
from botwars.games.factory.board import sq_str
from botwars.games.factory.editor import (CH, FactoryEditor, board_json, board_problems, factory_tools,
                                          parse_or_problem, preview_svg, problem, tool)
from botwars.games.geeko.board import GeekoBoard, check_entry, reachable, standard_room_texts

_SQ = re.compile(r"\bat (r\d+c\d+)\b")


def room_tools() -> list[dict[str, Any]]:
    """The room palette: the factory palette without flags, registers 1–9, ``ML``, gates."""
    tools = [t for t in factory_tools(regs="[1-9]+", options=GeekoBoard.option_codes) if t["id"] != "flag"]
    tools.insert(-2, tool("gate", "gate GT", "goals", "base", "GT", doc="G-2.1 gate (top row), always open"))
    tools.insert(-2, tool("gate-ch", "gate on a channel", "goals", "base", "GT{ch}{st}",
                          [CH, {"name": "st", "label": "at start", "choices": ["+", "-"],
                                "labels": ["open (+)", "closed (-)"]}], "G-2.1 gate switched by a channel"))
    return tools


class GeekoEditor(FactoryEditor):
    """Modes ``entry`` (G-11) and ``room`` (G-2)."""

    def spec(self, rules: Any) -> dict[str, Any]:
        """The entry-board mode (7×7, factory palette) and the room mode (room palette)."""
        entry = [dict(t, modes=["entry"]) for t in factory_tools()]
        room = [dict(t, modes=["room"]) for t in room_tools()]
        return {"modes": [{"id": "entry", "label": "entry board (7×7, G-11)", "rows": [7, 7], "cols": [7, 7],
                           "size": [7, 7], "starts": 1, "verdict": True},
                          {"id": "room", "label": "room (G-2)", "rows": [7, 9], "cols": [7, 7], "size": [7, 7],
                           "starts": 2, "verdict": False}],
                "tools": entry + room}

    def check(self, rules: Any, text: str, mode: str) -> dict[str, Any]:
        """``entry``: the G-11 verdict and each ``REJECT Vn``; ``room``: the G-2 problems."""
        if mode == "entry":
            return self._entry(text)
        if mode == "room":
            return self._room(text)
        raise ConfigError(f"geeko: no editor mode {mode!r} (entry, room)")

    def _entry(self, text: str) -> dict[str, Any]:
        b, probs = parse_or_problem(text)
        if b is None:  # G-11: a text that does not parse fails V1 alone
            p = probs[0]
            p["message"] = f"REJECT V1: {p['message']}"
            return {"parsed": False, "problems": probs, "verdict": "REJECT", "board": None, "svg": None, "play": None}
        v1 = board_problems(b)
        out = []
        for k, line in enumerate(check_entry(text, "board")):
            if line.startswith("REJECT V1:") and k < len(v1):
                out.append(dict(v1[k], message=f"REJECT V1: {v1[k]['message']}"))
                continue
            m = _SQ.search(line)
            sq = m.group(1) if m else None
            pos = b.lines.get(_parse(sq)) if sq else None
            out.append(problem(line, sq, *(pos or (None, None))))
        play = None if out else {"game": "factory", "config": {"board": text}}
        return {"parsed": True, "problems": out, "verdict": "REJECT" if out else "ACCEPT", "board": board_json(b),
                "svg": preview_svg(b), "play": play}

    def _room(self, text: str) -> dict[str, Any]:
        b, probs = parse_or_problem(text, GeekoBoard)
        if b is None:
            return {"parsed": False, "problems": probs, "verdict": None, "board": None, "svg": None, "play": None}
        probs = board_problems(b)
        if not probs:
            seen: set = set()
            for sq, _ in b.starts:
                seen |= reachable(b, sq)
            for g in b.gates():  # type: ignore[attr-defined]
                if g not in seen:
                    probs.append(problem(f"gate {sq_str(g)} is not reachable from the start squares", sq_str(g),
                                         *b.lines.get(g, (None, None))))
        play = None
        if not probs:
            rooms = [text.rstrip("\n") + "\n"] + standard_room_texts()[1:]
            play = {"game": "geeko", "config": {"rooms": "".join(rooms)}}
        return {"parsed": True, "problems": probs, "verdict": None, "board": board_json(b), "svg": preview_svg(b),
                "play": play}


def _parse(sq: str) -> tuple[int, int]:
    r, c = sq[1:].split("c")
    return int(r), int(c)


EDITOR = GeekoEditor()
