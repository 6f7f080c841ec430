"""The built-in bots' native path (Ruleset.native_view → act_native → Referee.submit_parsed):
the same game as the JSON path (P11 view → P12 payload → parse_orders), decision by decision,
and an observation that carries exactly P11's facts (R30, R32, H25)."""

import random

import pytest

from botwars.agents.base import CallableAgent
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.referee import Referee
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.bots import BUILTIN

RS = get_ruleset("arena")


def _play(a: str, b: str, seed: int, native: bool, path=None):
    cfg = RS.validate_config({"max_turns": 60})
    m = Match(RS, cfg, {"p1": CallableAgent(BUILTIN[a](), f"builtin:{a}"),
                        "p2": CallableAgent(BUILTIN[b](), f"builtin:{b}")},
              seed, record=str(path) if path else None, native=native)
    return m, m.run()


@pytest.mark.parametrize("a,b", [("hunter", "swarm"), ("random", "defender"), ("swarm", "random"),
                                 ("defender", "hunter")])
def test_native_and_json_paths_play_the_same_game(tmp_path, a, b):
    m1, r1 = _play(a, b, 5, True, tmp_path / "native.jsonl")
    m2, r2 = _play(a, b, 5, False, tmp_path / "json.jsonl")
    assert m1.driver.native_seats and not m2.driver.native_seats  # the two paths really were taken
    assert [ln["digest"] for ln in m1.referee.lines] == [ln["digest"] for ln in m2.referee.lines]
    assert (r1.outcome.winner, r1.outcome.scores) == (r2.outcome.winner, r2.outcome.scores)
    # the native record stores P5 text orders; it re-simulates through submit like any other
    assert isinstance(m1.referee.lines[0]["orders"]["p1"], str)
    ok, msg = verify_record(read_record(r1.replay))
    assert ok, msg


def test_native_view_has_the_facts_of_the_P11_view():
    ref = Referee(RS, RS.validate_config({}), ["p1", "p2"], 2, clock=False)
    bots = {s: BUILTIN["swarm"]() for s in ref.seats}
    for s, bot in bots.items():
        bot.start("arena", s, ref.config, 1)
    for _ in range(25):
        for s in ref.pending():
            ref.submit(s, bots[s].act(ref.view(s)), 0.0)
        ref.resolve_point()
    for seat in ("p1", "p2"):
        v = ref.view(seat)
        obs = ref.native_view(seat)
        assert (obs.turn, obs.max_turns, obs.player, obs.user_data) == \
               (v["turn"], v["max_turns"], v["player"], v["user_data"])
        side = {(r["x"], r["y"]): (r["side"], r["hp"]) for r in v["robots"]}
        assert {sq: ("F" if q == obs.player else "E", hp) for sq, (q, hp) in obs.robots.items()} == side
        with pytest.raises(TypeError):
            obs.robots[(1, 1)] = (1, 50)  # read-only: a bot cannot change the match through it


def test_native_view_does_not_carry_the_opponents_user_data():
    """R32/H25: stored user data is private; perturbing the opponent's (the twin state) leaves
    the seat's native observation unchanged."""
    ref = Referee(RS, RS.validate_config({}), ["p1", "p2"], 4, clock=False)
    ref.submit("p1", "#secret-of-p1", 0.0)
    ref.submit("p2", "#secret-of-p2", 0.0)
    ref.resolve_point()
    state = ref.state
    assert state.user_data == ("secret-of-p1", "secret-of-p2")
    for seat in ("p1", "p2"):
        twin = RS.twin_state(state, seat, random.Random(9))
        assert twin.user_data != state.user_data
        assert RS.native_view(twin, seat) == RS.native_view(state, seat)


def test_a_crashing_native_bot_gets_default_orders_and_the_error_is_recorded(tmp_path):
    class Crash(BUILTIN["defender"]):
        def act_native(self, obs):
            raise ValueError("boom")

    cfg = RS.validate_config({"max_turns": 5})
    m = Match(RS, cfg, {"p1": CallableAgent(Crash()), "p2": CallableAgent(BUILTIN["hunter"]())}, 1,
              record=str(tmp_path / "r.jsonl"))
    res = m.run()
    assert [e["code"] for e in res.errors] == ["crash"] * 5
    assert "boom" in res.errors[0]["detail"]
    ok, msg = verify_record(read_record(res.replay))
    assert ok, msg


def test_native_view_sides_are_read_only_in_square_order_and_right_after_the_memo_switches_states():
    """The two seats' observations share one split of the robots (a memo keyed on the robots
    dict): going back and forth between states must still give each state's own facts."""
    ref = Referee(RS, RS.validate_config({}), ["p1", "p2"], 3, clock=False)
    bots = {s: BUILTIN["hunter"]() for s in ref.seats}
    for s, bot in bots.items():
        bot.start("arena", s, ref.config, 1)
    states = [ref.state]
    for _ in range(12):
        for s in ref.pending():
            ref.submit(s, bots[s].act(ref.view(s)), 0.0)
        ref.resolve_point()
        states.append(ref.state)
    for state in states + states[::-1] + states[::3]:
        for seat, p in (("p1", 1), ("p2", 2)):
            obs = RS.native_view(state, seat)
            v = RS.view(state, seat)
            assert list(obs.mine.items()) == [((r["x"], r["y"]), r["hp"]) for r in v["robots"] if r["side"] == "F"]
            assert list(obs.foes.items()) == [((r["x"], r["y"]), r["hp"]) for r in v["robots"] if r["side"] == "E"]
            assert list(obs.mine) == sorted(obs.mine) and list(obs.foes) == sorted(obs.foes)
            assert obs.player == p and obs.turn == v["turn"]
            with pytest.raises(TypeError):
                obs.mine[(1, 1)] = 50  # read-only: the other seat and later turns share it
            with pytest.raises(TypeError):
                obs.foes[(1, 1)] = 50


@pytest.mark.parametrize("other", ["defender", "hunter"])
def test_defender_native_orders_are_its_plan_every_turn(other):
    ref = Referee(RS, RS.validate_config({}), ["p1", "p2"], 6, clock=False)
    bots = {"p1": BUILTIN["defender"](), "p2": BUILTIN[other]()}
    for s, bot in bots.items():
        bot.start("arena", s, ref.config, 1)
    while not ref.over:
        obs = ref.native_view("p1")
        orders = bots["p1"].act_native(obs)
        assert list(orders.orders.items()) == [(sq, ("D", None)) for sq in sorted(obs.mine)]
        assert (orders.user_data, orders.errors) == ("", [])
        ref.submit_parsed("p1", orders, 0.0)
        ref.submit_parsed("p2", bots["p2"].act_native(ref.native_view("p2")), 0.0)
        ref.resolve_point()


@pytest.mark.parametrize("blocked,want", [((), ("M", "E")), (((6, 5),), ("M", "N")),
                                         (((6, 5), (5, 6)), ("D", None))])
def test_hunter_steps_to_the_first_letter_of_the_free_squares_that_get_closer(blocked, want):
    """Target (8, 8) is north-east of (5, 5): E and N both get one square closer, E comes first;
    a square held by its own robot is not free; with neither free no step gets closer: defend."""
    bot = BUILTIN["hunter"]()
    bot.start("arena", "p1", RS.validate_config({}), 0)
    mine = {(5, 5): 100, **{sq: 100 for sq in blocked}}
    orders = bot.plan(dict(sorted(mine.items())), {(8, 8): 100}, 3)
    assert orders[(5, 5)] == want
