"""Learning-environment throughput, measured as Pgx does (issue 16 item 3; not a test).

Random legal actions (uniform over each mask), auto-reset, batch sizes 1..4096, steps per
second and robot-actions per second, timed in process CPU time on one pinned core (the machine
is shared; ``--wall`` for wall-clock):

- ``pettingzoo parallel GAME``: the PettingZoo Parallel wrapper of every game, one scalar
  environment per batch member stepped in turn (referee and reference rules), actions sampled
  from each observation's flat mask;
- ``arena engine (numpy)``: the batched engine alone (``BatchArena.step``) with uniform random
  legal orders for both players and auto-reset — the floor any arena environment pays;
- ``arena vector env (numpy)``: ``botwars.rl.vector_env("arena", B, autoreset_mode="same_step")``
  (observations, masks, rewards, the random opponent, auto-reset), the learner's actions uniform
  over its mask (``batch.random_actions``, the same distribution as sampling the flat mask);
- ``arena vector env, mask sampler``: the same, the learner's actions sampled from the flat
  mask by the generic ``random_slot_actions`` (the cost of a policy reading 2,816 mask entries);
- ``masked sampler``: one call of the arena's ``action_space.sample(flat_mask)``
  (:class:`~botwars.rl.spaces.FlatMaskMultiDiscrete`, one whole-array draw) against Gymnasium's
  own ``MultiDiscrete.sample`` with one mask per slot (one ``choice`` per slot: the sampler the
  environments used before issue 29), in microseconds per call;
- ``submarine engine (numpy)``: :class:`~botwars.games.submarine.batch.BatchSubmarine` alone,
  whole turns (a "step" is one turn of one match: an action list of up to 8 random rows valid
  at submission, S-4.3), random set-ups and auto-reset (issue 29 item 3);
- ``submarine vector env (numpy)``: ``botwars.rl.vector_env("submarine", B)``, a step is one
  learner decision (a set-up pick, one action of the list, or the end of the list, as in the
  PettingZoo rows), learner uniform over its mask, the random opponent's whole turns inside;
- ``arena engine (jax, jit)``: :class:`~botwars.games.arena.batch_jax.JaxArena` on the CPU,
  random legal orders and auto-reset inside one compiled ``lax.scan`` (Pgx's own loop shape;
  compile time excluded), when ``jax`` is installed.

    PYTHONPATH=src python benchmarks/rl_throughput.py                 # short default run
    PYTHONPATH=src python benchmarks/rl_throughput.py --batches 1,16,256,1024,4096 --seconds 2

A "step" is one environment step of one batch member (a Parallel step: every seat's action);
robot-actions count the robots ordered (arena: each robot of each seat in play at the step;
other games: one per seat decision or program card; the submarine engine row: the action rows listed).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

import botwars.rl as rl
from botwars.rl.vector import random_slot_actions

# process CPU time: on a shared machine wall-clock also counts other processes
CLOCK = time.process_time

GAMES = ("arena", "dadoed", "factory", "geeko", "submarine")


def _sample(rng, mask, nvec):
    if len(nvec) > 1:
        return random_slot_actions(rng, mask[None], nvec)[0]
    rows = mask.reshape(len(nvec), -1)
    a = np.array([rng.choice(np.flatnonzero(r)) if r.any() else 0 for r in rows])
    return a if len(nvec) > 1 else int(a[0])


def pettingzoo_rate(game: str, batch: int, seconds: float) -> tuple[float, float]:
    envs = [rl.parallel_env(game) for _ in range(batch)]
    rng = np.random.default_rng(0)
    infos = [e.reset(seed=i)[1] for i, e in enumerate(envs)]
    steps = robots = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        for i, e in enumerate(envs):
            core = getattr(e, "core", None) or e.aec_env.core
            acts = {}
            for a in e.agents:
                acts[a] = _sample(rng, infos[i][a]["action_mask"], core.spec.nvec)
                if core.deciding(a):
                    robots += core.spec.robot_actions(core.view(a))
            _, _, term, trunc, info = e.step(acts)
            steps += 1
            infos[i] = info if e.agents else e.reset()[1]
    dt = CLOCK() - t0
    return steps / dt, robots / dt


def pin_one_core() -> str:
    """Restrict this process to one CPU (Linux); returns a description."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return f"pinned to CPU {cpus[-1]}"
    except (AttributeError, OSError):
        return "not pinned"


def vector_rate(batch: int, seconds: float, sampler: str = "spec") -> tuple[float, float]:
    venv = rl.vector_env("arena", batch, autoreset_mode="same_step")
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    engine = venv.batch.engine
    steps = robots = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        robots += engine.robots_in_play()
        if sampler == "spec":
            acts = venv.batch.random_actions(rng, 1)
        else:
            acts = random_slot_actions(rng, venv.action_masks(), venv.spec.nvec)
        obs, *_ = venv.step(acts)
        steps += batch
    dt = CLOCK() - t0
    return steps / dt, robots / dt


def sampler_us(which: str, seconds: float) -> float:
    """Microseconds per masked sample of the arena's action space (a mid-game mask: robots on
    a fifth of the squares). ``which``: ``"flat"`` (:class:`FlatMaskMultiDiscrete`, one
    whole-array draw) or ``"per-slot"`` (Gymnasium's ``MultiDiscrete.sample`` with a mask per
    slot, the sampler used before issue 29)."""
    from gymnasium.spaces import MultiDiscrete
    p = rl.parallel_env("arena")
    space = p.action_space("p1")
    space.seed(0)
    rng = np.random.default_rng(0)
    slots = len(space.nvec)
    own = rng.random(slots) < 0.2
    mask = np.zeros((slots, 11), dtype=np.int8)
    mask[:, 0] = 1
    mask[own] = 1
    flat = mask.reshape(-1)
    if which == "flat":
        def call() -> None:
            space.sample(flat)
    else:
        rows = tuple(np.ascontiguousarray(m) for m in mask)
        plain = MultiDiscrete(space.nvec)
        plain.seed(0)

        def call() -> None:
            plain.sample(mask=rows)
    n = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        for _ in range(20):
            call()
        n += 20
    return (CLOCK() - t0) / n * 1e6


