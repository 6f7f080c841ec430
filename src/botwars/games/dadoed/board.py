"""DADOED tiles, directions and the text board (shared/rules/dadoed.md D-2.1, D-2.2, D-2.6).

A tile is ``(col, row)`` with ``0 <= col, row < 8``: ``(0, 0)`` is A1, ``(7, 7)`` is H8.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from botwars.engine.errors import ConfigError

SIZE = 8
COLS = "ABCDEFGH"
LABELS = ("A", "B", "C", "D")
DIRS: dict[str, tuple[int, int]] = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
DIR_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
_DIR_PARSE = {**{k: k for k in DIRS}, **{v.upper(): k for k, v in DIR_NAMES.items()}}

Tile = tuple[int, int]


def tile_str(t: Tile) -> str:
    """``(2, 4)`` → ``"C5"``."""
    return f"{COLS[t[0]]}{t[1] + 1}"


def parse_tile(text: object) -> Tile:
    """``"C5"`` (any case) → ``(2, 4)``; raises ``ValueError`` naming the text (D-2.1)."""
    s = str(text).strip().upper()
    if len(s) == 2 and s[0] in COLS and s[1] in "12345678":
        return COLS.index(s[0]), int(s[1]) - 1
    raise ValueError(f"{text!r} is not a tile (A1 to H8)")


def parse_dir(text: object) -> str:
    """``"N"``, ``"north"``, ``"North"`` → ``"N"``; raises ``ValueError`` (D-2.2)."""
    s = str(text).strip().upper()
    if s in _DIR_PARSE:
        return _DIR_PARSE[s]
    raise ValueError(f"{text!r} is not a direction (N, E, S, W or North, East, South, West)")


def on_board(t: Tile) -> bool:
    return 0 <= t[0] < SIZE and 0 <= t[1] < SIZE


def ahead(t: Tile, d: str) -> Tile:
    """The tile ahead of ``t`` in direction ``d`` (may be off the board, D-2.2)."""
    dx, dy = DIRS[d]
    return t[0] + dx, t[1] + dy


def tiles_sorted(tiles) -> list[str]:
    """Tile names sorted by column then row (D-12.2)."""
    return [tile_str(t) for t in sorted(tiles)]


@dataclass
class BoardText:
    """What a D-2.6 text board shows: bots by label with owner, boulders, fire, holes."""

    bots: dict[str, tuple[str, Tile]] = field(default_factory=dict)
    boulders: set[Tile] = field(default_factory=set)
    fire: set[Tile] = field(default_factory=set)
    holes: set[Tile] = field(default_factory=set)


def render_board(bots: dict[str, tuple[str, Tile | None]], boulders, fire, holes) -> list[str]:
    """The 9 lines of D-2.6. ``bots``: label → (owner ``blue``/``orange``, tile or None)."""
    grid = [["." for _ in range(SIZE)] for _ in range(SIZE)]
    for t in holes:
        grid[t[1]][t[0]] = "X"
    for t in fire:
        grid[t[1]][t[0]] = "*"
    for t in boulders:
        grid[t[1]][t[0]] = "O"
    for label, (owner, t) in sorted(bots.items()):
        if t is not None:
            grid[t[1]][t[0]] = label if owner == "blue" else label.lower()
    lines = ["  " + COLS]
    for r in range(SIZE - 1, -1, -1):
        lines.append(f"{r + 1} " + "".join(grid[r]))
    return lines


def parse_board(text: str, source: str = "board", *, first_line: int = 1, indent: int = 0) -> BoardText:
    """Parse a D-2.6 text board (the header line is optional; blank lines are ignored).

    Raises :class:`ConfigError` naming the line and column of the first problem, counted in
    the file the text comes from: ``first_line`` is the file line of the text's first line and
    ``indent`` the columns the file has before it (a board in a YAML block, whose indentation
    YAML has already removed).  Bots on fire cannot be
    written (the letter hides the fire): give such fire separately.
    """
    numbered = [(n, ln.rstrip()) for n, ln in enumerate(str(text).splitlines(), first_line) if ln.strip()]
    if numbered and numbered[0][1].strip() == COLS:
        numbered = numbered[1:]
    if len(numbered) != SIZE:
        where = numbered[SIZE][0] if len(numbered) > SIZE else (numbered[-1][0] if numbered else first_line)
        raise ConfigError(f"a board has {SIZE} rows (8 down to 1), got {len(numbered)}", source=source, line=where,
                          column=indent + 1)
    out = BoardText()
    for i, (ln_no, ln) in enumerate(numbered):
        row = SIZE - 1 - i
        want = f"{row + 1} "
        if not ln.startswith(want):
            raise ConfigError(f"row {i + 1} must start with '{want}', got {ln[:2]!r}", source=source, line=ln_no,
                              column=indent + 1)
        cells = ln[2:]
        if len(cells) != SIZE:
            raise ConfigError(f"row {row + 1} must have {SIZE} tiles, got {len(cells)}", source=source, line=ln_no,
                              column=indent + 3 + min(len(cells), SIZE))
        for c, ch in enumerate(cells):
            t = (c, row)
            if ch == ".":
                continue
            if ch == "*":
                out.fire.add(t)
            elif ch == "X":
                out.holes.add(t)
            elif ch == "O":
                out.boulders.add(t)
            elif ch.upper() in LABELS:
                label = ch.upper()
                if label in out.bots:
                    raise ConfigError(f"bot {label} appears twice", source=source, line=ln_no, column=indent + c + 3)
                out.bots[label] = ("blue" if ch.isupper() else "orange", t)
            else:
                raise ConfigError(f"unknown tile character {ch!r} at {tile_str(t)} "
                                  "(use . * X O A-D a-d)", source=source, line=ln_no, column=indent + c + 3)
    return out


def check_board_text(text: str, source: str) -> list[str]:
    """``botwars board check --game dadoed``: ``[]`` for a valid D-2.6 text board.  Every
    problem of this format is one of form (rows, tiles, a bot written twice), so a bad board
    raises :class:`ConfigError` (file, line, column): the command line's exit 2."""
    parse_board(text, source)
    return []
