"""Arena rules that are not board positions: map format, setup, views, protocol, records.

Test names cite the rule ids of shared/rules/arena.md.
"""

import json
import os
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from botwars.agents.base import AgentFailure
from botwars.cli import app
from botwars.engine.errors import ConfigError
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.board import load_map, parse_map
from botwars.agents.tools import TOOLS
from botwars.games.arena.protocol import (BotwarsIoAgent, parse_json_response, parse_text_response,
                                          text_observation)
from botwars.games.arena.rules import make_state

rs = get_ruleset("arena")
runner = CliRunner()
DEFAULT_MAP = textwrap.dedent("""\
    ################
    ##............##
    #..............#
    #..............#
    #...1......2...#
    #..............#
    #..............#
    #..............#
    #..............#
    #..............#
    #..............#
    #...1......2...#
    #..............#
    #..............#
    ##............##
    ################
    """)


def cfg(**kw):
    return rs.validate_config(kw)


# ---- map (R1, R2, R5, R6, H1, H2, R8) --------------------------------------------------------
def test_R6_H1_H2_default_map_is_the_one_in_the_rules():
    m = load_map("default")
    assert m.to_text() == DEFAULT_MAP
    assert (m.width, m.height) == (16, 16)
    assert m.open_squares() == 192
    assert {(2, 2), (15, 2), (2, 15), (15, 15)} <= m.walls
    assert m.spawns == {1: ((5, 5), (5, 12)), 2: ((12, 5), (12, 12))}


def test_R1_R5_coordinates_line_1_is_the_top_row():
    m = parse_map("...\n1.#\n..2\n")
    assert m.walls == {(3, 2)}
    assert m.spawns == {1: ((1, 2),), 2: ((3, 1),)}
    assert not m.is_open((0, 1)) and not m.is_open((4, 1)) and not m.is_open((1, 4))  # R1 off-grid


def test_R8_default_map_is_mirror_symmetric():
    m = load_map("default")
    assert {(17 - x, y) for x, y in m.walls} == m.walls
    assert {(17 - x, y) for x, y in m.spawns[1]} == set(m.spawns[2])


@pytest.mark.parametrize("text,line,words", [
    ("#####\n#1.2#\n####\n", 3, "expected 5"),
    ("#####\n#1x2#\n#####\n", 2, "unknown map character 'x'"),
    ("#####\n#1..#\n#####\n", None, "player 2 has no spawn point"),
    ("##\n12\n##\n", 1, "width must be 3..999"),
    ("", 1, "empty map"),
])
def test_R5_invalid_maps_are_refused_with_the_line(text, line, words):
    with pytest.raises(ConfigError) as info:
        parse_map(text, "m.map")
    assert words in info.value.message
    assert info.value.line == line


def test_R5_crlf_and_missing_final_line_ending():
    assert parse_map("#####\r\n#1.2#\r\n#####") == parse_map("#####\n#1.2#\n#####\n")


# ---- setup and views (R7, R9, R30, H3, H26, P4, P9, P11, R31, R32, H25) -------------------------
def test_R7_turn_0_one_robot_per_spawn_point():
    s = rs.setup(cfg(), ["p1", "p2"], 0)
    assert s.turn == 0 and s.user_data == ("", "")
    assert sorted((sq, r[1], r[2]) for sq, r in s.robots.items()) == [
        ((5, 5), 1, 100), ((5, 12), 1, 100), ((12, 5), 2, 100), ((12, 12), 2, 100)]


def test_P9_P4_H3_text_observation_example():
    s = rs.setup(cfg(), ["p1", "p2"], 0)
    assert text_observation(rs.view(s, "p1")) == "1,100,1#F-5:5-100,F-5:12-100,E-12:5-100,E-12:12-100#"
    assert text_observation(rs.view(s, "p2")) == "1,100,2#F-12:5-100,F-12:12-100,E-5:5-100,E-5:12-100#"


