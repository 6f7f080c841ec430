"""The environment defects an RL researcher hit (issue 29 item 1, defects 1-8), one test or more
each: observations sized from the board, solo rewards carrying the score, one rule for masked-out
and malformed actions, scales from the match's parameters, stepping after the end, the masked
sampler, Gymnasium ids, the mask beside the observation, seeds that matter, factory's random bot
rebooting, search_strength's draws and PettingZoo's ``max_cycles``."""

from __future__ import annotations

import importlib.util
import os
import warnings

import gymnasium
import numpy as np
import pytest

import botwars.rl as rl
from botwars.engine import get_game
from botwars.engine.errors import ConfigError
from botwars.games.factory.rlspec import FEATURES, board_planes
from botwars.rl.core import Core
from botwars.rl.spaces import FlatMaskMultiDiscrete

GAMES = ("arena", "dadoed", "factory", "geeko", "submarine")
SHORT = {"arena": {"max_turns": 12}, "factory": {"turn_limit": 4}, "geeko": {"turn_limit": 4},
         "dadoed": {"max_turns": 20}, "submarine": {"max_rounds": 6}}
OPPONENT = {"arena": "random", "dadoed": "greedy", "factory": "random", "geeko": "random", "submarine": "random"}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _sample(mask, nvec, rng):
    rows = np.asarray(mask).reshape(len(nvec), -1)
    a = np.array([rng.choice(np.flatnonzero(r)) for r in rows])
    return a if len(a) > 1 else int(a[0])


# ---- defect 1: factory boards larger than 16 x 16 ---------------------------------------------
@pytest.mark.parametrize("board,rows,cols", [("gauntlet", 24, 24), ("foundry", 16, 20), ("tiny-yard", 6, 8)])
def test_factory_observation_is_sized_from_the_board(board, rows, cols):
    """F-3: the planes are the board's rows x cols (the shipped boards' sizes), nothing cut."""
    env = rl.gym_env("factory", opponent="random", board=board, turn_limit=3)
    assert env.observation_space["board"].shape == (len(FEATURES) + 6, rows, cols)
    obs, _ = env.reset(seed=1)
    assert obs["board"].shape == (len(FEATURES) + 6, rows, cols)


def test_factory_gauntlet_always_shows_the_learners_robot():
    """On gauntlet (24 x 24) every observation with the learner's robot on the board shows it
    on its own-robot planes, at the view's square (the defect: 76 of 160 did not)."""
    from botwars.games.factory.rlspec import parse_sq
    env = rl.gym_env("factory", opponent="random", board="gauntlet", turn_limit=12)
    nf = len(FEATURES) + 1
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            view = env.core.view(env.seat)
            me = next(p for p in view["players"] if p["seat"] == view["you"])
            sq = parse_sq((me.get("robot") or {}).get("square") or "")
            if sq is not None:
                own = obs["board"][nf:nf + 4]
                assert own.sum() == 1 and own[:, sq[0] - 1, sq[1] - 1].sum() == 1, (seed, sq)
                seen += 1
            obs, _, done, _, info = env.step(_sample(info["action_mask"], env.core.spec.nvec, rng))
    assert seen > 20


def test_board_planes_refuse_a_square_outside_the_observation():
    """A board larger than the planes is an error naming the square, never a silent crop."""
    text = "grid:\nr1 . . .\nr2 . . .\nend\n"
    assert board_planes(text, 2, 3).shape == (len(FEATURES) + 1, 2, 3)
    with pytest.raises(ValueError, match="r1c3 is outside"):
        board_planes(text, 2, 2)


def test_geeko_observation_is_sized_from_the_largest_room():
    """G-2.3: the standard rooms are at most 9 x 7 squares; the planes are that size."""
    rooms = get_game("geeko").ruleset().rooms(get_game("geeko").ruleset().validate_config({}))
    rows, cols = max(r.rows for r in rooms), max(r.cols for r in rooms)
    env = rl.gym_env("geeko", opponent="random", turn_limit=2)
    obs, _ = env.reset(seed=0)
    assert obs["board"].shape[1:] == (rows, cols) == (9, 7)


