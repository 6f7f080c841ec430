"""Differential test of ``rules=robotgame`` (issue 28 item 1) against rgkit's own engine.

rgkit's source is the binding text of the variant (:mod:`botwars.games.arena.robotgame`): seeded
random orders are played through rgkit's ``GameState.apply_actions`` (``rgkit/gamestate.py``:
``get_delta`` — ``_get_contenders``, ``_get_collisions``, ``_get_damage_map``, ``_apply_spawn``
— and ``apply_delta``) and through ``ArenaRuleset.resolve`` with ``rules=robotgame``, from the
same seed, and every board (robots, owners, HP, squares) is compared after every turn. Both
engines draw spawn squares and attack damage themselves from the seed: the variant draws them
the way rgkit does (``Random(seed + 's')``, ``Random(seed + 'a')``), so no board can agree by
accident of injection. rgkit is imported from ``tests/peers/rgkit`` (a vendored copy of
``../shared/peers/rgkit``; ``BOTWARS_RGKIT_SRC`` points elsewhere).
"""

from __future__ import annotations

import ast
import importlib
import os
import random
import sys
import warnings

import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.arena import robotgame
from botwars.games.arena.protocol import ArenaOrders
from botwars.games.arena.rgcompat import from_rg, to_rg

RGKIT = os.environ.get("BOTWARS_RGKIT_SRC") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "peers", "rgkit"))
RS = get_ruleset("arena")
CONFIG = RS.validate_config({"rules": "robotgame"})
H = 19
DIR_OF = {(0, -1): "N", (1, 0): "E", (0, 1): "S", (-1, 0): "W"}  # rgkit step (y down) → arena direction


@pytest.fixture(scope="module")
def rgk():
    return load_rgkit()