def test_P11_R30_json_view_and_order_of_robots():
    s = make_state(cfg(), {(9, 3): (2, 50), (3, 9): (1, 7), (3, 2): (1, 9), (9, 2): (2, 1)}, turn=4,
                   user_data=("mine", "theirs"))
    v = rs.view(s, "p2")
    assert v == {"turn": 5, "max_turns": 100, "player": 2, "user_data": "theirs", "robots": [
        {"side": "F", "x": 9, "y": 2, "hp": 1}, {"side": "F", "x": 9, "y": 3, "hp": 50},
        {"side": "E", "x": 3, "y": 2, "hp": 9}, {"side": "E", "x": 3, "y": 9, "hp": 7}]}
    assert text_observation(v) == "5,100,2#F-9:2-1,F-9:3-50,E-3:2-9,E-3:9-7#theirs"


def test_R30_H26_R32_spectator_view():
    s = make_state(cfg(), {(9, 3): (2, 50), (3, 9): (1, 7), (3, 2): (1, 9)}, user_data=("a", "b"))
    v = rs.view(s, None)
    assert v == {"turn": 1, "max_turns": 100, "player": None, "robots": [
        {"player": 1, "x": 3, "y": 2, "hp": 9}, {"player": 1, "x": 3, "y": 9, "hp": 7},
        {"player": 2, "x": 9, "y": 3, "hp": 50}]}


def test_R31_R32_H25_views_carry_no_orders_and_no_other_user_data():
    s = rs.setup(cfg(), ["p1", "p2"], 0)
    s, _ = rs.resolve(s, {"p1": rs.parse_orders(s, "p1", "5:5-M-N#secret1"),
                          "p2": rs.parse_orders(s, "p2", "12:5-A-N#secret2")})
    v1 = rs.view(s, "p1")
    assert set(v1) == {"turn", "max_turns", "player", "robots", "user_data"}
    assert v1["user_data"] == "secret1"
    assert "secret2" not in json.dumps(v1) and "secret" not in json.dumps(rs.view(s, None))
    assert all(set(r) == {"side", "x", "y", "hp"} for r in v1["robots"])


def test_R9_R26_view_turn_numbers_and_end():
    s = rs.setup(cfg(max_turns=2), ["p1", "p2"], 0)
    assert rs.view(s, "p1")["turn"] == 1
    for t in (1, 2):
        assert rs.pending(s) == ["p1", "p2"]
        s, _ = rs.resolve(s, {"p1": rs.default_orders(s, "p1"), "p2": rs.default_orders(s, "p2")})
        assert s.turn == t
    assert s.over and rs.pending(s) == []
    out = rs.outcome(s)
    assert out.reason == "turn_limit" and out.winner is None  # R28: equal robots and HP


def test_R12_mirror_position_gives_mirror_result():
    """R8/R12: mirroring the board (X -> 17 - X) and swapping players mirrors the result."""
    robots = {(7, 7): (1, 100), (8, 7): (2, 30), (8, 8): (1, 40), (9, 9): (2, 100), (7, 8): (2, 100)}
    orders1 = "7:7-A-E,8:8-S"
    orders2 = "8:7-M-N,9:9-D,7:8-M-S"
    a = make_state(cfg(), robots)
    ra, _ = rs.resolve(a, {"p1": rs.parse_orders(a, "p1", orders1), "p2": rs.parse_orders(a, "p2", orders2)})

    def mirror_text(t):
        out = []
        for tok in t.split(","):
            sq, rest = tok.split("-", 1)
            x, y = sq.split(":")
            rest = rest.replace("-E", "-w").replace("-W", "-E").replace("-w", "-W")
            out.append(f"{17 - int(x)}:{y}-{rest}")
        return ",".join(out)

    b = make_state(cfg(), {(17 - x, y): (3 - p, hp) for (x, y), (p, hp) in robots.items()})
    rb, _ = rs.resolve(b, {"p1": rs.parse_orders(b, "p1", mirror_text(orders2)),
                           "p2": rs.parse_orders(b, "p2", mirror_text(orders1))})
    assert {((17 - x, y), 3 - r[1], r[2]) for (x, y), r in rb.robots.items()} == \
        {(sq, r[1], r[2]) for sq, r in ra.robots.items()}


