"""The factory text board format (shared/rules/factory.md §3): parse, validate and print.

Coordinates are ``(row, col)`` tuples, 1-based; row 1 is the southernmost row (F-2.1).
Directions are integers ``0..3`` for ``N E S W`` (F-2.2); :data:`DELTA` gives the step of each.

* :func:`parse_board` turns text into a :class:`Board` or raises :class:`ConfigError` naming
  the line and column (and the rule id).  It never returns a half-loaded board.
* :func:`validate_board` lists every F-3.8 problem of a parsed board (``[]`` when valid).
* :func:`print_board` writes the canonical text; ``print_board(parse_board(t)) == t`` for
  every canonical text (all shipped boards are canonical), and ``parse_board(print_board(b))``
  equals ``b`` for every board.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.safeload import check_digits, quote, read_text

Square = tuple[int, int]
DIRS = "NESW"
DELTA = ((1, 0), (0, 1), (-1, 0), (0, -1))
OPTION_CODES = ("AA", "DL", "FI", "GS", "HC", "MP", "RL", "XM")

BASE_RE = re.compile(r"\.|PT|TD[1-9][+-]|DB[NESW][1-9]|TP[A-Z]([1-9][+-])?|C[YB][NESW]|G[LRU]|"
                     r"CR[1-5]+(S[GR][1-9])?|S[GR][1-9]|BZ|W[12]|F[1-9]|UP|AR[A-Z]{2}")
ITEM_RE = re.compile(r"w[NESW]|f[NESW]|p[NESW][1-5]+|l[NESW][1-3]?|b[NESW][1-9][+-]|e[NESW][1-9]")
ID_RE = re.compile(r"[a-z0-9-]+")
SQ_RE = re.compile(r"r(\d+)c(\d+)")
START_RE = re.compile(r"r(\d+)c(\d+)\s+([NESW])")

BOARDS_DIR = os.path.join(os.path.dirname(__file__), "boards")


def sq_str(sq: Square) -> str:
    """``(r, c)`` → ``"rRcC"``."""
    return f"r{sq[0]}c{sq[1]}"


def parse_sq(text: str) -> Square:
    """``"rRcC"`` → ``(r, c)``; raises ``ValueError``."""
    m = SQ_RE.fullmatch(str(text).strip())
    if not m:
        raise ValueError(f"not a square: {text!r} (use rRcC)")
    return int(m.group(1)), int(m.group(2))


def opposite(d: int) -> int:
    return (d + 2) % 4


def left_of(d: int) -> int:
    return (d + 3) % 4


def right_of(d: int) -> int:
    return (d + 1) % 4


def path_str(path: list[Square]) -> str:
    """A straight path of squares in F-2.7 range notation (``r2-3c3``, ``r2c2-1``, ``r2c4``)."""
    if not path:
        return "blocked"
    (r1, c1), (r2, c2) = path[0], path[-1]
    if len(path) == 1:
        return sq_str(path[0])
    if c1 == c2:
        return f"r{r1}-{r2}c{c1}"
    return f"r{r1}c{c1}-{c2}"


@dataclass
class Cell:
    """One cell token: ``base`` (the BASE token text) and ``items`` (side item texts, in file order)."""

    base: str
    items: tuple[str, ...] = ()

    def token(self) -> str:
        return self.base + ("/" + "".join(self.items) if self.items else "")


@dataclass
class Board:
    """A parsed board (immutable by convention after :func:`parse_board`).

    ``cells[(r, c)]`` are the tokens; the derived tables (``kind``, ``edges``, ``pushers``,
    ``turrets``, ``blasers``, ``eyes``, ``channels``...) are filled by :meth:`derive`.
    ``edge_mode`` is the perimeter parameter (``fence`` or ``pit``, F-3.5) the edges were built with.
    """

    board_id: str
    name: str | None
    rows: int
    cols: int
    start: Square
    start_facing: int
    cells: dict[Square, Cell]
    edge_mode: str = "fence"
    # derived
    kind: dict[Square, tuple] = field(default_factory=dict, compare=False, repr=False)
    edges: dict[tuple[int, int, int], str] = field(default_factory=dict, compare=False, repr=False)
    pushers: dict[Square, tuple[int, frozenset[int]]] = field(default_factory=dict, compare=False, repr=False)
    turrets: list[tuple[Square, int, int]] = field(default_factory=list, compare=False, repr=False)
    blasers: dict[tuple[int, int, int], tuple[int, bool]] = field(default_factory=dict, compare=False, repr=False)
    eyes: dict[tuple[int, int, int], int] = field(default_factory=dict, compare=False, repr=False)
    problems: list[tuple[str, int | None, int | None]] = field(default_factory=list, compare=False, repr=False)
    lines: dict[Square, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)
    start_line: int | None = field(default=None, compare=False, repr=False)
    starts: list[tuple[Square, int]] = field(default_factory=list, compare=False, repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # ---- geometry -------------------------------------------------------------------
    def on_board(self, sq: Square) -> bool:
        return 1 <= sq[0] <= self.rows and 1 <= sq[1] <= self.cols

    def edge(self, sq: Square, d: int) -> str:
        """Edge type on side ``d`` of ``sq``: ``open``, ``wall``, ``fence`` or ``void`` (F-2.3, F-3.5, F-3.6)."""
        return self.edges[(sq[0], sq[1], d)]

    def squares(self) -> list[Square]:
        """All squares in ascending (row, column) order."""
        return [(r, c) for r in range(1, self.rows + 1) for c in range(1, self.cols + 1)]

    def flags(self) -> dict[int, Square]:
        """Flag number → square (cached)."""
        c = self._cache.get("flags")
        if c is None:
            c = self._cache["flags"] = {k[1]: sq for sq, k in self.kind.items() if k[0] == "F"}
        return c

    def teleporters(self) -> dict[str, Square]:
        """Teleporter colour → square, alphabetical (cached)."""
        c = self._cache.get("tps")
        if c is None:
            c = self._cache["tps"] = {k[1]: sq for sq, k in sorted(self.kind.items()) if k[0] == "TP"}
        return c

    def has_buzzsaw(self) -> bool:
        c = self._cache.get("bz")
        if c is None:
            c = self._cache["bz"] = any(k[0] == "BZ" for k in self.kind.values())
        return c

    def text(self) -> str:
        """The canonical text (:func:`print_board`, cached)."""
        c = self._cache.get("text")
        if c is None:
            c = self._cache["text"] = print_board(self)
        return c

    def with_edge_mode(self, mode: str) -> "Board":
        """A copy whose perimeter is ``mode`` (``fence`` or ``pit``, parameter ``edge``)."""
        if mode == self.edge_mode:
            return self
        b = Board(self.board_id, self.name, self.rows, self.cols, self.start, self.start_facing,
                  dict(self.cells), mode)
        b.lines = self.lines
        b.start_line = self.start_line
        b.derive()
        return b

    # ---- hooks for a variant's board (geeko) ------------------------------------------
    base_re = BASE_RE
    """BASE token grammar (F-3.4); a subclass may widen it."""
    item_re = ITEM_RE
    """Side item grammar (F-3.4)."""
    start_re = START_RE
    """One start entry of the ``start:`` key (F-3.1)."""
    max_starts = 1
    """How many comma-separated start entries ``start:`` holds."""
    option_codes = OPTION_CODES
    """Armoury codes accepted by F-3.8."""

    def base_kind(self, tok: str) -> tuple:
        """A BASE token → ``(kind, params...)`` (see :func:`_base_kind`)."""
        return _base_kind(tok)

    def switch_of(self, sq: Square) -> tuple[str, int] | None:
        """The floor switch on ``sq`` as ``("SG"|"SR", channel)``: an ``SG``/``SR`` square or a
        crusher over a switch (F-6.24a); ``None`` if there is none."""
        k = self.kind[sq]
        if k[0] in ("SG", "SR"):
            return k[0], k[1]
        if k[0] == "CR":
            return k[2]
        return None

    def switch_squares(self) -> list[tuple[Square, str, int]]:
        """Every floor switch (F-6.11, F-6.12, F-6.24a) as ``(square, "SG"|"SR", channel)``, in
        ascending (row, column) order (cached)."""
        c = self._cache.get("switches")
        if c is None:
            c = self._cache["switches"] = [(sq, *sw) for sq in sorted(self.kind)
                                           if (sw := self.switch_of(sq)) is not None]
        return c

    def channel_members(self) -> tuple[dict[int, list[tuple[str, Square]]], dict[int, list[tuple[str, Square]]]]:
        """F-3.7: ``(switches, devices)`` per channel, each ``(kind, square)`` in file order; a
        crusher over a switch counts as its switch (F-6.24a)."""
        switches: dict[int, list[tuple[str, Square]]] = {}
        devices: dict[int, list[tuple[str, Square]]] = {}
        for sq, k in sorted(self.kind.items(), key=lambda kv: self.lines.get(kv[0], (0, 0))):
            sw = self.switch_of(sq)
            if sw is not None:
                switches.setdefault(sw[1], []).append((sw[0], sq))
            elif k[0] == "TD":
                devices.setdefault(k[1], []).append(("TD", sq))
            elif k[0] == "DB":
                devices.setdefault(k[2], []).append(("DB", sq))
            elif k[0] == "TP" and k[2] is not None:
                devices.setdefault(k[2], []).append(("TP", sq))
        for key, ch in sorted(self.eyes.items()):
            switches.setdefault(ch, []).append(("eye", (key[0], key[1])))
        for key, (ch, _) in sorted(self.blasers.items()):
            devices.setdefault(ch, []).append(("blaser", (key[0], key[1])))
        return switches, devices

    # ---- derived tables ---------------------------------------------------------------
    def derive(self) -> None:
        """Fill the derived tables from ``cells``; record problems (F-3.5, F-3.6, F-3.8) in ``problems``."""
        self._cache = {}
        self.kind = {}
        self.edges = {}
        self.pushers = {}
        self.turrets = []
        self.blasers = {}
        self.eyes = {}
        self.problems = []
        declared: dict[tuple[int, int, int], set[str]] = {}
        mounted: set[tuple[int, int, int]] = set()
        for sq in self.squares():
            cell = self.cells[sq]
            self.kind[sq] = self.base_kind(cell.base)
            seen_wf: set[int] = set()
            seen_mount: set[int] = set()
            for item in cell.items:
                letter, d = item[0], DIRS.index(item[1])
                rest = item[2:]
                if letter in "wf":
                    if d in seen_wf:
                        self._problem(sq, f"F-3.4: side {DIRS[d]} of {sq_str(sq)} carries two w/f items")
                    seen_wf.add(d)
                    nb = _step(sq, d)
                    if not self.on_board(nb):
                        self._problem(sq, f"F-3.5: {item} on the perimeter side {DIRS[d]} of {sq_str(sq)}")
                        continue
                    declared.setdefault(_edge_key(sq, d), set()).add(letter)
                else:
                    if d in seen_mount:
                        self._problem(sq, f"F-3.4: side {DIRS[d]} of {sq_str(sq)} carries two mounts")
                    seen_mount.add(d)
                    mounted.add(_edge_key(sq, d) if self.on_board(_step(sq, d)) else (sq[0], sq[1], d))
                    if letter == "p":
                        regs = rest
                        if list(regs) != sorted(set(regs)):
                            self._problem(sq, f"F-3.8: pusher registers {regs} are not strictly ascending")
                        if sq in self.pushers:
                            self._problem(sq, f"F-3.8: {sq_str(sq)} carries more than one pusher")
                        else:
                            self.pushers[sq] = (d, frozenset(int(x) for x in regs))
                    elif letter == "l":
                        self.turrets.append((sq, d, int(rest) if rest else 1))
                    elif letter == "b":
                        self.blasers[(sq[0], sq[1], d)] = (int(rest[0]), rest[1] == "+")
                    elif letter == "e":
                        self.eyes[(sq[0], sq[1], d)] = int(rest)
            k = self.kind[sq]
            if k[0] == "CR" and list(k[1]) != sorted(set(k[1])):
                self._problem(sq, f"F-3.8: crusher registers {''.join(map(str, k[1]))} are not strictly ascending")
            if k[0] == "AR" and k[1] not in self.option_codes:
                self._problem(sq, f"F-3.8: armoury option {k[1]} is not one of {' '.join(self.option_codes)}")
        for key, kinds in sorted(declared.items()):
            if len(kinds) > 1:
                self._problem((key[0], key[1]), f"F-3.5: edge on side {DIRS[key[2]]} of {sq_str((key[0], key[1]))} "
                                                "is declared both wall and fence")
        for sq in self.squares():
            for d in range(4):
                nb = _step(sq, d)
                if not self.on_board(nb):
                    if self.edge_mode == "pit":
                        self.edges[(sq[0], sq[1], d)] = "wall" if (sq[0], sq[1], d) in mounted else "void"
                    else:
                        self.edges[(sq[0], sq[1], d)] = "fence"
                    continue
                key = _edge_key(sq, d)
                kinds = declared.get(key, set())
                if "w" in kinds:
                    e = "wall"
                elif "f" in kinds:
                    e = "fence"
                elif key in mounted:
                    e = "wall"
                else:
                    e = "open"
                self.edges[(sq[0], sq[1], d)] = e
        # flags, teleporters, channels, start (F-3.7, F-3.8); problems name the first square concerned
        flag_sq: dict[int, list[Square]] = {}
        for sq, k in sorted(self.kind.items(), key=lambda kv: self.lines.get(kv[0], (0, 0))):
            if k[0] == "F":
                flag_sq.setdefault(k[1], []).append(sq)
        flags = sorted(flag_sq)
        dup = [sqs[1] for n, sqs in sorted(flag_sq.items()) if len(sqs) > 1]
        if flags != list(range(1, len(flags) + 1)) or not flags or dup:
            where = dup[0] if dup else (flag_sq[flags[-1]][0] if flags else None)
            found = ", ".join(f"F{n}" + (f" x{len(flag_sq[n])}" if len(flag_sq[n]) > 1 else "") for n in flags)
            self._problem(where, f"F-3.8: flags must be exactly F1..Fn (n >= 1), each once; found {found or 'none'}")
        tps: dict[str, list[Square]] = {}
        for sq, k in sorted(self.kind.items(), key=lambda kv: self.lines.get(kv[0], (0, 0))):
            if k[0] == "TP":
                tps.setdefault(k[1], []).append(sq)
        for col, sqs in sorted(tps.items()):
            if len(sqs) > 1:
                self._problem(sqs[1], f"F-3.8: teleporter colour {col} is used {len(sqs)} times")
        if sum(len(v) for v in tps.values()) == 1:
            self._problem(next(iter(tps.values()))[0], "F-3.8: only one teleporter exists")
        switches, devices = self.channel_members()
        for ch in sorted(set(switches) | set(devices)):
            if ch not in devices:
                self._problem(switches[ch][0][1], f"F-3.7: channel {ch} has switches or eyes but no device")
            if ch not in switches:
                self._problem(devices[ch][0][1], f"F-3.7: channel {ch} has devices but no switch or eye")
            bad = [sq for kind, sq in switches.get(ch, []) if kind != "SG"]
            if any(kind == "DB" for kind, _ in devices.get(ch, [])) and bad:
                self._problem(bad[0], f"F-3.7: channel {ch} drives a drawbridge but has switches other than SG")
        if not self.on_board(self.start):
            self.problems.append((f"F-3.8: start square {sq_str(self.start)} is off the board", self.start_line, None))
        else:
            if self.cells[self.start].base != ".":
                self._problem(self.start, f"F-3.8: start square {sq_str(self.start)} is not open floor '.'")
            if self.start in self.pushers:
                self._problem(self.start, f"F-3.8: start square {sq_str(self.start)} carries a pusher")

    def _problem(self, sq: Square | None, msg: str) -> None:
        ln, col = self.lines.get(sq, (None, None)) if sq is not None else (None, None)
        self.problems.append((msg, ln, col))

    def channel_devices(self) -> dict[int, list[tuple[str, Any]]]:
        """Devices per channel: ``("TD", sq)``, ``("DB", sq)``, ``("TP", colour)``, ``("BL", key)`` (cached)."""
        c = self._cache.get("channels")
        if c is None:
            c = self._cache["channels"] = self._channel_devices()
        return c

    def _channel_devices(self) -> dict[int, list[tuple[str, Any]]]:
        out: dict[int, list[tuple[str, Any]]] = {}
        for sq, k in sorted(self.kind.items()):
            if k[0] == "TD":
                out.setdefault(k[1], []).append(("TD", sq))
            elif k[0] == "DB":
                out.setdefault(k[2], []).append(("DB", sq))
            elif k[0] == "TP" and k[2] is not None:
                out.setdefault(k[2], []).append(("TP", k[1]))
        for key, (ch, _) in sorted(self.blasers.items()):
            out.setdefault(ch, []).append(("BL", key))
        return out


def _step(sq: Square, d: int) -> Square:
    dr, dc = DELTA[d]
    return sq[0] + dr, sq[1] + dc


step = _step


def _edge_key(sq: Square, d: int) -> tuple[int, int, int]:
    """A canonical key for the internal edge on side ``d`` of ``sq`` (the N or E side of one square)."""
    if d == 2:
        return sq[0] - 1, sq[1], 0
    if d == 3:
        return sq[0], sq[1] - 1, 1
    return sq[0], sq[1], d


def _base_kind(tok: str) -> tuple:
    """A BASE token → a tuple ``(kind, params...)``."""
    if tok == ".":
        return (".",)
    if tok in ("PT", "BZ", "UP"):
        return (tok,)
    h = tok[:2]
    if h == "TD":
        return ("TD", int(tok[2]), tok[3] == "+")
    if h == "DB":
        return ("DB", DIRS.index(tok[2]), int(tok[3]))
    if h == "TP":
        if len(tok) == 3:
            return ("TP", tok[2], None, True)
        return ("TP", tok[2], int(tok[3]), tok[4] == "+")
    if h in ("CY", "CB"):
        return (h, DIRS.index(tok[2]))
    if h in ("GL", "GR", "GU"):
        return ("G", tok[1])
    if h == "CR":  # CR<regs> or CR<regs>S<G|R><ch> (F-6.24a): ("CR", regs, None | ("SG"|"SR", ch))
        regs, sep, sw = tok[2:].partition("S")
        return ("CR", tuple(int(x) for x in regs), ("S" + sw[0], int(sw[1])) if sep else None)
    if h in ("SG", "SR"):
        return (h, int(tok[2]))
    if tok[0] == "W":
        return ("W", int(tok[1]))
    if tok[0] == "F":
        return ("F", int(tok[1]))
    if h == "AR":
        return ("AR", tok[2:])
    raise ValueError(tok)  # pragma: no cover - BASE_RE guards this


def _strip_comment(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


KEYS = ("board", "name", "rows", "cols", "start")


def parse_board(text: str, source: str = "<board>", *, check: bool = True, edge: str = "fence",
                board_cls: type[Board] = Board) -> Board:
    """Parse board text (F-3.1 to F-3.4) and, with ``check``, reject it on any F-3.8 problem.

    Raises :class:`ConfigError` with ``line``/``column`` (1-based) for the first problem found.
    ``edge`` is the perimeter parameter (F-3.5).  With ``check=False`` the structural checks of
    F-3.8 are still recorded in ``board.problems`` but do not raise (used by scenarios, where
    the worked-example conventions waive flags and start).  ``board_cls`` is the :class:`Board`
    subclass whose grammar hooks (``base_re``, ``item_re``, ``start_re``, ``max_starts``) and
    checks apply (``geeko`` rooms).
    """
    check_digits(text, source)  # a 5,000-digit number is a ConfigError here, not int()'s ValueError
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    vals: dict[str, tuple[str, int]] = {}
    i = 0
    n = len(lines)

    def err(msg: str, ln: int, col: int | None = None) -> ConfigError:
        return ConfigError(msg, source=source, line=ln, column=col)

    order = list(KEYS)
    pos = 0
    while i < n:
        line = lines[i]
        if _strip_comment(line):
            i += 1
            continue
        s = line.strip()
        col0 = len(line) - len(line.lstrip()) + 1
        if s == "grid:":
            i += 1
            break
        key, sep, val = s.partition(":")
        key = key.strip()
        if not sep or key not in KEYS:
            raise err(f"F-3.1: unknown key {key!r} (expected one of {', '.join(KEYS)}, then grid:)", i + 1, col0)
        if key in vals:
            raise err(f"F-3.1: key {key!r} repeated", i + 1, col0)
        while pos < len(order) and order[pos] != key:
            if order[pos] != "name":
                raise err(f"F-3.1: key {key!r} out of order (expected {order[pos]!r})", i + 1, col0)
            pos += 1
        pos += 1
        vals[key] = (val.strip(), i + 1)
        i += 1
    else:
        raise err("F-3.1: missing 'grid:' line", n if n else 1)
    for key in ("board", "rows", "cols", "start"):
        if key not in vals:
            raise err(f"F-3.1: missing key {key!r}", i)
    bid, ln = vals["board"]
    if not ID_RE.fullmatch(bid):
        raise err(f"F-3.1: board id {bid!r} must match [a-z0-9-]+", ln, lines[ln - 1].index(":") + 2)
    dims = []
    for key in ("rows", "cols"):
        v, ln = vals[key]
        if not re.fullmatch(r"\d+", v) or not 2 <= int(v) <= 40:
            raise err(f"F-2.1: {key} must be a whole number from 2 to 40, got {v!r}", ln,
                      lines[ln - 1].index(":") + 2)
        dims.append(int(v))
    R, C = dims
    v, ln = vals["start"]
    parts = [x.strip() for x in v.split(",")] if board_cls.max_starts > 1 else [v]
    ms = [board_cls.start_re.fullmatch(x) for x in parts]
    if len(parts) > board_cls.max_starts or not all(ms):
        want = ", ".join(["rRcC <facing>"] * board_cls.max_starts)
        raise err(f"F-3.1: start must be '{want}', got {v!r}", ln, lines[ln - 1].index(":") + 2)
    starts = [((int(m.group(1)), int(m.group(2))), DIRS.index(m.group(3))) for m in ms]
    start, facing = starts[0]
    cells, pos_of, i = _parse_rows(lines, i, R, C, source, board_cls)
    # after the rows: 'end', then nothing but blanks/comments
    while i < n and _strip_comment(lines[i]):
        i += 1
    if i >= n or lines[i].strip() != "end":
        raise err("F-3.1: expected 'end' after the row lines", min(i + 1, max(n, 1)))
    i += 1
    while i < n:
        if not _strip_comment(lines[i]):
            raise err("F-3.1: text after 'end'", i + 1, len(lines[i]) - len(lines[i].lstrip()) + 1)
        i += 1
    name = vals["name"][0] if "name" in vals else None
    board = board_cls(bid, name, R, C, start, facing, cells, edge)
    board.starts = starts
    board.lines = pos_of
    board.start_line = vals["start"][1]
    board.derive()
    if check and board.problems:
        msg, ln, col = board.problems[0]
        raise err(msg, ln if ln else 1, col)
    return board


def _parse_rows(lines: list[str], i: int, R: int, C: int, source: str, board_cls: type[Board] = Board
                ) -> tuple[dict[Square, Cell], dict[Square, tuple[int, int]], int]:
    cells: dict[Square, Cell] = {}
    pos_of: dict[Square, tuple[int, int]] = {}
    want = R
    n = len(lines)
    while want >= 1:
        while i < n and _strip_comment(lines[i]):
            i += 1
        if i >= n:
            raise ConfigError(f"F-3.2: missing row line r{want}", source=source, line=n if n else 1)
        line = lines[i]
        toks = [(m.group(0), m.start() + 1) for m in re.finditer(r"[^ \t]+", line)]
        label, lcol = toks[0]
        if label != f"r{want}":
            raise ConfigError(f"F-3.2: expected row label r{want}, got {label!r}", source=source, line=i + 1,
                              column=lcol)
        body = toks[1:]
        if len(body) != C:
            col = body[C][1] if len(body) > C else len(line) + 1
            raise ConfigError(f"F-3.2: row r{want} has {len(body)} cells, expected {C}", source=source,
                              line=i + 1, column=col)
        for c, (tok, col) in enumerate(body, 1):
            cells[(want, c)] = _parse_cell(tok, source, i + 1, col, board_cls)
            pos_of[(want, c)] = (i + 1, col)
        want -= 1
        i += 1
    return cells, pos_of, i


def _parse_cell(tok: str, source: str, ln: int, col: int, board_cls: type[Board] = Board) -> Cell:
    base, sep, sides = tok.partition("/")
    if not board_cls.base_re.fullmatch(base):
        raise ConfigError(f"F-3.3: bad cell token {base!r}", source=source, line=ln, column=col)
    items: list[str] = []
    if sep:
        p = 0
        off = len(base) + 1
        if not sides:
            raise ConfigError(f"F-3.4: empty side list in {tok!r}", source=source, line=ln, column=col + off)
        while p < len(sides):
            m = board_cls.item_re.match(sides, p)
            if not m:
                raise ConfigError(f"F-3.4: bad side item at {sides[p:]!r} in {tok!r}", source=source, line=ln,
                                  column=col + off + p)
            items.append(m.group(0))
            p = m.end()
    return Cell(base, tuple(items))


def print_board(board: Board) -> str:
    """The canonical text of ``board`` (F-3.1 to F-3.4).

    Layout: the keys, ``grid:``, a ``#`` comment naming the columns, the row lines with the
    label padded to the widest label + 3 and every cell but the last padded to
    ``max(6, widest token) + 1`` characters, then ``end``.
    """
    out = [f"board: {board.board_id}"]
    if board.name is not None:
        out.append(f"name: {board.name}")
    out += [f"rows: {board.rows}", f"cols: {board.cols}",
            "start: " + ", ".join(f"{sq_str(sq)} {DIRS[f]}"
                                  for sq, f in (board.starts or [(board.start, board.start_facing)])), "grid:"]
    toks = {sq: c.token() for sq, c in board.cells.items()}
    w = max(6, max(len(t) for t in toks.values())) + 1
    lw = len(f"r{board.rows}") + 3
    head = "#".ljust(lw) + "".join(f"c{c}".ljust(w) for c in range(1, board.cols + 1))
    out.append(head.rstrip())
    for r in range(board.rows, 0, -1):
        line = f"r{r}".ljust(lw) + "".join(toks[(r, c)].ljust(w) for c in range(1, board.cols + 1))
        out.append(line.rstrip())
    out.append("end")
    return "\n".join(out) + "\n"


def grid_board(rows_text: str, source: str = "<grid>", start: str | None = None, edge: str = "fence") -> Board:
    """A board from row lines only (the §13 worked-example convention: ``r2 . .`` / ``r1 . .``,
    north first, or the same lines joined by `` / ``); F-3.8's flag and start checks are waived
    (other problems still raise).  ``start`` is ``"rRcC F"`` (default ``r1c1 N``)."""
    text = rows_text.replace(" / ", "\n").strip("\n")
    rows = [ln for ln in text.split("\n") if not _strip_comment(ln)]
    if not rows:
        raise ConfigError("empty grid", source=source)
    R = len(rows)
    C = len(rows[0].split()) - 1
    full = (f"board: scenario\nrows: {R}\ncols: {C}\nstart: {start or 'r1c1 N'}\ngrid:\n" + "\n".join(rows)
            + "\nend\n")
    b = parse_board(full, source, check=False, edge=edge)
    real = [p for p in b.problems if not p[0].startswith("F-3.8: flags") and "start square" not in p[0]]
    if real:
        msg, ln, col = real[0]
        raise ConfigError(msg, source=source, line=(ln - 5) if ln else None, column=col)
    return b


def shipped_boards() -> list[str]:
    """Names of the shipped boards (``boards/*.board``), sorted."""
    return sorted(f[:-6] for f in os.listdir(BOARDS_DIR) if f.endswith(".board"))


def load_board(spec: str, edge: str = "fence") -> Board:
    """A shipped board name, a file path or board text → :class:`Board`; raises :class:`ConfigError`."""
    if "\n" in spec:
        return parse_board(spec, "<board text>", edge=edge)
    path = os.path.join(BOARDS_DIR, spec + ".board")
    if not os.path.exists(path):
        path = spec
    if not os.path.exists(path):
        raise ConfigError(f"unknown board {quote(spec)} (shipped: {', '.join(shipped_boards())}; "
                          "or give a file path)")
    text = read_text(path, what="board file")  # bounded (issue 25); a path only where the caller allows it
    return parse_board(text, path, edge=edge)


def check_board(text: str, source: str) -> list[str]:
    """``botwars board check``: every problem of a well-formed board text, one line each
    (``[]`` = valid).  A text that is not a board at all (F-3.1 to F-3.4: keys, rows, tokens
    do not parse) raises :class:`ConfigError` with its line and column instead.

    Beyond F-3.8 it checks that every flag is reachable from the start square over open
    edges and non-pit squares (teleporters link to each other; trap doors and drawbridges
    count as passable, since switches can make them so).
    """
    b = parse_board(text, source, check=False)
    out = []
    for msg, ln, col in b.problems:
        out.append(ConfigError(msg, source=source, line=ln, column=col).one_line())
    if b.on_board(b.start) and not any("flags" in p[0] for p in b.problems):
        seen = reachable(b, b.start)
        for n, sq in sorted(b.flags().items()):
            if sq not in seen:
                out.append(ConfigError(f"flag {n} at {sq_str(sq)} is not reachable from the start square",
                                       source=source, line=b.lines.get(sq, (None,))[0]).one_line())
    return out


def reachable(b: Board, start: Square) -> set[Square]:
    """Squares reachable from ``start`` by robot steps over open edges into non-pit squares."""
    tps = list(b.teleporters().values())
    seen = {start}
    todo = [start]
    while todo:
        sq = todo.pop()
        nxt = []
        for d in range(4):
            if b.edge(sq, d) != "open":
                continue
            nb = _step(sq, d)
            k = b.kind[nb]
            if k[0] == "PT":
                continue
            if k[0] == "DB" and k[1] == opposite(d):
                continue
            nxt.append(nb)
        if b.kind[sq][0] == "TP":
            nxt += tps
        for nb in nxt:
            if nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return seen
