"""``rgkit:`` bots: unmodified RobotGame bots through the rgkit host and the ``rg`` helpers."""

import pytest

from botwars.games.arena import rgcompat
from botwars.games.arena.board import load_map
from botwars.games.arena.rgkit_host import IdTracker, InvalidAction, RgkitHost, install_rg_modules, to_order
from botwars.engine.ruleset import get_ruleset

from agent_helpers import PY, accepted, all_defend, bot, errors_of, example, play

CONFIG = get_ruleset("arena").validate_config({})
AMAP = load_map("default")


@pytest.fixture
def rg():
    rgcompat.configure(AMAP, CONFIG)
    return rgcompat


def test_example_rgkit_robot_plays_a_match_against_a_botwars_io_bot(tmp_path):
    res, rec = play(tmp_path, f"botwars-io:{PY} {example('mybot.py')}", f"rgkit:{example('robot.py')}",
                    max_turns=11)
    assert res.turns == 11
    assert res.errors == []
    # towards the centre, rgkit (8, 8) = arena 9:8; robots act in rgkit location order
    assert accepted(rec, 1, "p2") == "12:12-M-S,12:5-M-W"


def test_R1_coordinates_rgkit_y_grows_downwards(rg):
    assert rg.to_rg((1, 16), 16) == (0, 0)      # arena top-left corner
    assert rg.to_rg((16, 1), 16) == (15, 15)    # arena bottom-right corner
    assert rg.from_rg(rg.to_rg((5, 12), 16), 16) == (5, 12)
    # rgkit "up" (y - 1) is arena north (Y + 1)
    assert to_order(["move", (4, 10)], (4, 11)) == ("M", "N")
    assert to_order(["move", (4, 12)], (4, 11)) == ("M", "S")
    assert to_order(["attack", (5, 11)], (4, 11)) == ("A", "E")
    assert to_order(["attack", (3, 11)], (4, 11)) == ("A", "W")


def test_R2_loc_types_on_the_default_map(rg):
    assert rg.loc_types((0, 0)) == {"normal", "obstacle"}          # wall ring
    assert rg.loc_types((1, 14)) == {"normal", "obstacle"}         # H1 block at 2:2
    assert rg.loc_types((4, 11)) == {"normal", "spawn"}            # 5:5, player 1
    assert rg.loc_types((11, 4)) == {"normal", "spawn"}            # 12:12, player 2
    assert rg.loc_types((7, 7)) == {"normal"}
    assert rg.loc_types((-1, 3)) == {"invalid"}
    assert rg.loc_types((16, 3)) == {"invalid"}


def test_rg_helpers_match_rgkit(rg):
    assert rg.dist((0, 0), (3, 4)) == 5.0
    assert rg.wdist((0, 0), (3, -4)) == 7
    assert rg.CENTER_POINT == (8, 8)
    assert rg.locs_around((1, 1)) == [(1, 2), (2, 1), (1, 0), (0, 1)]
    assert rg.locs_around((1, 1), filter_out=("obstacle", "invalid")) == [(1, 2), (2, 1)]
    assert rg.toward((4, 11), (8, 8)) == (5, 11)   # larger difference first (x: 4 > y: 3)
    assert rg.toward((8, 4), (8, 8)) == (8, 5)
    assert rg.toward((8, 8), (8, 8)) == (8, 8)
    assert rg.toward((2, 1), (0, 2)) == (2, 2)     # (1, 1) is an obstacle (H1 wall 2:15): other axis


def test_rg_settings_follow_the_match_parameters():
    cfg = get_ruleset("arena").validate_config({"attack_damage_enemy": 14, "spawn_interval": 5, "initial_hp": 50})
    rgcompat.configure(AMAP, cfg)
    s = rgcompat.settings
    assert (s.attack_range, s.spawn_every, s.robot_hp, s.board_size) == ((14, 14), 5, 50, 16)
    assert s["suicide_damage"] == 6 and s.max_turns == 100
    assert sorted(s.spawn_coords) == [(4, 4), (4, 11), (11, 4), (11, 11)]
    assert len(s.obstacles) == 16 * 16 - 192


