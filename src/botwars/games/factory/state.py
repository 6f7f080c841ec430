"""Factory state objects (F-2.4, F-2.5): robots, players and the game state.

States are plain mutable objects; :meth:`FactoryRuleset.resolve` works on a :meth:`FactoryState.copy`
and never mutates the state it was given.  Robots live in one flat list ``state.bots`` in board
order (F-2.8: seat order, then the player's robot slot), so a rule set with several robots per
player (``geeko``) uses the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botwars.games.factory.board import DIRS, Board, Square, sq_str
from botwars.games.factory.cards import card_str
from botwars.render.palette import SEAT_WORDS

COLOURS = SEAT_WORDS  # F-2.9, declared once for every game and page in render/palette.py


class Bot:
    """One robot (F-2.4).  ``sq`` is ``None`` while destroyed (``alive`` False).

    ``regs``: five registers (priority or ``None``); register ``i`` (1-based) is fused while
    ``hp <= i`` (F-7.4).  ``options``: dicts ``{"code", "charges", "armoury"}`` in acquisition
    order.  ``declared``: reboot declared for the next turn (F-7.7).
    """

    __slots__ = ("owner", "slot", "sq", "facing", "hp", "mode", "rebooting", "regs", "options", "reinst",
                 "alive", "declared", "died")

    def __init__(self, owner: int, slot: int, sq: Square | None, facing: int, hp: int, mode: str = "virtual",
                 reinst: int = 0, nregs: int = 5):
        self.owner = owner
        self.slot = slot
        self.sq = sq
        self.facing = facing
        self.hp = hp
        self.mode = mode
        self.rebooting = False
        self.regs: list[int | None] = [None] * nregs
        self.options: list[dict[str, Any]] = []
        self.reinst = reinst
        self.alive = sq is not None
        self.declared = False
        self.died = False  # destroyed during the turn being resolved

    def copy(self) -> "Bot":
        b = type(self).__new__(type(self))  # a subclass (geeko) copies its own slots after this
        b.owner, b.slot, b.sq, b.facing, b.hp, b.mode = self.owner, self.slot, self.sq, self.facing, self.hp, self.mode
        b.rebooting, b.regs, b.reinst, b.alive = self.rebooting, list(self.regs), self.reinst, self.alive
        b.options = [dict(o) for o in self.options]
        b.declared, b.died = self.declared, self.died
        return b

    def has(self, code: str) -> bool:
        """True if the robot holds option ``code`` (F-6.33)."""
        for o in self.options:
            if o["code"] == code:
                return True
        return False

    def fused(self, i: int) -> bool:
        """F-7.4: register ``i`` (1-5; 1-9 in geeko) is fused while HP <= i."""
        return self.hp <= i

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "slot": self.slot, "square": sq_str(self.sq) if self.sq else None,
                "facing": DIRS[self.facing], "hp": self.hp, "mode": self.mode, "rebooting": self.rebooting,
                "registers": list(self.regs), "options": [dict(o) for o in self.options], "reinst": self.reinst,
                "alive": self.alive, "declared": self.declared, "died": self.died}


class Player:
    """Player state (F-2.5).  ``next_flag`` is 1 + flags tagged; ``standing`` holds F-5.7's orders."""

    __slots__ = ("seat", "name", "colour", "out", "robots_left", "next_flag", "checkpoint", "stations", "sets",
                 "standing")

    def __init__(self, seat: str, name: str, colour: str, checkpoint: Square, standing: dict[str, Any]):
        self.seat = seat
        self.name = name
        self.colour = colour
        self.out = False
        self.robots_left = 3
        self.next_flag = 1
        self.checkpoint = checkpoint
        self.stations: list[Square] = []
        self.sets: list[str] = []
        self.standing = standing

    def copy(self) -> "Player":
        p = Player.__new__(Player)
        p.seat, p.name, p.colour, p.out, p.robots_left = self.seat, self.name, self.colour, self.out, self.robots_left
        p.next_flag, p.checkpoint, p.stations, p.sets = self.next_flag, self.checkpoint, list(self.stations), list(self.sets)
        p.standing = dict(self.standing)
        return p

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "colour": self.colour, "out": self.out,
                "robots_left": self.robots_left, "next_flag": self.next_flag,
                "checkpoint": sq_str(self.checkpoint), "stations": [sq_str(s) for s in self.stations],
                "sets": list(self.sets), "standing": dict(self.standing)}


