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

from botwars.games.arena.board import load_map

IDLE, DEFEND, SELF_DESTRUCT, MOVE, ATTACK = 0, 1, 2, 3, 7
DIRECTIONS = ("N", "E", "S", "W")
_DELTA = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}  # (dY, dX) for N E S W
_OPP = {0: 2, 1: 3, 2: 0, 3: 1}
_N8 = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0)]


def _push(a: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """Move every value from square s to s + (dy, dx) (values pushed off the array vanish)."""
    out = np.zeros_like(a)
    h, w = a.shape[-2:]
    out[..., max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = \
        a[..., max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)]
    return out


def _edge(shape: tuple[int, int], dy: int, dx: int) -> np.ndarray:
    """True where s + (dy, dx) falls outside the array."""
    e = np.zeros(shape, dtype=bool)
    if dy > 0:
        e[-dy:, :] = True
    elif dy < 0:
        e[:-dy, :] = True
    if dx > 0:
        e[:, -dx:] = True
    elif dx < 0:
        e[:, :-dx] = True
    return e


def _pull(a: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """The value at s + (dy, dx), placed at s."""
    return _push(a, -dy, -dx)


class BatchArena:
    """``n`` arena games on one map with one config, stepped together.

    Attributes: ``owner`` (``int8``: 0 empty, 1 or 2), ``hp`` (``int32``, HP), ``turns`` (last
    turn resolved, per game: games restarted with :meth:`reset_games` run behind the others),
    ``turn`` (the largest of them), ``over`` (``bool`` per game). Raises ``ConfigError`` (from
    the map loader) for a bad ``config["map"]``.
    """

    def __init__(self, config: dict[str, Any], n: int):
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
        self._wall_at = [_pull(wall, *_DELTA[k]) | _edge(wall.shape, *_DELTA[k]) for k in range(4)]
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

        ``orders``: ``int8`` array shaped like the boards; codes on empty squares are ignored.
        """
        cfg = self.config
        owner, hp = self.owner, self.hp
        occ = owner > 0
        act = np.where(occ, orders, IDLE)
        t = self.turns + 1
        defending = act == DEFEND                       # R13
        armed = act == SELF_DESTRUCT                    # R14: blast squares
        mv = [act == MOVE + k for k in range(4)]        # R15
        mover = mv[0] | mv[1] | mv[2] | mv[3]
        if mover.any():
            fail = np.zeros_like(mover)
            wall_at = self._wall_at
            incoming = np.zeros(owner.shape, dtype=np.int8)
            for k in range(4):
                dy, dx = _DELTA[k]
                fail |= mv[k] & wall_at[k]                                   # R16a
                incoming += _push(mv[k], dy, dx).astype(np.int8)
            for k in range(4):
                dy, dx = _DELTA[k]
                fail |= mv[k] & _pull(incoming > 1, dy, dx)                 # R16b
                fail |= mv[k] & _pull(mv[_OPP[k]], dy, dx)                  # R16c head-on swap
            while True:                                                      # R17 fixed point
                staying = occ & (~mover | fail)
                new = np.zeros_like(fail)
                for k in range(4):
                    dy, dx = _DELTA[k]
                    new |= mv[k] & _pull(staying, dy, dx)
                new &= ~fail
                if not new.any():
                    break
                fail |= new
            ok = mover & ~fail                                               # R18
            new_owner = np.where(ok, 0, owner).astype(np.int8)
            new_hp = np.where(ok, 0, hp)
            for k in range(4):
                dy, dx = _DELTA[k]
                go = mv[k] & ok
                new_owner += _push(np.where(go, owner, 0).astype(np.int8), dy, dx)
                new_hp += _push(np.where(go, hp, 0), dy, dx)
            owner, hp = new_owner, new_hp
        attack = [act == ATTACK + k for k in range(4)]
        spawning = t % cfg["spawn_interval"] == 0
        if spawning.any():                                                   # R19
            sm = self.spawn_mask[None] & spawning[:, None, None]
            owner = np.where(sm, self.spawn[None], owner).astype(np.int8)
            hp = np.where(sm, cfg["initial_hp"], hp)
            defending = defending & ~sm       # new robots: no order, not defending (H15)
            armed_robot = armed & ~sm         # the blast still detonates (H13)
            attack = [a & ~sm for a in attack]
        else:
            armed_robot = armed
        div = cfg["defend_divisor"]
        if any(a.any() for a in attack):                                      # R20
            dmg = np.zeros_like(hp)
            for k in range(4):
                dy, dx = _DELTA[k]
                src = np.where(attack[k], owner, 0).astype(np.int8)
                by = _push(src, dy, dx)      # owner of the attacker hitting this square from direction k
                hit = (by > 0) & (owner > 0)
                base = np.where(by == owner, cfg["attack_damage_friendly"], cfg["attack_damage_enemy"])
                base = np.where(defending, base // div, base)                # R24
                dmg += np.where(hit, base, 0)
            hp = hp - dmg
            dead = (owner > 0) & (hp <= 0)                                  # R25
            owner = np.where(dead, 0, owner).astype(np.int8)
            hp = np.where(dead, 0, hp)
        if armed.any():                                                      # R21
            count = np.zeros_like(hp)
            a = armed.astype(np.int32)
            for dy, dx in _N8:
                count += _push(a, dy, dx)
            sd = cfg["self_destruct_damage"]
            per = np.where(defending, sd // div, sd)
            hp = hp - np.where(owner > 0, count * per, 0)
            dead = (owner > 0) & ((hp <= 0) | armed_robot)                  # R22, R25
            owner = np.where(dead, 0, owner).astype(np.int8)
            hp = np.where(dead, 0, hp)
        self.owner, self.hp = owner, hp
        self.turns = t
        self.over |= t >= cfg["max_turns"]                                   # R26
        if cfg["wipeout_ends_game"]:                                         # R27
            has1 = (owner == 1).any(axis=(1, 2))
            has2 = (owner == 2).any(axis=(1, 2))
            self.over |= ~(has1 & has2)

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
