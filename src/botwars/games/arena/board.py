"""The arena text map format (R5): parse and print."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

from botwars.engine.errors import ConfigError
from botwars.engine.safeload import read_text

Square = tuple[int, int]


@dataclass(frozen=True)
class ArenaMap:
    """An arena map (R1, R2, R5): ``width`` × ``height`` squares, walls and spawn points.

    Squares are ``(x, y)`` with x in 1..width (west to east) and y in 1..height (south to north).
    ``spawns`` maps player number (1, 2) to its spawn squares, sorted.
    """

    width: int
    height: int
    walls: frozenset[Square]
    spawns: dict[int, tuple[Square, ...]]

    def is_open(self, sq: Square) -> bool:
        """True if a robot may stand on ``sq`` (inside the grid and not a wall, R1/R2)."""
        x, y = sq
        return 1 <= x <= self.width and 1 <= y <= self.height and sq not in self.walls

    def spawn_owner(self) -> dict[Square, int]:
        return {sq: p for p, sqs in self.spawns.items() for sq in sqs}

    def to_text(self) -> str:
        """The map in the R5 text format (line 1 = top row), ending with LF."""
        owner = self.spawn_owner()
        lines = []
        for y in range(self.height, 0, -1):
            row = []
            for x in range(1, self.width + 1):
                if (x, y) in self.walls:
                    row.append("#")
                elif (x, y) in owner:
                    row.append(str(owner[(x, y)]))
                else:
                    row.append(".")
            lines.append("".join(row))
        return "\n".join(lines) + "\n"

    def open_squares(self) -> int:
        return self.width * self.height - len(self.walls)


def parse_map(text: str, source: str = "<map>", *, check: bool = True) -> ArenaMap:
    """Parse the R5 text format. Raises :class:`ConfigError` naming the line and column.

    With ``check=False`` a well-formed map without spawn points for a player is returned
    anyway (:func:`map_problems` lists that), for ``botwars board check``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if not lines:
        raise ConfigError("empty map", source=source, line=1)
    h = len(lines)
    w = len(lines[0])
    if not 3 <= w <= 999:
        raise ConfigError(f"map width must be 3..999, got {w}", source=source, line=1)
    if not 3 <= h <= 999:
        raise ConfigError(f"map height must be 3..999, got {h}", source=source, line=h)
    walls = set()
    spawns: dict[int, list[Square]] = {1: [], 2: []}
    for i, ln in enumerate(lines, 1):
        if len(ln) != w:
            raise ConfigError(f"line has {len(ln)} characters, expected {w} like line 1", source=source, line=i)
        y = h - i + 1
        for k, ch in enumerate(ln, 1):
            if ch == "#":
                walls.add((k, y))
            elif ch in "12":
                spawns[int(ch)].append((k, y))
            elif ch != ".":
                raise ConfigError(f"unknown map character {ch!r} (use # . 1 2)", source=source, line=i, column=k)
    amap = ArenaMap(w, h, frozenset(walls), {p: tuple(sorted(s)) for p, s in spawns.items()})
    if check:
        problems = map_problems(amap)
        if problems:
            raise ConfigError(problems[0], source=source)
    return amap


def map_problems(amap: ArenaMap) -> list[str]:
    """What makes a well-formed map unplayable (R5): a player without spawn points."""
    return [f"player {p} has no spawn point" for p in (1, 2) if not amap.spawns[p]]


_SHIPPED: tuple[str, ...] | None = None


def shipped_maps() -> list[str]:
    """Names of the maps shipped with botwars (package data: listed once per process)."""
    global _SHIPPED
    if _SHIPPED is None:
        d = resources.files("botwars.games.arena") / "maps"
        _SHIPPED = tuple(sorted(p.name[:-4] for p in d.iterdir() if p.name.endswith(".map")))
    return list(_SHIPPED)


def map_text(spec: str) -> tuple[str, str]:
    """Resolve a ``map`` parameter: a shipped map name, a file path, or literal map text.

    Returns ``(text, source)``; raises :class:`ConfigError` if it names nothing.
    """
    if "\n" in spec:
        return spec, "<map>"
    if spec in shipped_maps():
        return (resources.files("botwars.games.arena") / "maps" / f"{spec}.map").read_text(), f"{spec}.map"
    if os.path.isfile(spec):  # a path: only where the caller allows paths (Param.kind="file")
        return read_text(spec, what="map file"), spec
    raise ConfigError(f"no such map (shipped: {', '.join(shipped_maps())}; or give a file path)", source=spec)


_CACHE: dict[str, ArenaMap] = {}
_SHIPPED_CACHE: dict[str, ArenaMap] = {}


def load_map(spec: str) -> ArenaMap:
    """The map a ``map`` parameter names (cached by text; shipped maps by name).

    Raises :class:`ConfigError` naming the file, line and problem (R5).
    """
    m = _SHIPPED_CACHE.get(spec)
    if m is not None:
        return m
    text, source = map_text(spec)
    m = _CACHE.get(text)
    if m is None:
        m = parse_map(text, source)
        _CACHE[text] = m
    if source == f"{spec}.map" and spec in _SHIPPED:  # package data never changes while running
        _SHIPPED_CACHE[spec] = m
    return m


_SQ_TEXT: dict[Square, str] = {}


def sq_str(sq: Square) -> str:
    """``(x, y)`` as ``X:Y`` (R1). Memoised: events name squares on the hot path."""
    s = _SQ_TEXT.get(sq)
    if s is None:
        s = f"{sq[0]}:{sq[1]}"
        if len(_SQ_TEXT) < 1_000_000:
            _SQ_TEXT[sq] = s
    return s


def parse_sq(text: str) -> Square:
    """``X:Y`` to ``(x, y)``; raises ValueError."""
    a, _, b = text.strip().partition(":")
    return int(a), int(b)