# ---- resolution details only visible in events (H13, H14) ---------------------------------------
def test_H14_robot_removed_in_step_5_is_not_hit_by_the_blast():
    s = make_state(cfg(), {(7, 7): (1, 10), (8, 7): (2, 100), (7, 8): (1, 100)})
    s2, ev = rs.resolve(s, {"p1": rs.parse_orders(s, "p1", "7:7-A-E,7:8-S"), "p2": rs.parse_orders(s, "p2", "8:7-A-W")})
    blast = [e for e in ev if e.kind == "blast"][0]
    assert [h["at"] for h in blast.data["hits"]] == ["8:7"]
    removed = {e.data["at"]: e.data for e in ev if e.kind == "removed"}
    assert removed["7:7"]["hp"] == -2 and removed["7:7"]["cause"] == "attack"
    assert removed["7:8"]["cause"] == "self_destruct"


def test_R25_removal_and_HP_below_zero_in_events():
    s = make_state(cfg(), {(7, 7): (1, 10), (8, 7): (2, 12)})
    s2, ev = rs.resolve(s, {"p1": rs.parse_orders(s, "p1", "7:7-A-E"), "p2": rs.parse_orders(s, "p2", "8:7-A-W")})
    assert sorted(e.data["hp"] for e in ev if e.kind == "removed") == [-2, 0]
    assert s2.robots == {}


def test_resolve_does_not_mutate_the_given_state():
    s = rs.setup(cfg(), ["p1", "p2"], 0)
    before = rs.state_json(s)
    rs.resolve(s, {"p1": rs.parse_orders(s, "p1", "5:5-M-N,5:12-S"), "p2": rs.parse_orders(s, "p2", "12:5-A-W")})
    assert rs.state_json(s) == before


def test_R10_orders_for_robots_of_the_other_player_are_never_carried_out():
    s = make_state(cfg(), {(7, 7): (1, 100), (8, 7): (2, 100)})
    forged = rs.default_orders(s, "p1")
    forged.orders[(8, 7)] = ("M", "N")  # not p1's robot
    s2, _ = rs.resolve(s, {"p1": forged, "p2": rs.parse_orders(s, "p2", "")})
    assert (8, 7) in s2.robots


# ---- protocol parsing (P5, P6, P12, P13) --------------------------------------------------------
def test_P13_text_and_json_parse_to_the_same_tokens():
    t, ut = parse_text_response("7:7-a-e,3:3-D-N,9:9-S#m")
    j, uj = parse_json_response({"orders": [{"x": 7, "y": 7, "action": "A", "dir": "e"},
                                            {"x": 3, "y": 3, "action": "d", "dir": "N"},
                                            {"x": 9, "y": 9, "action": "S", "dir": None}], "user_data": "m"})
    assert [x[1:] for x in t] == [x[1:] for x in j] and ut == uj


def test_P12_unserialisable_payload_is_malformed_not_a_crash():
    from botwars.engine.errors import InvalidOrders
    with pytest.raises(InvalidOrders):
        parse_json_response({"orders": [], "extra": {1, 2}})
    with pytest.raises(InvalidOrders):
        parse_json_response({"orders": [{"x": 1, "y": 1, "action": "D", "note": object()}]})


def test_P12_length_limit_counts_unknown_keys():
    from botwars.engine.errors import InvalidOrders
    parse_json_response({"orders": [], "note": "x" * 50}, max_chars=100)
    with pytest.raises(InvalidOrders):
        parse_json_response({"orders": [], "note": "x" * 100}, max_chars=100)


def test_P12_long_valid_response_within_limit_is_accepted():
    orders = [{"x": x, "y": y, "action": "D"} for x in range(1, 60) for y in range(1, 60)]
    tokens, _ = parse_json_response({"orders": orders}, max_chars=10 ** 6)
    assert len(tokens) == 59 * 59


# ---- parameters (section 7, H23) -------------------------------------------------------------
def test_H23_default_parameters():
    c = cfg()
    assert c["turn_time_limit_s"] == 2.0 and c["memory_limit_mib"] == 512 and c["time_bank_s"] == 0
    assert (c["max_turns"], c["spawn_interval"], c["initial_hp"]) == (100, 10, 100)
    assert (c["attack_damage_enemy"], c["attack_damage_friendly"], c["self_destruct_damage"]) == (12, 8, 6)
    assert c["defend_divisor"] == 2 and c["wipeout_ends_game"] is False
    assert (c["user_data_max_len"], c["max_output_chars"], c["rating_initial"]) == (128, 8192, 1000)