def engine_rate(batch: int, seconds: float) -> tuple[float, float]:
    """The batched NumPy engine alone: random legal orders for both players, auto-reset."""
    from botwars.engine.ruleset import get_ruleset
    from botwars.games.arena.batch import BatchArena
    engine = BatchArena(get_ruleset("arena").validate_config({}), batch)
    rng = np.random.default_rng(0)
    steps = robots = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        robots += engine.robots_in_play()
        # uniform over the 11 slot actions on every robot's square (codes on empty squares are ignored)
        engine.step(rng.integers(0, 11, size=engine.owner.shape, dtype=np.int8))
        engine.reset_games(engine.over)
        steps += batch
    dt = CLOCK() - t0
    return steps / dt, robots / dt


def submarine_engine_rate(batch: int, seconds: float) -> tuple[float, float]:
    """The batched submarine engine alone: random whole turns, random set-ups, auto-reset."""
    from botwars.engine.ruleset import get_ruleset
    from botwars.games.submarine.batch import BatchSubmarine
    engine = BatchSubmarine(get_ruleset("submarine").validate_config({}), batch)
    rng = np.random.default_rng(0)
    engine.reset(np.arange(batch), *engine.random_setups(rng))
    steps = actions = started = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        orders = engine.random_orders(rng, 8)
        actions += int((orders[..., 0] >= 0).sum())
        engine.play_turn(orders)
        if engine.over.any():
            started += batch
            engine.reset(np.arange(batch) + started, *engine.random_setups(rng), which=engine.over)
        steps += batch
    dt = CLOCK() - t0
    return steps / dt, actions / dt


def submarine_vector_rate(batch: int, seconds: float) -> tuple[float, float]:
    """``vector_env("submarine", B)``: one learner decision per step, random opponent."""
    env = rl.vector_env("submarine", batch, autoreset_mode="same_step")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        env.step(env.batch.random_actions(rng, 1))
        steps += batch
    dt = CLOCK() - t0
    return steps / dt, steps / dt


def jax_rate(batch: int, seconds: float) -> tuple[float, float]:
    import jax

    from botwars.engine.ruleset import get_ruleset
    from botwars.games.arena.batch_jax import JaxArena
    engine = JaxArena(get_ruleset("arena").validate_config({}), batch)
    key = jax.random.PRNGKey(0)
    chunk = max(1, min(200, 20000 // batch))
    engine.random_steps(key, chunk)       # compile
    steps = robots = 0
    t0 = CLOCK()
    while CLOCK() - t0 < seconds:
        r, key = engine.random_steps(key, chunk)
        robots += r
        steps += batch * chunk
    dt = CLOCK() - t0
    return steps / dt, robots / dt


def main() -> None:
    global CLOCK
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="1,16,256,1024", help="comma-separated arena batch sizes (up to 4096)")
    ap.add_argument("--pz-batches", default="1,8", help="batch sizes for the PettingZoo wrappers")
    ap.add_argument("--seconds", type=float, default=1.5, help="seconds per measurement")
    ap.add_argument("--games", default=",".join(GAMES), help="PettingZoo rows ('' for none)")
    ap.add_argument("--no-jax", action="store_true", help="skip the JAX row")
    ap.add_argument("--wall", action="store_true", help="wall-clock instead of process CPU time")
    args = ap.parse_args()
    if args.wall:
        CLOCK = time.perf_counter
    pinned = pin_one_core()
    warnings.simplefilter("ignore")
    print(f"# {pinned}, {'wall-clock' if args.wall else 'process CPU time'}, {args.seconds} s per row")
    print(f"{'environment':34} {'batch':>6} {'steps/s':>12} {'robot-actions/s':>16}")
    for game in filter(None, args.games.split(",")):
        for b in (int(x) for x in args.pz_batches.split(",")):
            s, r = pettingzoo_rate(game, b, args.seconds)
            print(f"{'pettingzoo parallel ' + game:34} {b:>6} {s:>12,.0f} {r:>16,.0f}", flush=True)
    for which in ("per-slot", "flat"):
        print(f"{'masked sampler, arena (' + which + ')':34} {'':>6} {sampler_us(which, args.seconds):>10,.1f} µs/call",
              flush=True)
    rows = [("arena engine (numpy)", engine_rate),
            ("arena vector env (numpy)", vector_rate),
            ("arena vector env, mask sampler", lambda b, sec: vector_rate(b, sec, "mask")),
            ("submarine engine (numpy) [turns]", submarine_engine_rate),
            ("submarine vector env (numpy)", submarine_vector_rate)]
    if not args.no_jax:
        try:
            import jax  # noqa: F401
            rows.append(("arena engine (jax, jit, cpu)", jax_rate))
        except ImportError:
            print("jax not installed: no JAX row (pip install botwars[jax])")
    for name, fn in rows:
        for b in (int(x) for x in args.batches.split(",")):
            s, r = fn(b, args.seconds)
            print(f"{name:34} {b:>6} {s:>12,.0f} {r:>16,.0f}", flush=True)


if __name__ == "__main__":
    main()
