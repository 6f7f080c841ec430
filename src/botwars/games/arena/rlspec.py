"""The arena's encoding for learning environments (``botwars.rl``, docs/rl.md).

Observation of a seat (player ``p``), from its own view (P11) and the public map (R5, R30):

- ``board``: ``float32`` planes ``(7, height, width)``, indexed ``[plane, y - 1, x - 1]``:
  0 wall (R2); 1 own spawn points, 2 enemy spawn points (R5); 3 own robot; 4 own robot's HP /
  ``initial_hp`` (capped at 1); 5 enemy robot; 6 enemy robot's HP / ``initial_hp`` (capped at 1).
- ``vector``: ``float32`` ``(2,)``: the turn to play / ``max_turns``; turns until the next spawn
  turn (R19) / ``spawn_interval``.

Actions: one per robot slot, a square of the board: slot ``(y - 1) * width + (x - 1)`` takes
0 idle (no order), 1 defend (``D``), 2 self-destruct (``S``), 3-6 move ``N E S W``, 7-10 attack
``N E S W`` (R10, R11) — the codes of :mod:`botwars.games.arena.batch`. The flat mask allows every
action on the seat's own robots' squares and only 0 elsewhere. Every combination is a legal
order (a move into a wall simply fails, R16a), so the orders the referee receives are exactly
the chosen ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.games.arena.batch import BatchArena
from botwars.games.arena.board import load_map
from botwars.games.arena.bots_batch import hunter_actions, numpy_fixed_point
from botwars.games.arena.protocol import ArenaOrders, text_orders

N_ACTIONS = 11
_MASK_ROWS = np.array([[1] + [0] * (N_ACTIONS - 1), [1] * N_ACTIONS], dtype=np.int8)
_ORDER = [None, ("D", None), ("S", None)] + [("M", d) for d in "NESW"] + [("A", d) for d in "NESW"]


class ArenaSpec:
    """The arena encoding for one configuration (``config`` validated, two seats)."""

    def __init__(self, rules: Any, config: dict[str, Any], seats: list[str]):
        self.config = config
        self.seats = list(seats)
        amap = load_map(config["map"])
        self.width, self.height = amap.width, amap.height
        w, h = self.width, self.height
        self.wall = np.zeros((h, w), dtype=np.float32)
        for (x, y) in amap.walls:
            if 1 <= x <= w and 1 <= y <= h:
                self.wall[y - 1, x - 1] = 1
        self.spawn = {p: np.zeros((h, w), dtype=np.float32) for p in (1, 2)}
        for p, sqs in amap.spawns.items():
            for (x, y) in sqs:
                self.spawn[p][y - 1, x - 1] = 1
        self.slots = w * h
        self.nvec = (N_ACTIONS,) * self.slots
        ihp = int(config["initial_hp"])
        self._ihp = ihp
        self._static = {p: np.stack([self.wall, self.spawn[p], self.spawn[3 - p]]) for p in (1, 2)}
        self.obs_space = {"board": ((7, h, w), 0.0, 1.0, "float32"), "vector": ((2,), 0.0, 1.0, "float32")}

    # ---- arrays shared by the scalar and the batched engine ------------------------------
    def planes(self, owner: np.ndarray, hp: np.ndarray, player: int) -> np.ndarray:
        """Planes ``(n, 7, h, w)`` from boards ``owner``/``hp`` of shape ``(n, h, w)`` (no border).

        Whole-array operations only (no loop over games): the scalar environments call it with
        ``n = 1``, the vector environment with the whole batch, so both give the same bits."""
        n = owner.shape[0]
        out = np.empty((n, 7, self.height, self.width), dtype=np.float32)
        own = owner == player
        enemy = owner == 3 - player
        out[:, 0:3] = self._static[player]
        out[:, 3] = own
        out[:, 5] = enemy
        # HP / initial_hp capped at 1 (float32 division of small integers: exact rounding)
        hpn = np.divide(np.minimum(hp, self._ihp), np.float32(self._ihp), dtype=np.float32)
        np.multiply(hpn, own, out=out[:, 4])
        np.multiply(hpn, enemy, out=out[:, 6])
        return out

    def vector(self, turn_to_play: np.ndarray) -> np.ndarray:
        """``(n, 2)``: turn / max_turns and turns until the next spawn turn / spawn_interval."""
        t = np.asarray(turn_to_play, dtype=np.float32)
        k = float(self.config["spawn_interval"])
        until = (-t) % k
        return np.stack([np.minimum(t / self.config["max_turns"], 1.0), until / k], axis=1).astype(np.float32)

    def masks(self, owner: np.ndarray, player: int) -> np.ndarray:
        """Flat masks ``(n, slots * 11)``: all actions on own robots' squares, idle elsewhere."""
        n = owner.shape[0]
        own = (owner == player).reshape(n, self.slots).view(np.int8)
        return np.take(_MASK_ROWS, own, axis=0).reshape(n, -1)   # row 0: idle only; row 1: all

    def _board(self, view: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        owner = np.zeros((1, self.height, self.width), dtype=np.int8)
        hp = np.zeros((1, self.height, self.width), dtype=np.int32)
        p = view["player"]
        for r in view["robots"]:
            owner[0, r["y"] - 1, r["x"] - 1] = p if r["side"] == "F" else 3 - p
            hp[0, r["y"] - 1, r["x"] - 1] = r["hp"]
        return owner, hp

    # ---- the scalar interface (botwars.rl.core) --------------------------------------------
    def observe(self, view: dict[str, Any], partial: tuple[int, ...]) -> dict[str, np.ndarray]:
        owner, hp = self._board(view)
        return {"board": self.planes(owner, hp, view["player"])[0],
                "vector": self.vector(np.array([view["turn"]]))[0]}

    def mask(self, view: dict[str, Any], partial: tuple[int, ...], legal: Any) -> np.ndarray:
        return self.masks(self._board(view)[0], view["player"])[0]

    def wait_mask(self, alive: bool) -> np.ndarray:
        m = np.zeros((self.slots, N_ACTIONS), dtype=np.int8)
        if alive:
            m[:, 0] = 1
        return m.reshape(-1)

    def decide(self, view: dict[str, Any], partial: tuple[int, ...], action: Any,
               legal: Any) -> tuple[tuple[int, ...], Any]:
        """The P5 text orders of the chosen slot actions (one decision, no sub-steps)."""
        a = np.asarray(action).reshape(-1)
        orders = {}
        for r in view["robots"]:
            if r["side"] != "F":
                continue
            o = _ORDER[int(a[(r["y"] - 1) * self.width + r["x"] - 1])]
            if o is not None:
                orders[(r["x"], r["y"])] = o
        return (), text_orders(ArenaOrders(orders, None))

    def robot_actions(self, view: dict[str, Any]) -> int:
        """Robots the seat orders at this decision (benchmarks' robot-actions)."""
        return sum(1 for r in view["robots"] if r["side"] == "F")


class ArenaBatch:
    """The arena's NumPy engine (:class:`~botwars.games.arena.batch.BatchArena`, ``n`` matches)
    in lock step for a vector environment: the learner is player 1 (``seats[0]``), the opponent
    player 2. Arrays match :class:`ArenaSpec`'s scalar encoding. It is the ``vector`` hook of the
    ``numpy`` :class:`~botwars.engine.plugin.BatchEngine` the arena declares.

    Every method is a whole-array NumPy operation over the batch (no loop over games)."""

    def __init__(self, spec: ArenaSpec, engine: BatchArena):
        self.spec = spec
        self.n = engine.n
        self.engine = engine
        self._codes = np.zeros(self.engine.owner.shape, dtype=np.int8)

    def reset(self, which: np.ndarray | None = None) -> None:
        """Turn 0 for every game (``which=None``) or the marked ones."""
        if which is None:
            self.engine.reset()
        else:
            self.engine.reset_games(which)

    def _inner(self, a: np.ndarray) -> np.ndarray:
        return a[:, 1:-1, 1:-1]

    def observe(self, player: int) -> dict[str, np.ndarray]:
        """Player ``player``'s observations of every game: ``board`` ``(n, 7, h, w)``, ``vector``
        ``(n, 2)``, ``action_mask`` ``(n, slots * 11)`` (the scalar encoding, stacked)."""
        owner, hp = self._inner(self.engine.owner), self._inner(self.engine.hp)
        turn = np.where(self.engine.over, self.engine.turns, self.engine.turns + 1)
        return {"board": self.spec.planes(owner, hp, player), "vector": self.spec.vector(turn),
                "action_mask": self.spec.masks(owner, player)}

    def random_actions(self, rng: np.random.Generator, player: int) -> np.ndarray:
        """Uniform legal slot actions ``(n, slots)`` of ``player``: 0..10 on its robots' squares,
        0 elsewhere (uniform over the mask :meth:`ArenaSpec.masks` publishes)."""
        own = (self._inner(self.engine.owner) == player).reshape(self.n, -1)
        return np.where(own, rng.integers(0, N_ACTIONS, size=own.shape, dtype=np.int8), 0).astype(np.int64)

    bots = ("defender", "hunter")
    """The built-in bots played in batch (:meth:`bot_actions`)."""

    def bot_actions(self, name: str, player: int) -> np.ndarray:
        """Slot actions ``(n, slots)`` of the built-in bot ``name`` for ``player``: ``"defender"``
        (:class:`~botwars.games.arena.bots.DefenderBot`: every robot defends, R13) or
        ``"hunter"`` (:class:`~botwars.games.arena.bots.HunterBot`'s orders, computed on the
        whole batch by :func:`~botwars.games.arena.bots_batch.hunter_actions`). Raises
        ``ValueError`` for a bot not in :attr:`bots`."""
        owner = self._inner(self.engine.owner)
        if name == "defender":
            own = (owner == player).reshape(self.n, -1)
            return np.where(own, 1, 0).astype(np.int64)      # 1: defend (batch.DEFEND)
        if name == "hunter":
            act = hunter_actions(np, owner, self._inner(self.engine.hp), self.engine.turns + 1, player,
                                 self.spec.wall == 0, (self.spec.spawn[1] + self.spec.spawn[2]) > 0,
                                 int(self.spec.config["spawn_interval"]), numpy_fixed_point)
            return act.reshape(self.n, -1).astype(np.int64)
        raise ValueError(f"no batched arena bot {name!r} (batched: {', '.join(self.bots)})")

    def legal(self, actions: np.ndarray, player: int) -> np.ndarray:
        """Per game: are all of ``actions`` (``(n, slots)``) allowed by ``player``'s mask (in
        range, and 0 on squares without one of its robots)?"""
        own = (self._inner(self.engine.owner) == player).reshape(self.n, -1)
        return (((actions == 0) | own) & (actions >= 0) & (actions < N_ACTIONS)).all(axis=1)

    def step(self, actions: dict[int, np.ndarray], live: np.ndarray | None = None) -> None:
        """One turn of the games where ``live`` is true (default: all): ``actions[p]`` is
        ``(n, slots)`` slot actions of player ``p``; the other games keep their position."""
        e = self.engine
        keep = None if live is None or live.all() else ~np.asarray(live, dtype=bool)
        if keep is not None:
            saved = (e.owner[keep], e.hp[keep], e.turns[keep], e.over[keep])   # fancy indexing copies
        inner = self._codes[:, 1:-1, 1:-1]
        owner = self._inner(e.owner)
        shape = (self.n, self.spec.height, self.spec.width)
        a1 = np.asarray(actions.get(1, 0), dtype=np.int8)
        a2 = np.asarray(actions.get(2, 0), dtype=np.int8)
        inner[...] = np.where(owner == 1, a1.reshape(shape) if a1.ndim else a1,
                              np.where(owner == 2, a2.reshape(shape) if a2.ndim else a2, 0))
        e.step(self._codes)
        if keep is not None:
            e.owner[keep], e.hp[keep], e.turns[keep], e.over[keep] = saved

    @property
    def over(self) -> np.ndarray:
        return self.engine.over.copy()

    def rewards(self, player: int) -> np.ndarray:
        """+1 / -1 / 0 for the games that are over (R28: robots, then HP), 0 for the others."""
        o, h = self._inner(self.engine.owner), self._inner(self.engine.hp)
        me, them = player, 3 - player
        r1, r2 = (o == me).sum(axis=(1, 2)), (o == them).sum(axis=(1, 2))
        h1 = np.where(o == me, h, 0).sum(axis=(1, 2))
        h2 = np.where(o == them, h, 0).sum(axis=(1, 2))
        win = (r1 > r2) | ((r1 == r2) & (h1 > h2))
        lose = (r2 > r1) | ((r1 == r2) & (h2 > h1))
        return np.where(self.engine.over, win.astype(np.float32) - lose.astype(np.float32), 0.0).astype(np.float32)

    def robots(self, player: int) -> np.ndarray:
        """Robots of ``player`` per game (robot-actions of the coming turn)."""
        return (self._inner(self.engine.owner) == player).sum(axis=(1, 2))


def make(rules: Any, config: dict[str, Any], seats: list[str]) -> ArenaSpec:
    """The ``rl`` hook of the arena's plug-in declaration."""
    return ArenaSpec(rules, config, seats)
