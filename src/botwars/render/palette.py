"""The seat colours: one palette, declared once, for every drawing, table, report and page.

Seat ``k`` (1-based, in the game's seat order) gets ``PALETTE[k - 1]``: its colour word (used
in text reports, tables, page names and notices) and the colour it is drawn in (SVG fills, the
pages' swatches). The order is factory's F-2.9 (1 red, 2 blue, 3 green, 4 yellow, 5 orange,
6 purple, 7 white, 8 black), which every game with numbered seats shares, so that "p4" is
yellow in the report, on the board and on the page alike.

A game whose seats are themselves named after colours (dadoed's ``blue`` and ``orange``,
D-1.1) gets those colours: :func:`seat_colours` gives a seat named by a palette word that word's
colour, and the other seats the palette in order.

Pages get the palette through the page's data (``seat_colours(...)`` as JSON), never a second
copy in a script; :func:`palette_json` is that form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class SeatColour:
    """One palette entry: ``word`` (lower case, e.g. ``"yellow"``), ``fill`` (``#rrggbb``, the
    drawn colour), ``ink`` (``#rrggbb``, text drawn on that fill) and ``edge`` (``#rrggbb``, an
    outline that shows on a white board, for the pale colours)."""

    word: str
    fill: str
    ink: str
    edge: str

    @property
    def name(self) -> str:
        """The word as a name on a page: ``"Yellow"``."""
        return self.word.capitalize()

    def to_json(self) -> dict[str, str]:
        return {"word": self.word, "name": self.name, "colour": self.fill, "ink": self.ink, "edge": self.edge}


#: Seats 1..8 in order (F-2.9).
PALETTE: tuple[SeatColour, ...] = (
    SeatColour("red", "#d62728", "#ffffff", "#7f1111"),
    SeatColour("blue", "#1f77b4", "#ffffff", "#0d3d5e"),
    SeatColour("green", "#2ca02c", "#ffffff", "#145214"),
    SeatColour("yellow", "#f2c80f", "#1b1f24", "#8a6d00"),
    SeatColour("orange", "#ff7f0e", "#1b1f24", "#9a4700"),
    SeatColour("purple", "#9467bd", "#ffffff", "#4b2a6b"),
    SeatColour("white", "#f7f7f7", "#1b1f24", "#555555"),
    SeatColour("black", "#222222", "#ffffff", "#000000"),
)

#: The colour words in seat order (F-2.9).
SEAT_WORDS: tuple[str, ...] = tuple(c.word for c in PALETTE)

_BY_WORD = {c.word: c for c in PALETTE}


def seat_colour(index: int) -> SeatColour:
    """The colour of the seat at 0-based ``index`` in seat order (seat 1 is index 0); beyond 8
    seats the palette repeats. Raises ``ValueError`` for a negative index."""
    if index < 0:
        raise ValueError(f"seat index must be 0 or more, got {index}")
    return PALETTE[index % len(PALETTE)]


def colour_named(word: str) -> SeatColour:
    """The palette entry for a colour word (any case); raises ``KeyError`` naming the word and
    the palette's words when it is not one of them."""
    try:
        return _BY_WORD[word.lower()]
    except KeyError:
        raise KeyError(f"{word!r} is not a seat colour (one of {', '.join(SEAT_WORDS)})") from None


def seat_colours(seats: Sequence[str]) -> dict[str, SeatColour]:
    """Seat → colour for a game's seats in seat order: a seat named by a palette word gets that
    colour (dadoed's ``blue``/``orange``), every other seat the palette entry of its position."""
    return {s: _BY_WORD[s.lower()] if s.lower() in _BY_WORD else seat_colour(k) for k, s in enumerate(seats)}


def palette_json(seats: Sequence[str]) -> dict[str, dict[str, str]]:
    """:func:`seat_colours` as JSON for a page: seat → ``{word, name, colour, ink, edge}``."""
    return {s: c.to_json() for s, c in seat_colours(seats).items()}
