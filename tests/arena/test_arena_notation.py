"""The arena's move-list notation (replay viewer, printable publication): P5 tokens of the
accepted orders (P5, P8), ``idle`` for none (R11), never the private user data (R32)."""

from __future__ import annotations

from botwars.engine.plugin import get_game
from botwars.engine.ruleset import get_ruleset

RS = get_ruleset("arena")
GAME = get_game("arena")


def _state():
    """Turn 0 of the default map, seed 0, with the squares of each player's robots."""
    st = RS.setup(RS.validate_config({}), ["p1", "p2"], 0)
    own = {p: sorted(sq for sq, r in st.robots.items() if r[1] == p) for p in (1, 2)}
    return st, own


def test_P12_json_orders_read_as_P5_tokens():
    st, own = _state()
    (x1, y1), (x2, y2) = own[1][:2]
    payload = {"orders": [{"x": x1, "y": y1, "action": "M", "dir": "E"}, {"x": x2, "y": y2, "action": "D"}]}
    assert GAME.order_notation(st, "p1", payload) == f"{x1}:{y1}-M-E,{x2}:{y2}-D"


def test_P8_a_token_for_a_square_without_the_seats_robot_is_left_out():
    st, own = _state()
    (x1, y1), (ex, ey) = own[1][0], own[2][0]
    payload = {"orders": [{"x": ex, "y": ey, "action": "A", "dir": "N"}, {"x": x1, "y": y1, "action": "S"}]}
    assert GAME.order_notation(st, "p1", payload) == f"{x1}:{y1}-S"


def test_R11_no_orders_is_idle_and_R32_user_data_is_not_shown():
    st, own = _state()
    x1, y1 = own[1][0]
    assert GAME.order_notation(st, "p1", {"orders": [], "user_data": "secret plan"}) == "idle"
    assert GAME.order_notation(st, "p1", f"{x1}:{y1}-m-w#secret plan") == f"{x1}:{y1}-M-W"


def test_P6_a_malformed_response_is_shown_as_recorded():
    st, _ = _state()
    assert GAME.order_notation(st, "p1", "12:6-X-N") == "12:6-X-N"
    assert GAME.order_notation(st, "p1", {"orders": "garbage"}) == '{"orders":"garbage"}'
    assert GAME.order_notation(st, "p1", None) == "-"
