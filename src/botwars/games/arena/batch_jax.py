"""A JAX backend of the batched arena engine (optional extra ``botwars[jax]``; docs/rl.md).

The same rules as :mod:`botwars.games.arena.batch` (R13–R25 in the order of R12, then R26/R27's
end check) on the same padded boards — ``owner`` ``(n, h + 2, w + 2)`` (0 empty, 1 or 2),
``hp`` (HP), ``turns`` and ``over`` per game — and the same order codes, written as dense
whole-board array expressions that ``jax.jit`` compiles into one XLA program per board shape
(the R17 fixed point is a ``lax.while_loop``). A test checks that it gives the NumPy engine's
boards bit for bit on the same orders (spawns, move chains, contention, swaps, attacks, defence,
self-destructs, wipeouts, resets).

:meth:`JaxArena.random_steps` is the Pgx-style rollout used by ``benchmarks/rl_throughput.py``:
uniform random legal orders for both players (every one of the 11 slot actions on each robot's
square), auto-reset of finished games, all inside one compiled loop.

Raises ``ModuleNotFoundError`` at import when ``jax`` is not installed.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from botwars.games.arena.batch import (
    _DELTA,
    _N8,
    _OPP,
    ATTACK,
    DEFEND,
    IDLE,
    MOVE,
    SELF_DESTRUCT,
    BatchArena,
)


def _push(a: jax.Array, dy: int, dx: int) -> jax.Array:
    """Move every value from square s to s + (dy, dx) (values pushed off the array vanish)."""
    h, w = a.shape[-2:]
    return jnp.zeros_like(a).at[..., max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)].set(
        a[..., max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)])


def _pull(a: jax.Array, dy: int, dx: int) -> jax.Array:
    """The value at s + (dy, dx), placed at s."""
    return _push(a, -dy, -dx)


class JaxArena:
    """``n`` arena games on one map with one config, stepped together by a jit-compiled step.

    State (``jax.Array``): ``owner`` (``int8``), ``hp`` (``int32``, HP), ``turns`` (``int32``,
    last turn resolved per game), ``over`` (``bool``); same layout as
    :class:`~botwars.games.arena.batch.BatchArena` (whose map tables it borrows). Raises
    ``ConfigError`` (from the map loader) for a bad ``config["map"]``.
    """

    def __init__(self, config: dict[str, Any], n: int):
        ref = BatchArena(config, 1)           # the map tables (walls, spawn points)
        self.config = config
        self.n = n
        self.shape = (n, ref.height + 2, ref.width + 2)
        self._spawn = jnp.asarray(ref.spawn, dtype=jnp.int8)
        self._spawn_mask = jnp.asarray(ref.spawn_mask)
        self._wall_at = [jnp.asarray(_wall_at(ref.wall, k)) for k in range(4)]
        self._step = jax.jit(self._step_impl)
        self.reset()

    # ---- state ----------------------------------------------------------------------------
    def reset(self) -> None:
        """Turn 0 (R7): one ``initial_hp`` robot on every spawn point of every game."""
        self.owner = jnp.broadcast_to(self._spawn, self.shape)
        self.hp = jnp.where(self.owner > 0, self.config["initial_hp"], 0).astype(jnp.int32)
        self.turns = jnp.zeros(self.n, dtype=jnp.int32)
        self.over = jnp.zeros(self.n, dtype=bool)

    def reset_games(self, which: Any) -> None:
        """Turn 0 again for the games where ``which`` (``bool``, shape ``(n,)``) is true."""
        self.owner, self.hp, self.turns, self.over = self._reset_where(
            jnp.asarray(which, dtype=bool), self.owner, self.hp, self.turns, self.over)

    def _reset_where(self, which: jax.Array, owner: jax.Array, hp: jax.Array, turns: jax.Array,
                     over: jax.Array) -> tuple[jax.Array, ...]:
        w3 = which[:, None, None]
        owner = jnp.where(w3, self._spawn[None], owner)
        hp = jnp.where(w3, jnp.where(self._spawn > 0, self.config["initial_hp"], 0)[None], hp).astype(jnp.int32)
        return owner, hp, jnp.where(which, 0, turns), over & ~which

    def step(self, orders: Any) -> None:
        """Resolve one turn of every game; ``orders``: order codes shaped like the boards
        (``int8``; codes on empty squares and outside 0-10 are no order)."""
        self.owner, self.hp, self.turns, self.over = self._step(
            self.owner, self.hp, self.turns, self.over, jnp.asarray(orders, dtype=jnp.int8))

    def numpy(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(owner, hp, turns, over)`` as NumPy arrays."""
        return (np.asarray(self.owner), np.asarray(self.hp), np.asarray(self.turns), np.asarray(self.over))

    # ---- the rules --------------------------------------------------------------------------
    def _step_impl(self, owner: jax.Array, hp: jax.Array, turns: jax.Array, over: jax.Array,
                   orders: jax.Array) -> tuple[jax.Array, ...]:
        cfg = self.config
        occ = owner > 0
        act = jnp.where(occ, orders, IDLE)
        t = turns + 1
        defending = act == DEFEND                                            # R13
        armed = act == SELF_DESTRUCT                                         # R14
        mv = [act == MOVE + k for k in range(4)]                             # R15
        mover = mv[0] | mv[1] | mv[2] | mv[3]
        fail = jnp.zeros_like(mover)
        incoming = jnp.zeros(owner.shape, dtype=jnp.int8)
        for k in range(4):
            fail |= mv[k] & self._wall_at[k]                                 # R16a
            incoming += _push(mv[k], *_DELTA[k]).astype(jnp.int8)
        for k in range(4):
            dy, dx = _DELTA[k]
            fail |= mv[k] & _pull(incoming > 1, dy, dx)                      # R16b
            fail |= mv[k] & _pull(mv[_OPP[k]], dy, dx)                       # R16c head-on swap

        def blocked(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
            fail, _ = carry                                                  # R17 fixed point
            staying = occ & (~mover | fail)
            new = jnp.zeros_like(fail)
            for k in range(4):
                new |= mv[k] & _pull(staying, *_DELTA[k])
            new &= ~fail
            return fail | new, new.any()

        fail, _ = jax.lax.while_loop(lambda c: c[1], blocked, (fail, jnp.array(True)))
        ok = mover & ~fail                                                   # R18
        new_owner = jnp.where(ok, 0, owner).astype(jnp.int8)
        new_hp = jnp.where(ok, 0, hp)
        for k in range(4):
            go = mv[k] & ok
            new_owner += _push(jnp.where(go, owner, 0).astype(jnp.int8), *_DELTA[k])
            new_hp += _push(jnp.where(go, hp, 0), *_DELTA[k])
        owner, hp = new_owner, new_hp
        attack = [act == ATTACK + k for k in range(4)]
        spawning = t % cfg["spawn_interval"] == 0                            # R19
        sm = self._spawn_mask[None] & spawning[:, None, None]
        owner = jnp.where(sm, self._spawn[None], owner).astype(jnp.int8)
        hp = jnp.where(sm, cfg["initial_hp"], hp)
        defending = defending & ~sm            # new robots: no order, not defending (H15)
        armed_robot = armed & ~sm              # the blast still detonates (H13)
        attack = [a & ~sm for a in attack]
        div = cfg["defend_divisor"]
        dmg = jnp.zeros_like(hp)                                             # R20
        for k in range(4):
            by = _push(jnp.where(attack[k], owner, 0).astype(jnp.int8), *_DELTA[k])
            hit = (by > 0) & (owner > 0)
            base = jnp.where(by == owner, cfg["attack_damage_friendly"], cfg["attack_damage_enemy"])
            base = jnp.where(defending, base // div, base)                   # R24
            dmg += jnp.where(hit, base, 0)
        hp = hp - dmg
        dead = (owner > 0) & (hp <= 0)                                       # R25
        owner = jnp.where(dead, 0, owner).astype(jnp.int8)
        hp = jnp.where(dead, 0, hp)
        count = jnp.zeros_like(hp)                                           # R21
        a = armed.astype(jnp.int32)
        for dy, dx in _N8:
            count += _push(a, dy, dx)
        sd = cfg["self_destruct_damage"]
        hp = hp - jnp.where(owner > 0, count * jnp.where(defending, sd // div, sd), 0)
        dead = (owner > 0) & ((hp <= 0) | armed_robot)                       # R22, R25
        owner = jnp.where(dead, 0, owner).astype(jnp.int8)
        hp = jnp.where(dead, 0, hp).astype(jnp.int32)
        over = over | (t >= cfg["max_turns"])                                # R26
        if cfg["wipeout_ends_game"]:                                         # R27
            over = over | ~((owner == 1).any(axis=(1, 2)) & (owner == 2).any(axis=(1, 2)))
        return owner, hp, t, over

    # ---- Pgx-style rollout (benchmarks) --------------------------------------------------------
    @partial(jax.jit, static_argnums=(0, 2))
    def _rollout(self, key: jax.Array, steps: int, owner: jax.Array, hp: jax.Array, turns: jax.Array,
                 over: jax.Array) -> tuple[Any, ...]:
        def one(carry: tuple[Any, ...], _: Any) -> tuple[tuple[Any, ...], jax.Array]:
            key, owner, hp, turns, over = carry
            key, sub = jax.random.split(key)
            orders = jax.random.randint(sub, owner.shape, 0, 11, dtype=jnp.int8)
            robots = jnp.count_nonzero(owner)
            owner, hp, turns, over = self._step_impl(owner, hp, turns, over, orders)
            owner, hp, turns, over = self._reset_where(over, owner, hp, turns, over)   # auto-reset
            return (key, owner, hp, turns, over), robots
        carry, robots = jax.lax.scan(one, (key, owner, hp, turns, over), None, length=steps)
        return carry, robots.sum()

    def random_steps(self, key: jax.Array, steps: int) -> tuple[int, jax.Array]:
        """Play ``steps`` turns of every game with uniform random legal orders for both players
        (0-10 on every robot's square), restarting finished games at once; returns the
        robot-actions played (robots in play summed over the turns) and the next key."""
        (key, self.owner, self.hp, self.turns, self.over), robots = self._rollout(
            key, steps, self.owner, self.hp, self.turns, self.over)
        return int(robots), key


def _wall_at(wall: np.ndarray, k: int) -> np.ndarray:
    """For direction ``k``: is the adjacent square in that direction a wall (or off the array)?"""
    dy, dx = _DELTA[k]
    h, w = wall.shape
    out = np.ones_like(wall)
    out[max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)] = \
        wall[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)]
    return out
