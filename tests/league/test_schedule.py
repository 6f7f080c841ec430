"""Tournament schedules (issue 15 item 1): how many matches each format plays, both seat
orders for every pairing, seat rotations for free-for-all, ids and seeds, swiss pairing."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from botwars.league import schedule


def specs(k: int) -> list[str]:
    return [f"builtin:bot{i}" for i in range(k)]


@pytest.mark.parametrize("k, g", [(2, 1), (3, 2), (4, 1), (5, 3), (8, 2)])
def test_round_robin_plays_every_pair_in_both_seat_orders(k, g):
    groups = schedule.groups_for("round-robin", k, 2)
    fx = schedule.fixtures_for("t", 7, specs(k), groups, g)
    assert len(fx) == k * (k - 1) * g
    orders = Counter(f.agents for f in fx)
    for a, b in itertools.permutations(range(k), 2):
        assert orders[(a, b)] == g  # a in seat 1 against b, g times; and b in seat 1 too
    assert len({f.match_id for f in fx}) == len(fx)
    assert [f.seq for f in fx] == list(range(len(fx)))


@pytest.mark.parametrize("k, g", [(2, 1), (4, 2), (6, 1)])
def test_gauntlet_plays_the_challenger_against_each_other_agent(k, g):
    fx = schedule.fixtures_for("t", 0, specs(k), schedule.groups_for("gauntlet", k, 2), g)
    assert len(fx) == 2 * (k - 1) * g
    assert all(0 in f.agents for f in fx)
    assert Counter(f.agents[0] for f in fx)[0] == (k - 1) * g


@pytest.mark.parametrize("k, n", [(4, 3), (4, 4), (5, 4), (8, 8)])
def test_free_for_all_rotates_every_agent_through_every_seat(k, n):
    groups = schedule.groups_for("round-robin", k, n)
    assert len(groups) == len(list(itertools.combinations(range(k), n)))
    fx = schedule.fixtures_for("t", 1, specs(k), groups, 1)
    assert len(fx) == len(groups) * n
    for group in groups:
        mine = [f for f in fx if sorted(f.agents) == list(group)]
        for seat in range(n):  # each agent of the group sits in each seat once
            assert sorted(f.agents[seat] for f in mine) == list(group)
        assert len({f.seed for f in mine}) == 1  # the rotations of one game share its seed


def test_seeds_and_ids_depend_on_the_inputs_only():
    s = specs(3)
    a = schedule.fixtures_for("t", 5, s, schedule.groups_for("round-robin", 3, 2), 2)
    b = schedule.fixtures_for("t", 5, s, schedule.groups_for("round-robin", 3, 2), 2)
    c = schedule.fixtures_for("t", 6, s, schedule.groups_for("round-robin", 3, 2), 2)
    assert a == b
    assert [f.seed for f in a] != [f.seed for f in c]
    # games of one pairing have different seeds; both seat orders of a game the same one
    pair = [f for f in a if set(f.agents) == {0, 1}]
    assert len({f.seed for f in pair}) == 2
    assert len({(f.game_index, f.seed) for f in pair}) == 2
    # a pairing's seed does not depend on which other agents take part
    assert schedule.match_seed(5, ["x", "y"], 0) == schedule.match_seed(5, ["y", "x"], 0)


def test_too_few_agents_for_the_seats_is_refused():
    with pytest.raises(Exception, match="at least 4 agents"):
        schedule.groups_for("round-robin", 3, 4)


def test_swiss_pairs_by_score_avoids_rematches_and_rotates_the_bye():
    scores = [3.0, 0.0, 2.0, 1.0]
    pairs, bye = schedule.swiss_pairs(scores, [0.0] * 4, set())
    assert bye is None and pairs == [(0, 2), (3, 1)]
    pairs, _ = schedule.swiss_pairs(scores, [0.0] * 4, {frozenset((0, 2))})
    assert pairs == [(0, 3), (2, 1)]
    # equal scores: rating breaks the tie, then the place in the agent list
    pairs, _ = schedule.swiss_pairs([1.0] * 4, [0.0, 5.0, 0.0, 1.0], set())
    assert pairs == [(1, 3), (0, 2)]
    # odd: the lowest-ranked agent without a bye sits out
    pairs, bye = schedule.swiss_pairs([2.0, 1.0, 0.0], [0.0] * 3, set())
    assert bye == 2 and pairs == [(0, 1)]
    pairs, bye = schedule.swiss_pairs([2.0, 1.0, 0.0], [0.0] * 3, set(), byes={2})
    assert bye == 1 and pairs == [(0, 2)]