def test_rg_modules_are_importable_under_all_rgkit_names(rg):
    install_rg_modules()
    import rg as a
    import rgkit.rg as b
    from rgkit import rg as c
    from rgkit.settings import settings
    assert a is b is c is rgcompat
    assert settings is rgcompat.settings


@pytest.mark.parametrize("action", [["move", (5, 12)], ["move"], ["attack", (4, 11)], ["jump"], "guard",
                                    ["move", (True, 11)], ["move", (4.5, 11)], ["move", [5, 11]], []])
def test_invalid_rgkit_actions_are_refused(rg, action):
    with pytest.raises(InvalidAction):
        to_order(action, (4, 11))


def test_guard_is_defend_and_suicide_is_self_destruct(rg):
    assert to_order(["guard"], (4, 11)) == ("D", None)
    assert to_order(("suicide",), (4, 11)) == ("S", None)
    assert to_order(["move", (5.0, 11.0)], (4, 11)) == ("M", "E")  # rgkit accepts whole floats


def test_host_gives_rgkit_attributes_and_maps_orders(rg):
    seen = []

    class Robot:
        def act(self, game):
            seen.append((self.location, self.hp, self.player_id, self.robot_id, game.turn,
                         {loc: (r.location, r["hp"], r.player_id) for loc, r in game.robots.items()}))
            return ["attack", (self.location[0] + 1, self.location[1])] if self.hp < 100 else ["guard"]

    host = RgkitHost(Robot(), AMAP, CONFIG, "p2", 0)
    view = {"turn": 3, "max_turns": 100, "player": 2, "user_data": "",
            "robots": [{"side": "F", "x": 12, "y": 5, "hp": 100}, {"side": "F", "x": 12, "y": 12, "hp": 90},
                       {"side": "E", "x": 5, "y": 5, "hp": 100}]}
    reply = host.act(view)
    assert reply == {"orders": [{"x": 12, "y": 12, "action": "A", "dir": "E"},
                                {"x": 12, "y": 5, "action": "D"}]}
    robots = {(11, 4): ((11, 4), 90, 1), (11, 11): ((11, 11), 100, 1), (4, 11): ((4, 11), 100, 0)}
    assert [s[:3] for s in seen] == [((11, 4), 90, 1), ((11, 11), 100, 1)]
    assert all(s[4] == 3 and s[5] == robots for s in seen)
    assert len({s[3] for s in seen}) == 2


def ids_after(tracker, turn, own, enemy=None):
    return tracker.update(turn, own, enemy or {})


def test_robot_ids_follow_a_chain_of_moves_X2():
    t = IdTracker(AMAP, 10, 1)
    own, _ = ids_after(t, 3, {(7, 7): 100, (8, 7): 100})
    t.orders = {(7, 7): ("M", "E"), (8, 7): ("M", "E")}
    own2, _ = ids_after(t, 4, {(8, 7): 100, (9, 7): 100})
    assert own2[(9, 7)] == own[(8, 7)] and own2[(8, 7)] == own[(7, 7)]


def test_robot_ids_blocked_chain_stays_X3():
    t = IdTracker(AMAP, 10, 1)
    own, _ = ids_after(t, 3, {(7, 7): 100, (8, 7): 100}, {(9, 7): 100})
    t.orders = {(7, 7): ("M", "E"), (8, 7): ("M", "E")}
    own2, foe2 = ids_after(t, 4, {(7, 7): 100, (8, 7): 100}, {(9, 7): 100})
    assert own2 == own


def test_robot_ids_rotation_H10_and_dead_robots():
    t = IdTracker(AMAP, 10, 1)
    sq = [(7, 7), (8, 7), (8, 8), (7, 8)]
    own, _ = ids_after(t, 3, {s: 100 for s in sq})
    t.orders = {(7, 7): ("M", "E"), (8, 7): ("M", "N"), (8, 8): ("M", "W"), (7, 8): ("M", "S")}
    own2, _ = ids_after(t, 4, {s: 100 for s in sq})
    assert [own2[sq[(i + 1) % 4]] for i in range(4)] == [own[s] for s in sq]
    t.orders = {}
    own3, _ = ids_after(t, 5, {(7, 7): 90})   # three died, one was hit
    assert own3 == {(7, 7): own2[(7, 7)]}


