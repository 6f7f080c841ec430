"""SVG drawing of game states, apart from the rules (like python-chess's ``chess.svg``).

:func:`render_svg` dispatches to the rule set's ``svg(state, seat, events)`` hook; the
helpers in :mod:`botwars.render.svg` draw grids, labels and pieces for every game.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.events import Event, filter_events
from botwars.engine.ruleset import Ruleset


def render_svg(ruleset: Ruleset, state: Any, seat: str | None = None, events: list[Event] | None = None) -> str:
    """The state as an SVG document string, as ``seat`` may see it (``None`` = spectator).

    ``events`` (of the last decision point) are highlighted where the game draws them; only
    the events the seat may see are passed on. Raises ``NotImplementedError`` for a game
    without a drawing.
    """
    hook = getattr(ruleset, "svg", None)
    if hook is None:
        raise NotImplementedError(f"no SVG drawing for {ruleset.id}")
    return hook(state, seat, filter_events(events or [], seat))
