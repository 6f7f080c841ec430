"""Geek-o rooms (G-2) and the entry-board validator (G-11).

A room is a factory board (F-3) read through :class:`GeekoBoard`, a :class:`Board` subclass
that widens the grammar (register digits 1-9, ``GT`` gates, the ``ML`` armoury, two start
squares) and replaces the flag check of F-3.8 by the room checks of G-2.1/G-2.2.  The five
standard rooms (§14) are shipped as ``rooms/geeko-<k>.board``.
"""

from __future__ import annotations

import os
import re
from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.safeload import quote, read_text
from botwars.games.factory.board import (BOARDS_DIR, DELTA, OPTION_CODES, Board, Square, opposite, parse_board,
                                         reachable, sq_str)

ROOMS_DIR = os.path.join(os.path.dirname(__file__), "rooms")
ROOM_COUNT = 5

GEEKO_BASE_RE = re.compile(r"\.|PT|TD[1-9][+-]|DB[NESW][1-9]|TP[A-Z]([1-9][+-])?|C[YB][NESW]|G[LRU]|"
                           r"CR[1-9]+(S[GR][1-9])?|S[GR][1-9]|BZ|W[12]|F[1-9]|UP|AR[A-Z]{2}|GT([1-9][+-])?")
GEEKO_ITEM_RE = re.compile(r"w[NESW]|f[NESW]|p[NESW][1-9]+|l[NESW][1-3]?|b[NESW][1-9][+-]|e[NESW][1-9]")


class GeekoBoard(Board):
    """A room (G-2.1): 7 columns, 7-9 rows, two start squares, one or two gates in the top row.

    ``kind[sq]`` of a gate is ``("GT", channel or None, open at start)``.  ``starts`` holds
    ``[(square, facing)]`` for robots A and B.
    """

    base_re = GEEKO_BASE_RE
    item_re = GEEKO_ITEM_RE
    max_starts = 2
    option_codes = OPTION_CODES + ("ML",)

    def base_kind(self, tok: str) -> tuple:
        if tok.startswith("GT"):
            if tok == "GT":
                return ("GT", None, True)
            return ("GT", int(tok[2]), tok[3] == "+")
        return super().base_kind(tok)

    def gates(self) -> list[Square]:
        """The gate squares, west to east (G-2.2)."""
        return sorted(sq for sq, k in self.kind.items() if k[0] == "GT")

    def channel_members(self):
        switches, devices = super().channel_members()
        for sq, k in sorted(self.kind.items(), key=lambda kv: self.lines.get(kv[0], (0, 0))):
            if k[0] == "GT" and k[1] is not None:
                devices.setdefault(k[1], []).append(("GT", sq))
        return switches, devices

    def _channel_devices(self) -> dict[int, list[tuple[str, Any]]]:
        out = super()._channel_devices()
        for sq, k in sorted(self.kind.items()):
            if k[0] == "GT" and k[1] is not None:
                out.setdefault(k[1], []).append(("GT", sq))
        return out

    def derive(self) -> None:
        """F-3 checks, minus F-3.8's flag rule, plus G-2.1 and G-2.2."""
        super().derive()
        self.problems = [p for p in self.problems if not p[0].startswith("F-3.8: flags")]
        for sq, k in sorted(self.kind.items()):
            if k[0] == "F":
                self._problem(sq, f"G-2.1: flags are forbidden in a room ({sq_str(sq)})")
            if k[0] == "GT":
                if sq[0] != self.rows:
                    self._problem(sq, f"G-2.1: gate {sq_str(sq)} is not in the top row r{self.rows}")
                if self.cells[sq].items:
                    self._problem(sq, f"G-2.1: gate {sq_str(sq)} carries side items")
        if self.cols != 7:
            self.problems.append((f"G-2.1: a room has cols: 7, got {self.cols}", None, None))
        if not 7 <= self.rows <= 9:
            self.problems.append((f"G-2.1: a room has rows: 7, 8 or 9, got {self.rows}", None, None))
        n = len(self.gates())
        if not 1 <= n <= 2:
            self.problems.append((f"G-2.2: a room has one or two gates, found {n}", None, None))
        if len(self.starts) != 2:
            self.problems.append(("G-2.1: start must give two squares, 'rRcC X, rRcC X' (robot A's first)",
                                  self.start_line, None))
        else:
            (a, _), (b, _) = self.starts
            if a == b:
                self.problems.append((f"G-2.1: the two start squares are both {sq_str(a)}", self.start_line, None))
            sq = b
            if not self.on_board(sq):
                self.problems.append((f"G-2.1: start square {sq_str(sq)} is off the board", self.start_line, None))
            else:
                if self.cells[sq].base != ".":
                    self._problem(sq, f"G-2.1: start square {sq_str(sq)} is not open floor '.'")
                if sq in self.pushers:
                    self._problem(sq, f"G-2.1: start square {sq_str(sq)} carries a pusher")


