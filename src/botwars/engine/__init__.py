"""The botwars kernel: nothing in this package knows any game.

Public names:

- :class:`Ruleset`, :func:`register`, :func:`get_ruleset`, :func:`ruleset_ids` — the contract and registry.
- :class:`Game`, :func:`get_game`, :func:`game_ids` — games as declared plug-ins (docs/plugins.md).
- :class:`Match` — seats, agents, time control, record, outcome.
- :class:`Event`, :class:`Outcome`, :class:`TimeControl` — plain records.
- :class:`InvalidOrders`, :class:`ConfigError`, :class:`RulesetError` — errors.

Imports are lazy (PEP 562): ``import botwars.engine`` loads nothing else until a name is used,
so a sandboxed bot host that needs one small module (e.g. :mod:`botwars.engine.codes`) does not
pay for the whole kernel at every start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botwars.engine.lazy import lazy_names

if TYPE_CHECKING:
    from botwars.engine.errors import BotwarsError, ConfigError, InvalidOrders, RulesetError, RecordError
    from botwars.engine.events import Event, Outcome
    from botwars.engine.plugin import Capabilities, Game, Turns, game_ids, get_game
    from botwars.engine.ruleset import Param, Ruleset, get_ruleset, register, ruleset_ids, parse_set_options
    from botwars.engine.timecontrol import TimeControl, Clock
    from botwars.engine.match import Match, MatchResult

#: public name → the module that defines it
_WHERE = {
    **dict.fromkeys(("BotwarsError", "ConfigError", "InvalidOrders", "RulesetError", "RecordError"), "errors"),
    **dict.fromkeys(("Event", "Outcome"), "events"),
    **dict.fromkeys(("Capabilities", "Game", "Turns", "game_ids", "get_game"), "plugin"),
    **dict.fromkeys(("Param", "Ruleset", "get_ruleset", "register", "ruleset_ids", "parse_set_options"), "ruleset"),
    **dict.fromkeys(("TimeControl", "Clock"), "timecontrol"),
    **dict.fromkeys(("Match", "MatchResult"), "match"),
}

__all__ = [
    "BotwarsError", "ConfigError", "InvalidOrders", "RulesetError", "RecordError",
    "Event", "Outcome", "Param", "Ruleset", "get_ruleset", "register", "ruleset_ids",
    "parse_set_options", "TimeControl", "Clock", "Match", "MatchResult",
    "Capabilities", "Game", "Turns", "game_ids", "get_game",
]


__getattr__ = lazy_names("botwars.engine", _WHERE, globals())
