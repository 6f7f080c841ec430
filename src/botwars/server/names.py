"""Players' display names (issue 24 item 2).

A seat may carry a display name, given when the match is created (``names`` in
``POST /api/matches``) or set once by the seat's own player (``POST /api/matches/{id}/name``
with the seat token). A name is any script (letters, marks, digits, spaces, punctuation of any
language) of 1 to :data:`MAX_NAME_CHARS` characters after trimming; it may not hold markup
characters (``<``, ``>``), control or format characters (line breaks, NUL, bidirectional
overrides) or text that cannot be encoded. Pages escape names anyway (Jinja autoescaping, the
scripts' text nodes); the refusal is so that a name reads the same in a page, a mail, a
webhook and a report. A name is shown beside the seat's colour word, never instead of it.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Sequence

from botwars.render.palette import seat_colours

MAX_NAME_CHARS = 40
"""Longest display name, in characters (Unicode code points) after trimming."""


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a display name (a sentence naming what to fix), or ``None`` when it
    can. Checks the type, the length (1 to :data:`MAX_NAME_CHARS` characters after trimming),
    markup characters ``<`` ``>``, and Unicode control/format/unassigned/surrogate characters."""
    if not isinstance(name, str):
        return "a name must be text"
    text = name.strip()
    if not text:
        return "a name cannot be empty"
    if len(text) > MAX_NAME_CHARS:
        return f"a name is at most {MAX_NAME_CHARS} characters; this one has {len(text)}"
    if "<" in text or ">" in text:
        return "a name cannot contain the markup characters < or >"
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return f"a name cannot contain the control or invisible character U+{ord(ch):04X}"
    return None


def clean_name(name: object) -> str:
    """``name`` trimmed; raises :class:`ValueError` with :func:`name_problem`'s sentence when it
    cannot be a display name (Pydantic turns that into a 422 naming the field)."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    assert isinstance(name, str)
    return name.strip()


def label(seat: str, names: dict[str, str]) -> str:
    """How a seat is named in plain text (notices, reports): ``"Alice (p1)"`` with a display
    name, else the seat name ``"p1"``."""
    name = names.get(seat)
    return f"{name} ({seat})" if name else seat


def seat_label(seat: str, seats: Sequence[str], names: dict[str, str]) -> str:
    """How a seat is named beside its colour on pages, reports and documents (issue 24 item 2):
    ``"Ana (Red)"`` with a display name, else the colour alone, ``"Red"`` (issue 23 item 2: players
    never read the engine's seat id ``p1``; each seat of a match has its own colour, so the colour
    names it). Never nested brackets. The colour is the palette's (render/palette.py)."""
    colours = seat_colours(seats)
    colour = colours[seat].name
    name = names.get(seat)
    if name:
        return f"{name} ({colour})"
    shared = sum(1 for c in colours.values() if c.name == colour) > 1  # past 8 seats the palette repeats
    return f"{colour} ({seat})" if shared else colour


def with_names(text: str, seats: Sequence[str], names: dict[str, str], markup: bool = False) -> str:
    """``text`` (a game's report line, table cell or report HTML) with each named seat's
    ``"p1 (red)"`` (the seat and its colour word, as the games' reports write a player, F-9.3)
    read ``"Ana (red)"``: the player's name beside the colour. ``markup``: ``text`` is HTML, and
    the name goes in escaped. Seats without a name, and text that names no seat so, are left
    as they are."""
    if not names:
        return text
    colours = seat_colours(seats)
    for seat, name in names.items():
        if seat not in colours or not name:
            continue
        shown = html.escape(name) if markup else name
        pattern = re.compile(rf"(?<![\w-]){re.escape(seat)} \(({re.escape(colours[seat].word)})\)", re.IGNORECASE)
        text = pattern.sub(lambda m: f"{shown} ({m.group(1)})", text)
    return text