@dataclass
class FactoryState:
    """A game between decision points: after the deal of turn ``turn + 1`` (phase ``program``)
    or after the end (phase ``over``).

    ``turn`` is the last turn resolved (0 after setup).  ``hands[i]`` is the hand of robot
    ``bots[i]`` (private, F-14.2).  Devices (F-4.3): ``switches`` and ``trapdoors`` by square,
    ``bridges`` by square (True = lowered), ``teleporters`` by colour (True = active),
    ``eyes``/``blasers`` by ``(row, col, side)``.  ``reports``: the public report lines of the
    last resolved turn; ``hand_msgs``: each seat's private hand message (F-9.12).
    """

    seats: tuple[str, ...]
    config: dict[str, Any]
    board: Board
    seed: str
    turn: int
    bots: list[Bot]
    players: list[Player]
    switches: dict[Square, bool]
    trapdoors: dict[Square, bool]
    bridges: dict[Square, bool]
    teleporters: dict[str, bool]
    eyes: dict[tuple[int, int, int], bool]
    blasers: dict[tuple[int, int, int], bool]
    option_deck: list[str]
    hands: dict[int, list[int]] = field(default_factory=dict)
    reports: list[str] = field(default_factory=list)
    hand_msgs: dict[str, list[str]] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    winners: list[int] = field(default_factory=list)
    started: int = 0

    def copy(self) -> "FactoryState":
        return FactoryState(self.seats, self.config, self.board, self.seed, self.turn, [b.copy() for b in self.bots],
                            [p.copy() for p in self.players], dict(self.switches), dict(self.trapdoors),
                            dict(self.bridges), dict(self.teleporters), dict(self.eyes), dict(self.blasers),
                            list(self.option_deck), {k: list(v) for k, v in self.hands.items()},
                            list(self.reports), {k: list(v) for k, v in self.hand_msgs.items()},
                            None if self.result is None else dict(self.result), list(self.winners), self.started)

    @property
    def over(self) -> bool:
        return self.result is not None

    def player_of(self, seat: str) -> int:
        """Seat name → player index (0-based)."""
        return self.seats.index(seat)

    def bots_of(self, p: int) -> list[int]:
        """Indexes into ``bots`` of player ``p``'s robots (alive or not)."""
        return [i for i, b in enumerate(self.bots) if b.owner == p]

    def to_json(self) -> dict[str, Any]:
        def key3(k):
            return f"{sq_str((k[0], k[1]))}{DIRS[k[2]]}"
        return {"turn": self.turn, "seed": self.seed, "board": self.board.board_id,
                "bots": [b.to_json() for b in self.bots], "players": [p.to_json() for p in self.players],
                "devices": {"switches": {sq_str(k): v for k, v in sorted(self.switches.items())},
                            "trapdoors": {sq_str(k): v for k, v in sorted(self.trapdoors.items())},
                            "bridges": {sq_str(k): v for k, v in sorted(self.bridges.items())},
                            "teleporters": dict(sorted(self.teleporters.items())),
                            "eyes": {key3(k): v for k, v in sorted(self.eyes.items())},
                            "blasers": {key3(k): v for k, v in sorted(self.blasers.items())}},
                "option_deck": list(self.option_deck),
                "hands": {str(k): [card_str(c) for c in v] for k, v in sorted(self.hands.items())},
                "reports": list(self.reports), "hand_msgs": {k: list(v) for k, v in sorted(self.hand_msgs.items())},
                "result": self.result, "winners": list(self.winners), "started": self.started}
