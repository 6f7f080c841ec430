"""The JAX backend of the batched arena gives the NumPy engine's boards bit for bit (R12-R28).

``jax`` is in the ``test`` extra (``botwars[jax]``): without it these tests fail, they are never
skipped. Each test body runs in a fresh process (``spawn``): JAX starts threads, and a test
worker that has loaded it must not fork afterwards (the bot pool and the sandboxed bots do)."""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.batch import BatchArena


def in_fresh_process(fn, *args):
    """Run ``fn(*args)`` in a new interpreter (spawned, not forked); its exceptions re-raise here."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


def random_codes(rng, shape, turn):
    """Order codes on every square: move-heavy turns (chains, contention, swaps) alternate with
    uniform turns (attacks, defence, self-destructs), plus codes outside 0-10 (no order)."""
    if turn % 2:
        return rng.choice(np.array([3, 4, 5, 6, 3, 4, 5, 6, 0, 1], dtype=np.int8), size=shape)
    return rng.integers(-2, 13, size=shape).astype(np.int8)


@pytest.mark.slow
@pytest.mark.parametrize("overrides", [
    {"max_turns": 30},
    {"map": "small", "spawn_interval": 2, "max_turns": 40, "self_destruct_damage": 40},
    {"spawn_interval": 3, "wipeout_ends_game": True, "attack_damage_enemy": 60, "defend_divisor": 3},
])
def test_R12_jax_backend_matches_numpy_engine(overrides):
    in_fresh_process(_jax_matches_numpy, overrides)


def _jax_matches_numpy(overrides):
    from botwars.games.arena.batch_jax import JaxArena
    cfg = get_ruleset("arena").validate_config(overrides)
    n = 48
    ref, jx = BatchArena(cfg, n), JaxArena(cfg, n)
    rng = np.random.default_rng(5)
    events = {"spawn": 0, "moved": 0, "killed": 0, "reset": 0}
    for turn in range(min(cfg["max_turns"], 60)):
        codes = random_codes(rng, ref.owner.shape, turn)
        before = ref.owner.copy()
        ref.step(codes)
        jx.step(codes)
        owner, hp, turns, over = jx.numpy()
        assert np.array_equal(owner, ref.owner), f"owner differs at turn {turn + 1}"
        assert np.array_equal(hp, ref.hp), f"hp differs at turn {turn + 1}"
        assert np.array_equal(turns, ref.turns) and np.array_equal(over, ref.over)
        events["spawn"] += int(turns[0] % cfg["spawn_interval"] == 0)
        events["moved"] += int(((before > 0) & (ref.owner == 0)).sum())
        events["killed"] += int(np.count_nonzero(before) > np.count_nonzero(ref.owner))
        if ref.over.any():
            events["reset"] += 1
            ref.reset_games(ref.over.copy())
            jx.reset_games(np.asarray(jx.over))
    assert all(events.values()), events   # the run went through spawns, moves, deaths and resets


@pytest.mark.slow
def test_jax_random_rollout_restarts_finished_games():
    in_fresh_process(_jax_rollout_restarts)


def _jax_rollout_restarts():
    import jax
    from botwars.games.arena.batch_jax import JaxArena
    cfg = get_ruleset("arena").validate_config({"map": "small", "max_turns": 5})
    jx = JaxArena(cfg, 8)
    robots, _ = jx.random_steps(jax.random.PRNGKey(0), 12)
    _, _, turns, over = jx.numpy()
    assert robots > 0 and not over.any()
    assert (turns == 2).all()          # 12 turns with a restart after turns 5 and 10