# ---- defect 2: solo rewards carry the score ----------------------------------------------------
@pytest.mark.parametrize("game,cfg", [("factory", {"turn_limit": 12}), ("geeko", {"turn_limit": 12})])
def test_solo_rewards_carry_the_score(game, cfg):
    """docs/rl.md's solo shaping: the return is the final progress minus the initial one (+1
    for a win); random play no longer returns exactly 0 in every episode; the raw score of the
    rule set's outcome is in the final info."""
    env = rl.gym_env(game, opponent="random", seats=1, **cfg)
    rng = np.random.default_rng(3)
    returns = []
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        start = info["progress"]
        total, done = 0.0, False
        while not done:
            obs, r, done, _, info = env.step(_sample(env.action_masks(), env.core.spec.nvec, rng))
            total += r
        outcome = env.core.referee.outcome
        win = 1.0 if outcome.winner == env.seat else 0.0
        assert total == pytest.approx(info["progress"] - start + win)
        assert info["score"] == outcome.scores[env.seat]
        returns.append(total)
    assert any(r != 0.0 for r in returns), returns


def test_two_seat_rewards_stay_terminal():
    """With two seats the reward is still 0 during the match and +1/-1/0 at the end."""
    env = rl.gym_env("factory", opponent="random", turn_limit=6)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=2)
    rewards, done = [], False
    while not done:
        obs, r, done, _, info = env.step(_sample(env.action_masks(), env.core.spec.nvec, rng))
        rewards.append(r)
    assert set(rewards[:-1]) <= {0.0}
    w = env.core.referee.outcome.winner
    assert rewards[-1] == (0.0 if w is None else 1.0 if w == env.seat else -1.0)


# ---- defects 3 and 4: one rule for masked-out and malformed actions ---------------------------
def test_submarine_masked_out_setup_actions_do_not_forfeit():
    """S-3.3 forfeits a seat with no accepted set-up; the environment plays a masked-out set-up
    action as the default action (the first the mask allows), so the set-up completes."""
    core = Core("submarine", {"max_rounds": 6})
    core.reset(5)
    seat = core.referee.awaited()[0]
    steps = 0
    while core.deciding(seat) and steps < 20:
        info = core.act(seat, 0)      # the wait action: masked out during the set-up
        assert info["illegal"] == 0
        steps += 1
    assert steps == 10 and core.illegal == 10
    other = next(s for s in core.seats if s != seat)
    while core.deciding(other):   # the other seat's set-up, from its mask
        core.act(other, int(np.flatnonzero(core.mask(other))[-1]))
    state = core.referee.state
    assert not core.over and set(state.setups) == {seat, other} and state.forfeited == ()


MALFORMED = [-1, 10**6, 0.5, None, "3", [1, 2], np.float32(2.0), True]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", MALFORMED, ids=repr)
def test_malformed_actions_raise_and_change_nothing(game, bad):
    """Malformed input raises ValueError naming the problem, in every game and every form;
    the match is unchanged (the same seat still decides, nothing counted as illegal)."""
    core = Core(game, SHORT[game])
    core.reset(4)
    seat = core.referee.awaited()[0]
    before = (core.referee.n, dict(core.partial))
    if game == "arena" and isinstance(bad, list):
        bad = [1] * 3    # a short list of slot actions
    with pytest.raises(ValueError, match="action"):
        core.act(seat, bad)
    assert (core.referee.n, dict(core.partial)) == before and core.deciding(seat) and core.illegal == 0


def test_arena_refuses_a_single_flat_index():
    """The arena takes one action per robot slot: a single flat index is malformed (it became
    'all robots defend' before)."""
    env = rl.gym_env("arena", opponent="idle" if "idle" in get_game("arena").builtin_bots() else "hunter")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="one per robot slot"):
        env.step(1)
    par = rl.parallel_env("arena", max_turns=5)
    par.reset(seed=0)
    with pytest.raises(ValueError, match="one per robot slot"):
        par.step({"p1": 1, "p2": np.zeros(len(par.core.spec.nvec), dtype=np.int64)})


