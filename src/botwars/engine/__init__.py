"""The botwars kernel: nothing in this package knows any game.

Public names:

- :class:`Ruleset`, :func:`register`, :func:`get_ruleset`, :func:`ruleset_ids` — the contract and registry.
- :class:`Game`, :func:`get_game`, :func:`game_ids` — games as declared plug-ins (docs/plugins.md).
- :class:`Match` — seats, agents, time control, record, outcome.
- :class:`Event`, :class:`Outcome`, :class:`TimeControl` — plain records.
- :class:`InvalidOrders`, :class:`ConfigError`, :class:`RulesetError` — errors.
"""

from botwars.engine.errors import BotwarsError, ConfigError, InvalidOrders, RulesetError, RecordError
from botwars.engine.events import Event, Outcome
from botwars.engine.plugin import Capabilities, Game, Turns, game_ids, get_game
from botwars.engine.ruleset import Param, Ruleset, get_ruleset, register, ruleset_ids, parse_set_options
from botwars.engine.timecontrol import TimeControl, Clock
from botwars.engine.match import Match, MatchResult

__all__ = [
    "BotwarsError", "ConfigError", "InvalidOrders", "RulesetError", "RecordError",
    "Event", "Outcome", "Param", "Ruleset", "get_ruleset", "register", "ruleset_ids",
    "parse_set_options", "TimeControl", "Clock", "Match", "MatchResult",
    "Capabilities", "Game", "Turns", "game_ids", "get_game",
]
