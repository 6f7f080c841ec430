"""Submarine state, orders and the special catalog (shared/rules/submarine.md §2, §3, §6, §12).

The state is a plain mutable dataclass, but the rule set treats it as a value:
:meth:`SubmarineRuleset.resolve` works on a :meth:`SubState.clone` and never changes the state it
was given.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from botwars.games.submarine.board import Space

#: S-6.2 default catalog: id → (kind, AP cost or None, parameter key or None).
CATALOG: dict[str, tuple[str, int | None, str | None]] = {
    "torpedo": ("active", 2, "dir"),
    "depth_charge": ("active", 3, "space"),
    "sonar": ("active", 2, None),
    "mine": ("active", 1, "space"),
    "heal": ("active", 2, "space"),
    "nullify": ("active", 2, "special"),
    "armor": ("passive", None, None),
    "ram": ("passive", None, None),
    "overclock": ("passive", None, None),
}
SPECIALS: tuple[str, ...] = tuple(CATALOG)
ACTIVE: tuple[str, ...] = tuple(k for k, v in CATALOG.items() if v[0] == "active")
PASSIVE: tuple[str, ...] = tuple(k for k, v in CATALOG.items() if v[0] == "passive")

#: S-4.4 default actions: name → (AP cost, parameter key or None).
DEFAULT_ACTIONS: dict[str, tuple[int, str | None]] = {
    "move": (1, "dir"), "surface": (0, None), "submerge": (1, None), "replace": (2, "special"),
}
#: Every action name an order may use (S-4.3), with its AP cost and parameter key.
ACTIONS: dict[str, tuple[int, str | None]] = {
    **DEFAULT_ACTIONS, **{k: (CATALOG[k][1], CATALOG[k][2]) for k in ACTIVE}}  # type: ignore[misc]


@dataclass
class Sub:
    """One living submarine (S-2.6). ``space`` is ``(col, row)``."""

    letter: str
    owner: str
    space: Space
    hp: int
    surfaced: bool
    special: str
    plate: bool = False
    ramming: bool = False
    used_special: bool = False
    cancelled: bool = False

    def clone(self) -> "Sub":
        return Sub(self.letter, self.owner, self.space, self.hp, self.surfaced, self.special, self.plate,
                   self.ramming, self.used_special, self.cancelled)


@dataclass(frozen=True)
class Action:
    """One entry of a turn order: ``sub`` letter, ``action`` name, ``param`` (a direction letter,
    a ``(col, row)`` space, a special id or ``None``)."""

    sub: str
    action: str
    param: Any = None


@dataclass(frozen=True)
class TurnOrders:
    """An accepted S-12.2 order: the ordered actions (possibly empty), or a resignation."""

    actions: tuple[Action, ...] = ()
    resign: bool = False


@dataclass(frozen=True)
class SetupOrders:
    """An accepted S-12.1 setup: ``placement`` letter → space, ``specials`` letter → id."""

    placement: dict[str, Space]
    specials: dict[str, str]


@dataclass(frozen=True)
class Rejected:
    """Marker for a refused submission (S-4.3 / S-3.3): counts towards ``max_rejections``
    (S-7.10); the same seat is to move again. ``reason`` is the refusal text."""

    reason: str = ""


@dataclass(frozen=True)
class Forfeit:
    """Default setup 'order': no accepted setup by the deadline (S-3.3, ``setup_forfeit``)."""


#: A logical event: ``(full form, acting seat or None, acting seat's form or None,
#: other seat's and spectators' form or None)`` (S-12.4).
Ev = tuple[dict[str, Any], "str | None", "dict[str, Any] | None", "dict[str, Any] | None"]


@dataclass
class SubState:
    """A submarine game between decision points.

    ``phase``: ``setup``, ``play`` or ``over``. ``setups``: accepted secret setups by seat.
    ``rejections``: refused submissions by seat in the current turn (or during setup).
    ``turn``/``active``/``ap``: the turn being played (0/None during setup). ``subs``: living subs
    by letter; ``destroyed``: destroyed letters by seat; ``mines``: space → owner seat.
    ``suppressed``: seat → list of ``[special, until_turn]`` Nullify windows against it (S-6.8).
    ``result``: ``{"winner", "reason", "scores"}`` once over. ``last``/``prev``: the logical events
    of the last and the previous resolution (views are built from them, S-8.7); ``history``: every
    event of the game in full form (S-12.5).
    """

    seats: tuple[str, str]
    config: dict[str, Any]
    phase: str
    home_rows: dict[str, int]
    first_player: str
    setups: dict[str, SetupOrders] = field(default_factory=dict)
    forfeited: tuple[str, ...] = ()
    rejections: dict[str, int] = field(default_factory=lambda: {"p1": 0, "p2": 0})
    turn: int = 0
    active: str | None = None
    ap: int = 0
    subs: dict[str, Sub] = field(default_factory=dict)
    destroyed: dict[str, list[str]] = field(default_factory=lambda: {"p1": [], "p2": []})
    mines: dict[Space, str] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=lambda: {"p1": 0, "p2": 0})
    announced: dict[str, bool] = field(default_factory=lambda: {"p1": False, "p2": False})
    rings: int = 0
    suppressed: dict[str, list[list[Any]]] = field(default_factory=lambda: {"p1": [], "p2": []})
    result: dict[str, Any] | None = None
    last: tuple[Ev, ...] = ()
    prev: tuple[Ev, ...] = ()
    history: tuple[dict[str, Any], ...] = ()

    @property
    def round(self) -> int:
        """S-4.1: round r holds turns 2r−1 and 2r."""
        return (self.turn + 1) // 2

    def clone(self) -> "SubState":
        """A copy whose mutable parts can be changed without touching this state."""
        return replace(
            self, setups=dict(self.setups), rejections=dict(self.rejections),
            subs={k: s.clone() for k, s in self.subs.items()},
            destroyed={k: list(v) for k, v in self.destroyed.items()}, mines=dict(self.mines),
            scores=dict(self.scores), announced=dict(self.announced),
            suppressed={k: [list(w) for w in v] for k, v in self.suppressed.items()})

    def living(self, seat: str) -> list[Sub]:
        """The seat's living subs in letter order."""
        return [s for k, s in sorted(self.subs.items()) if s.owner == seat]

    def is_suppressed(self, seat: str, special: str) -> bool:
        """S-6.8: ``special`` is suppressed for ``seat`` by an open Nullify window."""
        return any(w[0] == special for w in self.suppressed[seat])

    def sub_at(self, sp: Space) -> Sub | None:
        for s in self.subs.values():
            if s.space == sp:
                return s
        return None
