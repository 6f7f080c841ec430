"""Flag race: the rules of the test-only sixth game (``rules.md`` beside this module is the
same text as a page).

- F1. The track has ``length`` squares, numbered 0 to ``length - 1``; the last one holds the
  flag. One counter stands on square 0 at the start.
- F2. Two seats, p1 and p2, take turns, p1 first. The seat to move gives one order,
  ``{"step": K}``, and the counter moves K squares forward; K is a whole number from 1 to
  ``max_step``.
- F3. A step that would carry the counter past the flag is refused.
- F4. The seat that moves the counter onto the flag wins; the game then ends.
- F5. A seat that gives no usable order (time out) steps 1.
- F6. Everything is public: both seats and spectators see the track, the counter and whose
  turn it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from botwars.engine.errors import InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Param, Ruleset


@dataclass(frozen=True)
class RaceState:
    """A position: the counter's square (F1), the seat to move, turns played, the winner."""

    seats: tuple[str, ...]
    config: dict[str, Any]
    square: int = 0
    to_move: int = 0
    turn: int = 0
    winner: str | None = None

    @property
    def flag(self) -> int:
        """The flag's square (F1)."""
        return int(self.config["length"]) - 1


class FlagRaceRuleset(Ruleset):
    """Rules F1-F6 (module docstring)."""

    id = "flagrace"
    name = "Flag race: be the one to reach the flag"
    rules_version = 1
    min_seats = 2
    max_seats = 2
    params = (
        Param("length", int, 9, "Squares on the track, the flag on the last one (F1)", minimum=3, maximum=30),
        Param("max_step", int, 3, "Longest step a seat may order (F2)", minimum=1, maximum=5),
    )

    def setup(self, config: dict[str, Any], seats: list[str], seed: int) -> RaceState:
        return RaceState(tuple(seats), dict(config))

    def pending(self, st: RaceState) -> list[str]:
        """F2: the seat to move, none once the flag is reached (F4)."""
        return [] if st.winner is not None else [st.seats[st.to_move]]

    def parse_orders(self, st: RaceState, seat: str, payload: Any) -> int:
        """``{"step": K}`` → K; raises :class:`InvalidOrders` naming what is wrong (F2, F3)."""
        if seat not in self.pending(st):
            raise InvalidOrders("it is not your turn (F2)", code="illegal")
        if not isinstance(payload, dict) or set(payload) != {"step"}:
            raise InvalidOrders('an order is {"step": K} with K from 1 to '
                                f'{st.config["max_step"]} (F2)', code="malformed")
        k = payload["step"]
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= st.config["max_step"]:
            raise InvalidOrders(f"step must be a whole number from 1 to {st.config['max_step']}, not {k!r} (F2)",
                                code="malformed", part="step")
        if st.square + k > st.flag:
            raise InvalidOrders(f"a step of {k} from square {st.square} passes the flag on square {st.flag} (F3)",
                                code="illegal", part="step")
        return int(k)

    def legal_orders(self, st: RaceState, seat: str) -> list[dict[str, int]]:
        if seat not in self.pending(st):
            return []
        return [{"step": k} for k in range(1, min(st.config["max_step"], st.flag - st.square) + 1)]

    def default_orders(self, st: RaceState, seat: str) -> int:
        return 1  # F5

    def orders_json(self, orders: int) -> dict[str, int]:
        return {"step": orders}

    def resolve(self, st: RaceState, orders: dict[str, int]) -> tuple[RaceState, list[Event]]:
        seat = st.seats[st.to_move]
        k = orders.get(seat, 1)
        to = st.square + k
        events = [Event("step", {"seat": seat, "from": st.square, "to": to})]
        winner = seat if to == st.flag else None  # F4
        if winner:
            events.append(Event("flag", {"seat": seat, "at": to}))
        return replace(st, square=to, to_move=1 - st.to_move, turn=st.turn + 1, winner=winner), events

    def view(self, st: RaceState, seat: str | None) -> dict[str, Any]:
        """F6: the same facts for everyone, plus ``you``."""
        return {"turn": st.turn, "length": st.flag + 1, "max_step": st.config["max_step"], "square": st.square,
                "flag": st.flag, "to_move": None if st.winner else st.seats[st.to_move], "winner": st.winner,
                "you": seat}

    def outcome(self, st: RaceState) -> Outcome | None:
        if st.winner is None:
            return None
        loser = next(s for s in st.seats if s != st.winner)
        return Outcome(st.winner, {st.winner: 1.0, loser: 0.0}, "flag", [[st.winner], [loser]])

    def state_json(self, st: RaceState) -> dict[str, Any]:
        return {"seats": list(st.seats), "config": st.config, "square": st.square, "to_move": st.to_move,
                "turn": st.turn, "winner": st.winner}

    def render_text(self, st: RaceState, seat: str | None = None) -> str:
        return "".join("o" if i == st.square else "F" if i == st.flag else "." for i in range(st.flag + 1))

    def turn_number(self, st: RaceState) -> int:
        return st.turn
