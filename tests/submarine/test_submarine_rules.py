"""Submarine rule details not covered by the scenario files: order parsing (S-4.3, S-12.2, H21),
legal actions, catalog data (S-6.2), rings (S-2.4), rendering (S-2.8), bots (hunter beats random)."""

import random

import pytest

from botwars.agents.spec import make_agent
from botwars.engine.errors import InvalidOrders
from botwars.engine.events import SPECTATOR, Event
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset
from botwars.games.submarine.board import ALL_SPACES, destroyed_spaces, name, ring
from botwars.games.submarine.rules import parse_text_orders
from botwars.games.submarine.scenario import build_state
from botwars.games.submarine.state import ACTIONS, CATALOG, TurnOrders
from botwars.engine.plugin import get_game

RS = get_ruleset("submarine")

FLEET = {"a": {"at": "B1", "special": "torpedo"}, "b": {"at": "C1", "special": "sonar"},
         "c": {"at": "D1", "special": "mine"}, "d": {"at": "E1", "special": "heal"},
         "e": {"at": "F1", "special": "nullify"}, "v": {"at": "B7", "special": "armor"},
         "w": {"at": "C7", "special": "ram"}, "x": {"at": "D7", "special": "mine"},
         "y": {"at": "E7", "special": "depth_charge"}, "z": {"at": "F7", "special": "overclock"}}


def state(turn=1, **subs):
    fleet = dict(FLEET)
    fleet.update(subs)
    return build_state({"start": {"turn": turn, "first_player": "p1"}, "subs": fleet}, "test")


def test_S_2_4_rings_and_S_7_7_destroyed_spaces():
    assert ring((1, 1)) == 1 and ring((3, 3)) == 3 and ring((4, 4)) == 4 and ring((2, 5)) == 2
    assert [len(destroyed_spaces(k)) for k in range(5)] == [0, 24, 40, 48, 49]
    assert sum(1 for sp in ALL_SPACES if ring(sp) == 3) == 8


def test_S_6_2_H6_catalog_costs_and_kinds():
    assert {k: v[:2] for k, v in CATALOG.items()} == {
        "torpedo": ("active", 2), "depth_charge": ("active", 3), "sonar": ("active", 2), "mine": ("active", 1),
        "heal": ("active", 2), "nullify": ("active", 2), "armor": ("passive", None), "ram": ("passive", None),
        "overclock": ("passive", None)}
    assert {k: v[0] for k, v in ACTIONS.items() if k not in CATALOG} == {
        "move": 1, "surface": 0, "submerge": 1, "replace": 2}


def test_S_2_7_text_notation_and_S_12_2_json_give_the_same_order():
    st = state()
    a = RS.parse_orders(st, "p1", "d move N; d submerge\n a torpedo E; c mine B2")
    b = RS.parse_orders(st, "p1", {"type": "orders", "actions": [
        {"sub": "d", "action": "move", "dir": "N"}, {"sub": "d", "action": "submerge"},
        {"sub": "a", "action": "torpedo", "dir": "E"}, {"sub": "c", "action": "mine", "space": "b2"}]})
    assert a == b
    assert RS.orders_json(a)["actions"][3] == {"sub": "c", "action": "mine", "space": "B2"}
    assert parse_text_orders("resign") == {"type": "resign"}
    assert RS.parse_orders(st, "p1", "") == TurnOrders(())


def test_H21_unknown_keys_in_an_action_are_ignored():
    st = state()
    o = RS.parse_orders(st, "p1", [{"sub": "a", "action": "move", "dir": "N", "space": "Q9", "note": 1}])
    assert o.actions[0].param == "N"


