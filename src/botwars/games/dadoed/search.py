"""``builtin:mcts`` for DADOED: Monte Carlo tree search over the play phase (D-5).

The bot rebuilds the position from its own D-12.2 view (:func:`~botwars.games.dadoed.bots.state_from_view`;
the opponent's unrevealed supers are unknown to it and simply not played in the tree) and runs
UCT on copies with the game's own pure functions (:func:`~botwars.games.dadoed.engine.iter_legal`,
:func:`~botwars.games.dadoed.engine.apply_order`). The game alternates (D-5.1) and, apart from
those secret supers, has perfect information, so one tree serves.

- **Expansion** enumerates every legal order of the player to move and plays each on a copy;
  each child's static value (the greedy bot's material score, :func:`~botwars.games.dadoed.bots.score`,
  made symmetric and squashed to (-1, 1); a finished game is ±1 or 0) is its prior, counted as
  ``prior_weight`` virtual visits.
- **Selection** is UCB1 on those values (``c``); **evaluation** of a new leaf is the best prior
  among its children for the player to move there (one ply of negamax instead of a random
  rollout: a rollout needs an order enumeration per ply and costs 10× more here).
- **Backup** alternates the sign by mover. The answer is the most visited root child.

Budget: ``simulations`` (default 48, about 0.3 s a move on a 2.4 GHz core) and an optional
``seconds`` cap (off by default: with it the choice depends on the machine's speed). With the
seconds cap off the choice is a pure function of the view and the seed given to ``start``.
"""

from __future__ import annotations

import math
import random as _random
import time
from typing import Any

from botwars.games.dadoed import bots as _bots
from botwars.games.dadoed.bots import DadoedBot, score
from botwars.games.dadoed.engine import (
    Order,
    State,
    apply_order,
    final_result,
    iter_legal,
    other,
)


def value(st: State, player: str) -> float:
    """The search's value of ``st`` for ``player`` in [-1, 1]: a finished game is 1 (won),
    -1 (lost) or 0 (draw); otherwise tanh of the greedy material score difference / 300."""
    res = final_result(st)
    if res is not None:
        return 0.0 if res[0] == "draw" else (1.0 if res[0] == player else -1.0)
    return math.tanh((score(st, player) - score(st, other(player))) / 600.0)


class _Node:
    __slots__ = ("children", "mover", "n", "order", "prior", "st", "w")

    def __init__(self, st: State, mover: str, order: Order | None, prior: float):
        self.st = st
        self.mover = mover          # the player whose order led here; values are for them
        self.order = order
        self.prior = prior
        self.n = 0
        self.w = 0.0
        self.children: list[_Node] | None = None

    def q(self, k: float) -> float:
        return (self.w + self.prior * k) / (self.n + k)


class MctsBot(DadoedBot):
    """UCT over the play phase with static priors (see the module docstring).

    ``simulations``: tree descents per decision (≥ 1); ``seconds``: optional wall-clock cap per
    decision (``None``: none, the choice is then deterministic for a seed); ``c``: the UCB1
    exploration constant; ``prior_weight``: virtual visits given to a child's static value.
    Set-up (D-3.4) is the base class's fixed choice of supers.
    """

    def __init__(self, simulations: int = 48, seconds: float | None = None, c: float = 0.5,
                 prior_weight: float = 2.0):
        if simulations < 1:
            raise ValueError("simulations must be at least 1")
        if c < 0 or prior_weight < 0:
            raise ValueError("c and prior_weight must be at least 0")
        self.simulations = simulations
        self.seconds = seconds
        self.c = c
        self.k = prior_weight

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        super().start(game, seat, config, seed)
        self.seed_text = f"{seed}:{seat}:mcts"

    def _expand(self, node: _Node, rng: _random.Random) -> float:
        """Create ``node``'s children; return the node's value for its mover."""
        st = node.st
        if final_result(st) is not None:
            node.children = []
            return value(st, node.mover)
        mover = st.active
        kids = []
        for o in iter_legal(st, mover):
            after, _ = apply_order(st, o, log=False)
            kids.append(_Node(after, mover, o, value(after, mover) + rng.random() * 1e-6))
        node.children = kids
        if not kids:  # no legal order: D-5.2 ends the game against the player to move
            return 1.0 if node.mover != mover else -1.0
        best = max(k.prior for k in kids)
        return -best if node.mover != mover else best

    def choose(self, st: State, me: str) -> dict[str, Any]:
        rng = _random.Random(f"{getattr(self, 'seed_text', 'x')}:{st.turn}")
        root = _Node(st, other(me), None, 0.0)
        self._expand(root, rng)
        if not root.children:
            return {"type": "resign"}
        if len(root.children) == 1:
            return root.children[0].order.payload()  # type: ignore[union-attr]
        t_end = None if self.seconds is None else time.perf_counter() + self.seconds
        for _ in range(self.simulations):
            if t_end is not None and time.perf_counter() > t_end:
                break
            path = [root]
            node = root
            while node.children:
                ln = math.log(node.n + 1)
                node = max(node.children,
                           key=lambda ch: ch.q(self.k) + self.c * math.sqrt(ln / (ch.n + 1)))
                path.append(node)
            v = self._expand(node, rng) if node.children is None else value(node.st, node.mover)
            who = node.mover
            for nd in reversed(path):
                nd.n += 1
                nd.w += v if nd.mover == who else -v
        best = max(root.children, key=lambda ch: (ch.n, ch.q(self.k)))
        return best.order.payload()  # type: ignore[union-attr]


#: Every built-in bot of the game (``builtin:NAME``, the plug-in's ``bots``): ``bots.BUILTIN`` and
#: ``mcts`` at its default budget.
BUILTIN = {**_bots.BUILTIN, "mcts": MctsBot}
