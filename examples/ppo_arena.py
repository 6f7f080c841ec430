"""PPO on the arena against the built-in random bot (issue 29 item 4), in JAX.

The learner is player 1 of ``--envs`` arena matches stepped together by
``botwars.rl.vector_env("arena", N)`` (the batched NumPy engine, docs/rl.md); the opponent is
the random bot (uniform legal orders). The policy is a small fully convolutional network over
the observation planes (7 × H × W, plus the 2 vector entries broadcast as planes): 11 action
logits per square, masked by the environment's action mask (only the learner's robots' squares
are free), and a value head on the pooled features. The joint action of a turn is one action per
robot; its log-probability is the sum over the learner's robots. Standard clipped PPO with GAE;
Adam written out (no optimiser library).

Extra: ``pip install botwars[ppo]`` (pins ``jax``). Command (docs/rl.md gives the figures)::

    PYTHONPATH=src python examples/ppo_arena.py --cpu-minutes 10 --eval 400 --out ppo.json

At the end it plays ``--eval`` fresh matches with the greedy policy (the most likely allowed
action on each robot) and prints the win rate with its 95 % Wilson interval (draws count as not
won) and the process CPU minutes of training.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import botwars.rl as rl

N_ACT = 11


def init_params(key: Any, c_in: int, hidden: int) -> dict[str, jnp.ndarray]:
    """Conv 3×3 (c_in → hidden → hidden → hidden), 1×1 policy head (hidden → 11), value head."""
    ks = jax.random.split(key, 5)

    def conv(k: Any, ci: int, co: int, size: int = 3) -> jnp.ndarray:
        return jax.random.normal(k, (size, size, ci, co)) * math.sqrt(2.0 / (size * size * ci))

    return {"c1": conv(ks[0], c_in, hidden), "b1": jnp.zeros(hidden),
            "c2": conv(ks[1], hidden, hidden), "b2": jnp.zeros(hidden),
            "c3": conv(ks[2], hidden, hidden), "b3": jnp.zeros(hidden),
            "pi": conv(ks[3], hidden, N_ACT, 1) * 0.01, "bpi": jnp.zeros(N_ACT),
            "v": jax.random.normal(ks[4], (hidden, 1)) * 0.01, "bv": jnp.zeros(1)}


def _conv(x: jnp.ndarray, w: jnp.ndarray, b: jnp.ndarray) -> jnp.ndarray:
    y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "HWIO", "NCHW"))
    return y + b[None, :, None, None]


def net(p: dict[str, jnp.ndarray], board: jnp.ndarray, vec: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """``board`` (B, 7, H, W), ``vec`` (B, 2) → logits (B, H*W, 11) (slot = square in row-major
    order, the arena's action layout) and values (B,)."""
    b, _, h, w = board.shape
    x = jnp.concatenate([board, jnp.broadcast_to(vec[:, :, None, None], (b, vec.shape[1], h, w))], axis=1)
    x = jax.nn.relu(_conv(x, p["c1"], p["b1"]))
    x = jax.nn.relu(_conv(x, p["c2"], p["b2"])) + x
    x = jax.nn.relu(_conv(x, p["c3"], p["b3"])) + x
    logits = _conv(x, p["pi"], p["bpi"]).transpose(0, 2, 3, 1).reshape(b, h * w, N_ACT)
    value = (x.mean(axis=(2, 3)) @ p["v"] + p["bv"])[:, 0]
    return logits, value


def masked_logp(logits: jnp.ndarray, mask: jnp.ndarray) -> jnp.ndarray:
    return jax.nn.log_softmax(jnp.where(mask, logits, -1e9), axis=-1)


@jax.jit
def act(p: dict[str, jnp.ndarray], board: jnp.ndarray, vec: jnp.ndarray, mask: jnp.ndarray,
        key: Any) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """Sampled actions (B, slots), their joint log-probabilities (B,) and values (B,)."""
    logits, value = net(p, board, vec)
    lp = masked_logp(logits, mask)
    a = jax.random.categorical(key, lp, axis=-1)
    own = mask.sum(-1) > 1
    a = jnp.where(own, a, 0)
    joint = jnp.where(own, jnp.take_along_axis(lp, a[..., None], -1)[..., 0], 0.0).sum(-1)
    return a, joint, value


@jax.jit
def greedy(p: dict[str, jnp.ndarray], board: jnp.ndarray, vec: jnp.ndarray, mask: jnp.ndarray) -> jnp.ndarray:
    logits, _ = net(p, board, vec)
    return jnp.argmax(jnp.where(mask, logits, -1e9), axis=-1)


def loss_fn(p: dict[str, jnp.ndarray], batch: dict[str, jnp.ndarray], clip: float, vf: float,
            ent: float) -> jnp.ndarray:
    logits, value = net(p, batch["board"], batch["vec"])
    lp = masked_logp(logits, batch["mask"])
    own = batch["mask"].sum(-1) > 1
    joint = jnp.where(own, jnp.take_along_axis(lp, batch["act"][..., None], -1)[..., 0], 0.0).sum(-1)
    ratio = jnp.exp(joint - batch["logp"])
    adv = batch["adv"]
    pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - clip, 1 + clip) * adv).mean()
    v_loss = ((value - batch["ret"]) ** 2).mean()
    probs = jnp.exp(lp)
    entropy = jnp.where(own, -(probs * jnp.where(batch["mask"], lp, 0.0)).sum(-1), 0.0).sum(-1)
    entropy = (entropy / jnp.maximum(own.sum(-1), 1)).mean()
    return pg + vf * v_loss - ent * entropy


