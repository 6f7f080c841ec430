"""SVG drawing of game states, apart from the rules (like python-chess's ``chess.svg``).

:func:`render_svg` calls the drawing a game declares on its plug-in (``Game.svg``,
docs/plugins.md); the helpers in :mod:`botwars.render.svg` draw grids, labels and pieces for
every game.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event, filter_events
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import Ruleset


def render_svg(ruleset: Ruleset, state: Any, seat: str | None = None, events: list[Event] | None = None,
               names: dict[str, str] | None = None) -> str:
    """The state as an SVG document string, as ``seat`` may see it (``None`` = spectator).

    ``events`` (of the last decision point) are highlighted where the game draws them; only
    the events the seat may see are passed on. ``names``: optional display names by seat,
    drawn beside the pieces (escaped). Raises ``NotImplementedError`` for a game without a
    drawing, :class:`RulesetError` for a rule set that is not a registered game.
    """
    return get_game(ruleset.id).draw_svg(state, seat, filter_events(events or [], seat), names)


def render_legend(ruleset: Ruleset, state: Any, seat: str | None = None) -> str | None:
    """The legend of the drawing of ``state`` for ``seat`` (an SVG document: each element on
    the board, drawn by its own symbol, with its meaning in words), ``None`` for a game that
    declares none. Raises :class:`RulesetError` for a rule set that is not a registered game."""
    return get_game(ruleset.id).draw_legend(state, seat)
