"""The batched NumPy engine agrees with the reference engine turn by turn (R12-R28)."""

import random

import numpy as np
import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.batch import BatchArena
from botwars.games.arena.protocol import ArenaOrders

CHOICES = [("M", d) for d in "NESW"] + [("A", d) for d in "NESW"] + [("D", None), ("S", None), None]


def random_orders(state, player, rng, weights):
    out = {}
    for sq, r in state.robots.items():
        if r[1] == player:
            c = rng.choices(CHOICES, weights)[0]
            if c is not None:
                out[sq] = c
    return out


@pytest.mark.parametrize("mapname,overrides", [
    ("default", {}),
    ("small", {"spawn_interval": 3, "max_turns": 40}),
    ("default", {"spawn_interval": 2, "defend_divisor": 3, "attack_damage_friendly": 5}),
])
def test_R12_batch_engine_matches_reference_engine(mapname, overrides):
    rs = get_ruleset("arena")
    cfg = rs.validate_config({"map": mapname, **overrides})
    n = 12
    batch = BatchArena(cfg, n)
    rng = random.Random(f"{mapname}{overrides}")
    states = [rs.setup(cfg, ["p1", "p2"], 0) for _ in range(n)]
    # mostly moves (to make chains, swaps, contention) with some attacks and self-destructs
    weights = [6] * 4 + [3] * 4 + [2, 1, 2]
    for turn in range(min(cfg["max_turns"], 40)):
        per_game = []
        for g in range(n):
            o1 = random_orders(states[g], 1, rng, weights)
            o2 = random_orders(states[g], 2, rng, weights)
            per_game.append({**o1, **o2})
            states[g], _ = rs.resolve(states[g], {"p1": ArenaOrders(o1, ""), "p2": ArenaOrders(o2, "")})
        batch.step(batch.orders_from(per_game))
        for g in range(n):
            want = {sq: (r[1], r[2]) for sq, r in states[g].robots.items()}
            assert batch.board(g) == want, f"game {g} diverges at turn {turn + 1}"
    for g, (r1, h1, r2, h2, w) in enumerate(batch.results()):
        if states[g].over:
            out = rs.outcome(states[g])
            assert out.details["robots"] == {"p1": r1, "p2": r2}
            assert {"p1": 1, "p2": 2}.get(out.winner) == w


def test_batch_defender_floor_keeps_four_robots():
    rs = get_ruleset("arena")
    cfg = rs.validate_config({})
    b = BatchArena(cfg, 5)
    defend = np.where(b.owner > 0, 1, 0).astype(np.int8)
    for _ in range(100):
        b.step(np.where(b.owner > 0, 1, 0).astype(np.int8))
    assert b.over.all()
    assert all(r == (2, 200, 2, 200, None) for r in b.results())
    assert defend.sum() == 20
