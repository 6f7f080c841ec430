"""A tiny alternating game with hidden information, registered only inside server tests.

Seats take turns adding 1..3 to their own secret total; the first to reach ``target`` wins.
Each ``add`` event is visible only to the seat that made it; a public ``turn`` event says whose
turn it was. The clock (``move_s``, ``bank_s``, ``on_expiry``) comes from the config, so the
server's loss-on-time path can be tested without depending on another game's rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botwars.engine.errors import InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Param, Ruleset
from botwars.engine.timecontrol import TimeControl


@dataclass(frozen=True)
class ToyState:
    seats: tuple[str, ...]
    config: dict
    turn: int
    totals: tuple[int, ...]
    to_move: int


class ToyRuleset(Ruleset):
    id = "servertoy"
    name = "server test toy"
    params = (Param("target", int, 6, minimum=1), Param("move_s", float, 10.0, minimum=0.001),
              Param("bank_s", float, 5.0, minimum=0), Param("on_expiry", str, "loss", choices=("loss", "default")))

    def time_control(self, config):
        return TimeControl(config["move_s"], config["bank_s"], None, config["on_expiry"])

    def setup(self, config, seats, seed):
        return ToyState(tuple(seats), config, 0, (0,) * len(seats), 0)

    def pending(self, state):
        return [] if self.outcome(state) else [state.seats[state.to_move]]

    def parse_orders(self, state, seat, payload):
        if not isinstance(payload, dict) or set(payload) != {"add"}:
            raise InvalidOrders('orders must be {"add": 1..3}', code="malformed")
        v = payload["add"]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 3:
            raise InvalidOrders(f"add must be 1, 2 or 3, got {v!r}", code="illegal", part=v)
        return v

    def default_orders(self, state, seat):
        return 1

    def resolve(self, state, orders):
        seat = state.seats[state.to_move]
        totals = list(state.totals)
        totals[state.to_move] += orders[seat]
        events = [Event("turn", {"seat": seat}),
                  Event("add", {"seat": seat, "add": orders[seat], "total": totals[state.to_move]},
                        frozenset({seat}))]
        return ToyState(state.seats, state.config, state.turn + 1, tuple(totals),
                        (state.to_move + 1) % len(state.seats)), events

    def view(self, state, seat):
        v: dict[str, Any] = {"turn": state.turn, "to_move": state.seats[state.to_move]}
        if seat is not None:
            v["total"] = state.totals[state.seats.index(seat)]
        return v

    def outcome(self, state):
        for s, t in zip(state.seats, state.totals):
            if t >= state.config["target"]:
                return Outcome(s, {x: float(x == s) for x in state.seats}, "target", [[s]])
        return None

    def state_json(self, state):
        return {"turn": state.turn, "totals": list(state.totals), "to_move": state.to_move}

    def builtin_bots(self):
        return {"one": OneBot}


class OneBot:
    """Always adds 1 and counts how often it was asked (its memory must survive restarts);
    ``OneBot.calls`` counts the calls of every instance in this process."""

    calls = 0

    def start(self, game, seat, config, seed):
        self.asked = 0

    def act(self, view):
        OneBot.calls += 1
        self.asked += 1
        return {"add": 1}


@dataclass(frozen=True)
class CountingState(ToyState):
    refused: int = 0


class CountingToy(ToyRuleset):
    """The toy where refused orders count (like submarine S-7.10): the seat may submit again at
    the same decision point, and its second refusal there loses the game for it."""

    id = "servertoy-counting"

    def setup(self, config, seats, seed):
        return CountingState(tuple(seats), config, 0, (0,) * len(seats), 0, 0)

    def refusal_limit(self, state, seat):
        return 2

    def rejected_orders(self, state, seat, error):
        return "refused"

    def resolve(self, state, orders):
        seat = state.seats[state.to_move]
        if orders[seat] == "refused":
            return CountingState(state.seats, state.config, state.turn, state.totals, state.to_move, 1), []
        new, events = super().resolve(state, orders)
        return CountingState(new.seats, new.config, new.turn, new.totals, new.to_move, 0), events

    def outcome(self, state):
        if state.refused:
            loser = state.seats[state.to_move]
            winner = [s for s in state.seats if s != loser][0]
            return Outcome(winner, {s: float(s == winner) for s in state.seats}, "rejections", [[winner], [loser]])
        return super().outcome(state)

    def state_json(self, state):
        return {**super().state_json(state), "refused": state.refused}