def parse_room(text: str, source: str = "<room>", check: bool = True) -> GeekoBoard:
    """Room text → :class:`GeekoBoard`; raises :class:`ConfigError` (line, column) on a problem."""
    return parse_board(text, source, check=check, board_cls=GeekoBoard)  # type: ignore[return-value]


def split_rooms(text: str) -> list[str]:
    """G-2.3: a room set (room files concatenated) → the room texts, split after each ``end``."""
    out, cur = [], []
    for line in text.split("\n"):
        cur.append(line)
        if line.strip() == "end":
            out.append("\n".join(cur) + "\n")
            cur = []
    if any(ln.strip() and not ln.strip().startswith("#") for ln in cur):
        out.append("\n".join(cur))  # the last room's parser reports the missing 'end' / stray text
    return out


_ROOMS: dict[str, list[GeekoBoard]] = {}


def standard_room_texts() -> list[str]:
    """The texts of the five rooms of §14, room 1 first."""
    out = []
    for k in range(1, ROOM_COUNT + 1):
        with open(os.path.join(ROOMS_DIR, f"geeko-{k}.board"), encoding="utf-8") as f:
            out.append(f.read())
    return out


def room_set_names() -> list[str]:
    """Names of the shipped room sets (only ``standard``, §14)."""
    return ["standard"]


def load_rooms(spec: str = "standard") -> list[GeekoBoard]:
    """``standard`` (§14), a room-set file path or room-set text → five parsed rooms (cached).

    Raises :class:`ConfigError` naming the room when a room is invalid or there are not five."""
    hit = _ROOMS.get(spec)
    if hit is not None:
        return hit
    if spec == "standard":
        texts, source = standard_room_texts(), "geeko-rooms"
    else:
        if "\n" in spec:
            text, source = spec, "<rooms text>"
        else:
            if not os.path.exists(spec):
                raise ConfigError(f"unknown room set {quote(spec)} (use 'standard' or a file path)")
            text = read_text(spec, what="room-set file")  # bounded (issue 25); a path only where allowed
            source = spec
        texts = split_rooms(text)
    if len(texts) != ROOM_COUNT:
        raise ConfigError(f"G-2.3: a room set has {ROOM_COUNT} rooms, found {len(texts)}", source=source)
    rooms = [parse_room(t, f"{source} room {k}") for k, t in enumerate(texts, 1)]
    _ROOMS[spec] = rooms
    return rooms


def check_room(text: str, source: str) -> list[str]:
    """``botwars board check FILE --game geeko``: every problem of one room or a five-room set
    (``[]`` = valid).  A room that does not parse (F-3.1 to F-3.4, G-2.1's grammar) raises
    :class:`ConfigError` with its line and column instead."""
    texts = split_rooms(text)
    out: list[str] = []
    for k, t in enumerate(texts, 1):
        src = source if len(texts) == 1 else f"{source} room {k}"
        b = parse_board(t, src, check=False, board_cls=GeekoBoard)
        for msg, ln, col in b.problems:
            out.append(ConfigError(msg, source=src, line=ln, column=col).one_line())
        if not b.problems:
            seen: set[Square] = set()
            for sq, _ in b.starts:
                seen |= reachable(b, sq)
            for g in b.gates():
                if g not in seen:
                    out.append(ConfigError(f"gate {sq_str(g)} is not reachable from the start squares", source=src,
                                           line=b.lines.get(g, (None,))[0]).one_line())
    if len(texts) not in (1, ROOM_COUNT):
        out.append(f"{source}: G-2.3: a room set has {ROOM_COUNT} rooms, found {len(texts)}")
    return out


# ---- entry boards (G-11) ---------------------------------------------------------------------
_FEATURE_KIND = {"CY": "conveyor", "CB": "conveyor", "G": "gear", "CR": "crusher", "PT": "pit", "TD": "trap door",
                 "DB": "drawbridge", "TP": "teleporter", "SG": "switch", "SR": "switch", "BZ": "buzzsaw",
                 "W": "wrench", "UP": "upgrade station", "AR": "armoury"}
_MOUNT_KIND = {"p": "pusher", "l": "laser turret", "b": "blaser", "e": "eye"}


def normalise(text: str) -> str:
    """V8: drop comments, blank lines and the ``board:``/``name:`` lines; collapse runs of spaces."""
    out = []
    for line in text.split("\n"):
        s = line.strip()
        if not s or s.startswith("#") or s.startswith("board:") or s.startswith("name:"):
            continue
        out.append(re.sub(r"[ \t]+", " ", s))
    return "\n".join(out)


