"""Conformance: seeded random playthroughs of every registered game through the one referee
(issue 11, item 4), in the manner of OpenSpiel's ``random_sim_test`` and PettingZoo's
``api_test``. At every decision point, for every pending seat:

- every legal order (where ``legal_orders`` is finite; a sample of at most 50) is accepted, and
  its ``orders_json`` form is accepted and gives the same payload again (round trip);
- the default orders are accepted (as no payload);
- garbage is refused with a message, and nothing another seat is shown changes;
- a twin state differing only in facts hidden from a seat (``Ruleset.twin_state``) changes
  nothing that seat is shown or told: view, events, own record, decision counter, the answers
  to its garbage and to mutations of its orders;
- the point resolves to one record line, the same again, and the same digest when the orders
  are given in their ``orders_json`` form.

Then the record verifies, and the same seed with the same orders gives the same record.
"""

from __future__ import annotations

import random

import pytest

from conformance import GAMES, Player, read_lines, replay_script, strip_times, verify_file, write_record

from botwars.engine.ruleset import get_ruleset

SEEDS = (0, 1, 2)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", GAMES)
def test_random_playthrough_passes_the_checks_at_every_decision_point(game, seed, tmp_path):
    p = Player(game, seed).play()
    assert p.problems == []
    ref = p.ref
    out = ref.outcome
    assert out is not None and ref.n == len(p.script) == len(ref.lines) >= 1
    assert out.winner is None or out.winner in p.seats
    assert set(out.scores) == set(p.seats)
    assert [line["n"] for line in ref.lines] == list(range(1, ref.n + 1))
    # the record of the playthrough (refusals, defaults and corrections included) verifies
    path = write_record(ref, str(tmp_path / f"{game}-{seed}.jsonl"))
    assert verify_file(path) == (True, f"{ref.n} decision points verified")
    # each seat's own record holds nothing of another seat's submissions (S-8.6)
    for seat in p.seats:
        for line in ref.record(seat)[1:-1]:
            for key in ("orders", "errors", "time_s", "refused"):
                assert set(line.get(key, {})) <= {seat}, (seat, key, line)
            assert "digest" not in line
        assert "seed" not in ref.record(seat)[0]


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_and_same_orders_give_the_same_record_times_aside(game, tmp_path):
    p = Player(game, 1, checks=False).play()
    first = write_record(p.ref, str(tmp_path / "a.jsonl"))
    again = replay_script(p, time_scale=3.0)  # other thinking times, same orders
    second = write_record(again, str(tmp_path / "b.jsonl"))
    a, b = read_lines(first), read_lines(second)
    assert strip_times(a) == strip_times(b)
    assert [x.get("time_s") for x in a[1:-1]] != [x.get("time_s") for x in b[1:-1]]
    # byte for byte with the same times
    third = write_record(replay_script(p), str(tmp_path / "c.jsonl"))
    assert open(first, encoding="utf-8").read() == open(third, encoding="utf-8").read()

@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_game_with_hidden_information_has_twins_that_differ(game):
    """A twin hook that never changes anything would make the non-interference checks vacuous:
    over the seeds, some twin must differ from the real state (games without the hook have no
    hidden information and are checked without twins)."""
    rs = get_ruleset(game)
    plays = [Player(game, seed).play() for seed in SEEDS]
    if not any(p.hidden for p in plays):
        assert rs.twin_state(rs.setup(plays[0].config, plays[0].seats, 0), None, random.Random(0)) is None
        return
    assert sum(p.twins_differed for p in plays) > 0
    assert sum(p.mutants_tried for p in plays) > 0
