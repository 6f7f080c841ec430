"""The submarine rules in JAX (``games/submarine/batch_jax.py``, one match per function under
``jit``/``vmap``) give the NumPy batched engine's state bit for bit (issue 29 item 3): the NumPy
engine's random orders valid at submission (S-4.3) go through both, and after every turn every
field (subs, mines, scores, announcements, Nullify windows, rings, turn, active seat, AP, result)
is compared. Matches are started and restarted by the NumPy engine (set-ups, S-3) and copied over.

``jax`` is in the ``test`` extra: without it the test fails, it is never skipped; the body runs
in a fresh process (``spawn``), as the arena's JAX tests do."""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.submarine.batch import (
    _NO_MINE, ACTION_SPECIAL, DCOL, DEPTH_CHARGE, DROW, HEAL, MINE, NULLIFY, SP_NULLIFY, TORPEDO, BatchSubmarine,
)

#: action code of each special (-1: a passive one: armor, ram, overclock)
ACTION_OF = np.full(9, -1)
for _code, _sp in enumerate(ACTION_SPECIAL):
    if _sp >= 0:
        ACTION_OF[_sp] = _code


def strew_mines(eng, rng, which):
    """Both players' mines on about a sixth of the spaces of the matches ``which`` (never on the
    five spaces S-6.2 forbids), so that subs run into mines (S-6.7) within a few turns: a
    position play can reach (mines are laid next to a sub, and subs move)."""
    put = (rng.random(eng.mines.shape) < 0.17) & ~_NO_MINE[None] & which[:, None, None]
    put[:, 0, :] = put[:, -1, :] = put[:, :, 0] = put[:, :, -1] = False
    eng.mines[put] = rng.integers(1, 3, size=int(put.sum()))


def biased_orders(eng, rng):
    """The NumPy engine's random orders, half of whose rows play the sub's own special (aimed at a
    neighbouring space, for mines, heals and depth charges), where the order stays valid at
    submission (S-4.3)."""
    o = eng.random_orders(rng, 8)
    sub = o[..., 0]
    s = np.clip(sub, 0, 9)
    own = ACTION_OF[np.take_along_axis(eng.special, s, 1)]
    use = (rng.random(sub.shape) < 0.5) & (own >= 0) & (sub >= 0)
    act = np.where(use, own, o[..., 1])
    k = rng.integers(0, 4, size=sub.shape)
    c = np.clip(np.take_along_axis(eng.col, s, 1) + DCOL[k], 1, 7)
    r = np.clip(np.take_along_axis(eng.row, s, 1) + DROW[k], 1, 7)
    nul = rng.integers(0, 8, size=sub.shape)
    par = np.select([act == TORPEDO, np.isin(act, (DEPTH_CHARGE, MINE, HEAL)), act == NULLIFY],
                    [k, (c - 1) + 7 * (r - 1), np.where(nul >= SP_NULLIFY, nul + 1, nul)], 0)
    new = np.stack([sub, act, np.where(use, par, o[..., 2])], axis=2)
    return np.where(eng.check_orders(new)[:, None, None], new, o)


def in_fresh_process(fn, *args):
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


@pytest.mark.slow
def test_jax_submarine_rules_match_the_numpy_engine():
    seen = in_fresh_process(_compare, {"win_points": 30, "max_rounds": 12, "ring_interval": 2}, 3, 50)
    assert all(seen.values()) and seen["ends"] >= 2, seen


def _compare(overrides, seed, turns, n=24):
    import jax.numpy as jnp

    from botwars.games.submarine.batch_jax import FIELDS, batch_play_turn, from_numpy, to_numpy
    cfg = get_ruleset("submarine").validate_config(overrides)
    eng = BatchSubmarine(cfg, n)
    rng = np.random.default_rng(seed)
    eng.reset(np.arange(n), *eng.random_setups(rng))
    strew_mines(eng, rng, np.ones(n, bool))
    state = from_numpy(eng)
    play = batch_play_turn(cfg)
    seen = {"collisions": 0, "mines": 0, "ends": 0, "heals": 0, "mines fired": 0}
    started = n
    for t in range(turns):
        orders = biased_orders(eng, rng)
        live = ~eng.over
        before = eng.mines.copy()
        eng.play_turn(orders)
        state = play(state, jnp.asarray(orders, jnp.int32), jnp.asarray(live))
        got = to_numpy(state)
        for f in FIELDS:
            want = np.asarray(getattr(eng, f))
            assert np.array_equal(got[f], want), f"{f} differs after turn {t + 1}: {np.flatnonzero((got[f] != want).reshape(n, -1).any(1))}"
        seen["collisions"] += int(eng.cancelled.sum())
        seen["mines"] += int((eng.mines > 0).sum())
        seen["mines fired"] += int(((before > 0) & (eng.mines == 0)).sum())
        seen["heals"] += int(((orders[..., 1] == HEAL) & live[:, None]).sum())
        if eng.over.any():
            seen["ends"] += int(eng.over.sum())
            which = eng.over.copy()
            eng.reset(np.arange(n) + started, *eng.random_setups(rng), which=which)
            strew_mines(eng, rng, which)
            started += n
            state = from_numpy(eng)
    return seen


@pytest.mark.slow
def test_declared_jax_submarine_engine_plays_as_the_numpy_engine():
    in_fresh_process(_declared, 20)


def _declared(turns, n=8):
    from botwars.engine.plugin import get_game
    from botwars.games.submarine.batch_jax import FIELDS, JaxSubmarine
    cfg = get_ruleset("submarine").validate_config({"win_points": 20, "max_rounds": 6})
    jx = get_game("submarine").make_batch(cfg, n, "jax")
    assert isinstance(jx, JaxSubmarine)
    eng = BatchSubmarine(cfg, n)
    rng = np.random.default_rng(1)
    setup = eng.random_setups(rng)
    eng.reset(np.arange(n), *setup)
    jx.reset(np.arange(n), *setup)
    ends = 0
    for t in range(turns):
        orders = biased_orders(eng, rng)
        eng.play_turn(orders)
        jx.play_turn(orders)
        got = jx.numpy_state()
        assert all(np.array_equal(got[f], getattr(eng, f)) for f in FIELDS), f"differs after turn {t + 1}"
        if eng.over.any():
            ends += int(eng.over.sum())
            setup, which = eng.random_setups(rng), eng.over.copy()
            eng.reset(np.arange(n) + 100 * (t + 1), *setup, which=which)
            jx.reset(np.arange(n) + 100 * (t + 1), *setup, which=which)
    assert ends > 0
    bad = np.array(orders)
    bad[:, 0] = [[0, 99, 0]]                 # an action code out of range: rejected at submission
    with pytest.raises(ValueError):
        jx.play_turn(bad)