def test_S_4_3_refusals_are_whole_and_name_the_problem():
    st = state()
    cases = [
        ({"type": "orders"}, "'actions' must be a list"),
        ({"type": "move"}, "unknown order type"),
        (42, "must be a JSON object"),
        ([{"sub": "a"}], "unknown action None"),
        ([{"sub": "a", "action": "torpedo"}], "torpedo needs 'dir'"),
        ([{"sub": "a", "action": "replace", "special": "laser"}], "replace needs 'special'"),
        ([{"sub": "e", "action": "nullify", "special": "nullify"}], "nullify cannot name nullify"),
        ([{"sub": "a", "action": "move", "dir": "N"}] * 31, "31 actions listed, at most 30"),
        ("a move N; a move N; b depth_charge D4; c mine C2", "the actions cost 6 AP, you have 5"),
    ]
    for payload, want in cases:
        with pytest.raises(InvalidOrders) as exc:
            RS.parse_orders(st, "p1", payload)
        assert want in exc.value.message
    with pytest.raises(InvalidOrders, match="not your turn"):
        RS.parse_orders(st, "p2", "v move S")


def test_S_4_3_no_check_consults_hidden_state():
    """A move into a hidden enemy and a mine on an enemy mine are accepted at submission."""
    st = state(x={"at": "D2", "special": "mine", "surfaced": False})
    got = RS.parse_orders(st, "p1", "c move N; c mine C1")
    # accepted as written, action for action (nothing dropped or altered because of what p1
    # cannot see), and the same as in a twin where the hidden enemy sub x is far away (D7)
    assert RS.orders_json(got) == {"type": "orders", "actions": [{"sub": "c", "action": "move", "dir": "N"},
                                                                 {"sub": "c", "action": "mine", "space": "C1"}]}
    assert got == RS.parse_orders(state(), "p1", "c move N; c mine C1")


def test_legal_actions_are_exactly_what_parse_orders_accepts():
    st = state()
    acts = RS.legal_actions(st, "p1")
    assert RS.legal_actions(st, "p2") == []
    assert len({str(a) for a in acts}) == len(acts)
    rng = random.Random(1)
    for a in rng.sample(acts, 60):
        RS.parse_orders(st, "p1", [a])
    # every single-action order the parser accepts is listed
    listed = {str(a) for a in acts}
    for sub in "abcde":
        for act, (cost, key) in ACTIONS.items():
            d = {"sub": sub, "action": act}
            if key == "dir":
                d["dir"] = "W"
            elif key == "space":
                d["space"] = "C2"
            elif key == "special":
                d["special"] = "armor"
            RS.parse_orders(st, "p1", [d])
            assert str(d) in listed
    useful = RS.legal_actions(st, "p1", useful=True)
    assert {"sub": "a", "action": "move", "dir": "S"} not in useful  # off the board
    assert {"sub": "a", "action": "torpedo", "dir": "N"} in useful
    assert {"sub": "b", "action": "torpedo", "dir": "N"} not in useful  # not held
    assert {"sub": "a", "action": "surface"} not in useful
    assert {"sub": "d", "action": "heal", "space": "D1"} in useful
    assert {"sub": "d", "action": "heal", "space": "E2"} not in useful


def test_resolve_never_changes_its_input():
    st = state()
    before = RS.state_json(st)
    RS.resolve(st, {"p1": RS.parse_orders(st, "p1", "a move N; b move N; b submerge; c mine C2")})
    assert RS.state_json(st) == before


def test_kernel_events_give_spectators_the_other_players_form():
    st = state(a={"at": "B1", "special": "torpedo", "surfaced": False})
    _, evs = RS.resolve(st, {"p1": RS.parse_orders(st, "p1", "a move N; b move N")})
    hidden = [e for e in evs if e.kind == "move" and e.data["sub"] == "a"]
    assert [e.visible_to for e in hidden] == [frozenset({"p1"})]
    shown = [e for e in evs if e.kind == "move" and e.data["sub"] == "b"]
    assert [e.visible_to for e in shown] == [None]
    detected = Event("detected", {"subs": ["a"]}, frozenset({"p2", SPECTATOR}))
    assert detected.visible(None) and detected.visible("p2") and not detected.visible("p1")


