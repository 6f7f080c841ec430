"""Invariants over seeded random games on every shipped board, both variants, 1-8 seats:
resolve never mutates its input and is deterministic; cards are never in two places (F-5.1,
F-7.5); HP stays in 0..max_hp; hands have the F-5.3 size."""

import json

import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.board import shipped_boards
from botwars.games.factory.bots import RandomBot

RS = get_ruleset("factory")

CASES = [(b, v, n) for b, v, n in [(b, v, n) for b in shipped_boards() for v in ("factory", "classic")
                                    for n in (1, 3, 8)]]


@pytest.mark.parametrize("board,variant,n", CASES)
def test_random_games_keep_the_invariants(board, variant, n):
    cfg = RS.validate_config({"board": board, "variant": variant, "turn_limit": 6})
    seats = RS.seat_names(n)
    st = RS.setup(cfg, seats, f"{board}-{n}")
    bots = {s: RandomBot() for s in seats}
    for s, b in bots.items():
        b.start("factory", s, cfg, n)
    while not st.over:
        seen: set[int] = set()
        for i, b in enumerate(st.bots):
            assert 0 <= b.hp <= cfg["max_hp"]
            if b.alive:
                assert st.board.on_board(b.sq)
                for r in range(1, 6):
                    c = b.regs[r - 1]
                    if b.fused(r) and not b.rebooting:
                        assert c is not None
                    if c is not None and b.fused(r):
                        assert c not in seen
                        seen.add(c)
                if not b.rebooting and not st.players[b.owner].out:
                    assert len(st.hands[i]) == RS.hand_size(st, i)
            for c in st.hands.get(i, []):
                assert c not in seen
                seen.add(c)
        orders = {s: RS.parse_orders(st, s, bots[s].act(RS.view(st, s))) for s in RS.pending(st)}
        before = json.dumps(RS.state_json(st), sort_keys=True)
        a, ev_a = RS.resolve(st, orders)
        b2, ev_b = RS.resolve(st, orders)
        assert json.dumps(RS.state_json(st), sort_keys=True) == before
        assert json.dumps(RS.state_json(a), sort_keys=True) == json.dumps(RS.state_json(b2), sort_keys=True)
        assert [e.to_json() for e in ev_a] == [e.to_json() for e in ev_b]
        st = a
    assert st.result["reason"] in ("flags", "elimination", "turn_limit")
