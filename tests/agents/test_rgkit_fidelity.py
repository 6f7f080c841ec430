"""rgkit fidelity (issue 15 item 6): the ``rgkit:`` host against rgkit's own code, imported from
``tests/peers/rgkit`` (a copy of ``../shared/peers/rgkit``; RobotGame is public domain).

Arena rules cited: R1 (coordinates), R7 (turn-0 robots on the spawn points), R10/R11 (orders,
``D``), P10/P14 (failures and their record)."""

import importlib
import os
import sys

import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.arena import rgcompat
from botwars.games.arena.board import load_map
from botwars.games.arena.rgkit_host import InvalidAction, RgkitHost, to_order

from agent_helpers import accepted, bot, errors_of, play

RGKIT = os.environ.get("BOTWARS_RGKIT_SRC") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "peers", "rgkit"))  # tests/peers/rgkit: a vendored copy
CONFIG = get_ruleset("arena").validate_config({})
AMAP = load_map("default")


@pytest.fixture(scope="module")
def real():
    """rgkit's own ``rg``, ``settings`` and ``game`` modules (sys.modules restored afterwards)."""
    if not os.path.isfile(os.path.join(RGKIT, "rgkit", "rg.py")):
        pytest.fail(f"rgkit source not found at {RGKIT} (set BOTWARS_RGKIT_SRC)")
    saved = {k: v for k, v in sys.modules.items() if k == "rg" or k == "rgkit" or k.startswith("rgkit.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, RGKIT)
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # rgkit.game imports imp
            mods = {n: importlib.import_module(f"rgkit.{n}") for n in ("settings", "rg", "gamestate", "game")}
    finally:
        sys.path.remove(RGKIT)
        for k in [k for k in sys.modules if k == "rg" or k == "rgkit" or k.startswith("rgkit.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    # rgkit set up for the arena's default map (R1 coordinates), as its init_map does for its own maps
    rgcompat.configure(AMAP, CONFIG)
    mods["settings"].settings.board_size = AMAP.width
    mods["settings"].settings.init_map({"spawn": list(rgcompat.settings.spawn_coords),
                                        "obstacle": list(rgcompat.settings.obstacles),
                                        "start": rgcompat.settings.start})
    mods["rg"].loc_types.__self__.clear()  # rgkit memoizes loc_types
    return mods


@pytest.fixture
def rg():
    rgcompat.configure(AMAP, CONFIG)
    return rgcompat


def test_rg_settings_have_rgkits_fixed_entries_with_rgkits_values(real, rg):
    theirs = real["settings"].settings
    for key in ("str_limit", "max_seed", "default_rating", "max_time_initialization", "max_time_first_act",
                "max_time_per_act", "exposed_properties", "player_only_properties", "user_obj_types",
                "valid_commands"):
        assert rg.settings[key] == theirs[key], key
        assert getattr(rg.settings, key) == theirs[key], key
    assert rg.settings.max_time_initial == theirs["max_time_initialization"]
    # every key rgkit's settings has (start is set by its init_map) exists here too
    assert set(theirs) - set(rg.settings) == set()
    assert "start" in rg.settings


def test_R7_settings_start_lists_each_players_turn0_robots(rg):
    state = get_ruleset("arena").setup(CONFIG, ["p1", "p2"], 0)
    for p in (1, 2):
        expected = sorted(rg.to_rg(sq, AMAP.height) for sq, r in state.robots.items() if r[1] == p)
        assert rg.settings.start[p - 1] == expected


def test_rg_toward_equals_rgkits_over_all_square_pairs(real, rg):
    """rgkit's toward (with its _sign(0) == -1 quirk) on the same obstacles, every (curr, dest)
    pair of the default map plus one square around it (R1)."""
    theirs = real["rg"]
    locs = [(x, y) for x in range(-1, AMAP.width + 1) for y in range(-1, AMAP.height + 1)]
    diffs = [(a, b) for a in locs for b in locs if rg.toward(a, b) != theirs.toward(a, b)]
    assert diffs == []
    # the quirk itself: a zero difference steps towards -1 when the first step is blocked
    assert rg._sign(0) == theirs._sign(0) == -1
    blocked = next((c, (c[0], c[1] + 3)) for c in locs
                   if (c[0], c[1] + 1) in rg.settings.obstacles and c[0] - 1 >= 0)
    assert rg.toward(*blocked) == (blocked[0][0] - 1, blocked[0][1])


class Recorder:
    def __init__(self, crash_at=None, action=None):
        self.seen = []
        self.crash_at = crash_at
        self.action = action

    def act(self, game):
        self.seen.append((self.location, self.robot_id, game.seed,
                          {loc: dict(r) for loc, r in game.robots.items()}))
        if self.location == self.crash_at:
            raise ValueError("boom")
        if self.action and self.location in self.action:
            return self.action[self.location]
        return ["guard"]


VIEW = {"turn": 3, "max_turns": 100, "player": 2, "user_data": "",
        "robots": [{"side": "F", "x": 12, "y": 5, "hp": 100}, {"side": "F", "x": 12, "y": 12, "hp": 90},
                   {"side": "E", "x": 5, "y": 5, "hp": 100}]}


def test_enemies_carry_no_robot_id_and_game_seed_is_set_before_every_act(rg):
    r = Recorder()
    RgkitHost(r, AMAP, CONFIG, "p2", 7).act(VIEW)
    assert len(r.seen) == 2
    for loc, rid, seed, robots in r.seen:
        own = {k for k, v in robots.items() if "robot_id" in v}
        assert own == {(11, 4), (11, 11)}                  # 'robot_id' in bot: friend, not foe
        assert set(robots[(4, 11)]) == {"location", "hp", "player_id"}  # rgkit's exposed_properties
        turn_seed, _, robot = seed.partition("-")
        assert robot == str(rid) and 0 <= int(turn_seed) <= rg.settings.max_seed
    assert r.seen[0][2] != r.seen[1][2]
    # same seat, seed and turn: the same seeds (a replay repeats them)
    r2 = Recorder()
    RgkitHost(r2, AMAP, CONFIG, "p2", 7).act(VIEW)
    assert [s[2] for s in r2.seen] == [s[2] for s in r.seen]


def test_one_robots_crash_makes_only_that_robot_guard_as_in_rgkit(real, rg):
    """rgkit's Player catches the exception of one act and makes that robot guard; the other
    robots' actions stand. The host does the same (R11: D for that robot) and reports it."""
    # rgkit itself, on a state with the same two robots
    gs = real["gamestate"].GameState()
    gs.add_robot((11, 4), 0, hp=90)
    gs.add_robot((11, 11), 0)
    robot = Recorder(crash_at=(11, 4), action={(11, 11): ["move", (11, 10)]})
    player = real["game"].Player(robot=robot)
    player.set_player_id(0)
    import contextlib
    import io
    with contextlib.redirect_stderr(io.StringIO()):
        actions, outputs = player.get_responses(gs, 5)
    assert actions == {(11, 4): ("guard",), (11, 11): ("move", (11, 10))}
    assert outputs[(11, 4)][0] is True and outputs[(11, 11)][0] is False
    # the host: only the crashing robot (rgkit (11, 4) = arena 12:12) defends
    robot = Recorder(crash_at=(11, 4), action={(11, 11): ["move", (11, 10)]})
    with contextlib.redirect_stderr(io.StringIO()):
        reply = RgkitHost(robot, AMAP, CONFIG, "p2", 0, host=_Host()).act(VIEW)
    assert reply["orders"] == [{"x": 12, "y": 12, "action": "D"}, {"x": 12, "y": 5, "action": "M", "dir": "N"}]
    [err] = reply["robot_errors"]
    assert (err["x"], err["y"], err["code"]) == (12, 12, "crash") and "ValueError: boom" in err["detail"]


class _Host:
    def failure_reply(self, exc, path=None, code=None):
        from botwars.agents.pyhost import failure_reply
        return failure_reply(exc, path, code)


@pytest.mark.parametrize("loc,action", [((11, 4), ["move", [12, 4]]), ((11, 4), ["move", (12, 5)]),
                                        ((2, 1), ["move", (1, 1)]), ((2, 1), ["attack", (2, 0)]),
                                        ((11, 4), ["move", (True, 4)]), ((11, 4), ["jump"]),
                                        ((11, 4), ("move",)), ((11, 4), ["guard", 1, 2]),
                                        ((11, 4), ["move", (11.5, 4)])])
def test_actions_rgkit_refuses_are_refused_here(real, rg, loc, action):
    """rgkit's _validate_action on the same location and obstacles refuses exactly these (a list
    location, a diagonal, a wall, a bool, ...)."""
    assert "obstacle" not in rg.loc_types(loc)

    class R:
        robot_id = 1
        location = loc
    with pytest.raises(Exception):
        real["game"].Player._validate_action(R, action)
    with pytest.raises(InvalidAction):
        to_order(action, loc)


@pytest.mark.parametrize("action,order", [(["move", (12, 4)], ("M", "E")), (("attack", (11.0, 5.0)), ("A", "S")),
                                          (["guard", (3, 3)], ("D", None)), (["suicide"], ("S", None))])
def test_actions_rgkit_accepts_are_accepted_here(real, rg, action, order):
    class R:
        robot_id = 1
        location = (11, 4)
    real["game"].Player._validate_action(R, action)  # does not raise
    assert to_order(action, (11, 4)) == order


def test_P14_each_robot_crash_is_recorded_and_the_others_orders_stand(tmp_path):
    res, rec = play(tmp_path, f"rgkit:{bot('rg_one_crash.py')}", "builtin:defender", max_turns=3)
    errs = [e for e in res.errors if e["seat"] == "p1"]
    assert [(e["decision"], e["code"]) for e in errs] == [(2, "crash"), (3, "crash")]
    assert all("ValueError: boom" in e["detail"] and "rg_one_crash.py" in e["detail"] for e in errs)
    for n in (2, 3):
        tokens = accepted(rec, n, "p1").split(",")
        assert sum(t.endswith("-D") for t in tokens) == 1 and any("-M-" in t for t in tokens)
        crashed = next(t for t in tokens if t.endswith("-D")).rsplit("-D", 1)[0]
        assert any(e["detail"].startswith(crashed + " ") for e in errs if e["decision"] == n)
    assert errors_of(res, "p2") == []


def test_a_bot_that_replaces_random_seed_gets_its_own_function_called_as_in_rgkit(rg):
    """rgkit calls the module attribute ``random.seed``: a bot that replaced it sees its own."""
    import random
    calls = []
    saved = random.seed

    class R:
        def act(self, game):
            return ["guard"]
    random.seed = calls.append
    try:
        RgkitHost(R(), AMAP, CONFIG, "p2", 7).act(VIEW)
    finally:
        random.seed = saved
    assert len(calls) == 2 and all(c.endswith(("-1", "-2")) for c in calls)


def test_a_bot_that_changes_game_robots_does_not_change_its_next_robots_facts(real, rg):
    """rgkit sets each robot's location, hp and robot_id from its own state, not from the
    ``game.robots`` the bot was given: a bot that empties that dict in one act still sees its
    next robot's facts (and neither rgkit nor the host crashes)."""
    import contextlib
    import io

    class Clearer:
        def __init__(self):
            self.seen = []

        def act(self, game):
            self.seen.append((self.location, self.hp, self.player_id))
            game.robots.clear()
            return ["guard"]
    gs = real["gamestate"].GameState()
    gs.add_robot((11, 4), 1, hp=90)   # VIEW's own robots, as rgkit locations
    gs.add_robot((11, 11), 1, hp=100)
    theirs = Clearer()
    player = real["game"].Player(robot=theirs)
    player.set_player_id(1)
    with contextlib.redirect_stderr(io.StringIO()):
        actions, outputs = player.get_responses(gs, 5)
    assert not any(flag for flag, _ in outputs.values())
    ours = Clearer()
    reply = RgkitHost(ours, AMAP, CONFIG, "p2", 0).act(VIEW)  # VIEW: the same two robots, player 2
    assert sorted(ours.seen) == sorted(theirs.seen) == [((11, 4), 90, 1), ((11, 11), 100, 1)]
    assert [o["action"] for o in reply["orders"]] == ["D", "D"] and "robot_errors" not in reply