@pytest.mark.parametrize("setting,words", [
    ("max_turns=abc", "parameter max_turns: expected an integer"),
    ("max_turns=0", "parameter max_turns: must be at least 1"),
    ("defend_divisor=0", "parameter defend_divisor: must be at least 1"),
    ("wipeout_ends_game=maybe", "parameter wipeout_ends_game: expected true or false"),
    ("colour=red", "unknown parameter 'colour'"),
    ("max_turns", "expected key=value"),
])
def test_bad_config_value_is_one_line_exit_2(setting, words):
    res = runner.invoke(app, ["match", "arena", "builtin:defender", "builtin:defender", "--set", setting])
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and words in lines[0] and "--set" in lines[0]


def test_bad_map_file_is_one_line_with_file_and_line_exit_2(tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_text("#####\n#1.2#\n#..#\n#####\n")
    res = runner.invoke(app, ["match", "arena", "builtin:defender", "builtin:defender", "--set", f"map={bad}"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and f"{bad}:3" in lines[0] and "expected 5" in lines[0]


def test_board_check_reports_map_problems(tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_text("###\n#1#\n#?#\n")  # not a map (R5's characters): malformed, exit 2
    res = runner.invoke(app, ["board", "check", str(bad), "--game", "arena"])
    assert res.exit_code == 2 and f"{bad}:3:2" in res.output
    lonely = tmp_path / "lonely.map"
    lonely.write_text("###\n#1#\n###\n")  # well formed, but player 2 has no spawn point: exit 1
    res = runner.invoke(app, ["board", "check", str(lonely), "--game", "arena"])
    assert res.exit_code == 1 and res.output.strip() == f"{lonely}: player 2 has no spawn point"


def test_set_map_and_parameters_play_a_match(tmp_path):
    res = runner.invoke(app, ["match", "arena", "builtin:hunter", "builtin:defender", "--set", "map=small",
                              "--set", "max_turns=12", "--json", "--replay", str(tmp_path / "r.jsonl")])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output.strip().splitlines()[-1])
    assert out["turns"] == 12 and set(out) == {"winner", "scores", "turns", "reason", "replay", "errors"}


# ---- records (P14, R29) and the text transport (P1, P2, P3, H24) ---------------------------------
class Scripted:
    """An in-process bot replaying fixed responses (text or JSON), then nothing."""

    def __init__(self, responses):
        self.responses = list(responses)

    def act(self, view):
        return self.responses.pop(0) if self.responses else ""


def test_P14_R29_record_keeps_responses_and_errors(tmp_path):
    from botwars.agents.base import CallableAgent
    path = str(tmp_path / "r.jsonl")
    agents = {"p1": CallableAgent(Scripted(["5:5-D,9:9-D,5:5-S#u" + "x" * 200, "5:5-M-Q"])),
              "p2": CallableAgent(Scripted([{"orders": "bad"}]))}
    m = Match(rs, cfg(max_turns=3), agents, 0, record=path)
    res = m.run()
    rec = read_record(path)
    d1 = rec.decisions[0]
    assert [e["code"] for e in d1["errors"]["p1"]] == ["no_robot", "duplicate", "user_data_truncated"]
    assert d1["errors"]["p2"][0]["code"] == "malformed"
    assert rec.decisions[1]["errors"]["p1"][0]["code"] == "malformed"
    assert verify_record(rec)[0]
    assert res.outcome.details["robots"] == {"p1": 2, "p2": 2}  # R29: counts and HP reported
    assert set(res.outcome.details) == {"robots", "hp"}


def _script(tmp_path, body):
    p = tmp_path / "bot.py"
    p.write_text(body)
    return [sys.executable, str(p)]


def test_P2_H24_text_bot_fresh_process_first_line_cr_removed(tmp_path):
    argv = _script(tmp_path, "import sys\nline = sys.stdin.readline()\n"
                             "sys.stdout.write('5:5-D#' + line.strip().split('#')[0] + '\\r\\nignored\\n')\n")
    agent = BotwarsIoAgent(argv, tools=TOOLS)
    s = rs.setup(cfg(), ["p1", "p2"], 0)
    out = agent.act(rs.view(s, "p1"), 5.0)
    assert out == "5:5-D#1,100,1"
    orders = rs.parse_orders(s, "p1", out)
    assert orders.user_data == "1,100,1" and orders.orders == {(5, 5): ("D", None)}


def test_P3_crash_and_timeout_are_failures(tmp_path):
    s = rs.setup(cfg(), ["p1", "p2"], 0)
    crash = BotwarsIoAgent(_script(tmp_path, "import sys\nsys.exit(3)\n"), tools=TOOLS)
    with pytest.raises(AgentFailure) as info:
        crash.act(rs.view(s, "p1"), 5.0)
    assert info.value.code == "crash"
    slow = BotwarsIoAgent([sys.executable, "-c", "import time; time.sleep(30)"], tools=TOOLS)
    with pytest.raises(AgentFailure) as info:
        slow.act(rs.view(s, "p1"), 0.3)
    assert info.value.code == "timeout"
    missing = BotwarsIoAgent([os.path.join(str(tmp_path), "no-such-program")], tools=TOOLS)
    with pytest.raises(AgentFailure) as info:
        missing.act(rs.view(s, "p1"), 1.0)
    assert info.value.code == "crash"


def test_P1_P10_bad_bot_never_stops_the_match():
    from botwars.agents.base import CallableAgent

    class Raises:
        def act(self, view):
            raise RuntimeError("boom")

    m = Match(rs, cfg(max_turns=3), {"p1": CallableAgent(Raises()), "p2": CallableAgent(Scripted([]))}, 0)
    res = m.run()
    assert res.turns == 3 and [e["code"] for e in res.errors] == ["crash"] * 3


def test_R29_replay_report_shows_the_turn_by_step(tmp_path):
    path = str(tmp_path / "r.jsonl")
    res = runner.invoke(app, ["match", "arena", "builtin:hunter", "builtin:swarm", "--json", "--replay", path,
                              "--set", "max_turns=12"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["replay", path, "--report", "--turn", "10"])
    assert res.exit_code == 0, res.output
    assert "arena turn 10" in res.output and "4 spawn" in res.output and "orders" in res.output
    assert "player 1 (A):" in res.output
    res = runner.invoke(app, ["replay", path, "--verify"])
    assert res.exit_code == 0 and "decision points verified" in " ".join(res.output.split())
    assert "12 decision points" in " ".join(res.output.split())


def test_P8_fast_json_path_matches_general_path_on_mixed_response():
    from botwars.games.arena.protocol import _full_json, accept, fast_accept_json
    robots = {(1, 1): (1, 1, 5), (2, 2): (2, 1, 5), (3, 3): (3, 2, 5)}
    obj = {"orders": [{"x": 3, "y": 3, "action": "A", "dir": "n"}, {"x": 1, "y": 1, "action": "m", "dir": "E"},
                      {"x": 1, "y": 1, "action": "D"}, {"x": 2, "y": 2, "action": "S", "dir": None},
                      {"x": 0, "y": 0, "action": "D", "dir": "W"}], "user_data": "abcdefgh"}
    fast = fast_accept_json(obj, robots, 1, 8192, 5)
    tokens, user = _full_json(obj, 8192)
    slow = accept(tokens, user, {(1, 1), (2, 2)}, 5)
    assert fast == slow
    assert fast.orders == {(1, 1): ("M", "E"), (2, 2): ("S", None)}
    assert [e["code"] for e in fast.errors] == ["no_robot", "duplicate", "no_robot", "user_data_truncated"]
    assert fast.errors[0]["detail"] == "3:3-A-N" and fast.user_data == "abcde"


def test_R22_armed_robot_is_removed_with_final_hp_0():
    s = make_state(cfg(), {(8, 8): (1, 40), (9, 8): (1, 100)})
    s2, ev = rs.resolve(s, {"p1": rs.parse_orders(s, "p1", "8:8-S,9:8-S"), "p2": rs.parse_orders(s, "p2", "")})
    removed = sorted((e.data["at"], e.data["hp"], e.data["cause"]) for e in ev if e.kind == "removed")
    assert removed == [("8:8", 0, "self_destruct"), ("9:8", 0, "self_destruct")]
    assert s2.robots == {}
