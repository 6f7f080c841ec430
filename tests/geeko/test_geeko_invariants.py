"""Invariants over seeded random races: resolve never mutates its input, robots never share a
square, a seat's view does not depend on other seats' secrets (G-1.3, G-16.5), every report
event is private to one player (G-10.1)."""

import json

import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.cards import ALL_CARDS
from botwars.engine.plugin import get_game

RS = get_ruleset("geeko")


def dump(x):
    return json.dumps(x, sort_keys=True)


@pytest.mark.parametrize("seed", range(6))
def test_G_1_3_G_16_5_G_10_1_random_races_keep_the_invariants(seed):
    n = 2 + seed % 2
    seats = [f"p{k + 1}" for k in range(n)]
    gs = RS.setup(RS.validate_config({"turn_limit": 8}), seats, seed)
    bots = {s: get_game(RS.id).builtin_bots()["random" if k else "pathfinder"]() for k, s in enumerate(seats)}
    for s, b in bots.items():
        b.start("geeko", s, {}, seed)
    while not gs.over:
        before = dump(RS.state_json(gs))
        views = {s: dump(RS.view(gs, s)) for s in seats}
        # scramble every other seat's secrets: the view of p1 must not change
        other = gs.copy()
        for r in other.runs[1:]:
            r.hand = list(reversed(ALL_CARDS[:len(r.hand)]))
            r.deck_left = []
            r.hand_msgs = {}
        assert dump(RS.view(other, "p1")) == views["p1"]
        orders = {s: RS.parse_orders(gs, s, bots[s].act(json.loads(views[s]))) for s in RS.pending(gs)}
        gs2, events = RS.resolve(gs, orders)
        assert dump(RS.state_json(gs)) == before
        for e in events:
            if e.kind in ("stage", "end", "fused", "hand"):
                assert e.visible_to is not None and len(e.visible_to) == 1
        for run in gs2.runs:
            squares = [b.sq for b in run.bots if b.alive or b.place == "parked"]
            assert len(squares) == len(set(squares))
            for b in run.bots:
                assert (b.sq is not None) == (b.place in ("board", "parked"))
                assert 0 <= b.hp <= 10
        gs = gs2
    assert gs.result["reason"] in ("turn_limit", "finished")
