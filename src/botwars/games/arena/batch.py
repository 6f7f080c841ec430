"""A batched arena engine: many games resolved at once with NumPy arrays.

The reference engine (:mod:`botwars.games.arena.rules`) resolves one game at a time through
the kernel contract; this module resolves ``n`` games in lock step for throughput (the
benchmark's engine floor, bulk simulation, RL training). It implements the same rules —
R13–R25 in the order of R12 — on whole boards at once, and a test checks that it agrees with
the reference engine turn by turn on random orders.

Boards are arrays of shape ``(n, h + 2, w + 2)`` indexed ``[game, Y, X]`` with a one-square
wall border (R1: off-grid squares behave like walls). Orders are an ``int8`` array of the same
shape holding an order code per square (:data:`IDLE`, :data:`DEFEND`, :data:`SELF_DESTRUCT`,
``MOVE + k``, ``ATTACK + k`` with ``k`` indexing :data:`DIRECTIONS`); codes on squares without a
robot of the right owner are ignored by the caller's construction (see :meth:`BatchArena.orders_from`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.engine.errors import ConfigError
from botwars.games.arena.board import load_map

IDLE, DEFEND, SELF_DESTRUCT, MOVE, ATTACK = 0, 1, 2, 3, 7
DIRECTIONS = ("N", "E", "S", "W")
_DELTA = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}  # (dY, dX) for N E S W
_OPP = {0: 2, 1: 3, 2: 0, 3: 1}
_N8 = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0)]


class BatchArena:
    """``n`` arena games on one map with one config, stepped together.

    Attributes: ``owner`` (``int8``: 0 empty, 1 or 2), ``hp`` (``int32``, HP), ``turns`` (last
    turn resolved, per game: games restarted with :meth:`reset_games` run behind the others),
    ``turn`` (the largest of them), ``over`` (``bool`` per game). Raises ``ConfigError`` (from
    the map loader) for a bad ``config["map"]``, and for ``rules`` other than ``arena``.
    """

    def __init__(self, config: dict[str, Any], n: int):
        if config.get("rules", "arena") != "arena":
            raise ConfigError(f"the batched arena plays the arena's own rules only, not rules={config['rules']}")
        self.config = config
        self.n = n
        amap = load_map(config["map"])
        self.width, self.height = amap.width, amap.height
        wall = np.ones((self.height + 2, self.width + 2), dtype=bool)
        for y in range(1, self.height + 1):
            for x in range(1, self.width + 1):
                wall[y, x] = (x, y) in amap.walls
        self.wall = wall
        self.spawn = np.zeros_like(wall, dtype=np.int8)
        for p, sqs in amap.spawns.items():
            for x, y in sqs:
                self.spawn[y, x] = p
        self.spawn_mask = self.spawn > 0
        # for each direction: is the adjacent square in that direction a wall (or off the grid)?
        # flat board indices: square (Y, X) of game g is g * cells + Y * (w + 2) + X; the wall
        # border keeps every neighbour of a playable square on the same board
        w2 = self.width + 2
        self._cells = (self.height + 2) * w2
        self._off = np.array([dy * w2 + dx for dy, dx in (_DELTA[k] for k in range(4))], dtype=np.int64)
        self._off8 = np.array([dy * w2 + dx for dy, dx in _N8], dtype=np.int64)
        self._opp1 = np.array([_OPP[k] + 1 for k in range(4)], dtype=np.int64)
        self._wall_flat = wall.reshape(-1).copy()
        self._spawn_cells = np.flatnonzero(self.spawn.reshape(-1))
        self._spawn_owner = self.spawn.reshape(-1)[self._spawn_cells]
        # scratch boards over all games, all zero between steps
        self._scratch_i = np.zeros(n * self._cells, dtype=np.int64)
        self._scratch_b = np.zeros(n * self._cells, dtype=bool)
        self.reset()

    def reset(self) -> None:
        """Turn 0 (R7): one ``initial_hp`` robot on every spawn point of every game."""
        shape = (self.n, self.height + 2, self.width + 2)
        self.owner = np.broadcast_to(self.spawn, shape).copy()
        self.hp = np.where(self.owner > 0, self.config["initial_hp"], 0).astype(np.int32)
        self.turns = np.zeros(self.n, dtype=np.int64)
        self.over = np.zeros(self.n, dtype=bool)

    @property
    def turn(self) -> int:
        """The last turn resolved (the largest over the games; all equal without :meth:`reset_games`)."""
        return int(self.turns.max()) if self.n else 0

    def reset_games(self, which: np.ndarray) -> None:
        """Turn 0 (R7) again for the games where ``which`` (``bool``, shape ``(n,)``) is true; the
        others keep their position (auto-reset of a vector environment)."""
        which = np.asarray(which, dtype=bool)
        if not which.any():
            return
        self.owner[which] = self.spawn
        self.hp[which] = np.where(self.spawn > 0, self.config["initial_hp"], 0)
        self.turns[which] = 0
        self.over[which] = False

    def robots_in_play(self) -> int:
        """Robots on all boards (the robot-actions of the next turn)."""
        return int(np.count_nonzero(self.owner))

    def step(self, orders: np.ndarray) -> None:
        """Resolve one turn of every game (R12 steps 1-6, then R26/R27's end check).

        ``orders``: ``int8`` array shaped like the boards; codes on empty squares are ignored,
        as are codes outside 0-10 (no order).

        The rules run on the robots, not on the squares: the robots' flat board indices are
        gathered once (``np.flatnonzero``), every rule is an operation on arrays of length R
        (robots in play over all games), and squares are looked up through scratch boards
        that are cleared again after use. The work per turn is O(R) plus one pass over the
        boards, with no loop over games or robots.
        """
        cfg = self.config
        n, L = self.n, self._cells
        self.owner = np.ascontiguousarray(self.owner)
        self.hp = np.ascontiguousarray(self.hp)
        own_flat = self.owner.reshape(-1)
        hp_flat = self.hp.reshape(-1)
        idx = np.flatnonzero(own_flat)                         # robots: flat index g * L + cell
        o = own_flat[idx]
        hpv = hp_flat[idx]
        act = np.asarray(orders, dtype=np.int8).reshape(-1)[idx]
        t = self.turns + 1
        off = self._off
        defending = act == DEFEND                              # R13
        armed = act == SELF_DESTRUCT                           # R14
        moving = (act >= MOVE) & (act < MOVE + 4)              # R15
        pos = idx
        if moving.any():
            mi = np.flatnonzero(moving)
            src = idx[mi]
            k = act[mi] - MOVE
            tgt = src + off[k]
            fail = self._wall_flat[tgt % L]                                  # R16a
            cnt = self._scratch_i
            np.add.at(cnt, tgt, 1)
            fail |= cnt[tgt] > 1                                             # R16b
            cnt[tgt] = 0
            cnt[src] = k + 1
            fail |= cnt[tgt] == self._opp1[k]                                # R16c head-on swap
            cnt[src] = 0
            stay = self._scratch_b                                           # R17 fixed point
            stay[idx] = True
            stay[src[~fail]] = False
            while True:
                new = ~fail & stay[tgt]
                if not new.any():
                    break
                fail |= new
                stay[src[new]] = True
            stay[idx] = False
            ok = ~fail                                                       # R18
            pos = idx.copy()
            pos[mi[ok]] = tgt[ok]
        attacking = (act >= ATTACK) & (act < ATTACK + 4)
        spawning = t % cfg["spawn_interval"] == 0
        armed_robot = armed
        if spawning.any():                                                   # R19
            games = np.flatnonzero(spawning)
            sq = (games[:, None] * L + self._spawn_cells[None, :]).reshape(-1)
            sp_owner = np.broadcast_to(self._spawn_owner, (games.size, self._spawn_owner.size)).reshape(-1)
            mark = self._scratch_i
            mark[sq] = np.arange(1, sq.size + 1)
            hit = mark[pos] - 1                  # the spawn square a robot stands on, or -1
            mark[sq] = 0
            replaced = hit >= 0
            if replaced.any():
                o = np.where(replaced, sp_owner[np.maximum(hit, 0)], o).astype(np.int8)
                hpv = np.where(replaced, cfg["initial_hp"], hpv)
                defending = defending & ~replaced        # new robots: no order, not defending (H15)
                armed_robot = armed & ~replaced          # the blast still detonates (H13)
                attacking = attacking & ~replaced
            free = np.ones(sq.size, dtype=bool)
            free[hit[replaced]] = False
            m = int(free.sum())
            blast_src = pos[armed]
            pos = np.concatenate([pos, sq[free]])
            o = np.concatenate([o, sp_owner[free]])
            hpv = np.concatenate([hpv, np.full(m, cfg["initial_hp"], dtype=hpv.dtype)])
            pad = np.zeros(m, dtype=bool)
            defending = np.concatenate([defending, pad])
            armed_robot = np.concatenate([armed_robot, pad])
            attacking = np.concatenate([attacking, pad])
            act = np.concatenate([act, pad.astype(np.int8)])
        else:
            blast_src = pos[armed]
        alive = np.ones(pos.size, dtype=bool)
        div = cfg["defend_divisor"]
        who = self._scratch_i
        fights = bool(attacking.any()) or blast_src.size > 0
        if fights:
            who[pos] = np.arange(1, pos.size + 1)
        if attacking.any():                                                  # R20
            ai = np.flatnonzero(attacking)
            v = who[pos[ai] + off[act[ai] - ATTACK]] - 1
            h = v >= 0
            ai, v = ai[h], v[h]
            base = np.where(o[ai] == o[v], cfg["attack_damage_friendly"], cfg["attack_damage_enemy"])
            base = np.where(defending[v], base // div, base)                 # R24
            hpv = hpv - np.bincount(v, weights=base, minlength=pos.size).astype(hpv.dtype)
            alive &= hpv > 0                                                 # R25
        if blast_src.size:                                                   # R21
            v = (who[(blast_src[:, None] + self._off8[None, :]).reshape(-1)] - 1)
            v = v[v >= 0]
            count = np.bincount(v, minlength=pos.size).astype(hpv.dtype)
            sd = cfg["self_destruct_damage"]
            hpv = hpv - np.where(alive, count * np.where(defending, sd // div, sd), 0)
            alive &= (hpv > 0) & ~armed_robot                                # R22, R25
        if fights:
            who[pos] = 0
        own_flat[idx] = 0
        hp_flat[idx] = 0
        pos, o, hpv = pos[alive], o[alive], hpv[alive]
        own_flat[pos] = o
        hp_flat[pos] = hpv
        self.turns = t
        self.over |= t >= cfg["max_turns"]                                   # R26
        if cfg["wipeout_ends_game"]:                                         # R27
            per = np.bincount((pos // L) * 2 + (o - 1), minlength=2 * n).reshape(n, 2)
            self.over |= ~((per[:, 0] > 0) & (per[:, 1] > 0))

    def results(self) -> list[tuple[int, int, int, int, int | None]]:
        """Per game ``(robots1, hp1, robots2, hp2, winner)`` with winner 1, 2 or ``None`` (R28)."""
        out = []
        for g in range(self.n):
            o, h = self.owner[g], self.hp[g]
            r1, r2 = int((o == 1).sum()), int((o == 2).sum())
            h1, h2 = int(h[o == 1].sum()), int(h[o == 2].sum())
            w = 1 if (r1, h1) > (r2, h2) else 2 if (r2, h2) > (r1, h1) else None
            out.append((r1, h1, r2, h2, w))
        return out

    # ---- conversions to and from the reference engine -------------------------------------
    def orders_from(self, per_game: list[dict[tuple[int, int], tuple[str, str | None]]]) -> np.ndarray:
        """Order codes from per-game dicts ``(X, Y) → (action, direction)`` (as in ``ArenaOrders``)."""
        codes = np.zeros(self.owner.shape, dtype=np.int8)
        for g, orders in enumerate(per_game):
            for (x, y), (a, d) in orders.items():
                if a == "D":
                    c = DEFEND
                elif a == "S":
                    c = SELF_DESTRUCT
                else:
                    c = (MOVE if a == "M" else ATTACK) + DIRECTIONS.index(d)
                codes[g, y, x] = c
        return codes

    def board(self, g: int) -> dict[tuple[int, int], tuple[int, int]]:
        """Game ``g`` as ``(X, Y) → (player, hp)``."""
        ys, xs = np.nonzero(self.owner[g])
        return {(int(x), int(y)): (int(self.owner[g, y, x]), int(self.hp[g, y, x])) for y, x in zip(ys, xs)}
