"""Submarine board geometry and notation (shared/rules/submarine.md §2).

Spaces are ``(col, row)`` integer pairs, both 1..7 (column A = 1, row 1 = south); their text
form is ``"D4"`` (S-2.1). Directions are ``N``/``E``/``S``/``W`` (S-2.2).
"""

from __future__ import annotations

Space = tuple[int, int]

SIZE = 7
COLS = "ABCDEFG"
DIRS: dict[str, Space] = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
P1_SUBS = ("a", "b", "c", "d", "e")
P2_SUBS = ("v", "w", "x", "y", "z")
SUBS_OF = {"p1": P1_SUBS, "p2": P2_SUBS}
ALL_SUBS = P1_SUBS + P2_SUBS

#: S-2.5 scoring values (all other spaces score 0).
SCORING: dict[Space, int] = {(4, 4): 4, (4, 3): 2, (3, 4): 2, (5, 4): 2, (4, 5): 2,
                             (3, 3): 1, (5, 3): 1, (3, 5): 1, (5, 5): 1}
#: S-6.2 / H6: spaces a mine may never be placed on (D4, D3, C4, E4, D5).
NO_MINE: frozenset[Space] = frozenset({(4, 4), (4, 3), (3, 4), (5, 4), (4, 5)})

ALL_SPACES: tuple[Space, ...] = tuple((c, r) for r in range(1, SIZE + 1) for c in range(1, SIZE + 1))


def owner_of(letter: str) -> str:
    """``"p1"`` for a–e, ``"p2"`` for v–z (S-1.1); raises ``KeyError`` for any other letter."""
    if letter in P1_SUBS:
        return "p1"
    if letter in P2_SUBS:
        return "p2"
    raise KeyError(letter)


def other(seat: str) -> str:
    """The opponent's seat name."""
    return "p2" if seat == "p1" else "p1"


def on_board(sp: Space) -> bool:
    return 1 <= sp[0] <= SIZE and 1 <= sp[1] <= SIZE


_NAMES: dict[Space, str] = {(c, r): f"{COLS[c - 1]}{r}" for c in range(1, SIZE + 1) for r in range(1, SIZE + 1)}
_SPACES: dict[str, Space] = {v: k for k, v in _NAMES.items()}


def name(sp: Space) -> str:
    """``(4, 4)`` → ``"D4"``."""
    n = _NAMES.get(sp)
    return n if n is not None else f"{COLS[sp[0] - 1]}{sp[1]}"


def parse_space(text: object) -> Space | None:
    """``"D4"`` (any case, surrounding blanks ignored) → ``(4, 4)``; ``None`` if it is not a space
    on the board (S-4.3: malformed)."""
    if not isinstance(text, str):
        return None
    hit = _SPACES.get(text)
    if hit is not None:
        return hit
    t = text.strip().upper()
    if len(t) != 2 or t[0] not in COLS or t[1] not in "1234567":
        return None
    return (COLS.index(t[0]) + 1, int(t[1]))


def step(sp: Space, d: str, n: int = 1) -> Space:
    dx, dy = DIRS[d]
    return (sp[0] + dx * n, sp[1] + dy * n)


def dist(a: Space, b: Space) -> int:
    """Manhattan distance (S-2.2)."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def adjacent(sp: Space) -> list[Space]:
    """Orthogonal neighbours on the board, in N, E, S, W order."""
    return [s for s in (step(sp, d) for d in "NESW") if on_board(s)]


def ring(sp: Space) -> int:
    """S-2.4: 1 (border) .. 4 (D4)."""
    c, r = sp
    return 1 + min(c - 1, SIZE - c, r - 1, SIZE - r)


_DESTROYED: dict[int, tuple[Space, ...]] = {
    k: tuple(sorted((sp for sp in ALL_SPACES if ring(sp) <= k), key=name)) for k in range(0, 5)}


def destroyed_spaces(rings: int) -> list[Space]:
    """Spaces of rings 1..``rings`` (S-7.7), in name order (A1, A2, ..., G7)."""
    return list(_DESTROYED[max(0, min(4, rings))])
