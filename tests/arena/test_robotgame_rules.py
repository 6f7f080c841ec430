"""``rules=robotgame`` (issue 28 item 1): RobotGame's own rules, taken from rgkit's source.

rgkit's source is the binding text of this variant (docs/arena-robotgame.md); each test names
the rgkit file and function it checks. Expected values are written out by hand from rgkit's
rules; tests/arena/test_robotgame_differential.py compares whole games with rgkit's engine.
"""

from __future__ import annotations

import pytest

from botwars.agents.spec import implied_overrides, make_agent
from botwars.engine.errors import ConfigError
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.board import load_map
from botwars.games.arena.protocol import ArenaOrders
from botwars.games.arena.rules import ArenaState

RS = get_ruleset("arena")
CONFIG = RS.validate_config({"rules": "robotgame"})
AMAP = load_map("robotgame")


def state(robots: dict, turn: int = 3, seed: str = "7") -> ArenaState:
    """A robotgame state after ``turn`` with ``robots``: square → (player, hp)."""
    rs = {sq: (i, p, hp) for i, (sq, (p, hp)) in enumerate(robots.items(), 1)}
    return ArenaState(("p1", "p2"), CONFIG, AMAP, turn, rs, len(rs) + 1, ("", ""), False, seed)


def turn(st: ArenaState, p1: dict | None = None, p2: dict | None = None):
    return RS.resolve(st, {"p1": ArenaOrders(p1 or {}), "p2": ArenaOrders(p2 or {})})


def board(st: ArenaState) -> dict:
    return {sq: (p, hp) for sq, (_, p, hp) in st.robots.items()}


def test_settings_py_values_are_the_defaults_and_user_values_stay():
    """rgkit/settings.py: 19x19 map, 50 HP, 100 turns, spawn every 10, suicide 15."""
    assert CONFIG["rules"] == "robotgame"
    assert (CONFIG["map"], CONFIG["initial_hp"], CONFIG["max_turns"], CONFIG["spawn_interval"],
            CONFIG["self_destruct_damage"]) == ("robotgame", 50, 100, 10, 15)
    assert (AMAP.width, AMAP.height) == (19, 19)
    mine = RS.validate_config({"rules": "robotgame", "initial_hp": "60", "max_turns": "30"})
    assert (mine["initial_hp"], mine["max_turns"], mine["map"]) == (60, 30, "robotgame")
    assert RS.validate_config({})["rules"] == "arena"  # the arena's own rules stay the default
    assert RS.validate_config({})["initial_hp"] == 100


def test_parameters_rgkit_has_no_use_for_are_refused_by_name():
    with pytest.raises(ConfigError, match="attack_damage_enemy does not apply with rules=robotgame.*8-10"):
        RS.validate_config({"rules": "robotgame", "attack_damage_enemy": "20"})
    with pytest.raises(ConfigError, match="must be one of arena, robotgame"):
        RS.validate_config({"rules": "rgkit"})
    # a record's header holds the whole config, unused parameters at their defaults: it replays
    assert RS.validate_config(dict(CONFIG), allow_paths=False) == CONFIG


def test_a_map_rgkits_symmetric_spawn_draw_cannot_use_is_refused():
    """gamestate.py _get_spawn_locations_symmetric needs 10 spawn squares in mirror pairs."""
    with pytest.raises(ConfigError, match="at least 10 spawn squares, this one has 4"):
        RS.validate_config({"rules": "robotgame", "map": "default"})
    lopsided = "\n".join(["############", "#1111122222#", "#..........#", "############"]) + "\n"
    with pytest.raises(ConfigError, match="mirror pairs.*2:3 has no spawn square at 11:2"):
        RS.validate_config({"rules": "robotgame", "map": lopsided})


def test_turn0_spawns_5_per_player_mirrored_bots_act_from_turn_1():
    """game.py run_all_turns: turn 0 has no robots and only spawns (here: setup); the first
    turn bots see is 1."""
    st = RS.setup(CONFIG, ["p1", "p2"], 5)
    assert st.turn == 0 and RS.view(st, "p1")["turn"] == 1
    one = sorted(sq for sq, (_, p, _) in st.robots.items() if p == 1)
    two = sorted(sq for sq, (_, p, _) in st.robots.items() if p == 2)
    assert len(one) == len(two) == 5
    assert sorted((20 - x, 20 - y) for x, y in one) == two  # symmetric_loc: (18 - x, 18 - y) in rgkit's terms
    spawns = {sq for sqs in AMAP.spawns.values() for sq in sqs}
    assert set(one) | set(two) <= spawns
    assert RS.setup(CONFIG, ["p1", "p2"], 5).robots == st.robots  # the seed decides
    assert any(RS.setup(CONFIG, ["p1", "p2"], s).robots != st.robots for s in range(6, 10))


