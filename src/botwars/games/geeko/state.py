"""Geek-o state (G-1.3): one private room copy per player.

:class:`RoomState` is a :class:`FactoryState` holding one player and their robots A and B in the
room they are in, so the factory resolution (stages, mechanisms, lasers) runs on it unchanged;
:class:`GeekoState` holds one :class:`RoomState` per seat plus the shared turn, seed and result.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from botwars.games.factory.board import Square, sq_str
from botwars.games.factory.cards import card_str
from botwars.games.factory.state import Bot, FactoryState

LETTERS = "AB"


class GeekoBot(Bot):
    """A robot A or B (``slot`` 0 or 1) with nine registers.

    ``place``: ``board`` (on the board: ``alive``), ``parked`` (locked on a gate, ``sq`` = the
    gate), ``exited``, ``transit`` (``transit`` = the room being passed, G-5.5), ``destroyed``
    (until E2), ``done`` (after room 5).  ``stations``: room → station square (G-7.3);
    ``sets``: unlocked card sets; ``run_len``: E(X) of this turn (G-4.7).
    """

    __slots__ = ("place", "transit", "stations", "sets", "run_len")

    def __init__(self, owner: int, slot: int, sq: Square | None, facing: int, hp: int = 10):
        super().__init__(owner, slot, sq, facing, hp, "real", 0, nregs=9)
        self.place = "board" if sq is not None else "transit"
        self.transit: int | None = None
        self.stations: dict[int, Square] = {}
        self.sets: list[str] = []
        self.run_len = 0

    def copy(self) -> "GeekoBot":
        b = super().copy()
        b.place, b.transit, b.stations, b.sets, b.run_len = (self.place, self.transit, dict(self.stations),
                                                             list(self.sets), self.run_len)
        return b

    @property
    def letter(self) -> str:
        return LETTERS[self.slot]

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["square"] = sq_str(self.sq) if self.sq else None
        out.update({"place": self.place, "transit": self.transit,
                    "stations": {str(k): sq_str(v) for k, v in sorted(self.stations.items())},
                    "sets": list(self.sets), "run_len": self.run_len})
        return out


@dataclass
class RoomState(FactoryState):
    """One player's private copy (G-1.3): ``board`` is room ``room``; ``gates`` square → open;
    ``hand`` the joint hand (G-4.4) in drawn order; ``deck_left`` the remaining deck of the
    turn (G-5.2); ``length`` L of the turn's program; ``finished`` the score turn (G-9.1);
    ``lost`` robots destroyed; ``out`` resigned (G-9.4)."""

    room: int = 1
    gates: dict[Square, bool] = field(default_factory=dict)
    hand: list[int] = field(default_factory=list)
    deck_left: list[int] = field(default_factory=list)
    length: int = 0
    finished: int | None = None
    lost: int = 0

    def copy(self) -> "RoomState":
        base = FactoryState.copy(self)
        vals = {f.name: getattr(base, f.name) for f in fields(FactoryState)}
        return RoomState(**vals, room=self.room, gates=dict(self.gates), hand=list(self.hand),
                         deck_left=list(self.deck_left), length=self.length, finished=self.finished, lost=self.lost)

    @property
    def out(self) -> bool:
        return self.players[0].out

    @property
    def active(self) -> bool:
        """Neither finished nor out: the player still races."""
        return self.finished is None and not self.out

    def rooms_done(self) -> int:
        return 5 if self.finished is not None else self.room - 1

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out.update({"room": self.room, "gates": {sq_str(k): v for k, v in sorted(self.gates.items())},
                    "hand": [card_str(c) for c in self.hand], "deck_left": list(self.deck_left),
                    "length": self.length, "finished": self.finished, "lost": self.lost})
        return out


@dataclass
class GeekoState:
    """The whole game: ``runs[p]`` is seat ``p``'s private :class:`RoomState`; ``turn`` the last
    turn resolved (0 after setup)."""

    seats: tuple[str, ...]
    config: dict[str, Any]
    seed: str
    turn: int
    runs: list[RoomState]
    result: dict[str, Any] | None = None
    winners: list[int] = field(default_factory=list)
    public: list[str] = field(default_factory=list)

    def copy(self) -> "GeekoState":
        return GeekoState(self.seats, self.config, self.seed, self.turn, [r.copy() for r in self.runs],
                          None if self.result is None else dict(self.result), list(self.winners), list(self.public))

    @property
    def over(self) -> bool:
        return self.result is not None

    def player_of(self, seat: str) -> int:
        return self.seats.index(seat)

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "seed": self.seed, "seats": list(self.seats),
                "config": {k: self.config[k] for k in sorted(self.config)},
                "runs": [r.to_json() for r in self.runs], "result": self.result, "winners": list(self.winners),
                "public": list(self.public)}


__all__ = ["GeekoBot", "RoomState", "GeekoState", "LETTERS"]
