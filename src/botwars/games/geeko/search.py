"""``builtin:planner`` for geeko: a planner that searches over programs with the engine's own stage
resolution, on a copy of the seat's room rebuilt from its view (G-16.3).

Each player plays in a private copy of the rooms (G-1.3): no other player's robot is ever on the
seat's board, so the "other robots" whose programs matter are only the seat's own two, which it
plans jointly. What the seat does not know is the future: the next turns' deals (G-4.1, G-4.4).

1. **Candidates**: for the longest valid length L (G-4.5) and, where valid, L − 1, the joint beam
   search of ``pathfinder`` (:meth:`~botwars.games.geeko.bots.PathfinderBot.beam`), run
   ``simulations // 2`` wide instead of pathfinder's 4, each final program padded to its length.
2. **Evaluation**: every candidate is played whole with the engine
   (:meth:`~botwars.games.geeko.rules.GeekoRuleset.simulate_run`) and scored with pathfinder's
   room score (distance of each robot to an open gate or to what opens one, HP, open gates).
3. The best score wins; ties keep the earlier (longer, pathfinder-ranked) candidate.

Not done (yet): sampling the next turns' deals to look beyond this turn.

Budget: ``simulations`` (default 16) bounds the candidate programs evaluated; optional ``seconds``
cap (off by default; with it the choice depends on the machine's speed). With the cap off the
choice is a pure function of the view and the seed given to ``start``. The reboot rule is
pathfinder's.
"""

from __future__ import annotations

import time
from typing import Any

from botwars.games.geeko import bots as _bots
from botwars.games.geeko.bots import PathfinderBot, score
from botwars.games.geeko.state import RoomState


class PlannerBot(PathfinderBot):
    """Program planner over lengths and a wide joint beam (see the module docstring).

    ``simulations``: candidate programs evaluated per decision (≥ 2); ``seconds``: optional
    wall-clock cap per decision.
    """

    def __init__(self, simulations: int = 16, seconds: float | None = None):
        if simulations < 2:
            raise ValueError("simulations must be at least 2")
        self.simulations = simulations
        self.seconds = seconds

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        pos = self.position(view)
        if pos is None:
            return dict(self.NOTHING)
        rs, run, slots, top = pos
        t_end = None if self.seconds is None else time.perf_counter() + self.seconds
        lengths = [top] + ([top - 1] if top > 1 else [])
        width = max(1, self.simulations // len(lengths))
        best: tuple[float, int, dict[int, list[int]]] | None = None
        for L in lengths:
            for _, progs, _st in self.beam(rs, run, slots, L, width):
                if any(len(p) < L for p in progs.values()):
                    progs = self.pad(run, progs, L)
                    if progs is None:
                        continue
                final: RoomState = rs.simulate_run(run, progs, L)
                sc = score(final)
                if best is None or sc > best[0] + 1e-9:
                    best = (sc, L, progs)
                if t_end is not None and time.perf_counter() > t_end:
                    break
            if t_end is not None and time.perf_counter() > t_end:
                break
        if best is None:  # nothing padded: pathfinder's own answer
            return super().act(view)
        _, L, progs = best
        return self.answer(run, slots, L, progs)


#: Every built-in bot of the game (``builtin:NAME``, the plug-in's ``bots``): ``bots.BUILTIN`` and
#: ``planner`` at its default budget.
BUILTIN = {**_bots.BUILTIN, "planner": PlannerBot}
