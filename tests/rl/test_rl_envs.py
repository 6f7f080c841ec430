"""Learning environments (issue 16 items 1-2): PettingZoo's own tests unchanged, Gymnasium's
checker, the twin-state check on the arrays, and the vector arena against the scalar engine."""

import random
import warnings

import numpy as np
import pytest

# the rl extra (pettingzoo, gymnasium) is part of the test extra: without it this module fails
# to import, never skips
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

import botwars.rl as rl  # noqa: E402
from botwars.engine import get_game  # noqa: E402
from botwars.rl.core import Core  # noqa: E402

# short matches keep the suite fast; the encodings do not depend on these limits
SHORT = {"arena": {"max_turns": 12}, "factory": {"turn_limit": 4}, "geeko": {"turn_limit": 4},
         "dadoed": {"max_turns": 20}, "submarine": {"max_rounds": 6}}
GAMES = sorted(SHORT)


def short(game):
    cfg = dict(SHORT[game])
    table = get_game(game).ruleset().param_table()
    return {k: v for k, v in cfg.items() if k in table}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game):
    api_test(rl.env(game, **short(game)), num_cycles=60)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_parallel_api_test(game):
    parallel_api_test(rl.parallel_env(game, **short(game)), num_cycles=60)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_seed_test(game):
    seed_test(lambda: rl.env(game, **short(game)), num_cycles=20)
    parallel_seed_test(lambda: rl.parallel_env(game, **short(game)))


@pytest.mark.parametrize("game", GAMES)
def test_native_form_follows_capabilities(game):
    """AEC natively for the mixed/alternating games, Parallel for the simultaneous ones."""
    from botwars.rl.pz import BotwarsAEC, BotwarsParallel
    simultaneous = get_game(game).capabilities.turns.value == "simultaneous"
    e, p = rl.env(game, **short(game)), rl.parallel_env(game, **short(game))
    assert isinstance(p if simultaneous else e, BotwarsParallel if simultaneous else BotwarsAEC)
    assert not isinstance(e if simultaneous else p, (BotwarsAEC, BotwarsParallel))  # PettingZoo's conversion


def _random_play(core, rng, seed, on_step=None):
    core.reset(seed)
    infos = []
    while not core.over:
        for s in core.seats:
            if core.over:
                break
            m = core.mask(s)
            rows = m.reshape(len(core.spec.nvec), -1)
            a = np.array([rng.choice(np.flatnonzero(r)) for r in rows])
            if on_step is not None:
                on_step(core, s)
            infos.append(core.act(s, a if len(a) > 1 else int(a[0])))
    return infos


@pytest.mark.parametrize("game", GAMES)
def test_masked_actions_are_never_refused(game):
    """Every order built from masked actions is accepted by the referee (the masks are exact)."""
    core = Core(game, short(game))
    infos = _random_play(core, np.random.default_rng(1), 7)
    assert core.over
    assert [i for i in infos if i] == []
    assert core.illegal == 0


@pytest.mark.parametrize("game", GAMES)
def test_masked_out_action_plays_the_default_action(game):
    """docs/rl.md's one rule: a masked-out action is played as the decision's default action
    (the first one its mask allows), reported in the info; the same as giving that action."""
    core, twin = Core(game, short(game)), Core(game, short(game))
    core.reset(3)
    twin.reset(3)
    seat = core.referee.awaited()[0]
    mask = core.mask(seat)
    rows = mask.reshape(len(core.spec.nvec), -1)
    bad = np.flatnonzero(rows[0] == 0)
    assert bad.size
    action = np.zeros(len(core.spec.nvec), dtype=np.int64)
    action[0] = bad[0]
    info = core.act(seat, action if len(action) > 1 else int(action[0]))
    assert "illegal" in info and core.illegal == 1
    first = np.argmax(rows != 0, axis=1)
    assert twin.act(seat, first if len(first) > 1 else int(first[0])) == {}
    assert core.partial == twin.partial
    assert core.referee.awaited() == twin.referee.awaited() and not core.over
    for s in core.seats:
        a, b = core.observe(s), twin.observe(s)
        assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("game", [g for g in GAMES if get_game(g).capabilities.hidden_information])
def test_twin_state_arrays_identical(game):
    """Conformance twin-state technique on the arrays: perturbing facts hidden from a seat
    (Ruleset.twin_state) leaves its observation arrays and mask identical."""
    rules = get_game(game).ruleset()
    checked = 0

    def check(core, seat):
        nonlocal checked
        for s in core.seats:
            twin = rules.twin_state(core.referee.state, s, random.Random(checked))
            if twin is None:
                continue
            view_twin = rules.view(twin, s)
            a = core.spec.observe(core.view(s), core.partial[s])
            b = core.spec.observe(view_twin, core.partial[s])
            for k in a:
                assert np.array_equal(a[k], b[k]), f"{game}: {k} of {s} reveals a hidden fact"
            if core.deciding(s):
                assert np.array_equal(core.spec.mask(core.view(s), core.partial[s], core.legal(s)),
                                      core.spec.mask(view_twin, core.partial[s], core.legal(s)))
            checked += 1

    _random_play(Core(game, short(game)), np.random.default_rng(5), 11, on_step=check)
    assert checked > 10