def library_texts() -> list[str]:
    """The platform's board library for V8: the shipped factory boards and the geeko rooms."""
    out = []
    for d in (BOARDS_DIR, ROOMS_DIR):
        for f in sorted(os.listdir(d)):
            if f.endswith(".board"):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    out.append(fh.read())
    return out


def entry_reachable(b: Board) -> tuple[set[Square], set[int]]:
    """V7: the fixpoint of the reachable set S and the operable channels O."""
    ops: set[int] = set()
    while True:
        seen = {b.start}
        todo = [b.start]
        while todo:
            sq = todo.pop()
            for d in range(4):
                if b.edge(sq, d) != "open":
                    continue
                nb = (sq[0] + DELTA[d][0], sq[1] + DELTA[d][1])
                k = b.kind[nb]
                if k[0] == "PT" or (k[0] == "TD" and k[2] and k[1] not in ops) or (k[0] == "DB" and k[2] not in ops):
                    continue
                if nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        new = set(ops)
        for sq in seen:
            sw = b.switch_of(sq)  # SG, SR or a crusher over a switch (F-6.24a)
            if sw is not None:
                new.add(sw[1])
        for (r, c, side), ch in b.eyes.items():
            d = opposite(side)
            sq = (r, c)
            sight = [sq]
            while b.edge(sq, d) == "open":
                sq = (sq[0] + DELTA[d][0], sq[1] + DELTA[d][1])
                sight.append(sq)
            if any(x in seen for x in sight):
                new.add(ch)
        if new == ops:
            return seen, ops
        ops = new


def check_entry(text: str, source: str, library: list[str] | None = None) -> list[str]:
    """G-11: every failed check of a board that parses as ``REJECT Vn: <reason>`` (``[]`` =
    ACCEPT).  A text that does not parse at all fails V1 alone: it raises :class:`ConfigError`
    (line, column), which ``botwars board check --entry`` prints as its ``REJECT V1`` line
    (exit 2).  ``library``: the texts V8 compares against (default :func:`library_texts`)."""
    b = parse_board(text, source, check=False)
    out = [f"REJECT V1: {ConfigError(m, source=source, line=ln, column=col).one_line()}" for m, ln, col in b.problems]
    if (b.rows, b.cols) != (7, 7):
        out.append(f"REJECT V2: the board is {b.rows}x{b.cols} (rows x cols), it must be 7x7")
    flags = b.flags()
    if not 1 <= len(flags) <= 3:
        out.append(f"REJECT V3: it has {len(flags)} flags, it must have 1, 2 or 3")
    features = 0
    kinds: set[str] = set()
    lethal = 0
    edges: dict[tuple[int, int, int], str] = {}
    for sq in b.squares():
        k = b.kind[sq]
        if k[0] not in (".", "F"):
            features += 1
            kinds.add(_FEATURE_KIND[k[0]])
            if k[0] == "CR" and k[2] is not None:  # a crusher over a switch is both kinds (F-6.24a)
                kinds.add("switch")
        if k[0] in ("PT", "TD", "DB", "CR"):
            lethal += 1
        for item in b.cells[sq].items:
            if item[0] in "wf":
                d = "NESW".index(item[1])
                nb = (sq[0] + DELTA[d][0], sq[1] + DELTA[d][1])
                if b.on_board(nb):
                    key = min((sq, d), (nb, opposite(d)))
                    edges[(key[0][0], key[0][1], key[1])] = "wall" if item[0] == "w" else "fence"
            else:
                features += 1
                kinds.add(_MOUNT_KIND[item[0]])
    features += len(edges)
    kinds |= set(edges.values())
    if features < 8:
        out.append(f"REJECT V4: {features} features, at least 8 are needed")
    if len(kinds) < 3:
        out.append(f"REJECT V5: {len(kinds)} feature kinds ({', '.join(sorted(kinds)) or 'none'}), "
                   "at least 3 are needed")
    if lethal > 12:
        out.append(f"REJECT V6: {lethal} lethal squares (PT, TD, DB, CR), at most 12 are allowed")
    if b.on_board(b.start):
        seen, _ = entry_reachable(b)
        for n, sq in sorted(flags.items()):
            if sq not in seen:
                out.append(f"REJECT V7: flag {n} at {sq_str(sq)} is not reachable from the start square")
    mine = normalise(text)
    for other in (library_texts() if library is None else library):
        if normalise(other) == mine:
            out.append("REJECT V8: the board is already in the library")
            break
    return out

