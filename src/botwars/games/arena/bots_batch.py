"""The built-in ``hunter`` bot (:class:`~botwars.games.arena.bots.HunterBot`) on whole batches of
boards, for the vector environments' opponents (NumPy, ``rlspec.ArenaBatch``; JAX,
``env_jax.ArenaJaxEnv``): the same orders as ``HunterBot.plan`` for every robot of every board,
as whole-array expressions written once for both array modules (``xp`` is ``numpy`` or
``jax.numpy``). A test compares it with ``HunterBot.plan`` on random boards.

Boards are the inner squares (no wall border), ``(..., h, w)`` indexed ``[..., y - 1, x - 1]``;
actions are the slot codes of :mod:`botwars.games.arena.rlspec` (0 idle, 1 defend, 2
self-destruct, 3 + k move, 7 + k attack, k = N E S W).

How the order-dependent part is made whole-array: ``HunterBot`` visits its robots in square
order (x, then y) and a robot may not step onto a square an earlier robot already claimed. A
square can only be claimed by its four neighbours, and in square order they come west, south,
north, east; so a step east is never blocked by a claim, a step north only by the west
neighbour's step east, and so on. The choices are iterated to a fixed point (every robot
choosing under the claims of the earlier robots' current choices): the system is triangular in
square order, so its fixed point is unique and is the sequential one, reached after at most one
iteration per robot (a few in practice).
"""

from __future__ import annotations

from typing import Any, Callable

# HunterBot's direction order (first letter wins ties): letter, dx, dy, code index k (N E S W)
_LETTERS = (("E", 1, 0, 1), ("N", 0, 1, 0), ("S", 0, -1, 2), ("W", -1, 0, 3))
_N8 = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
_BIG = 1 << 29


def _at(xp: Any, a: Any, dx: int, dy: int, fill: Any) -> Any:
    """The value at square ``(x + dx, y + dy)`` placed at ``(x, y)``; ``fill`` off the board."""
    h, w = a.shape[-2:]
    pad = [(0, 0)] * (a.ndim - 2) + [(1, 1), (1, 1)]
    p = xp.pad(a, pad, constant_values=fill)
    return p[..., 1 + dy:1 + dy + h, 1 + dx:1 + dx + w]


def hunter_actions(xp: Any, owner: Any, hp: Any, turn: Any, player: int, is_open: Any, spawn: Any,
                   spawn_interval: int, fixed_point: Callable[[Callable[[Any], Any], Any], Any]) -> Any:
    """The ``hunter`` bot's slot actions ``(..., h, w)`` (``int32``; 0 off its robots) for
    ``player`` on boards ``owner`` (0 empty, 1, 2) and ``hp`` ``(..., h, w)``, ordering turn
    ``turn`` ``(...)`` (R19: on a spawn turn it does not step onto spawn points). ``is_open``
    ``(h, w)``: not a wall (R2); ``spawn`` ``(h, w)``: a spawn point of either player (R5).
    ``fixed_point(f, x0)`` iterates ``x = f(x)`` from ``x0`` until ``f(x) == x`` (a Python loop
    for NumPy, ``lax.while_loop`` for JAX)."""
    h, w = owner.shape[-2:]
    mine, foe = owner == player, owner == 3 - player
    i32 = xp.int32
    # adjacent enemies (distance 1) and the weakest of them (ties: first letter E, N, S, W)
    n_adj = xp.zeros(owner.shape, dtype=i32)
    best = xp.full(owner.shape, _BIG, dtype=i32)
    best_k = xp.zeros(owner.shape, dtype=i32)
    for _, dx, dy, k in _LETTERS:
        there = _at(xp, foe, dx, dy, False)
        n_adj = n_adj + there.astype(i32)
        fhp = xp.where(there, _at(xp, hp.astype(i32), dx, dy, 0), _BIG)
        better = fhp < best
        best = xp.where(better, fhp, best)
        best_k = xp.where(better, k, best_k)
    foes8 = sum(_at(xp, foe, dx, dy, False).astype(i32) for dx, dy in _N8)
    mine8 = sum(_at(xp, mine, dx, dy, False).astype(i32) for dx, dy in _N8)
    adjacent = n_adj > 0
    blast = adjacent & (hp <= 12 * n_adj) & (foes8 > mine8)
    # the nearest enemy, ties to the lowest square (x, then y): the least key
    # distance * M + rank, rank = (x - 1) * h + (y - 1), separable in y then x
    m = w * h
    ys = xp.arange(h, dtype=i32)
    xs = xp.arange(w, dtype=i32)
    # col[..., ys, xf] = min over yf of |ys - yf| * M + yf among enemies in column xf
    dy_key = xp.abs(ys[:, None] - ys[None, :]) * m + ys[None, :]                 # (ys, yf)
    col = xp.min(xp.where(foe[..., None, :, :], dy_key[:, :, None], _BIG), axis=-2)   # (..., ys, xf)
    dx_key = xp.abs(xs[:, None] - xs[None, :]) * m + xs[None, :] * h              # (xs, xf)
    key = xp.min(col[..., :, None, :] + dx_key[None, :, :], axis=-1)             # (..., ys, xs)
    rank = key % m
    tx, ty = rank // h, rank % h
    has_target = xp.any(foe, axis=(-2, -1))[..., None, None]
    # steps that get closer, onto open empty squares (not spawn points before a spawn turn)
    spawn_turn = (xp.asarray(turn) % spawn_interval == 0)[..., None, None]
    dest_ok = is_open & ~(spawn & spawn_turn) & (owner == 0)
    want = (tx > xs[None, :], ty > ys[:, None], ty < ys[:, None], tx < xs[None, :])   # E N S W
    mover = mine & ~adjacent & has_target
    cand = [mover & want[i] & _at(xp, dest_ok, dx, dy, False) for i, (_, dx, dy, _) in enumerate(_LETTERS)]

    def choose(choice: Any) -> Any:
        """Each robot's first free letter (0-3, -1: none) under the claims of ``choice``."""
        c_e = _at(xp, choice == 0, -1, 0, False)         # square claimed from its west (a step E)
        c_n = _at(xp, choice == 1, 0, -1, False)         # ... from its south (a step N)
        c_s = _at(xp, choice == 2, 0, 1, False)          # ... from its north (a step S)
        blocked = (None, _at(xp, c_e, 0, 1, False), _at(xp, c_e | c_n, 0, -1, False),
                   _at(xp, c_e | c_n | c_s, -1, 0, False))
        out = xp.full(owner.shape, -1, dtype=i32)
        for i in (3, 2, 1, 0):                           # the first letter last: it wins
            ok = cand[i] if blocked[i] is None else cand[i] & ~blocked[i]
            out = xp.where(ok, i, out)
        return out

    choice = fixed_point(choose, xp.full(owner.shape, -1, dtype=i32))
    move_code = xp.asarray([3 + k for _, _, _, k in _LETTERS], dtype=i32)[xp.maximum(choice, 0)]
    act = xp.where(choice >= 0, move_code, 1)                       # no step: defend
    act = xp.where(adjacent, 7 + best_k, act)                        # attack the weakest
    act = xp.where(blast, 2, act)                                    # self-destruct
    return xp.where(mine, act, 0).astype(i32)


def numpy_fixed_point(f: Callable[[Any], Any], x: Any) -> Any:
    """Iterate ``x = f(x)`` until it stops changing (NumPy)."""
    import numpy as np
    while True:
        y = f(x)
        if np.array_equal(x, y):
            return y
        x = y
