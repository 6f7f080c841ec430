"""The batched engines the arena declares (``GAME.batch``, issue 26 item 2) agree with the
referee board for board (R12-R28): the same seeded orders are played through
:class:`~botwars.engine.referee.Referee` (``submit`` + ``resolve_point``, the one path every
match takes) and through the declared engine, and every board (robots, owners, HP), every turn
counter and every end flag is compared after every turn.

The JAX engine runs in a fresh process (``spawn``): JAX starts threads, and a test worker that
has loaded it must not fork afterwards. ``jax`` is in the ``test`` extra: without it the JAX
case fails, it is never skipped."""

import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from botwars.engine.errors import ConfigError
from botwars.engine.plugin import get_game
from botwars.engine.referee import Referee

# the batched engines' order codes (games/arena/batch.py): 0 no order, 1 defend, 2 self-destruct,
# 3-6 move N E S W, 7-10 attack N E S W; as P5 text tokens for the referee
TOKEN = {1: "D", 2: "S", **{3 + i: f"M-{d}" for i, d in enumerate("NESW")},
         **{7 + i: f"A-{d}" for i, d in enumerate("NESW")}}
# mostly moves (chains, swaps, contention) with some attacks, defence, self-destructs and idlers
WEIGHTS = [2, 2, 1] + [6] * 4 + [3] * 4


def play_both(engine_name: str, overrides: dict, n: int, seed: int) -> dict:
    """``n`` matches of the arena with ``overrides``, each through its own referee (match seed
    ``seed + g``) and all together through the declared batched engine ``engine_name``, on the
    same seeded orders; asserts every board after every turn. Returns what happened, to show
    that the run went through spawns, deaths and ends."""
    game = get_game("arena")
    rules = game.ruleset()
    cfg = rules.validate_config(overrides)
    engine = game.make_batch(cfg, n, engine_name)
    refs = [Referee(rules, cfg, ["p1", "p2"], seed + g, clock=False, history=False) for g in range(n)]
    rng = random.Random(f"{engine_name}{overrides}{seed}")
    seen = {"turns": 0, "deaths": 0, "ended": 0}
    shape = tuple(np.asarray(engine.owner).shape)
    while not all(r.over for r in refs):
        codes = np.zeros(shape, dtype=np.int8)
        for g, ref in enumerate(refs):
            if ref.over:
                continue
            text = {"p1": [], "p2": []}
            for (x, y), robot in sorted(ref.state.robots.items()):
                code = rng.choices(range(11), WEIGHTS)[0]
                codes[g, y, x] = code
                if code:
                    text[f"p{robot[1]}"].append(f"{x}:{y}-{TOKEN[code]}")
            for seat in ref.pending():
                ticket = ref.submit(seat, ",".join(text[seat]), 0.0)
                assert ticket.error is None, ticket.error
            before = len(ref.state.robots)
            ref.resolve_point()
            seen["deaths"] += before > len(ref.state.robots)
        engine.step(codes)
        seen["turns"] += 1
        owner, hp = np.asarray(engine.owner), np.asarray(engine.hp)
        turns, over = np.asarray(engine.turns), np.asarray(engine.over)
        for g, ref in enumerate(refs):
            want = {(x, y): (r[1], r[2]) for (x, y), r in ref.state.robots.items()}
            ys, xs = np.nonzero(owner[g])
            got = {(int(x), int(y)): (int(owner[g, y, x]), int(hp[g, y, x])) for y, x in zip(ys, xs)}
            assert got == want, f"{engine_name}: game {g} differs from the referee after turn {seen['turns']}"
            assert bool(over[g]) == ref.over, f"{engine_name}: game {g} end flag after turn {seen['turns']}"
            assert int(turns[g]) == ref.state.turn, f"{engine_name}: game {g} turn after turn {seen['turns']}"
    seen["ended"] = sum(r.over for r in refs)
    return seen


CASES = [
    {"max_turns": 40},
    {"map": "small", "spawn_interval": 3, "max_turns": 40},
    {"spawn_interval": 2, "defend_divisor": 3, "attack_damage_friendly": 5, "max_turns": 30,
     "wipeout_ends_game": True, "attack_damage_enemy": 60},
]


def test_the_arena_declares_its_batched_engines_and_the_vector_environment_finds_them_there():
    game = get_game("arena")
    assert [(b.name, b.extra) for b in game.batch] == [("numpy", None), ("jax", "jax")]
    assert game.batch_engine(vector=True).name == "numpy"      # the jax backend serves no vector env
    with pytest.raises(ConfigError, match=r"arena declares no batched engine 'torch' \(declared: numpy, jax\)"):
        game.batch_engine("torch")
    with pytest.raises(ConfigError, match="for a vector environment"):
        game.batch_engine("jax", vector=True)
    for other in ("factory", "geeko"):   # submarine declares one (tests/submarine/test_submarine_batch.py)
        with pytest.raises(ConfigError, match=f"{other} declares no batched engine"):
            get_game(other).batch_engine()


@pytest.mark.parametrize("overrides", CASES)
def test_R12_the_numpy_engine_gives_the_referees_boards_turn_by_turn(overrides):
    seen = play_both("numpy", overrides, 8, 0)
    assert seen["turns"] >= 2 and seen["deaths"] > 0 and seen["ended"] == 8


def _jax_case(overrides: dict) -> dict:
    return play_both("jax", overrides, 6, 0)


@pytest.mark.slow
def test_R12_the_jax_engine_gives_the_referees_boards_turn_by_turn():
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        seen = pool.submit(_jax_case, CASES[2]).result()
    assert seen["deaths"] > 0 and seen["ended"] == 6


def test_batch_defender_floor_keeps_four_robots():
    rs = get_game("arena").ruleset()
    cfg = rs.validate_config({})
    b = get_game("arena").make_batch(cfg, 5)
    defend = np.where(b.owner > 0, 1, 0).astype(np.int8)
    for _ in range(100):
        b.step(np.where(b.owner > 0, 1, 0).astype(np.int8))
    assert b.over.all()
    assert all(r == (2, 200, 2, 200, None) for r in b.results())
    assert defend.sum() == 20


def test_the_vector_environment_takes_its_engine_from_the_declaration_and_names_what_is_missing():
    from botwars import rl
    from botwars.games.arena.batch import BatchArena
    from botwars.rl.vector import BatchVectorEnv
    env = rl.vector_env("arena", 3, map="small")
    assert isinstance(env.batch.engine, BatchArena) and env.batch.n == 3
    with pytest.raises(ConfigError, match="factory declares no batched engine for a vector environment"):
        rl.vector_env("factory", 2)
    with pytest.raises(ConfigError, match=r"arena declares no batched engine 'nope' \(declared: numpy, jax\)"):
        rl.vector_env("arena", 2, engine="nope")
    # the jax engine serves no NumPy-style vector hook: its functional environment is
    # JaxVectorEnv's (rl.vector_env("arena", n, engine="jax"), tests/arena/test_arena_env_jax.py)
    with pytest.raises(ConfigError, match=r"arena declares no batched engine 'jax' for a vector environment"):
        BatchVectorEnv("arena", 2, engine="jax")
    with pytest.raises(ConfigError, match=r"factory declares no batched engine with a functional environment"):
        get_game("factory").functional_env(None, {})
