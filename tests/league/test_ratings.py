"""Ratings (issue 15 item 2): openskill Plackett–Luce checked against openskill's own API, Elo
(arena R29) against hand-computed numbers, and the same results giving the same table in any
order of storage."""

from __future__ import annotations

import json
import random

import pytest
from openskill.models import PlackettLuce

from botwars.league.ratings import elo_ratings, openskill_ratings
from botwars.league.results import ResultStore
from botwars.league.runner import MatchReport
from botwars.league.standings import standings


def row(seq: int, agents: list[str], ranking: list[list[str]], winner: str | None, round_: int = 0) -> dict:
    seats = [f"p{i + 1}" for i in range(len(agents))]
    return {"match_id": f"m{seq:03d}", "round": round_, "seq": seq, "game_index": 0, "seed": seq,
            "agents": agents, "seats": seats, "status": "ok", "turns": 10,
            "outcome": {"winner": winner, "scores": {}, "reason": "test", "ranking": ranking, "details": {}},
            "errors": {s: 0 for s in seats}, "error_detail": [], "wall_s": 0.0}


# A beats B; then C first with A and B tied second (3 seats); then B and C draw.
RESULTS = [
    row(0, ["A", "B"], [["p1"], ["p2"]], "p1"),
    row(1, ["C", "A", "B"], [["p1"], ["p2", "p3"]], "p1"),
    row(2, ["B", "C"], [["p1", "p2"]], None),
]


def test_openskill_matches_the_library_called_directly():
    model = PlackettLuce()
    a, b, c = model.rating(), model.rating(), model.rating()
    [[a], [b]] = model.rate([[a], [b]], ranks=[1, 2])
    [[c], [a], [b]] = model.rate([[c], [a], [b]], ranks=[1, 2, 2])
    [[b], [c]] = model.rate([[b], [c]], ranks=[1, 1])
    got = openskill_ratings(RESULTS, ["A", "B", "C"])
    for name, want in (("A", a), ("B", b), ("C", c)):
        assert got[name]["mu"] == pytest.approx(want.mu, abs=1e-12)
        assert got[name]["sigma"] == pytest.approx(want.sigma, abs=1e-12)
        assert got[name]["ordinal"] == pytest.approx(want.mu - 3 * want.sigma, abs=1e-12)
    assert got["C"]["mu"] > got["A"]["mu"]  # C won its only decisive game


def test_elo_against_hand_computed_numbers():
    # R29: Elo from rating_initial; K = 32. A beats B, B beats A, then a draw.
    ms = [row(0, ["A", "B"], [["p1"], ["p2"]], "p1"), row(1, ["B", "A"], [["p1"], ["p2"]], "p1"),
          row(2, ["A", "B"], [["p1", "p2"]], None)]
    r = elo_ratings(ms[:1], ["A", "B"], 1000)
    assert r == {"A": 1016.0, "B": 984.0}
    r = elo_ratings(ms[:2], ["A", "B"], 1000)
    # E_B = 1/(1 + 10^(32/400)) = 0.454032; B = 984 + 32*(1 - 0.454032)
    assert r["A"] == pytest.approx(998.5305, abs=1e-4) and r["B"] == pytest.approx(1001.4695, abs=1e-4)
    r = elo_ratings(ms, ["A", "B"], 1000)
    assert r["A"] == pytest.approx(998.6658, abs=1e-4) and r["B"] == pytest.approx(1001.3342, abs=1e-4)
    assert elo_ratings([], ["A", "B"], 1500) == {"A": 1500.0, "B": 1500.0}
    assert elo_ratings(RESULTS, ["A", "B", "C"], 1000) is None  # a 3-seat match: no Elo


def test_failed_matches_do_not_count():
    bad = dict(row(5, ["A", "B"], [], None), status="failed", outcome=None)
    assert openskill_ratings(RESULTS + [bad], ["A", "B", "C"]) == openskill_ratings(RESULTS, ["A", "B", "C"])
    rows = {r["agent"]: r for r in standings(RESULTS + [bad], ["A", "B", "C"])}
    assert rows["A"]["failed"] == 1 and rows["A"]["games"] == 2


def test_standings_counts():
    rows = {r["agent"]: r for r in standings(RESULTS, ["A", "B", "C"])}
    a, b, c = rows["A"], rows["B"], rows["C"]
    assert (a["games"], a["wins"], a["draws"], a["losses"]) == (2, 1, 0, 1)
    assert (b["games"], b["wins"], b["draws"], b["losses"]) == (3, 0, 1, 2)
    assert (c["games"], c["wins"], c["draws"], c["losses"]) == (2, 1, 1, 0)
    # score: A 1 + (0 + 0.5)/2; B 0 + 0.25 + 0.5; C 1 + 0.5
    assert (a["score"], b["score"], c["score"]) == (1.25, 0.75, 1.5)
    assert a["cross"]["B"] == {"wins": 1, "draws": 1, "losses": 0}
    assert b["cross"]["C"] == {"wins": 0, "draws": 1, "losses": 1}
    assert [r["agent"] for r in standings(RESULTS, ["A", "B", "C"])][0] == "C"


def test_same_results_stored_in_any_order_give_the_same_table(tmp_path):
    rng = random.Random(4)
    ms = [row(i, rng.sample(["A", "B", "C", "D"], 2), [["p1"], ["p2"]] if rng.random() < 0.8 else [["p1", "p2"]],
              None, round_=i // 10) for i in range(40)]
    for m in ms:
        if m["outcome"]["ranking"] == [["p1"], ["p2"]]:
            m["outcome"]["winner"] = "p1"
    tables = []
    for k in range(3):
        order = ms[:]
        random.Random(k).shuffle(order)
        db = ResultStore(f"sqlite:///{tmp_path}/r{k}.db")
        db.ensure_tournament("t", "arena", {})
        for m in order:
            assert db.commit("t", MatchReport({**m}), str(tmp_path / f"out{k}"))
        assert not db.commit("t", MatchReport({**order[0]}), str(tmp_path / f"out{k}"))  # once only
        stored = db.matches("t")
        assert [m["match_id"] for m in stored] == [m["match_id"] for m in ms]
        tables.append(json.dumps(standings(stored, ["A", "B", "C", "D"], 1000.0), sort_keys=True))
        db.close()
    assert tables[0] == tables[1] == tables[2]
    # and a different order of play does change Elo: the order is part of the result
    swapped = [dict(m, seq=len(ms) - m["seq"], round=0) for m in ms]
    assert json.dumps(standings(swapped, ["A", "B", "C", "D"], 1000.0), sort_keys=True) != tables[0]