@pytest.mark.parametrize("game", GAMES)
def test_malformed_actions_raise_in_every_form(game):
    g = rl.gym_env(game, opponent=OPPONENT[game], **SHORT[game])
    g.reset(seed=1)
    p = rl.parallel_env(game, **SHORT[game])
    p.reset(seed=1)
    a = rl.env(game, **SHORT[game])
    a.reset(seed=1)
    for bad in (-1, 10**6, 0.5, None):
        with pytest.raises(ValueError):
            g.step(bad)
        with pytest.raises(ValueError):
            p.step({s: bad for s in p.agents})
        with pytest.raises(ValueError):
            a.step(bad)


def test_vector_env_refuses_malformed_actions():
    venv = rl.vector_env("arena", 3, max_turns=5)
    venv.reset(seed=0)
    slots = len(venv.spec.nvec)
    for bad in (None, np.full((3, slots), 0.5), np.zeros((3, 2), dtype=np.int64),
                np.full((3, slots), -1), np.full((3, slots), 10**6)):
        with pytest.raises(ValueError):
            venv.step(bad)


# ---- defect 5: scales from the match's parameters ---------------------------------------------
def test_submarine_scales_follow_the_parameters():
    """S-7.5 win_points=100: scores 60 and 90 give different observations (both were 1.0);
    HP is scaled by hp_max and AP by base_ap + 1 (S-4.2)."""
    core = Core("submarine", {"win_points": 100, "hp_max": 10, "base_ap": 9})
    core.reset(2)
    seat = core.seats[0]
    view = dict(core.view(seat))
    a = core.spec.observe({**view, "score": 60}, ())["vector"]
    b = core.spec.observe({**view, "score": 90}, ())["vector"]
    assert a[3] == pytest.approx(0.6) and b[3] == pytest.approx(0.9)
    subs = {k: {**v, "hp": 7} for k, v in (view.get("own_subs") or {}).items()}
    if not subs:   # before the set-up the view has no subs: give it one
        subs = {"a": {"space": "A1", "hp": 7}}
    obs = core.spec.observe({**view, "own_subs": subs, "ap": 5}, ())
    assert obs["board"][1].max() == pytest.approx(0.7)
    assert obs["vector"][2] == pytest.approx(0.5)


def test_factory_flag_scale_is_the_boards():
    """The next-flag and flags-tagged entries divide by the board's flags (F-3), not by 8."""
    core = Core("factory", {"board": "tiny-yard"})
    core.reset(0)
    n = len(core.rules.make_board(core.config).flags())
    obs = core.observe(core.seats[0])
    assert obs["vector"][2] == pytest.approx(1 / n)   # next flag 1 of n


# ---- defect 6: stepping after the end ---------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_step_after_the_end_raises(game):
    rng = np.random.default_rng(0)
    g = rl.gym_env(game, opponent=OPPONENT[game], **SHORT[game])
    g.reset(seed=2)
    done = False
    while not done:
        _, _, done, trunc, _ = g.step(_sample(g.action_masks(), g.core.spec.nvec, rng))
    with pytest.raises(RuntimeError, match="reset"):
        g.step(_sample(np.ones_like(g.action_masks()), g.core.spec.nvec, rng))
    p = rl.parallel_env(game, **SHORT[game])
    p.reset(seed=2)
    while p.agents:
        p.step({s: _sample(p.action_mask(s), p.core.spec.nvec, rng) for s in p.agents})
    with pytest.raises(RuntimeError, match="reset"):
        p.step({s: 0 for s in p.possible_agents})


def test_aec_step_after_every_agent_is_done_raises():
    env = rl.env("dadoed", max_turns=6)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        env.step(None if term or trunc else _sample(info["action_mask"], env.core.spec.nvec, rng))
    assert not env.agents
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


