"""The referee's own contract, for every registered game: checkpoints restore exactly, refused
and accepted submissions, the default and the decision counter (issue 11, item 1)."""

from __future__ import annotations

import pytest

from conformance import GAMES, GARBAGE, canon, facts, seats_for, short_config

from botwars.engine.codes import Receipt
from botwars.engine.referee import NotAwaited, Referee
from botwars.engine.ruleset import get_ruleset


def fresh(game: str, seed: int = 3) -> Referee:
    rs = get_ruleset(game)
    return Referee(rs, short_config(rs), seats_for(rs), seed, clock=False)


@pytest.mark.parametrize("game", GAMES)
def test_rollback_to_one_checkpoint_restores_it_every_time(game):
    ref = fresh(game)
    seat = ref.pending()[0]
    seen = {s: facts(ref, s) for s in [*ref.seats, None]}
    cp = ref.checkpoint()
    for _ in range(3):
        assert ref.submit(seat, GARBAGE[0], 0.0).receipt == Receipt.REFUSED
        ref.default(seat, {"code": "crash", "detail": "test"}, 0.0)
        for other in ref.pending():
            if other in ref.awaited():
                ref.default(other, {"code": "crash", "detail": "test"}, 0.0)
        ref.resolve_point()
        ref.rollback(cp)
        # nothing of what was done since the checkpoint survives, however often it is used
        assert ref.n == 0 and ref.refusals(seat) == 0 and ref.settled(seat) is None
        assert ref.awaited() == ref.pending() and ref.lines == []
        assert {s: facts(ref, s) for s in [*ref.seats, None]} == seen


@pytest.mark.parametrize("game", GAMES)
def test_a_refusal_keeps_the_point_open_and_is_told_to_the_refused_seat_only(game):
    ref = fresh(game)
    seat = ref.pending()[0]
    others = [s for s in [*ref.seats, None] if s != seat]
    seen = {s: facts(ref, s) for s in others}
    for g in GARBAGE:
        tk = ref.submit(seat, g, 0.0)
        assert tk.receipt == Receipt.REFUSED and tk.error is not None and tk.error.message
        if seat not in ref.awaited():  # the rules count refusals and this was the last one
            break
    assert ref.decision == 1 and ref.n == 0
    assert {s: facts(ref, s) for s in others} == seen


@pytest.mark.parametrize("game", GAMES)
def test_default_orders_settle_a_seat_once_and_the_point_resolves_to_one_line(game):
    ref = fresh(game)
    pending = list(ref.pending())
    for s in pending:
        tk = ref.default(s, {"code": "timeout", "detail": "test"}, 0.25)
        assert tk.receipt == Receipt.ACCEPTED and ref.settled(s).payload is None
        with pytest.raises(NotAwaited) as exc:
            ref.default(s, {"code": "timeout", "detail": "again"}, 0.5)
        assert exc.value.code == "already_submitted"
    assert ref.ready()
    ref.resolve_point()
    assert ref.n == 1 and len(ref.lines) == 1
    line = ref.lines[0]
    assert line["n"] == 1 and line["orders"] == {s: None for s in pending}
    assert all(line["errors"][s][-1]["code"] == "timeout" for s in pending)
    assert ref.decision == (1 if ref.over else 2)


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_that_is_not_awaited_is_told_so_and_nothing_changes(game):
    ref = fresh(game)
    idle = [s for s in ref.seats if s not in ref.pending()]
    before = canon(ref.record(None))
    for s in idle + ["no-such-seat"]:
        with pytest.raises(NotAwaited) as exc:
            ref.submit(s, GARBAGE[1], 0.0)
        assert exc.value.code == "not_your_turn"
    assert canon(ref.record(None)) == before and ref.decision == 1
