"""Programs and their validation (F-5.4, F-5.5, F-15.1) and the deal (F-5.1, F-5.2, F-13.19)."""

import random

import pytest

from botwars.engine.errors import InvalidOrders
from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.cards import ALL_CARDS, BASE_CARDS, CARD_TYPE, card_str, parse_card

RS = get_ruleset("factory")


def game(n=2, seed="demo", **over):
    cfg = RS.validate_config(over)
    return RS.setup(cfg, RS.seat_names(n), seed)


def test_F_2_6_H1_deck_has_112_cards_with_unique_priorities():
    assert len(ALL_CARDS) == 112 and len(BASE_CARDS) == 84
    counts = {}
    for p in ALL_CARDS:
        counts[CARD_TYPE[p]] = counts.get(CARD_TYPE[p], 0) + 1
    assert counts == {"UTRN": 6, "LF90": 18, "RT90": 18, "RVS1": 6, "FWD1": 18, "FWD2": 12, "FWD3": 6, "RVS2": 6,
                      "RVS3": 4, "SLF1": 6, "SRT1": 6, "IDLE": 6}
    assert all(p % 10 == 0 for p in BASE_CARDS) and all(p % 10 == 5 for p in set(ALL_CARDS) - set(BASE_CARDS))


def test_F_13_19_deck_top_and_hands_for_seed_demo():
    deck = list(ALL_CARDS)
    random.Random("demo/deck/1").shuffle(deck)
    assert [card_str(c) for c in deck[:10]] == ["FWD1 590", "FWD2 780", "FWD3 820", "RT90 180", "FWD1 550",
                                                "IDLE 35", "SRT1 605", "FWD1 490", "IDLE 45", "FWD2 760"]
    st = game()
    assert [card_str(c) for c in st.hands[0]] == ["FWD1 590", "FWD2 780", "FWD3 820", "RT90 180", "FWD1 550",
                                                  "FWD1 490", "FWD2 760", "RT90 120", "UTRN 30"]


def test_F_13_19_saw_draws():
    u = [random.Random(f"demo/saw/1/{s}").random() for s in range(1, 6)]
    assert [f"{x:.6f}"[:6] for x in u] == ["0.0169", "0.6457", "0.9299", "0.9909", "0.0230"]
    assert [x > 0.75 for x in u] == [False, False, True, True, False]


def test_F_13_19_option_deck_order():
    assert game().option_deck == ["XM", "GS", "RL", "DL", "MP", "HC", "HC", "DL", "RL", "AA", "AA", "XM", "FI", "MP",
                                  "FI", "GS"]


def test_F_5_4_cards_by_priority_first_then_type_names_in_hand_order():
    st = game()
    o = RS.parse_orders(st, "p1", {"type": "program", "cards": ["FWD1", 590, "RT90", "FWD3 820", "FWD2"],
                                   "reboot": False})
    assert [card_str(c) for c in o.cards] == ["FWD1 550", "FWD1 590", "RT90 180", "FWD3 820", "FWD2 780"]


@pytest.mark.parametrize("cards,needle", [
    ([590, 780, 820, 180], "expected 5 cards"),
    ([590, 780, 820, 180, 180], "used twice"),
    ([590, 780, 820, 180, 740], "FWD2 740 is not in your hand"),
    ([590, 780, 820, 180, "JUMP"], "unknown card"),
    ([590, 780, 820, 180, "RVS2"], "no RVS2 card left"),
    ([590, 780, 820, 180, 12345], "unknown card"),
    ([590, 780, 820, 180, True], "a card is a priority"),
])
def test_F_15_1_illegal_program_refused_whole_naming_the_card(cards, needle):
    st = game()
    before = RS.state_json(st)
    with pytest.raises(InvalidOrders) as exc:
        RS.parse_orders(st, "p1", {"type": "program", "cards": cards, "reboot": False})
    assert needle in exc.value.message
    assert RS.state_json(st) == before


def test_F_7_4_fused_registers_cannot_be_programmed():
    st = game()
    st.bots[0].hp = 4  # registers 4 and 5 fused: 3 free
    with pytest.raises(InvalidOrders) as exc:
        RS.parse_orders(st, "p1", {"type": "program", "cards": [590, 780, 820, 180, 550], "reboot": False})
    assert "registers 4, 5 are fused" in exc.value.message


@pytest.mark.parametrize("payload,needle", [
    ({"type": "program", "cards": [590, 780, 820, 180, 550]}, "reboot"),
    ({"type": "program", "cards": [590, 780, 820, 180, 550], "reboot": False, "x": 1}, "unknown key 'x'"),
    ({"type": "program", "cards": [590, 780, 820, 180, 550], "reboot": False, "standing": {"facing": "Q"}}, "facing"),
    ({"type": "program", "cards": [590, 780, 820, 180, 550], "reboot": False, "standing": {"sacrifice_at": 11}},
     "sacrifice_at"),
    ({"type": "jump"}, "type must be"),
    ("FWD1 590", "JSON object"),
])
def test_F_15_1_malformed_orders(payload, needle):
    with pytest.raises(InvalidOrders) as exc:
        RS.parse_orders(game(), "p1", payload)
    assert needle in exc.value.message


def test_F_5_5_default_is_first_k_hand_cards():
    st = game()
    assert list(RS.default_orders(st, "p1").cards) == st.hands[0][:5]


def test_F_5_7_standing_orders_change_with_the_program():
    st = game()
    o = RS.parse_orders(st, "p1", {"type": "program", "cards": ["FWD1"] * 3 + ["RT90", "UTRN"], "reboot": True,
                                   "standing": {"wrench2": "option", "facing": "S"}})
    st2, _ = RS.resolve(st, {"p1": o, "p2": RS.default_orders(st, "p2")})
    assert st2.players[0].standing == {"sacrifice_at": 6, "wrench2": "option", "facing": "S"}
    assert st2.bots[0].rebooting and st2.hands.get(0) is None


def test_F_5_3_hand_size_and_extra_memory():
    st = game()
    st.bots[0].hp = 4
    assert RS.hand_size(st, 0) == 3 and RS.free_registers(st, 0) == 3
    st.bots[0].options.append({"code": "XM", "charges": 0, "armoury": False})
    assert RS.hand_size(st, 0) == 4


def test_F_12_5_classic_deck_is_84_base_cards():
    st = game(variant="classic")
    assert st.config["upgrades"] is False and st.config["edge"] == "pit" and st.config["reinstate_hp"] == 8
    assert all(p in BASE_CARDS for h in st.hands.values() for p in h)


def test_parse_card():
    assert parse_card("FWD2 710") == 710 and parse_card("710") == 710
    with pytest.raises(ValueError):
        parse_card("FWD1 710")