# ---- defect 7: the masked sampler -------------------------------------------------------------
def test_flat_mask_sampler_is_uniform_over_the_mask():
    """FlatMaskMultiDiscrete.sample(flat mask): only allowed entries, each allowed one drawn,
    0 for a slot with none allowed, same seed same draws."""
    space = FlatMaskMultiDiscrete(np.array([4, 4, 4]))
    mask = np.array([0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int8)
    space.seed(7)
    draws = np.array([space.sample(mask) for _ in range(400)])
    assert set(draws[:, 0]) == {1, 3} and set(draws[:, 1]) == {0} and set(draws[:, 2]) == {0, 1, 2, 3}
    assert abs((draws[:, 0] == 1).mean() - 0.5) < 0.1
    space.seed(7)
    assert np.array_equal(np.array([space.sample(mask) for _ in range(400)]), draws)
    with pytest.raises(ValueError, match="flat mask"):
        space.sample(mask[:5])


# ---- defect 8: Gymnasium ids, the mask beside the observation, seeds, max_cycles ---------------
@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_make_every_game(game):
    env = gymnasium.make(f"botwars/{game}-v0", opponent=OPPONENT[game], **SHORT[game])
    assert env is env.unwrapped   # no wrapper hides action_masks() from sb3-contrib
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)               # the env enforces the order itself
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert "action_mask" not in obs
    mask = env.action_masks()
    assert mask.shape == (int(sum(env.unwrapped.core.spec.nvec)),) and mask.any()
    assert np.array_equal(info["action_mask"], mask)
    with pytest.raises(ConfigError, match="no built-in bot"):
        gymnasium.make(f"botwars/{game}-v0", opponent="nosuch")


