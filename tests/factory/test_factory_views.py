"""Secret state (F-14, F-15.3 to F-15.5): a seat's view never depends on another seat's hand,
unrevealed program or standing orders, checked over seeded random games."""

import json
import random

import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.bots import RandomBot

RS = get_ruleset("factory")


def scramble_others(st, seat, rng):
    """A copy of ``st`` in which every secret of every seat but ``seat`` is changed."""
    other = st.copy()
    p = st.player_of(seat)
    pool = [c for c in range(5, 845, 5)]
    for i, hand in other.hands.items():
        if other.bots[i].owner != p:
            other.hands[i] = rng.sample(pool, len(hand))
    for i, b in enumerate(other.bots):
        if b.owner != p:
            for r in range(1, 6):
                if not b.fused(r):
                    b.regs[r - 1] = rng.choice(pool)
    for q, pl in enumerate(other.players):
        if q != p:
            pl.standing = {"sacrifice_at": rng.randint(0, 10), "wrench2": rng.choice(["auto", "repair", "option"]),
                           "facing": rng.choice("NESW")}
    other.hand_msgs = {s: (m if s == seat else ["=== secret ==="]) for s, m in other.hand_msgs.items()}
    other.option_deck = list(reversed(other.option_deck))
    return other


@pytest.mark.parametrize("seed,n", [(1, 2), (2, 3), (3, 4), (4, 8)])
def test_F_14_2_F_14_3_F_15_5_views_never_show_other_seats_secrets(seed, n):
    """Also F-15.4 and F-14.1: the spectator sees F-15.3 without ``you``, ``hand``, ``program``,
    ``standing`` and hand messages, and the public parts (board, devices, every player's robot,
    flags, checkpoint...) exactly as every seat sees them."""
    cfg = RS.validate_config({"turn_limit": 6})
    seats = RS.seat_names(n)
    st = RS.setup(cfg, seats, seed)
    bots = {s: RandomBot() for s in seats}
    for s, b in bots.items():
        b.start("factory", s, cfg, seed)
    rng = random.Random(seed)
    while not st.over:
        orders = {}
        seat_views = []
        for s in RS.pending(st):
            v = RS.view(st, s)
            seat_views.append(v)
            text = json.dumps(v)
            assert json.dumps(RS.view(scramble_others(st, s, rng), s)) == text
            hand_lines = [ln for ln in v["reports"] if " HAND " in ln]
            assert all(ln.endswith(f" HAND {s} ===") for ln in hand_lines)
            i = st.bots_of(st.player_of(s))[0]
            assert v["hand"] == [f"{c}" for c in v["hand"]] and len(v["hand"]) == len(st.hands.get(i, []))
            assert "seed" not in text and "option_deck" not in text
            orders[s] = RS.parse_orders(st, s, bots[s].act(v))
        spec = RS.view(st, None)  # F-15.4 spectator: public parts only (F-14.1)
        assert not {"hand", "program", "standing", "you"} & set(spec)
        assert set(spec) >= {"ruleset", "variant", "turn", "phase", "deadline_s", "board", "devices", "players",
                             "reports", "result"}
        for v in seat_views:  # F-14.1: what is public is the same for every viewer
            assert (spec["board"], spec["devices"], spec["players"]) == (v["board"], v["devices"], v["players"])
        assert not any(" HAND " in ln for ln in spec["reports"])
        for s in seats:
            assert json.dumps(RS.view(scramble_others(st, s, rng), None)) == json.dumps(spec)
        st, events = RS.resolve(st, orders)
        for e in events:
            if e.kind == "hand":
                assert e.visible_to == frozenset([e.data["seat"]])
            else:
                assert e.visible_to is None


def test_F_15_3_F_4_3_view_shape_and_initial_devices():
    cfg = RS.validate_config({})
    st = RS.setup(cfg, ["p1", "p2"], "demo")
    v = RS.view(st, "p1")
    for key in ("ruleset", "variant", "you", "turn", "phase", "deadline_s", "board", "devices", "players", "hand",
                "program", "standing", "reports", "result"):
        assert key in v
    assert v["turn"] == 1 and v["phase"] == "program" and v["you"] == 1
    assert v["devices"]["bridges"] == {"r6c10": "raised"}
    assert v["devices"]["eyes"] == {"r4c6N": False} and v["devices"]["blasers"] == {"r2c1W": False}
    assert v["reports"][0] == "=== TURN 1 HAND p1 ==="
    assert v["players"][0]["robot"]["mode"] == "virtual"
