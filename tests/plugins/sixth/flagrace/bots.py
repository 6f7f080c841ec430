"""Built-in bots of flag race: ``random`` (any legal step) and ``perfect`` (leaves the counter
a multiple of ``max_step + 1`` squares from the flag whenever it can)."""

from __future__ import annotations

import random
from typing import Any


def _steps(view: dict[str, Any]) -> list[int]:
    return list(range(1, min(view["max_step"], view["flag"] - view["square"]) + 1))


class RandomBot:
    """A random legal step, from an RNG seeded by ``start``."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        self.rng = random.Random(f"{seed}:{seat}")

    def act(self, view: dict[str, Any]) -> dict[str, int]:
        return {"step": self.rng.choice(_steps(view))}


class PerfectBot:
    """The winning step of the subtraction game where there is one, else a step of 1."""

    def act(self, view: dict[str, Any]) -> dict[str, int]:
        for k in _steps(view):
            if (view["flag"] - view["square"] - k) % (view["max_step"] + 1) == 0:
                return {"step": k}
        return {"step": 1}


BUILTIN = {"random": RandomBot, "perfect": PerfectBot}
