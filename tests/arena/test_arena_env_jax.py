"""The arena's JAX environment (``games/arena/env_jax.py``, pure ``reset``/``step`` under
``jit``/``vmap``, and ``botwars.rl.vector_jax.JaxVectorEnv`` on top) gives the NumPy vector
environment's observations, masks, rewards, terminations and infos bit for bit (issue 29 item 2).

How the comparison is made: both environments run the same configuration with the same learner
actions (drawn here from a NumPy generator over the masks, with masked-out actions injected on
some steps). With the ``idle`` and ``defender`` opponents both environments play their own
opponent. The ``random`` opponent draws from ``jax.random`` in JAX and from a NumPy generator in
NumPy, two streams that cannot agree; so the NumPy environment is given, as its (callable)
opponent, the JAX environment's draws of the same step (``info["opponent_actions"]``), after
checking that they are allowed by the mask the NumPy environment publishes for player 2.

``jax`` is in the ``test`` extra: without it these tests fail, they are never skipped. Each JAX
test body runs in a fresh process (``spawn``), as in ``test_arena_batch_jax.py``.
"""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

import botwars.rl as rl
from botwars.rl.vector import BatchVectorEnv, random_slot_actions

N_ACTIONS = 11


def in_fresh_process(fn, *args):
    """Run ``fn(*args)`` in a new interpreter (spawned, not forked); its exceptions re-raise here."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


CASES = [
    # (opponent, autoreset mode, config): turn-limit ends, spawns, wipeouts, all three modes
    ("random", "next_step", {"map": "small", "max_turns": 9, "spawn_interval": 3}),
    ("random", "same_step", {"map": "small", "max_turns": 40, "spawn_interval": 2, "wipeout_ends_game": True,
                             "attack_damage_enemy": 60, "self_destruct_damage": 40}),
    ("hunter", "same_step", {"map": "small", "max_turns": 14, "spawn_interval": 3, "wipeout_ends_game": True,
                             "attack_damage_enemy": 30}),
    ("defender", "next_step", {"map": "small", "max_turns": 7, "spawn_interval": 2}),
    ("idle", "disabled", {"max_turns": 20}),
]


def test_jax_env_matches_numpy_vector_env():
    in_fresh_process(_compare_cases, CASES[:3], 40)


@pytest.mark.slow
def test_jax_env_matches_numpy_vector_env_defender_and_idle():
    in_fresh_process(_compare_cases, CASES[3:], 30)


def _compare_cases(cases, steps, n=12):
    from botwars.rl.vector_jax import JaxVectorEnv
    for opponent, mode, cfg in cases:
        jenv = rl.vector_env("arena", n, engine="jax", opponent=opponent, autoreset_mode=mode, **cfg)
        assert isinstance(jenv, JaxVectorEnv)
        for seed in (0, 7):       # the same environments, reset with another seed
            _compare(jenv, opponent, mode, cfg, seed, steps, n)


def _compare(jenv, opponent, mode, cfg, seed, steps, n):
    fed = {}

    def feeder(obs2):
        a = fed.pop("actions")
        allowed = obs2["action_mask"].reshape(n, -1, N_ACTIONS)
        assert np.take_along_axis(allowed, a[:, :, None], axis=2).all(), "a JAX draw outside player 2's mask"
        return a

    nenv = BatchVectorEnv("arena", n, opponent=feeder if opponent == "random" else opponent,
                          autoreset_mode=mode, **cfg)
    jo, _ = jenv.reset(seed=seed)
    no, _ = nenv.reset(seed=seed)
    _same_obs(jo, no, "reset")
    assert np.array_equal(jenv.action_masks(), nenv.action_masks())
    rng = np.random.default_rng(seed)
    seen = {"ends": 0, "wins": 0, "losses": 0, "illegal": 0, "opp_values": set()}
    nvec = nenv.spec.nvec
    for t in range(steps):
        mask = nenv.action_masks()
        a = random_slot_actions(rng, mask, nvec)
        if t % 5 == 3:      # masked-out actions in some matches: an order on a square without a robot
            free = np.flatnonzero(mask.reshape(n, -1, N_ACTIONS)[0, :, 1] == 0)
            a[::3, free[0]] = 4
        jo, jr, jt, jtr, ji = jenv.step(a)
        if opponent == "random":
            fed["actions"] = ji["opponent_actions"]
        no, nr, nt, ntr, ni = nenv.step(a)
        where = f"{opponent}/{mode} seed {seed} step {t + 1}"
        _same_obs(jo, no, where)
        assert np.array_equal(jenv.action_masks(), nenv.action_masks()), where
        assert jenv.action_masks().dtype == np.int8
        for x, y in ((jr, nr), (jt, nt), (jtr, ntr), (ji["illegal"], ni["illegal"]),
                     (ji["opponent_actions"], ni["opponent_actions"])):
            assert x.dtype == y.dtype and np.array_equal(x, y), where
        assert ("final_obs" in ji) == ("final_obs" in ni), where
        if "final_obs" in ni:
            assert np.array_equal(ji["_final_obs"], ni["_final_obs"]), where
            _same_obs(ji["final_obs"], ni["final_obs"], where + " final_obs")
        seen["ends"] += int(nt.sum())
        seen["wins"] += int((nr > 0).sum())
        seen["losses"] += int((nr < 0).sum())
        seen["illegal"] += int(ni["illegal"].sum())
        seen["opp_values"] |= set(np.unique(ni["opponent_actions"]).tolist())
    # the run went through ends with both signs of reward (auto-resets where the mode has them)
    # and masked-out actions; the random opponent played every slot action
    assert seen["ends"] > 0 and seen["illegal"] > 0, seen
    if opponent in ("random", "defender"):
        assert seen["wins"] > 0 and seen["losses"] > 0, seen
    if opponent == "hunter":     # a random learner never beats it (there are no wins to compare)
        assert seen["losses"] > 0, seen
    if opponent == "random":
        assert seen["opp_values"] == set(range(N_ACTIONS)), seen
    if opponent == "defender":
        assert seen["opp_values"] == {0, 1}, seen
    if opponent == "hunter":     # moves, attacks and defence were all compared
        assert {1, 3, 7} <= {v if v < 3 else 3 if v < 7 else 7 for v in seen["opp_values"]}, seen


def _same_obs(a, b, where):
    assert set(a) == set(b) == {"board", "vector"}, where
    for k in a:
        assert a[k].dtype == b[k].dtype == np.float32, (where, k)
        assert a[k].shape == b[k].shape, (where, k)
        assert np.array_equal(a[k], b[k]), f"{k} differs at {where}"


def test_jax_env_seeds_pure_functions_and_malformed_actions():
    in_fresh_process(_seeds_and_errors)


def _seeds_and_errors():
    import jax
    import jax.numpy as jnp

    from botwars.rl.core import Core
    n, cfg = 6, {"map": "small", "max_turns": 10}
    env = rl.vector_env("arena", n, engine="jax", **cfg)
    with pytest.raises(RuntimeError):
        env.step(np.zeros((n, len(env.spec.nvec)), dtype=np.int64))

    def run(seed):
        obs, _ = env.reset(seed=seed)
        assert env.observation_space.contains(obs)
        out = []
        for _ in range(6):
            a = np.where(env.action_masks().reshape(n, -1, N_ACTIONS)[:, :, 1] > 0, 3, 0)
            obs, reward, term, trunc, info = env.step(a)
            assert env.observation_space.contains(obs) and env.action_space.contains(a)
            assert reward.shape == term.shape == trunc.shape == (n,)
            out.append(info["opponent_actions"])
        return np.stack(out)
    first, again, other = run(3), run(3), run(4)
    assert np.array_equal(first, again)          # same seed, same opponent draws
    assert not np.array_equal(first, other)      # another seed, other draws
    env.reset(seed=0)
    for bad in (None, np.zeros((n, 3), dtype=np.int64), np.full((n, len(env.spec.nvec)), 0.5),
                np.full((n, len(env.spec.nvec)), -1), np.full((n, len(env.spec.nvec)), 11)):
        with pytest.raises(ValueError):
            env.step(bad)
    # the pure functions: one match under jit, a batch under vmap, give the same arrays
    core = Core("arena", cfg)
    fenv = core.game.functional_env(core.spec, core.config, "jax", opponent="random")
    keys = jax.random.split(jax.random.PRNGKey(1), 3)
    bstate, bobs, bmask = fenv.reset_batch(keys)
    state, obs, mask = jax.jit(fenv.reset)(keys[2])
    assert np.array_equal(np.asarray(obs["board"]), np.asarray(bobs["board"][2]))
    act = jnp.where(bmask.reshape(3, -1, N_ACTIONS)[:, :, 1] > 0, 7, 0)
    single = jax.jit(fenv.step)(state, act[2])
    batched = fenv.step_batch(bstate, act)
    for x, y in zip(jax.tree_util.tree_leaves(single), jax.tree_util.tree_leaves(batched)):
        assert np.array_equal(np.asarray(x), np.asarray(y)[2])
    # the benchmark's compiled rollout plays the same steps as step_batch with the same draws
    run = fenv.random_rollout(3, 4)
    end, end_mask, _, checksum = run(bstate, bmask, jax.random.PRNGKey(5))
    state, mask, key, total = bstate, bmask, jax.random.PRNGKey(5), 0.0
    for _ in range(4):
        key, sub = jax.random.split(key)
        draw = jax.random.randint(sub, (3, fenv.slots), 0, N_ACTIONS, dtype=jnp.int32)
        state, obs, mask, reward, *_ = fenv.step_batch(state, jnp.where(mask.reshape(3, -1, N_ACTIONS)[:, :, 1] > 0,
                                                                        draw, 0))
        total += (np.asarray(obs["board"], dtype=np.float64).sum() + np.asarray(obs["vector"], dtype=np.float64).sum()
                  + np.asarray(mask, dtype=np.int64).sum() + np.asarray(reward, dtype=np.float64).sum())
    for x, y in zip(jax.tree_util.tree_leaves(end), jax.tree_util.tree_leaves(state)):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    assert np.array_equal(np.asarray(end_mask), np.asarray(mask))
    assert abs(float(checksum) - total) <= 1e-5 * total and total > 0


def test_numpy_vector_env_defender_opponent_defends_with_every_robot():
    from botwars.engine.errors import ConfigError
    n = 5
    env = BatchVectorEnv("arena", n, opponent="defender", autoreset_mode="same_step", map="small", max_turns=8,
                         spawn_interval=2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        theirs = env.batch.observe(2)["action_mask"].reshape(n, -1, N_ACTIONS)[:, :, 1] > 0
        _, _, _, _, info = env.step(random_slot_actions(rng, env.action_masks(), env.spec.nvec))
        assert theirs.any()
        assert np.array_equal(info["opponent_actions"], np.where(theirs, 1, 0))   # 1: defend (D)
    with pytest.raises(ConfigError):
        BatchVectorEnv("arena", n, opponent="swarm")   # not played in batch