def test_gymnasium_make_without_importing_botwars_rl_first():
    import subprocess
    import sys
    code = ("import gymnasium; e = gymnasium.make('botwars.rl:botwars/arena-v0', opponent='hunter', "
            "max_turns=3); o, i = e.reset(seed=0); print(sorted(o), i['action_mask'].shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "['board', 'vector']" in out.stdout


def test_dadoed_mask_is_outside_the_observation():
    """D-12.4's 59,719 orders: the mask is beside the observation (action_masks(), the info),
    not in the observation dict a policy network reads."""
    env = rl.gym_env("dadoed", opponent="greedy")
    obs, info = env.reset(seed=0)
    assert set(obs) == {"board", "vector", "supers", "setup"}
    assert "action_mask" not in env.observation_space.spaces
    assert env.action_masks().shape == (env.action_space.n,) == (59719,)
    p = rl.env("dadoed")
    p.reset(seed=0)
    agent = p.agent_selection
    assert "action_mask" not in p.observe(agent)
    assert np.array_equal(p.infos[agent]["action_mask"], p.action_mask(agent))


@pytest.mark.parametrize("game", ["arena", "dadoed"])
def test_seeds_matter_with_a_random_opening(game):
    """The arena and DADOED (D-1.5) have no chance: every seed gave the same match. With
    ``random_opening`` the seed plays the first decision points at random: different seeds,
    different positions; the same seed, the same position."""
    def first_obs(seed, opening):
        p = rl.parallel_env(game, random_opening=opening, **SHORT[game])
        obs, _ = p.reset(seed=seed)
        return np.concatenate([np.concatenate([v.ravel() for v in obs[s].values()]) for s in sorted(obs)])
    assert np.array_equal(first_obs(1, 0), first_obs(2, 0))   # the rules alone: no chance
    runs = [first_obs(seed, 6) for seed in range(4)]
    assert any(not np.array_equal(runs[0], r) for r in runs[1:])
    assert np.array_equal(first_obs(3, 6), runs[3])
    g1 = rl.gym_env(game, opponent=OPPONENT[game], random_opening=6, **SHORT[game])
    g2 = rl.gym_env(game, opponent=OPPONENT[game], random_opening=6, **SHORT[game])
    a = [g1.reset(seed=s)[0] for s in range(4)]
    b = [g2.reset(seed=s)[0] for s in range(4)]
    assert all(np.array_equal(x["board"], y["board"]) for x, y in zip(a, b))
    assert any(not np.array_equal(a[0]["board"], x["board"]) for x in a[1:])
    with pytest.raises(ConfigError, match="random_opening"):
        rl.gym_env(game, random_opening=-1)


def test_factory_random_bot_reboots_when_damaged():
    """F-7.7: the random bot now declares reboots (one turn in four while damaged), never while
    undamaged."""
    from botwars.games.factory.bots import RandomBot
    core = Core("factory", {"turn_limit": 30, "board": "tiny-yard"}, seats=2)
    declared = undamaged_reboots = 0
    for seed in range(6):
        core.reset(seed)
        bots = {}
        for s in core.seats:
            bots[s] = RandomBot()
            bots[s].start("factory", s, dict(core.config), core.rules.agent_seed(seed, s))
        while not core.over:
            ref = core.referee
            for s in ref.awaited():
                view = ref.view(s)
                order = bots[s].act(view)
                me = next(p for p in view["players"] if p["seat"] == view["you"])
                if order["reboot"]:
                    declared += 1
                    undamaged_reboots += (me.get("robot") or {}).get("hp", 0) >= view["config"]["max_hp"]
                tk = ref.submit(s, order, 0.0)
                assert tk.error is None, tk.error
            core.settled()
    assert declared > 0 and undamaged_reboots == 0


def _search_strength():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "search_strength.py")
    spec = importlib.util.spec_from_file_location("search_strength", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_search_strength_counts_draws_alike_in_json_and_print(tmp_path):
    """benchmarks/search_strength.py: the JSON rate, the printed rate and --summarize all count
    a draw as half a win (the printed rate counted it as a loss)."""
    ss = _search_strength()
    rate, lo, hi = ss.win_rate(6, 4, 20)
    assert rate == pytest.approx(0.4) and lo < 0.4 < hi
    assert "win rate 40.0%" in ss.rate_text(6, 4, 20)
    out = tmp_path / "run.txt"
    lines = [f"seed {k:4d} A=p1     winner={'p1' if k < 6 else 'draw' if k < 10 else 'p2'}     x turns=3"
             for k in range(20)]
    out.write_text("\n".join(lines) + "\n")
    assert "win rate 40.0%" in ss.summarize(str(out))


def test_search_strength_play_json_matches_its_print(capsys):
    ss = _search_strength()
    out = ss.play("dadoed", 2, 0, {"max_turns": 1},
                  lambda: ss.make_agent("builtin:random", "dadoed"), lambda: ss.make_agent("builtin:random", "dadoed"))
    assert out["draws"] >= 1    # max_turns 1: the round cap draws
    assert out["rate"] == pytest.approx((out["wins"] + out["draws"] / 2) / out["games"])
    assert f"win rate {out['rate']:.1%}" in ss.rate_text(out["wins"], out["draws"], out["games"])


@pytest.mark.parametrize("game", ["arena", "dadoed"])
def test_max_cycles_truncates(game):
    """PettingZoo's max_cycles: after that many cycles a match still going on is truncated."""
    p = rl.parallel_env(game, max_cycles=3, max_turns=50)
    p.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while p.agents:
        _, rew, term, trunc, _ = p.step({s: _sample(p.action_mask(s), p.core.spec.nvec, rng) for s in p.agents})
        steps += 1
    assert steps == 3 and all(trunc.values()) and not any(term.values()) and not p.core.over
    a = rl.env(game, max_cycles=2, max_turns=50)
    a.reset(seed=0)
    cycles = 0
    for agent in a.agent_iter():
        _, _, term, trunc, info = a.last()
        if term or trunc:
            assert trunc and not term
            a.step(None)
            continue
        a.step(_sample(info["action_mask"], a.unwrapped.core.spec.nvec if hasattr(a.unwrapped, "core")
                       else p.core.spec.nvec, rng))
        cycles += 1
    assert cycles == 2 * len(a.possible_agents)
    with pytest.raises(ConfigError, match="max_cycles"):
        rl.parallel_env(game, max_cycles=0)


@pytest.mark.parametrize("game", ["arena", "dadoed"])
def test_random_opening_keeps_pettingzoo_seed_tests_green(game):
    """PettingZoo's own seed tests (same seed, same episode) with the seeded random opening."""
    from pettingzoo.test import parallel_seed_test, seed_test
    seed_test(lambda: rl.env(game, random_opening=4, **SHORT[game]), num_cycles=20)
    parallel_seed_test(lambda: rl.parallel_env(game, random_opening=4, **SHORT[game]))


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_on_the_registered_env(game):
    """Gymnasium's checker on what ``gymnasium.make`` returns (the registered entry point)."""
    from gymnasium.utils.env_checker import check_env
    env = gymnasium.make(f"botwars/{game}-v0", opponent=OPPONENT[game], **SHORT[game])
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_render_test(game):
    """PettingZoo's own render test (the researcher ran it with api and seed tests)."""
    from pettingzoo.test import render_test
    render_test(lambda render_mode=None: rl.env(game, render_mode=render_mode, **SHORT[game]))