def test_collision_damage_5_from_enemies_not_friends_guards_take_none():
    """gamestate.py _get_contenders, _get_collisions and get_delta: two robots wanting one
    square both stay; a robot that did not guard takes 5 from each enemy it collided with."""
    a, b, c = (8, 10), (10, 10), (9, 10)
    after, events = turn(state({a: (1, 50), b: (2, 50)}), {a: ("M", "E")}, {b: ("M", "W")})
    assert board(after) == {a: (1, 45), b: (2, 45)}
    assert [e.kind for e in events].count("collision") == 2
    after, _ = turn(state({a: (1, 50), b: (1, 50)}), {a: ("M", "E"), b: ("M", "W")})
    assert board(after) == {a: (1, 50), b: (1, 50)}  # friends bump without damage
    after, _ = turn(state({a: (1, 50), c: (2, 50)}), {a: ("M", "E")}, {c: ("D", None)})
    assert board(after) == {a: (1, 45), c: (2, 50)}  # into a guard: the mover takes 5, the guard none
    after, _ = turn(state({a: (1, 50), c: (2, 50)}), {a: ("M", "E")}, {c: ("M", "W")})
    assert board(after) == {a: (1, 45), c: (2, 45)}  # head-on swap: both stay, both hit


def test_attack_8_to_10_on_the_square_after_moves_guard_halves_friends_unhurt():
    """gamestate.py _get_damage_map (attack_range 8-10) and get_delta (damage on the robot that
    ends on the target square; guard: damage // 2; only enemies' damage counts)."""
    a, b = (9, 9), (10, 9)
    seen = set()
    for seed in range(12):
        after, _ = turn(state({a: (1, 50), b: (2, 50)}, seed=str(seed)), {a: ("A", "E")}, {b: ("A", "W")})
        seen.add(50 - board(after)[b][1])  # b attacks too (a robot without orders guards)
    assert seen == {8, 9, 10}
    for seed in range(12):
        after, _ = turn(state({a: (1, 50), b: (2, 50)}, seed=str(seed)), {a: ("A", "E")}, {b: ("D", None)})
        assert 50 - board(after)[b][1] in (4, 5)
    after, _ = turn(state({a: (1, 50), b: (1, 50)}), {a: ("A", "E")})
    assert board(after)[b] == (1, 50)
    # the target leaves: the attack hits whoever stands there after moves
    c = (11, 9)
    after, _ = turn(state({a: (1, 50), b: (2, 50)}), {a: ("A", "E")}, {b: ("M", "E")})
    assert board(after)[c] == (2, 50)


def test_suicide_15_to_orthogonal_enemies_guard_7_the_robot_dies():
    """gamestate.py _get_damage_map: suicide_damage to rg.locs_around (4 orthogonal squares);
    get_delta: the suicider's hp_end is 0."""
    s, n, e, w, diag, friend = (9, 9), (9, 10), (10, 9), (8, 9), (10, 10), (9, 8)
    st = state({s: (1, 50), n: (2, 50), e: (2, 50), w: (2, 50), diag: (2, 50), friend: (1, 50)})
    busy = {n: ("A", "N"), e: ("A", "E"), diag: ("A", "N")}  # attacking empty squares (not guarding)
    after, events = turn(st, {s: ("S", None)}, {w: ("D", None), **busy})
    assert board(after) == {n: (2, 35), e: (2, 35), w: (2, 43), diag: (2, 50), friend: (1, 50)}
    assert [e.data["cause"] for e in events if e.kind == "removed"] == ["self_destruct"]


def test_spawn_turn_kills_robots_on_every_spawn_square_then_spawns_5_each():
    """gamestate.py _apply_spawn: every robot whose end square is in spawn_coords dies (any
    spawn square, chosen or not), then 5 new robots per player appear."""
    sp = (8, 18)  # a spawn square on rgkit's default map
    assert sp in {sq for sqs in AMAP.spawns.values() for sq in sqs}
    st = state({sp: (1, 50), (9, 9): (2, 50)}, turn=9)
    after, events = turn(st)
    assert (9, 9) in after.robots and after.robots[(9, 9)][2] == 50
    new = {sq: r for sq, r in after.robots.items() if sq != (9, 9)}
    assert len(new) == 10 and sorted(p for _, p, _ in new.values()) == [1] * 5 + [2] * 5
    assert all(hp == 50 for _, _, hp in new.values())
    assert all(rid != 1 for rid, _, _ in new.values())  # the robot on the spawn square is gone
    assert [e.data["robot"] for e in events if e.kind == "spawn_kill"] == [1]
    after, _ = turn(state({sp: (1, 50)}, turn=8))
    assert board(after) == {sp: (1, 50)}  # not a spawn turn