def test_S_2_8_rendering():
    st = state(a={"at": "B1", "special": "torpedo", "surfaced": False},
               v={"at": "B7", "special": "armor", "surfaced": False})
    st.mines[(3, 2)] = "p1"
    p1 = RS.render_text(st, "p1").splitlines()
    assert p1[1] == "  ABCDEFG"
    assert p1[2] == "7 ..WXYZ." and p1[7] == "2 ..+...." and p1[8] == "1 .aBCDE."
    p2 = RS.render_text(st, "p2").splitlines()
    assert p2[2] == "7 .vWXYZ." and p2[7] == "2 ......." and p2[8] == "1 ..BCDE."


def test_hunter_beats_random_in_at_least_80_of_100_seeded_games():
    from botwars.games.submarine.bots import hunter_vs_random
    assert hunter_vs_random(100) >= 80


def test_bots_are_deterministic_per_seed():
    def run():
        cfg = RS.validate_config({})
        m = Match(RS, cfg, {"p1": make_agent("builtin:random", "submarine"),
                            "p2": make_agent("builtin:random", "submarine")}, 9, clock=False)
        m.run()
        return RS.state_json(m.state), [e for e in m.state.history]
    assert run() == run()


def test_name_of_spaces():
    assert name((4, 4)) == "D4" and name((1, 7)) == "A7"


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

_json = hs.recursive(hs.none() | hs.booleans() | hs.integers(-3, 40) | hs.sampled_from(
    ["a", "v", "move", "torpedo", "N", "D4", "armor", "nullify", "setup", "orders", "Z9", ""]),
    lambda c: hs.lists(c, max_size=4) | hs.dictionaries(hs.sampled_from(
        ["type", "actions", "sub", "action", "dir", "space", "special", "placement", "specials"]), c, max_size=4),
    max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=_json)
def test_S_4_3_any_payload_is_accepted_or_refused_never_crashes(payload):
    st = state()
    setup = RS.setup(RS.validate_config({}), ["p1", "p2"], 0)
    for s, seat in ((st, "p1"), (setup, "p2")):
        try:
            o = RS.parse_orders(s, seat, payload)
        except InvalidOrders as exc:
            assert exc.message
            continue
        new, _ = RS.resolve(s, {seat: o} if s is st else {"p1": RS.default_orders(s, "p1"), seat: o})
        assert new.ap >= 0


def test_S_8_7_the_player_to_move_gets_the_events_since_its_previous_decision():
    st = state()
    st, _ = RS.resolve(st, {"p1": RS.parse_orders(st, "p1", "b move N")})   # turn 1 (p1)
    st, _ = RS.resolve(st, {"p2": RS.parse_orders(st, "p2", "w move S")})   # turn 2 (p2)
    p1 = [e["type"] for e in RS.view(st, "p1")["events"]]
    # its own turn-1 results, p2's turn 2, then its turn 3 start
    assert p1 == ["move", "score", "turn_end", "turn_start", "move", "turn_end", "turn_start", "ap"]
    p2 = [e["type"] for e in RS.view(st, "p2")["events"]]
    assert p2 == ["move", "score", "turn_end", "turn_start"]   # only the last resolution
    assert [e["type"] for e in RS.view(st, None)["events"]] == ["move", "turn_end", "turn_start"]


def test_S_4_10_H20_a_bot_that_fails_gets_the_empty_order():
    class Crash:
        def act(self, view):
            if view.get("setup"):
                return get_game(RS.id).builtin_bots()["hunter"]().act(view)
            raise RuntimeError("boom")
    from botwars.agents.base import CallableAgent
    m = Match(RS, RS.validate_config({"first_player": "p1", "max_rounds": 2}),
              {"p1": CallableAgent(Crash()), "p2": make_agent("builtin:random", "submarine")}, 3, clock=False)
    res = m.run()
    assert [e["code"] for e in res.errors if e["seat"] == "p1"] == ["crash", "crash"]
    assert res.outcome.reason in ("round_cap", "elimination", "points")
    assert all(h["type"] != "skipped" or h["sub"] not in "abcde" for h in m.state.history)
