"""Coins: the rules of the test-only sixth game (see ../README.md).

Two robots on a square grid, p1 in the bottom-left corner (0, 0), p2 in the top-right one.
``coins`` coins lie on other squares, placed from the match seed. Every turn both seats
choose at once (M1) one move: ``N`` (y + 1), ``E`` (x + 1), ``S``, ``W`` or ``stay``; a move
off the board is refused (M2). Robots that would end on the same square, or swap squares, both
stay (M3). A robot ending on a coin takes it: one point (M4). A seat sees the coins within
Manhattan distance ``sight`` of its own robot; robots and scores are public (M5). The game ends
when no coin is left or after ``max_turns`` turns; more points wins, equal points draw (M6).
Default order: ``stay`` (M7).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Param, Ruleset

Square = tuple[int, int]
STEPS: dict[str, Square] = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0), "stay": (0, 0)}


@dataclass(frozen=True)
class CoinsState:
    """Everything about a match: ``pos`` per seat, the coins left, points, turns played."""

    seats: tuple[str, ...]
    config: dict[str, Any]
    pos: dict[str, Square]
    coins: frozenset[Square]
    score: dict[str, int]
    turn: int = 0


class CoinsRuleset(Ruleset):
    """Rules M1-M7 (module docstring)."""

    id = "minigame"
    name = "Coins: grab more coins than the other robot"
    rules_version = 1
    min_seats = 2
    max_seats = 2
    params = (
        Param("size", int, 5, "Squares per side", minimum=3, maximum=9),
        Param("coins", int, 5, "Coins placed at the start", minimum=1, maximum=20),
        Param("max_turns", int, 30, "Last turn (M6)", minimum=1, maximum=200),
        Param("sight", int, 2, "Manhattan distance within which a robot sees coins (M5)", minimum=0, maximum=20),
    )

    def check_config(self, config: dict[str, Any]) -> None:
        if config["coins"] > config["size"] ** 2 - 2:
            raise ConfigError(f"parameter coins: at most {config['size'] ** 2 - 2} on a {config['size']}-square board")

    def setup(self, config: dict[str, Any], seats: list[str], seed: int) -> CoinsState:
        n = config["size"]
        pos = {seats[0]: (0, 0), seats[1]: (n - 1, n - 1)}
        free = [(x, y) for y in range(n) for x in range(n) if (x, y) not in pos.values()]
        coins = frozenset(random.Random(seed).sample(free, config["coins"]))
        return CoinsState(tuple(seats), dict(config), pos, coins, {s: 0 for s in seats})

    def over(self, st: CoinsState) -> bool:
        """M6: no coin left, or the last turn played."""
        return not st.coins or st.turn >= st.config["max_turns"]

    def pending(self, st: CoinsState) -> list[str]:
        return [] if self.over(st) else list(st.seats)

    def _target(self, st: CoinsState, seat: str, move: str) -> Square:
        dx, dy = STEPS[move]
        x, y = st.pos[seat]
        return x + dx, y + dy

    def _on_board(self, st: CoinsState, sq: Square) -> bool:
        return 0 <= sq[0] < st.config["size"] and 0 <= sq[1] < st.config["size"]

    def parse_orders(self, st: CoinsState, seat: str, payload: Any) -> str:
        """``{"move": "N"|"E"|"S"|"W"|"stay"}`` → the move; raises :class:`InvalidOrders` (M2)."""
        if seat not in self.pending(st):
            raise InvalidOrders("it is not your turn", code="illegal")
        if not isinstance(payload, dict) or set(payload) != {"move"}:
            raise InvalidOrders('an order is {"move": "N"|"E"|"S"|"W"|"stay"}', code="malformed")
        move = payload["move"]
        if not isinstance(move, str) or move not in STEPS:
            raise InvalidOrders(f"unknown move {move!r} (N, E, S, W or stay)", code="malformed", part="move")
        if not self._on_board(st, self._target(st, seat, move)):
            raise InvalidOrders(f"move {move} leaves the board (M2)", code="illegal", part="move")
        return move

    def legal_orders(self, st: CoinsState, seat: str) -> list[dict[str, str]]:
        if seat not in self.pending(st):
            return []
        return [{"move": m} for m in STEPS if self._on_board(st, self._target(st, seat, m))]

    def default_orders(self, st: CoinsState, seat: str) -> str:
        return "stay"  # M7

    def orders_json(self, orders: str) -> dict[str, str]:
        return {"move": orders}

    def resolve(self, st: CoinsState, orders: dict[str, str]) -> tuple[CoinsState, list[Event]]:
        a, b = st.seats
        to = {s: self._target(st, s, orders.get(s, "stay")) for s in st.seats}
        events: list[Event] = []
        if to[a] == to[b] or (to[a] == st.pos[b] and to[b] == st.pos[a]):  # M3
            events.append(Event("bump", {"at": [list(to[a]), list(to[b])]}))
            to = dict(st.pos)
        coins, score = set(st.coins), dict(st.score)
        for s in st.seats:
            if to[s] != st.pos[s]:
                events.append(Event("move", {"seat": s, "from": list(st.pos[s]), "to": list(to[s])}))
            if to[s] in coins:  # M4: where it was is the taker's secret; the point is public
                coins.discard(to[s])
                score[s] += 1
                events.append(Event("coin", {"seat": s, "at": list(to[s])}, frozenset({s})))
                events.append(Event("point", {"seat": s, "score": score[s]}))
        return replace(st, pos=to, coins=frozenset(coins), score=score, turn=st.turn + 1), events

    def visible_coins(self, st: CoinsState, seat: str | None) -> list[list[int]]:
        """M5: the coins ``seat`` sees (a spectator: none until the end; everyone: all at the end)."""
        if self.over(st):
            return sorted([list(c) for c in st.coins])
        if seat is None:
            return []
        x, y = st.pos[seat]
        r = st.config["sight"]
        return sorted([list(c) for c in st.coins if abs(c[0] - x) + abs(c[1] - y) <= r])

    def view(self, st: CoinsState, seat: str | None) -> dict[str, Any]:
        return {"turn": st.turn, "max_turns": st.config["max_turns"], "size": st.config["size"],
                "sight": st.config["sight"], "you": seat, "robots": {s: list(p) for s, p in st.pos.items()},
                "scores": dict(st.score), "coins_left": len(st.coins), "coins": self.visible_coins(st, seat)}

    def outcome(self, st: CoinsState) -> Outcome | None:
        if not self.over(st):
            return None
        a, b = st.seats
        reason = "coins" if not st.coins else "turn_limit"
        if st.score[a] == st.score[b]:
            return Outcome(None, {s: float(st.score[s]) for s in st.seats}, reason, [[a, b]])
        w, l_ = (a, b) if st.score[a] > st.score[b] else (b, a)
        return Outcome(w, {s: float(st.score[s]) for s in st.seats}, reason, [[w], [l_]])

    def state_json(self, st: CoinsState) -> dict[str, Any]:
        return {"seats": list(st.seats), "config": st.config, "turn": st.turn,
                "pos": {s: list(p) for s, p in st.pos.items()}, "coins": sorted([list(c) for c in st.coins]),
                "score": st.score}

    def builtin_bots(self) -> dict[str, Any]:
        from botwars_minigame.bots import BUILTIN
        return BUILTIN