def test_robot_ids_new_robots_on_spawn_points_after_a_spawn_turn_R19():
    t = IdTracker(AMAP, 10, 1)
    own, _ = ids_after(t, 10, {(5, 5): 40, (6, 6): 100})
    t.orders = {}
    own2, _ = ids_after(t, 11, {(5, 5): 100, (5, 12): 100, (6, 6): 100})
    assert own2[(6, 6)] == own[(6, 6)]
    assert own2[(5, 5)] not in own.values()
    assert len(set(own2.values())) == 3


def test_rgkit_exception_is_a_crash_of_each_robot_and_the_match_goes_on(tmp_path):
    res, rec = play(tmp_path, f"rgkit:{bot('rg_raise.py')}", "builtin:defender")
    assert errors_of(res, "p1") == [(2, "crash"), (2, "crash")]  # both robots' act raised (rgkit: each guards)
    assert all("ZeroDivisionError" in e["detail"] and "rg_raise.py:7" in e["detail"] for e in res.errors)
    assert all_defend(accepted(rec, 2, "p1")) and all_defend(accepted(rec, 3, "p1"))


def test_rgkit_invalid_action_makes_that_robot_guard(tmp_path):
    res, rec = play(tmp_path, f"rgkit:{bot('rg_bad_action.py')}", "builtin:defender")
    assert errors_of(res, "p1") == [(2, "malformed"), (2, "malformed")]
    assert "is not a valid action" in res.errors[0]["detail"]
    assert all_defend(accepted(rec, 2, "p1"))


def test_rgkit_file_without_robot_class_fails_each_turn(tmp_path):
    f = tmp_path / "norobot.py"
    f.write_text("x = 1\n")
    res, _ = play(tmp_path, f"rgkit:{f}", "builtin:defender", max_turns=2)
    assert errors_of(res, "p1") == [(1, "crash"), (2, "crash")]
    assert "no class Robot" in res.errors[0]["detail"]


def test_robot_ids_agree_with_the_engine_over_a_real_game(rg):
    """Own robot ids kept by the host stay in one-to-one correspondence with the engine's ids
    through moves, chains, blocked moves, deaths and spawns (60 turns of seeded random play)."""
    import random as _random

    from botwars.agents.base import CallableAgent
    from botwars.games.arena.bots import HunterBot

    rs = get_ruleset("arena")
    cfg = rs.validate_config({"max_turns": 60})
    pick = _random.Random(7)
    seen = []

    class Robot:
        def act(self, game):
            seen.append((game.turn, self.location, self.robot_id))
            x, y = self.location
            return pick.choice([["move", (x + 1, y)], ["move", (x - 1, y)], ["move", (x, y + 1)],
                                ["move", (x, y - 1)], ["guard"], ["attack", (x + 1, y)]])

    host = RgkitHost(Robot(), AMAP, cfg, "p1", 0)
    hunter = CallableAgent(HunterBot())
    hunter.start("arena", "p2", cfg, 0)
    state = rs.setup(cfg, ["p1", "p2"], 0)
    pairs = {}
    while rs.outcome(state) is None:
        view = rs.view(state, "p1")
        seen.clear()
        reply = host.act(view)
        engine_ids = {rg.to_rg(sq, 16): r[0] for sq, r in state.robots.items() if r[1] == 1}
        for turn, loc, rid in seen:
            eid = engine_ids[loc]
            assert pairs.setdefault(eid, rid) == rid, f"turn {turn}: engine robot {eid} changed host id"
        assert len(set(pairs.values())) == len(pairs)
        orders = {"p1": rs.parse_orders(state, "p1", reply),
                  "p2": rs.parse_orders(state, "p2", hunter.act(rs.view(state, "p2"), None))}
        state, _ = rs.resolve(state, orders)
    assert len(pairs) > 8  # spawns and deaths happened