@jax.jit
def adam_step(p: Any, m: Any, v: Any, t: jnp.ndarray, batch: dict[str, jnp.ndarray], lr: float
              ) -> tuple[Any, Any, Any, jnp.ndarray]:
    """One Adam step (β 0.9 / 0.999, gradients clipped to norm 0.5) on the PPO loss."""
    g = jax.grad(loss_fn)(p, batch, 0.2, 0.5, 0.01)
    norm = jnp.sqrt(sum(jnp.sum(x * x) for x in jax.tree_util.tree_leaves(g)))
    g = jax.tree_util.tree_map(lambda x: x * jnp.minimum(1.0, 0.5 / (norm + 1e-8)), g)
    t = t + 1
    m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
    v = jax.tree_util.tree_map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
    step = lr * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
    p = jax.tree_util.tree_map(lambda a, mm, vv: a - step * mm / (jnp.sqrt(vv) + 1e-8), p, m, v)
    return p, m, v, t


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return 0.0, 1.0
    ph = wins / n
    d = 1 + z * z / n
    c = (ph + z * z / (2 * n)) / d
    h = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def evaluate(p: Any, episodes: int, envs: int, seed: int, mode: str) -> tuple[int, int, int]:
    """The policy against the random bot, ``mode`` ``"sample"`` (actions drawn from the policy,
    as in training) or ``"greedy"`` (the most likely allowed action on each robot): (wins,
    draws, losses) over ``episodes`` matches, played in rounds of ``envs`` whole matches (every
    match of a round counted, none cut)."""
    key = jax.random.PRNGKey(seed)
    res = [0, 0, 0]
    env = rl.vector_env("arena", envs, opponent="random", autoreset_mode="disabled")
    for rnd in range(math.ceil(episodes / envs)):
        obs, _ = env.reset(seed=seed + rnd)
        live = np.ones(envs, bool)
        while live.any():
            mask = env.action_masks().reshape(envs, -1, N_ACT).astype(bool)
            args = (p, jnp.asarray(obs["board"]), jnp.asarray(obs["vector"]), jnp.asarray(mask))
            if mode == "greedy":
                a = np.asarray(greedy(*args))
            else:
                key, k = jax.random.split(key)
                a = np.asarray(act(*args, k)[0])
            obs, r, term, trunc, _ = env.step(np.where(live[:, None], a, 0))
            for g in np.flatnonzero(term & live):
                res[0 if r[g] > 0 else 1 if r[g] == 0 else 2] += 1
            live &= ~term
    return res[0], res[1], res[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=64, help="matches stepped together")
    ap.add_argument("--steps", type=int, default=32, help="steps per environment per update")
    ap.add_argument("--cpu-minutes", type=float, default=10.0, help="training budget, process CPU minutes")
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--eval", type=int, default=400, help="evaluation matches (fresh seeds)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="write the curve and the result as JSON here")
    args = ap.parse_args()

    env = rl.vector_env("arena", args.envs, opponent="random", autoreset_mode="same_step")
    obs, _ = env.reset(seed=args.seed)
    key = jax.random.PRNGKey(args.seed)
    key, k0 = jax.random.split(key)
    p = init_params(k0, obs["board"].shape[1] + obs["vector"].shape[1], args.hidden)
    m = jax.tree_util.tree_map(jnp.zeros_like, p)
    v = jax.tree_util.tree_map(jnp.zeros_like, p)
    t = jnp.zeros((), jnp.int32)
    before = report(p, args)     # the untrained policy: the baseline (not counted in the budget)
    print(json.dumps({"untrained": before}), flush=True)
    gamma, lam = 0.99, 0.95
    curve: list[dict[str, float]] = []
    recent: list[float] = []
    steps = 0
    t0 = time.process_time()
    it = 0
    while time.process_time() - t0 < args.cpu_minutes * 60:
        buf: dict[str, list[Any]] = {k: [] for k in ("board", "vec", "mask", "act", "logp", "val", "rew", "done")}
        for _ in range(args.steps):
            mask = env.action_masks().reshape(args.envs, -1, N_ACT).astype(bool)
            key, k = jax.random.split(key)
            a, lp, val = act(p, jnp.asarray(obs["board"]), jnp.asarray(obs["vector"]), jnp.asarray(mask), k)
            a = np.asarray(a)
            buf["board"].append(obs["board"]); buf["vec"].append(obs["vector"]); buf["mask"].append(mask)
            buf["act"].append(a); buf["logp"].append(np.asarray(lp)); buf["val"].append(np.asarray(val))
            obs, r, term, trunc, _ = env.step(a)
            buf["rew"].append(r); buf["done"].append(term | trunc)
            recent += [float(x) for x in r[term]]
        steps += args.steps * args.envs
        _, last = net(p, jnp.asarray(obs["board"]), jnp.asarray(obs["vector"]))
        vals = np.stack(buf["val"] + [np.asarray(last)])
        rew, done = np.stack(buf["rew"]), np.stack(buf["done"]).astype(np.float32)
        adv = np.zeros_like(rew)
        gae = np.zeros(args.envs, np.float32)
        for s in reversed(range(args.steps)):      # GAE(γ, λ); a finished match does not bootstrap
            delta = rew[s] + gamma * vals[s + 1] * (1 - done[s]) - vals[s]
            gae = delta + gamma * lam * (1 - done[s]) * gae
            adv[s] = gae
        ret = adv + vals[:-1]
        flat = {"board": np.concatenate(buf["board"]), "vec": np.concatenate(buf["vec"]),
                "mask": np.concatenate(buf["mask"]), "act": np.concatenate(buf["act"]),
                "logp": np.concatenate(buf["logp"]), "adv": adv.reshape(-1), "ret": ret.reshape(-1)}
        flat["adv"] = (flat["adv"] - flat["adv"].mean()) / (flat["adv"].std() + 1e-8)
        n = len(flat["adv"])
        rng = np.random.default_rng(it)
        for _ in range(args.epochs):
            order = rng.permutation(n)
            for mb in np.array_split(order, args.minibatches):
                p, m, v, t = adam_step(p, m, v, t, {k: jnp.asarray(x[mb]) for k, x in flat.items()}, args.lr)
        it += 1
        if it % 5 == 0:
            last_eps = recent[-200:]
            row = {"cpu_s": round(time.process_time() - t0, 1), "steps": steps, "episodes": len(recent),
                   "train_win_rate": round(sum(x > 0 for x in last_eps) / max(1, len(last_eps)), 3)}
            curve.append(row)
            print(json.dumps(row), flush=True)
    train_cpu = time.process_time() - t0
    result = {"train_cpu_minutes": round(train_cpu / 60, 2), "env_steps": steps, "updates": it,
              "untrained": before, "trained": report(p, args)}
    print(json.dumps(result))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"args": vars(args), "curve": curve, "result": result}, f, indent=1)


def report(p: Any, args: Any) -> dict[str, Any]:
    """Win rates with 95 % Wilson intervals, sampled and greedy, on fresh seeds."""
    out: dict[str, Any] = {}
    for mode in ("sample", "greedy"):
        wins, draws, losses = evaluate(p, args.eval, min(args.envs, args.eval), args.seed + 10_000, mode)
        n = wins + draws + losses
        lo, hi = wilson(wins, n)
        out[mode] = {"wins": wins, "draws": draws, "losses": losses, "win_rate": round(wins / n, 4),
                     "wilson95": [round(lo, 4), round(hi, 4)]}
    return out


if __name__ == "__main__":
    main()
