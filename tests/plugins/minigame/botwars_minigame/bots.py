"""Built-in bots of the coins game: ``random`` and ``greedy``."""

from __future__ import annotations

import random
from typing import Any

STEPS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0), "stay": (0, 0)}


def _moves(view: dict[str, Any]) -> list[str]:
    x, y = view["robots"][view["you"]]
    n = view["size"]
    return [m for m, (dx, dy) in STEPS.items() if 0 <= x + dx < n and 0 <= y + dy < n]


class RandomBot:
    """A random move on the board, from an RNG seeded by ``start``."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        self.rng = random.Random(f"{seed}:{seat}")

    def act(self, view: dict[str, Any]) -> dict[str, str]:
        return {"move": self.rng.choice(_moves(view))}


class GreedyBot:
    """Steps towards the nearest coin it sees (first in N, E, S, W order on a tie), else towards
    the centre of the board."""

    def act(self, view: dict[str, Any]) -> dict[str, str]:
        x, y = view["robots"][view["you"]]
        c = view["size"] // 2
        goals = [tuple(p) for p in view["coins"]] or [(c, c)]
        gx, gy = min(goals, key=lambda g: (abs(g[0] - x) + abs(g[1] - y), g))

        def dist(m: str) -> int:
            dx, dy = STEPS[m]
            return abs(gx - x - dx) + abs(gy - y - dy)

        return {"move": min(_moves(view), key=dist)}


BUILTIN = {"random": RandomBot, "greedy": GreedyBot}
