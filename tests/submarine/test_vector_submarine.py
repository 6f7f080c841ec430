"""Submarine's vector environment (``botwars.rl.vector_env("submarine", n)``, issue 29 item 3)
runs on the batched engine its plug-in declaration names (``GAME.batch``, ``vector`` hook
``SubmarineBatch``) and gives, at every step of every match, the learner's observation and
action mask that the scalar encoding (:class:`SubmarineSpec` on the referee's view of ``p1``)
gives for the same match: the test replays the learner's actions and the opponent's set-ups and
orders on one referee per match (S-3.3 set-up, S-4.3 orders, S-4.8/S-7 ends) and compares the
arrays bit for bit, the rewards and the ends (S-7.11)."""

import random

import numpy as np
import pytest

import botwars.rl as rl
from botwars.engine.errors import ConfigError
from botwars.engine.plugin import get_game
from botwars.engine.referee import Referee
from botwars.games.submarine.batch import ACTION_NAMES
from botwars.games.submarine.rlspec import SPACES
from botwars.games.submarine.state import ACTIONS, SPECIALS


def opponent_payload(rows: np.ndarray) -> dict:
    """Engine order rows of p2 → an S-12.2 order."""
    acts = []
    for s, a, p in rows:
        if s < 0:
            continue
        name = ACTION_NAMES[a]
        act = {"sub": "vwxyz"[s - 5], "action": name}
        key = ACTIONS[name][1]
        if key == "dir":
            act["dir"] = "NESW"[p]
        elif key == "space":
            act["space"] = SPACES[p]
        elif key == "special":
            act["special"] = SPECIALS[p]
        acts.append(act)
    return {"type": "orders", "actions": acts}


def run(n: int, steps: int, seed: int, overrides: dict, opponent: str = "random") -> dict:
    env = rl.vector_env("submarine", n, opponent=opponent, autoreset_mode="disabled", **overrides)
    spec, batch = env.spec, env.batch
    game = get_game("submarine")
    rules = game.ruleset()
    cfg = rules.validate_config({"clock_enabled": False, **overrides})
    obs, _ = env.reset(seed=seed)
    refs = [Referee(rules, cfg, ["p1", "p2"], int(batch.seeds[g]), clock=False, history=False) for g in range(n)]
    partial = [() for _ in range(n)]
    rng = random.Random(seed)
    seen = {"ends": 0, "wins": 0, "losses": 0, "turns": 0}
    done = np.zeros(n, bool)
    for step in range(steps):
        mask = env.action_masks()
        for g, ref in enumerate(refs):
            view = ref.view("p1")
            want_obs = spec.observe(view, partial[g] if not ref.over else ())
            for key in want_obs:
                assert np.array_equal(obs[key][g], want_obs[key]), f"step {step} match {g}: {key} differs"
            if not ref.over:
                assert np.array_equal(mask[g], spec.mask(view, partial[g], None)), f"step {step} match {g}: mask"
        if done.all():
            break
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        acts[0] = 0 if step % 7 == 3 else acts[0]     # sometimes the default action (0: masked out)
        obs, rew, term, trunc, info = env.step(acts[:, None])
        for g, ref in enumerate(refs):
            if done[g]:
                assert not term[g] and rew[g] == 0
                continue
            a = acts[g] if acts[g] else int(np.flatnonzero(mask[g])[0])     # the default: first allowed
            assert bool(info["illegal"][g]) == (acts[g] == 0)
            view = ref.view("p1")
            was_setup = bool(view.get("setup"))
            partial[g], payload = spec.decide(view, partial[g], a, None)
            if payload is None:
                continue
            assert ref.submit("p1", payload, 0.0).error is None
            if was_setup:
                cols, sps = (x[g] for x in batch.opponent_setups)
                row = ref.state.home_rows["p2"]
                ref.submit("p2", {"type": "setup",
                                  "placement": {k: f"{'ABCDEFG'[c - 1]}{row}" for k, c in zip("vwxyz", cols[5:])},
                                  "specials": {k: SPECIALS[s] for k, s in zip("vwxyz", sps[5:])}}, 0.0)
            ref.resolve_point()
            seen["turns"] += not was_setup
            if not ref.over and ref.pending() == ["p2"]:
                assert ref.submit("p2", opponent_payload(batch.opponent_orders[g]), 0.0).error is None
                ref.resolve_point()
            assert bool(term[g]) == ref.over, f"step {step} match {g}: end"
            if ref.over:
                done[g] = True
                w = ref.state.result["winner"]
                assert rew[g] == {"p1": 1.0, "p2": -1.0, "draw": 0.0}[w]
                seen["ends"] += 1
                seen["wins"] += w == "p1"
                seen["losses"] += w == "p2"
            else:
                assert rew[g] == 0
    return seen


def test_vector_env_agrees_with_the_scalar_encoding_on_the_referee():
    seen = run(12, 400, 11, {"max_rounds": 12, "ring_interval": 3})
    assert seen["ends"] >= 6 and seen["wins"] and seen["losses"] and seen["turns"] > 50


def test_vector_env_idle_opponent_and_defaults():
    seen = run(6, 200, 4, {"max_rounds": 5, "p1_home_row": "7", "first_player": "p2"}, opponent="idle")
    assert seen["ends"] == 6


def test_vector_env_seed_changes_the_coin_flips_and_reproduces():
    """Same seed, same learner actions: the same matches (coin flips, random opponent); another
    seed: other home rows (S-3.2)."""
    a, b = rl.vector_env("submarine", 16), rl.vector_env("submarine", 16)
    o1, _ = a.reset(seed=1)
    o2, _ = b.reset(seed=1)
    pick = np.random.default_rng(0)
    for _ in range(60):
        assert all(np.array_equal(o1[k], o2[k]) for k in o1)
        acts = a.batch.random_actions(pick, 1)
        o1, r1, *_ = a.step(acts)
        o2, r2, *_ = b.step(acts)
        assert np.array_equal(r1, r2)
    assert o1["board"][:, 0].any()       # the matches are under way
    o3, _ = b.reset(seed=2)
    o1, _ = a.reset(seed=1)
    assert not np.array_equal(o1["board"][:, 6], o3["board"][:, 6])


def test_vector_env_refuses_a_callable_opponent():
    env = rl.vector_env("submarine", 2, opponent=lambda obs: np.zeros((2, 1), np.int64))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="learner \\(player 1\\) only"):
        env.step(np.zeros((2, 1), np.int64))