def test_orders_rgkit_refuses_and_robots_without_orders_guard():
    """game.py Player._get_response: an action _validate_action refuses (a move or attack onto
    an obstacle) makes the robot guard; the variant does the same for a robot without orders."""
    wall_side, foe = (2, 10), (3, 10)  # (1, 10) is an obstacle
    for order in ({wall_side: ("M", "W")}, {wall_side: ("A", "W")}, {}):
        for seed in range(6):
            after, _ = turn(state({wall_side: (1, 50), foe: (2, 50)}, seed=str(seed)), order, {foe: ("A", "W")})
            assert 50 - board(after)[wall_side][1] in (4, 5)  # guarding: half of 8-10


def test_score_is_the_robot_count_equal_counts_draw_whatever_the_hp():
    """gamestate.py get_scores; run.py counts p1 > p2 as a win: no HP tie-break."""
    st = state({(9, 9): (1, 50), (12, 12): (2, 3)}, turn=98)
    final, _ = turn(st)
    assert final.over and final.turn == 99  # rgkit's state turn is then 100 = max_turns
    out = RS.outcome(final)
    assert out.winner is None and out.scores == {"p1": 1, "p2": 1}
    assert out.details["hp"] == {"p1": 50, "p2": 3}
    final, _ = turn(state({(9, 9): (1, 50), (12, 12): (2, 3), (12, 13): (2, 3)}, turn=98))
    assert RS.outcome(final).winner == "p2"


def test_match_with_robotgame_rules_is_deterministic_and_its_record_verifies(tmp_path):
    runs = []
    for name in ("a", "b"):
        m = Match(RS, CONFIG, {"p1": make_agent("builtin:hunter", "arena"), "p2": make_agent("builtin:random", "arena")},
                  11, record=str(tmp_path / f"{name}.jsonl"))
        res = m.run()
        runs.append(RS.state_json(m.state))
        assert res.turns == 99
        ok, msg = verify_record(read_record(res.replay))
        assert ok, msg
    assert runs[0] == runs[1]
    assert read_record(str(tmp_path / "a.jsonl")).header["config"]["rules"] == "robotgame"


def test_rgkit_seats_get_robotgame_unless_the_user_picks_rules():
    """issue 28 item 1: every seat ``rgkit:`` → rules=robotgame by default, with a note."""
    specs = ["rgkit:a.py", "rgkit:b.py"]
    over, note = implied_overrides("arena", specs, {})
    assert over == {"rules": "robotgame"} and "RobotGame's own rules" in note
    assert implied_overrides("arena", specs, {"rules": "arena"}) == ({"rules": "arena"}, "")
    assert implied_overrides("arena", ["rgkit:a.py", "builtin:hunter"], {}) == ({}, "")
    assert implied_overrides("arena", ["builtin:hunter", "builtin:random"], {"seed": 1}) == ({"seed": 1}, "")


def test_the_rules_page_ends_with_the_variants_section():
    """/rules/arena: the binding rules (a copy of shared/rules/arena.md), then the variant's
    differences, each arena rule it changes named (games/arena/rules+robotgame.md, declared in
    the arena's ``rules_variants``)."""
    from botwars.engine.plugin import games as all_games
    from botwars.web.game_pages import rules_html, rules_markdown
    text = rules_markdown("arena")
    binding = all_games()["arena"].binding_rules_text()
    assert binding and binding.startswith("# ")
    assert text.startswith(binding)
    extra = text[len(binding):]
    assert "Variant: RobotGame's own rules" in extra and "rgkit/gamestate.py" in extra
    for rule in ("R7", "R16", "R19", "R20", "R21", "R24", "R28"):
        assert rule in extra, rule
    _, toc = rules_html(text)
    assert toc[-1][2] == "11. Variant: RobotGame's own rules (rules=robotgame)"


def test_twin_state_redraws_rgkits_seed_and_keeps_every_seats_view():
    """The seed decides future spawns and damage, which rgkit shows no bot (get_game_info)."""
    import random
    st = RS.setup(CONFIG, ["p1", "p2"], 21)
    twin = RS.twin_state(st, "p1", random.Random(1))
    assert twin.rng != st.rng and twin.robots == st.robots
    assert RS.view(twin, "p1") == RS.view(st, "p1")
    assert RS.view(st, "p1")["robot_order"] == [[x, y] for x, y in st.robots]


def test_the_batched_arena_refuses_robotgame_rules_in_a_sentence():
    """The NumPy/JAX batch engines implement arena.md only: they refuse rules=robotgame rather
    than play the arena's rules under its name."""
    from botwars.games.arena.batch import BatchArena
    with pytest.raises(ConfigError, match="arena's own rules only, not rules=robotgame"):
        BatchArena(CONFIG, 2)
    BatchArena(RS.validate_config({}), 2)  # the arena's own rules: fine
