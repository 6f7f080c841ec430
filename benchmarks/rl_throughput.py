"""Learning-environment throughput, measured as Pgx does (issue 16 item 3; not a test).

Random legal actions (uniform over each mask), auto-reset, steps per second and robot-actions
per second, for the PettingZoo Parallel wrapper of every game (one environment per batch
member, stepped in turn: a batch of B environments is B scalar environments) and the arena
vector environment (NumPy batched engine) at batch sizes 1..4096.

    PYTHONPATH=src python benchmarks/rl_throughput.py                 # short default run
    PYTHONPATH=src python benchmarks/rl_throughput.py --batches 1,16,256,1024,4096 --seconds 5

A "step" is one environment step of one batch member (a Parallel step: every seat's action);
robot-actions count the robots ordered (arena: each robot of each seat; other games: one per
seat decision or program card).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import botwars.rl as rl
from botwars.rl.vector import random_slot_actions

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
    obs = [e.reset(seed=i)[0] for i, e in enumerate(envs)]
    steps = robots = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for i, e in enumerate(envs):
            core = getattr(e, "core", None) or e.aec_env.core
            acts = {}
            for a in e.agents:
                acts[a] = _sample(rng, obs[i][a]["action_mask"], core.spec.nvec)
                if core.deciding(a):
                    robots += core.spec.robot_actions(core.view(a))
            o, _, term, trunc, _ = e.step(acts)
            steps += 1
            obs[i] = o if e.agents else e.reset()[0]
    dt = time.perf_counter() - t0
    return steps / dt, robots / dt


def vector_rate(batch: int, seconds: float) -> tuple[float, float]:
    venv = rl.vector_env("arena", batch, autoreset_mode="same_step")
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = robots = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        robots += int(venv.batch.robots(1).sum() + venv.batch.robots(2).sum())
        obs, *_ = venv.step(random_slot_actions(rng, obs["action_mask"], venv.spec.nvec))
        steps += batch
    dt = time.perf_counter() - t0
    return steps / dt, robots / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="1,16,256", help="comma-separated vector batch sizes (up to 4096)")
    ap.add_argument("--pz-batches", default="1,8", help="batch sizes for the PettingZoo wrappers")
    ap.add_argument("--seconds", type=float, default=1.5, help="seconds per measurement")
    ap.add_argument("--games", default=",".join(GAMES))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'environment':34} {'batch':>6} {'steps/s':>12} {'robot-actions/s':>16}")
    for game in args.games.split(","):
        for b in (int(x) for x in args.pz_batches.split(",")):
            s, r = pettingzoo_rate(game, b, args.seconds)
            print(f"{'pettingzoo parallel ' + game:34} {b:>6} {s:>12,.0f} {r:>16,.0f}")
    for b in (int(x) for x in args.batches.split(",")):
        s, r = vector_rate(b, args.seconds)
        print(f"{'arena vector (numpy)':34} {b:>6} {s:>12,.0f} {r:>16,.0f}")


if __name__ == "__main__":
    main()
