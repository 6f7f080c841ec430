"""Flag race's own rules tests (F1-F6), kept in the game's folder and named by its declaration
(``tests=("tests",)``); its scenario files beside them run through ``botwars scenario run`` in
the platform's contract test (tests/plugins/test_sixth_game.py)."""

import pytest

from botwars.engine.errors import InvalidOrders


@pytest.fixture
def rules(flagrace):
    return flagrace.ruleset()


def test_F1_F2_the_counter_starts_on_square_0_and_p1_moves_first(rules):
    st = rules.setup(rules.validate_config({}), ["p1", "p2"], 0)
    assert (st.square, st.flag) == (0, 8)
    assert rules.pending(st) == ["p1"]
    st, _ = rules.resolve(st, {"p1": rules.parse_orders(st, "p1", {"step": 3})})
    assert st.square == 3 and rules.pending(st) == ["p2"]
    with pytest.raises(InvalidOrders, match="not your turn"):
        rules.parse_orders(st, "p1", {"step": 1})


@pytest.mark.parametrize("payload,words", [({"step": 4}, "from 1 to 3"), ({"step": True}, "from 1 to 3"),
                                           ({"jump": 1}, 'an order is {"step": K}'), ("3", 'an order is')])
def test_F2_malformed_steps_are_refused_naming_what_is_wrong(rules, payload, words):
    st = rules.setup(rules.validate_config({}), ["p1", "p2"], 0)
    with pytest.raises(InvalidOrders, match=words.replace("{", r"\{").replace("}", r"\}")):
        rules.parse_orders(st, "p1", payload)


def test_F3_F4_past_the_flag_is_refused_onto_it_wins(rules):
    st = rules.setup(rules.validate_config({"length": 5}), ["p1", "p2"], 0)
    st, _ = rules.resolve(st, {"p1": 2})
    assert rules.legal_orders(st, "p2") == [{"step": 1}, {"step": 2}]
    with pytest.raises(InvalidOrders, match="passes the flag on square 4"):
        rules.parse_orders(st, "p2", {"step": 3})
    st, events = rules.resolve(st, {"p2": 2})
    assert [e.kind for e in events] == ["step", "flag"]
    out = rules.outcome(st)
    assert out.winner == "p2" and out.scores == {"p2": 1.0, "p1": 0.0} and rules.pending(st) == []


def test_F5_the_default_order_steps_1(rules):
    st = rules.setup(rules.validate_config({}), ["p1", "p2"], 0)
    assert rules.default_orders(st, "p1") == 1