def load_rgkit() -> dict:
    """rgkit's own ``settings``, ``rg`` and ``gamestate`` modules on rgkit's default map (fresh
    module objects; ``sys.modules`` restored afterwards)."""
    if not os.path.isfile(os.path.join(RGKIT, "rgkit", "gamestate.py")):
        pytest.fail(f"rgkit source not found at {RGKIT} (set BOTWARS_RGKIT_SRC)")
    saved = {k: v for k, v in sys.modules.items() if k == "rg" or k == "rgkit" or k.startswith("rgkit.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, RGKIT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            mods = {n: importlib.import_module(f"rgkit.{n}") for n in ("settings", "rg", "gamestate", "game")}
            mods["pkg"] = sys.modules["rgkit"]
    finally:
        sys.path.remove(RGKIT)
        for k in [k for k in sys.modules if k == "rg" or k == "rgkit" or k.startswith("rgkit.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    with open(os.path.join(RGKIT, "rgkit", "maps", "default.py")) as f:
        mods["map"] = ast.literal_eval(f.read())
    mods["settings"].settings.init_map(mods["map"])  # as rgkit's run.py does for its default map
    return mods


def _board_rg(state) -> dict:
    return {loc: (r.player_id + 1, r.hp) for loc, r in state.robots.items()}


def _board_ours(state) -> dict:
    return {to_rg(sq, H): (p, hp) for sq, (_, p, hp) in state.robots.items()}


def _random_turn(rng: random.Random, rgs, rg) -> tuple[dict, dict]:
    """Random valid rgkit actions for every robot of ``rgs`` (a ``GameState``) and the arena orders
    that say the same: ``(rgkit actions by location, player → ArenaOrders)``. Some robots get an
    arena order rgkit would refuse (a move into an obstacle: rgkit's robot then guards) or no
    order at all (the variant's robot guards), both played as ``guard`` in rgkit."""
    actions, orders = {}, {1: {}, 2: {}}
    for loc in sorted(rgs.robots):
        bot = rgs.robots[loc]
        sq = from_rg(loc, H)
        steps = rg.locs_around(loc, filter_out=("invalid", "obstacle"))
        enemies = [n for n in steps if n in rgs.robots and rgs.robots[n].player_id != bot.player_id]
        walls = [n for n in rg.locs_around(loc) if n not in steps]
        u = rng.random()
        if u < 0.45 and steps:
            tg = rng.choice(steps)
            actions[loc] = ["move", tg]
            orders[bot.player_id + 1][sq] = ("M", DIR_OF[(tg[0] - loc[0], tg[1] - loc[1])])
        elif u < 0.75 and (enemies or steps):
            tg = rng.choice(enemies or steps)
            actions[loc] = ["attack", tg]
            orders[bot.player_id + 1][sq] = ("A", DIR_OF[(tg[0] - loc[0], tg[1] - loc[1])])
        elif u < 0.88:
            actions[loc] = ["guard"]
            orders[bot.player_id + 1][sq] = ("D", None)
        elif u < 0.92:
            actions[loc] = ["suicide"]
            orders[bot.player_id + 1][sq] = ("S", None)
        elif u < 0.96 and walls:
            tg = rng.choice(walls)
            actions[loc] = ["guard"]  # rgkit's Player._validate_action refuses it: the robot guards
            orders[bot.player_id + 1][sq] = (rng.choice("MA"), DIR_OF[(tg[0] - loc[0], tg[1] - loc[1])])
        else:
            actions[loc] = ["guard"]  # no order: the variant's robot guards
    return actions, {p: ArenaOrders(o) for p, o in orders.items()}


def play_both(rgk, seed: int, order_seed: int) -> tuple[int, int]:
    """One game of random orders through both engines, boards compared after every turn.
    Returns ``(turns compared, robot-turns compared)``."""
    GameState = rgk["gamestate"].GameState
    settings = rgk["settings"].settings
    # rgkit's Game(seed=seed): GameState(use_start=True, seed=str(seed), symmetric=True)
    rgs = GameState(use_start=True, seed=str(seed), symmetric=True)
    rgs = rgs.apply_actions({})  # turn 0: no robots, spawn (Game.run_all_turns' first turn)
    ours = RS.setup(CONFIG, ["p1", "p2"], seed)
    assert _board_ours(ours) == _board_rg(rgs), f"seed {seed}: boards differ after turn 0"
    rng = random.Random(order_seed)
    turns = robot_turns = 0
    while rgs.turn < settings.max_turns:
        assert not ours.over
        actions, orders = _random_turn(rng, rgs, rgk["rg"])
        robot_turns += len(actions)
        rgs = rgs.apply_actions(actions)
        ours, _ = RS.resolve(ours, {"p1": orders[1], "p2": orders[2]})
        turns += 1
        assert _board_ours(ours) == _board_rg(rgs), f"seed {seed}: boards differ after turn {ours.turn}"
        # rgkit's robot order (which decides the order of attack-damage draws) is kept too
        assert [to_rg(sq, H) for sq in ours.robots] == list(rgs.robots), f"seed {seed} turn {ours.turn}"
    assert ours.over and ours.turn == settings.max_turns - 1
    out = RS.outcome(ours)
    s = rgs.get_scores()
    assert (out.scores["p1"], out.scores["p2"]) == (s[0], s[1])
    assert out.winner == ("p1" if s[0] > s[1] else "p2" if s[1] > s[0] else None)
    return turns, robot_turns


def test_robotgame_settings_are_rgkits(rgk):
    """rgkit/settings.py and rgkit/maps/default.py: the variant's numbers, board and spawn order."""
    st = rgk["settings"].settings
    assert (CONFIG["initial_hp"], CONFIG["max_turns"], CONFIG["spawn_interval"], CONFIG["self_destruct_damage"]) \
        == (st.robot_hp, st.max_turns, st.spawn_every, st.suicide_damage)
    assert (robotgame.ATTACK_RANGE, robotgame.COLLISION_DAMAGE, robotgame.SPAWN_PER_PLAYER, robotgame.MAX_SEED) \
        == (tuple(st.attack_range), st.collision_damage, st.spawn_per_player, st.max_seed)
    state = RS.setup(CONFIG, ["p1", "p2"], 1)
    amap = state.amap
    assert (amap.width, amap.height) == (st.board_size, st.board_size)
    assert sorted(to_rg(sq, H) for sq in amap.walls) == sorted(map(tuple, rgk["map"]["obstacle"]))
    # the order random.choice draws from is the map file's
    assert [to_rg(sq, H) for sq in robotgame.spawn_squares(amap)] == [tuple(x) for x in rgk["map"]["spawn"]]


def test_turn0_spawns_five_robots_each_on_rgkits_squares(rgk):
    """GameState._get_spawn_locations_symmetric and _apply_spawn: 5 + 5 robots, 50 HP, mirrored."""
    for seed in (0, 1, 2, 12345):
        rgs = rgk["gamestate"].GameState(use_start=True, seed=str(seed)).apply_actions({})
        ours = RS.setup(CONFIG, ["p1", "p2"], seed)
        assert _board_ours(ours) == _board_rg(rgs)
        assert sorted(p for _, p, _ in ours.robots.values()) == [1] * 5 + [2] * 5
        assert {hp for _, _, hp in ours.robots.values()} == {50}


def test_differential_random_orders_every_board_equal(rgk):
    """150 seeded games of random orders (about 15,000 turns): every board equal to rgkit's."""
    total_turns = total_robot_turns = 0
    for seed in range(150):
        t, rt = play_both(rgk, seed, 1000 + seed)
        total_turns += t
        total_robot_turns += rt
    assert total_turns == 150 * 99
    assert total_robot_turns > 150 * 99 * 5  # the games had robots to compare, not empty boards


@pytest.mark.slow
def test_differential_many_seeds(rgk):
    """The same for 1,500 more seeds, large seeds included (rgkit's max_seed and beyond)."""
    for i in range(1500):
        seed = (i * 2654435761) % (2 ** 40) if i % 3 else i + 150
        play_both(rgk, seed, 7 * i + 3)


def test_rg_settings_for_robotgame_bots_are_rgkits_own(rgk):
    """What an ``rgkit:`` bot reads from ``rg.settings`` under rules=robotgame equals rgkit's
    ``settings`` after ``init_map`` of its default map (rgkit/settings.py, maps/default.py)."""
    from botwars.games.arena import rgcompat
    from botwars.games.arena.board import load_map
    theirs = rgk["settings"].settings
    rgcompat.configure(load_map(CONFIG["map"]), CONFIG)
    try:
        ours = rgcompat.settings
        for key in ("spawn_every", "spawn_per_player", "board_size", "robot_hp", "collision_damage",
                    "suicide_damage", "max_turns", "player_count", "start"):
            assert ours[key] == theirs[key], key
        assert tuple(ours["attack_range"]) == tuple(theirs["attack_range"])
        assert [tuple(x) for x in ours["spawn_coords"]] == [tuple(x) for x in theirs["spawn_coords"]]
        assert [tuple(x) for x in ours["obstacles"]] == [tuple(x) for x in theirs["obstacles"]]
        assert rgcompat.CENTER_POINT == (9, 9)
    finally:
        rgcompat.configure(load_map("default"), RS.validate_config({}))


def test_rgkit_host_sees_robots_and_acts_in_rgkits_robot_order(rgk):
    """rgkit's ``Player.get_responses`` calls ``act`` for the player's robots in the order of its
    state's robots dict, and ``game.robots`` (``GameState.get_game_info``) has that order: so does
    the ``rgkit:`` host under rules=robotgame (the view's ``robot_order``)."""
    from botwars.games.arena import rgcompat
    from botwars.games.arena.board import load_map
    from botwars.games.arena.rgkit_host import RgkitHost

    class Recorder:
        def act(self, game):
            calls.append((self.location, list(game.robots)))
            return ["guard"]

    rgcompat.configure(load_map(CONFIG["map"]), CONFIG)
    try:
        for seed in (3, 4):
            rgs = rgk["gamestate"].GameState(use_start=True, seed=str(seed)).apply_actions({})
            ours = RS.setup(CONFIG, ["p1", "p2"], seed)
            host = RgkitHost(Recorder(), ours.amap, CONFIG, "p1", seed)
            rng = random.Random(seed)
            for _ in range(25):
                calls = []
                host.act(RS.view(ours, "p1"))
                mine = [loc for loc, r in rgs.robots.items() if r.player_id == 0]
                assert [c[0] for c in calls] == mine
                assert all(c[1] == list(rgs.robots) for c in calls)
                actions, orders = _random_turn(rng, rgs, rgk["rg"])
                rgs = rgs.apply_actions(actions)
                ours, _ = RS.resolve(ours, {"p1": orders[1], "p2": orders[2]})
    finally:
        rgcompat.configure(load_map("default"), RS.validate_config({}))


@pytest.mark.slow
def test_rgkit_bots_play_rgkits_own_game_turn_for_turn(rgk, tmp_path):
    """End to end: two deterministic RobotGame bots (examples/robot.py and rgkit's team_2, which
    takes the first enemy it finds in ``game.robots``) in sandboxed ``rgkit:`` hosts under
    rules=robotgame play, from the same seed, the very game rgkit's own ``Game`` plays: every
    board equal, turn by turn (rgkit/game.py ``Game.run_all_turns``, ``get_state``)."""
    from botwars.agents.spec import make_agent
    from botwars.engine.match import Match
    from botwars.engine.record import read_record, resimulate
    inject = {"rgkit": rgk["pkg"], "rgkit.rg": rgk["rg"], "rgkit.settings": rgk["settings"],
              "rgkit.gamestate": rgk["gamestate"], "rgkit.game": rgk["game"], "rg": rgk["rg"]}
    saved = {k: v for k, v in sys.modules.items() if k == "rg" or k == "rgkit" or k.startswith("rgkit.")}
    sys.modules.update(inject)  # the bots' own "import rg" / "from rgkit import rg" get rgkit's modules
    try:
        robot = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "robot.py")
        team_2 = os.path.join(RGKIT, "rgkit", "bots", "team_2.py")
        seed = 2
        game_mod = rgk["game"]
        g = game_mod.Game([game_mod.Player(file_name=robot), game_mod.Player(file_name=team_2)], seed=seed)
        g.run_all_turns()
    finally:
        for k in [k for k in sys.modules if k == "rg" or k == "rgkit" or k.startswith("rgkit.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    agents = {"p1": make_agent(f"rgkit:{robot}", "arena"), "p2": make_agent(f"rgkit:{team_2}", "arena")}
    m = Match(RS, CONFIG, agents, seed, record=str(tmp_path / "m.jsonl"))
    res = m.run()
    assert res.errors == []
    steps = list(resimulate(read_record(res.replay)))
    boards = [_board_ours(steps[0].before)] + [_board_ours(step.after) for step in steps]
    assert len(boards) == 100  # turn 0 (setup) and turns 1..99
    for t, ours in enumerate(boards):
        assert ours == _board_rg(g.get_state(t + 1)), f"boards differ after turn {t}"
    assert res.outcome.scores == {"p1": g.get_scores()[0], "p2": g.get_scores()[1]}


def _rgkit_game(rgk, bots: list[str], seed: int):
    """rgkit's own runner: ``Game([Player(file_name=...), ...], seed=seed)`` played to the end,
    its output swallowed; ``rg`` is rgkit's module while the bots load and act."""
    import contextlib
    import io
    names = {"rg": rgk["rg"], "rgkit": rgk["pkg"], **{f"rgkit.{n}": rgk[n] for n in ("settings", "rg", "gamestate", "game")}}
    saved = {k: sys.modules.get(k) for k in names}
    sys.modules.update(names)  # the bots import rg / rgkit.rg: rgkit's own modules of this test
    try:
        g = rgk["game"].Game([rgk["game"].Player(file_name=b) for b in bots], seed=seed, record_history=True)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            g.run_all_turns()
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return g


@pytest.mark.parametrize("pair,seed", [(("randombot", "team_15"), 3), (("team_15", "team_2"), 8)])
def test_bots_that_use_random_play_the_same_game_in_both_engines(rgk, tmp_path, pair, seed):
    """Issue 28 item 1, by construction: rgkit's runner seeds ``random`` with ``"SEED-ROBOT_ID"``
    before each ``act``, SEED drawn per player and turn from ``Random(match seed)``; the variant's
    view carries that very seed (``act_seed``) and the ``rgkit:`` host uses it. So rgkit's own bots
    that call ``random`` (randombot, team_15) play the same game in both engines: every board after
    every turn and the score agree, for the unmodified bot files, through the real seat driver."""
    from botwars.agents.spec import make_agent
    from botwars.engine.match import Match
    from botwars.engine.record import read_record, referee_for
    from botwars.engine.driver import resimulate
    files = [os.path.join(RGKIT, "rgkit", "bots", f"{b}.py") for b in pair]
    g = _rgkit_game(rgk, files, seed)
    path = str(tmp_path / "m.jsonl")
    Match(RS, CONFIG, {"p1": make_agent(f"rgkit:{files[0]}", "arena"), "p2": make_agent(f"rgkit:{files[1]}", "arena")},
          seed, record=path).run()
    rec = read_record(path)
    ref = referee_for(rec)
    turns = 0
    for k, rp in enumerate(resimulate(ref, rec.decisions), start=1):
        rg_state = g._states[k + 1]  # rgkit's state after its (k+1)-th run_turn (the first only spawned)
        assert _board_ours(rp.after) == _board_rg(rg_state), f"{pair} seed {seed}: boards differ after turn {k}"
        turns += 1
    assert turns == rgk["settings"].settings.max_turns - 1
    out = RS.outcome(ref.state)
    s = g.get_scores()
    assert (out.scores["p1"], out.scores["p2"]) == (s[0], s[1])