@pytest.mark.slow
@pytest.mark.parametrize("game,bot", [("arena", "random"), ("factory", "random"), ("geeko", "random"),
                                      ("dadoed", "greedy"), ("submarine", "random")])
def test_gymnasium_check_env(game, bot):
    env = rl.gym_env(game, opponent=f"builtin:{bot}", **short(game))
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=4)
    done = False
    rng = np.random.default_rng(0)
    steps = 0
    rewards = []
    while not done:
        rows = env.action_masks().reshape(len(env.core.spec.nvec), -1)
        a = np.array([rng.choice(np.flatnonzero(r)) for r in rows])
        obs, reward, done, _, info = env.step(a if len(a) > 1 else int(a[0]))
        assert "illegal" not in info and "refused" not in info
        assert np.array_equal(info["action_mask"], env.action_masks())
        rewards.append(reward)
        steps += 1
    # docs/rl.md: 0 until the end, then +1 if the learner's seat won, -1 if another seat did, 0
    # for a draw (read from the referee's outcome, not from the reward code)
    winner = env.core.referee.outcome.winner
    assert steps > 0 and rewards[:-1] == [0.0] * (steps - 1)
    assert rewards[-1] == (0.0 if winner is None else 1.0 if winner == env.seat else -1.0), (winner, env.seat)


def test_gym_env_refuses_unknown_bot():
    from botwars.engine.errors import ConfigError
    with pytest.raises(ConfigError, match="no built-in bot"):
        rl.gym_env("arena", opponent="builtin:nosuch")


def _compare_vector_with_scalar(n, overrides, mode, steps, seed=9):
    """Step the vector arena and ``n`` scalar Parallel envs (referee, reference rules) with the
    same actions of both players; assert identical observations, masks, rewards and
    terminations, through auto-resets. Returns (matches ended, of which before max_turns)."""
    venv = rl.vector_env("arena", n, autoreset_mode=mode, **overrides)
    obs, _ = venv.reset(seed=seed)
    scalars = [rl.parallel_env("arena", **overrides) for _ in range(n)]
    sobs = [p.reset(seed=g)[0] for g, p in enumerate(scalars)]
    rng = np.random.default_rng(2)
    from botwars.rl.vector import random_slot_actions
    ends = early = 0
    turn = np.ones(n, dtype=int)
    pending_reset = np.zeros(n, dtype=bool)
    for _ in range(steps):
        for g in range(n):
            if not pending_reset[g]:
                for k in ("board", "vector"):
                    assert np.array_equal(obs[k][g], sobs[g]["p1"][k]), f"game {g}: {k} differs"
                assert np.array_equal(venv.action_masks()[g], scalars[g].action_mask("p1")), f"game {g}: mask"
        acts = random_slot_actions(rng, venv.action_masks(), venv.spec.nvec)
        obs, rew, term, trunc, info = venv.step(acts)
        opp = info["opponent_actions"]
        for g in range(n):
            if pending_reset[g]:
                sobs[g] = scalars[g].reset(seed=g)[0]
                turn[g] = 1
                continue
            # the random opponent only plays actions its own mask allows
            assert scalars[g].core.is_legal(scalars[g].action_mask("p2"), opp[g])
            o, r, t, _, _ = scalars[g].step({"p1": acts[g], "p2": opp[g]})
            assert r["p1"] == rew[g] and t["p1"] == term[g], f"game {g}"
            if t["p1"]:
                ends += 1
                early += int(turn[g] < overrides["max_turns"])
                if mode == "same_step":
                    for k in ("board", "vector"):
                        assert np.array_equal(info["final_obs"][k][g], o["p1"][k])
                    sobs[g] = scalars[g].reset(seed=g)[0]
                    turn[g] = 1
                else:
                    sobs[g] = o
            else:
                sobs[g] = o
                turn[g] += 1
        pending_reset = term.copy() if mode == "next_step" else np.zeros(n, dtype=bool)
    return ends, early


@pytest.mark.parametrize("overrides", [{"max_turns": 25, "map": "small", "spawn_interval": 3},
                                       {"max_turns": 30, "wipeout_ends_game": True, "map": "small",
                                        "attack_damage_enemy": 60}])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_arena_vector_env_matches_scalar_engine(overrides, mode):
    """The vector arena (batched NumPy engine) and the scalar Parallel env (referee, reference
    rules) give identical observations, rewards and terminations step for step, through
    auto-resets, for the same actions of both players."""
    n = 4
    ends, _ = _compare_vector_with_scalar(n, overrides, mode, 70)
    assert ends >= n


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_arena_vector_env_matches_scalar_engine_64_games(mode):
    """64 games at once (the whole-array paths: observations, masks, rewards, the random
    opponent, auto-reset of some games while the others play on) against 64 scalar envs,
    with wipeouts (R27) ending matches early and the max_turns end (R26)."""
    overrides = {"max_turns": 16, "wipeout_ends_game": True, "map": "small", "attack_damage_enemy": 50,
                 "self_destruct_damage": 30, "spawn_interval": 4}
    ends, early = _compare_vector_with_scalar(64, overrides, mode, 36, seed=3)
    assert ends >= 64 and 0 < early < ends, (ends, early)
