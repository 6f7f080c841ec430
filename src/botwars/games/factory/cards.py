"""Program cards (F-2.6): every card is identified by its unique priority."""

from __future__ import annotations

import re

_SPEC = (
    # type, first, step, count, needs
    ("UTRN", 10, 10, 6, None),
    ("LF90", 70, 20, 18, None),
    ("RT90", 80, 20, 18, None),
    ("RVS1", 430, 10, 6, None),
    ("FWD1", 490, 10, 18, None),
    ("FWD2", 670, 10, 12, None),
    ("FWD3", 790, 10, 6, None),
    ("RVS2", 675, 10, 6, "A"),
    ("RVS3", 795, 10, 4, "A"),
    ("SLF1", 495, 20, 6, "B"),
    ("SRT1", 505, 20, 6, "B"),
    ("IDLE", 5, 10, 6, "C"),
)

CARD_TYPE: dict[int, str] = {}
"""priority → type name, for all 112 cards."""
TYPE_SET: dict[str, str | None] = {}
"""type name → the card set that unlocks it (``None`` for base types)."""
for _t, _first, _step, _n, _needs in _SPEC:
    TYPE_SET[_t] = _needs
    for _k in range(_n):
        CARD_TYPE[_first + _k * _step] = _t

ALL_CARDS: tuple[int, ...] = tuple(sorted(CARD_TYPE))
BASE_CARDS: tuple[int, ...] = tuple(p for p in ALL_CARDS if TYPE_SET[CARD_TYPE[p]] is None)
SET_TYPES = {"A": ("RVS2", "RVS3"), "B": ("SLF1", "SRT1"), "C": ("IDLE",)}
SET_ORDER = ("A", "B", "C")
TYPES = tuple(TYPE_SET)

# movement of each type: (relative direction, steps); relative: 0 ahead, 2 back, 3 left, 1 right
MOVE = {"FWD1": (0, 1), "FWD2": (0, 2), "FWD3": (0, 3), "RVS1": (2, 1), "RVS2": (2, 2), "RVS3": (2, 3),
        "SLF1": (3, 1), "SRT1": (1, 1)}
TURN = {"LF90": 3, "RT90": 1, "UTRN": 2}

_CARD_RE = re.compile(r"([A-Z0-9]{4})\s+(\d+)")


def card_str(p: int) -> str:
    """``710`` → ``"FWD2 710"``."""
    return f"{CARD_TYPE[p]} {p}"


def parse_card(text: str) -> int:
    """``"FWD2 710"`` or ``"710"`` → ``710``; raises ``ValueError`` naming the text."""
    s = str(text).strip()
    if s.isdigit():
        p = int(s)
        if p not in CARD_TYPE:
            raise ValueError(f"no card has priority {p}")
        return p
    m = _CARD_RE.fullmatch(s)
    if not m:
        raise ValueError(f"not a card: {text!r} (write TYPE priority, e.g. FWD2 710)")
    p = int(m.group(2))
    if CARD_TYPE.get(p) != m.group(1):
        raise ValueError(f"no card {s!r} (priority {p} is {card_str(p) if p in CARD_TYPE else 'no card'})")
    return p


def usable(p: int, sets: list[str] | tuple[str, ...]) -> bool:
    """F-6.31: base types always; set types once their set is unlocked."""
    need = TYPE_SET[CARD_TYPE[p]]
    return need is None or need in sets
