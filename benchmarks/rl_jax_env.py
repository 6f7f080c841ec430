"""Throughput of the whole arena environment in JAX, observations and masks built (issue 29 item 2; not a test).

Rows (a "step" is one environment step of one match; robot-actions are not counted here):

- ``arena env (jax, DEVICE)``: :class:`~botwars.games.arena.env_jax.ArenaJaxEnv`'s pure ``step``
  under ``jax.vmap``, ``--steps`` steps per call inside one compiled ``lax.scan``
  (:meth:`ArenaJaxEnv.random_rollout`): the learner uniform over its mask (read from the mask
  the previous step built), the opponent (``--opponent``), auto-reset (``next_step``), rewards, and every
  step's observation (``board`` ``(7, 16, 16)`` and ``vector``) and flat mask (2,816 ``int8``)
  built and summed into a checksum so that XLA cannot leave them out. Compile time is printed
  apart and excluded. Wall-clock, after ``block_until_ready``.
- ``arena vector env (numpy)``: ``botwars.rl.vector_env("arena", B)`` (the NumPy vector env,
  next-step auto-reset, the same opponent), the learner uniform over its mask, wall-clock and
  process CPU time (one thread).

``--opponent`` (default ``random``): ``idle``, ``defender`` or ``hunter`` in both rows.

On a machine with a CUDA GPU and ``jax[cuda12]`` installed JAX runs on the GPU by itself; the
first line printed names the device. The default map (16 × 16) and parameters.

    PYTHONPATH=src python benchmarks/rl_jax_env.py                              # CPU, small batches
    PYTHONPATH=src python benchmarks/rl_jax_env.py --check 300 --batches 4096,16384,65536,262144 \\
        --numpy-batches 4096 --steps 100 --seconds 5                           # a GPU (docs/rl.md)

``--check STEPS`` first compares the JAX environment on the device with the NumPy vector env
(bit for bit, 64 matches, the NumPy env fed the JAX env's random draws) and stops with an
``AssertionError`` at the first difference.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def jax_rate(batch: int, steps: int, seconds: float, opponent: str = "random") -> tuple[float, float, float]:
    """``(env-steps/s, compile seconds, checksum)`` of the JAX environment at ``batch``."""
    import jax

    from botwars.rl.core import Core
    core = Core("arena", {})
    env = core.game.functional_env(core.spec, core.config, "jax", opponent=opponent)
    state, _, mask = env.reset_batch(jax.random.split(jax.random.PRNGKey(0), batch))
    run = env.random_rollout(batch, steps)
    key = jax.random.PRNGKey(1)
    t0 = time.perf_counter()
    run = run.lower(state, mask, key).compile()          # ahead of time: compile apart from running
    compile_s = time.perf_counter() - t0
    state, mask, key, acc = run(state, mask, key)        # a warm-up call, not timed
    acc.block_until_ready()
    calls = 0
    t0 = time.perf_counter()
    while calls < 2 or time.perf_counter() - t0 < seconds:
        state, mask, key, acc = run(state, mask, key)
        acc.block_until_ready()
        calls += 1
    dt = time.perf_counter() - t0
    return batch * steps * calls / dt, compile_s, float(acc)


def numpy_rate(batch: int, seconds: float, opponent: str = "random") -> tuple[float, float]:
    """``(env-steps/s wall-clock, env-steps/s of process CPU time)`` of the NumPy vector env."""
    import botwars.rl as rl
    venv = rl.vector_env("arena", batch, opponent=opponent)
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    n = 0
    w0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - w0 < seconds:
        venv.step(venv.batch.random_actions(rng, 1))
        n += batch
    return n / (time.perf_counter() - w0), n / max(time.process_time() - c0, 1e-9)


def check_identical(steps: int, n: int = 64, opponent: str = "random") -> int:
    """Play ``steps`` steps of ``n`` matches through the JAX environment (on JAX's default
    device) and the NumPy vector env with the same learner actions (the NumPy env given the JAX
    env's random draws as its opponent, as in ``tests/arena/test_arena_env_jax.py``), comparing
    every observation, mask, reward and termination exactly. Returns the matches that ended;
    raises ``AssertionError`` at the first difference."""
    import botwars.rl as rl
    from botwars.rl.vector import BatchVectorEnv, random_slot_actions
    jenv = rl.vector_env("arena", n, engine="jax", opponent=opponent)
    fed: dict[str, np.ndarray] = {}
    nenv = BatchVectorEnv("arena", n, opponent=(lambda obs2: fed.pop("a")) if opponent == "random" else opponent)
    jo, _ = jenv.reset(seed=0)
    no, _ = nenv.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(steps + 1):
        assert all(np.array_equal(jo[k], no[k]) for k in no), f"observation differs at step {t}"
        assert np.array_equal(jenv.action_masks(), nenv.action_masks()), f"mask differs at step {t}"
        if t == steps:
            break
        a = random_slot_actions(rng, nenv.action_masks(), nenv.spec.nvec)
        jo, jr, jt, _, ji = jenv.step(a)
        fed["a"] = ji["opponent_actions"]
        no, nr, nt, _, _ = nenv.step(a)
        assert np.array_equal(jr, nr) and np.array_equal(jt, nt), f"reward or end differs at step {t + 1}"
        ended += int(nt.sum())
    return ended


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="1024,4096,16384", help="comma-separated JAX batch sizes")
    ap.add_argument("--numpy-batches", default="1024,4096", help="NumPy vector env batch sizes ('' for none)")
    ap.add_argument("--steps", type=int, default=50, help="steps per compiled call (lax.scan length)")
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (at least two calls)")
    ap.add_argument("--opponent", default="random", help="random, idle, defender or hunter (both environments)")
    ap.add_argument("--check", type=int, default=0, metavar="STEPS",
                    help="first compare the JAX env on this device with the NumPy env for STEPS steps of 64 matches")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import jax
    dev = jax.devices()[0]
    print(f"# jax {jax.__version__} on {dev.platform}: {getattr(dev, 'device_kind', dev)} "
          f"({len(jax.devices())} device(s)); wall-clock; default map 16x16, {args.opponent} opponent, "
          "next-step auto-reset")
    if args.check:
        ended = check_identical(args.check, opponent=args.opponent)
        print(f"# bit-identical to the NumPy vector env on {dev.platform}: {args.check} steps x 64 matches, "
              f"{ended} ends (observations, masks, rewards, terminations)")
    print(f"{'environment':30} {'batch':>7} {'env-steps/s':>14} {'compile s':>10}")
    for b in (int(x) for x in args.batches.split(",") if x):
        rate, comp, acc = jax_rate(b, args.steps, args.seconds, args.opponent)
        assert np.isfinite(acc)
        print(f"{'arena env (jax, ' + dev.platform + ')':30} {b:>7} {rate:>14,.0f} {comp:>10.1f}", flush=True)
    for b in (int(x) for x in args.numpy_batches.split(",") if x):
        wall, cpu = numpy_rate(b, args.seconds, args.opponent)
        print(f"{'arena vector env (numpy)':30} {b:>7} {wall:>14,.0f}   (per CPU-second: {cpu:,.0f})", flush=True)


if __name__ == "__main__":
    main()
