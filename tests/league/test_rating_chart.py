"""The ratings over a tournament: ``rating_history`` and the chart of ``standings.html``
(issue 15 items 1-2: ratings recomputed from stored results in a fixed order; a picture of
how they moved).

Expected values are worked out by hand: openskill's default rating is μ = 25, σ = 25/3, so every
agent's ordinal μ − 3σ starts at exactly 0; a win raises the winner's ordinal and lowers the
loser's (both σ shrink, the winner's μ rises), and an agent that does not play keeps its value.
"""

from __future__ import annotations

import re

from botwars.league.charts import rating_chart_svg
from botwars.league.ratings import openskill_ratings, rating_history
from botwars.league.standings import standings, write_standings


def match(seq: int, a: str, b: str, winner: str | None, status: str = "ok") -> dict:
    """A stored two-seat result: ``a`` in seat p1, ``b`` in p2; ``winner`` an agent or None."""
    seat = {a: "p1", b: "p2"}
    return {"match_id": f"m{seq:03d}", "round": 0, "seq": seq, "agents": [a, b], "seats": ["p1", "p2"],
            "status": status, "outcome": ({"winner": seat[winner] if winner else None, "reason": "test"}
                                          if status == "ok" else None),
            "errors": {"p1": 0, "p2": 0}, "error_detail": [] if status == "ok" else [{"detail": "lost"}],
            "replay": None, "turns": 10}


RESULTS = [match(0, "A", "B", "A"), match(1, "A", "B", "A"), match(2, "B", "A", "A"),
           match(3, "C", "B", None), match(4, "A", "C", None, status="failed")]


def test_history_starts_at_zero_and_moves_only_with_played_matches():
    h = rating_history(RESULTS, ["A", "B", "C"])
    assert {a: len(v) for a, v in h.items()} == {"A": 5, "B": 5, "C": 5}  # 4 counted matches + the start
    assert all(abs(v[0]) < 1e-12 for v in h.values())  # 25 - 3 * 25/3
    assert h["A"][0] < h["A"][1] < h["A"][2] < h["A"][3]  # three wins
    assert h["B"][0] > h["B"][1] > h["B"][2] > h["B"][3]  # three losses
    assert h["C"][:4] == [h["C"][0]] * 4  # C played only match 3 (the failed one does not count)
    assert h["A"][4] == h["A"][3]
    assert h["C"][4] != h["C"][3] and h["B"][4] != h["B"][3]
    final = openskill_ratings(RESULTS, ["A", "B", "C"])
    assert {a: v[-1] for a, v in h.items()} == {a: r["ordinal"] for a, r in final.items()}


def test_history_ignores_storage_order():
    assert rating_history(list(reversed(RESULTS)), ["A", "B", "C"]) == rating_history(RESULTS, ["A", "B", "C"])


def test_chart_none_without_counted_matches():
    assert rating_chart_svg([], ["A", "B"]) is None
    assert rating_chart_svg([match(0, "A", "B", None, status="failed")], ["A", "B"]) is None


def test_chart_names_every_agent_and_is_the_same_bytes_each_time():
    names = ["A", "B", "$x^2$ <script>alert(1)</script>"]
    res = [match(0, "A", "B", "A"), match(1, names[2], "A", names[2])]
    svg = rating_chart_svg(res, names)
    assert svg is not None and svg.startswith("<svg")
    assert "<script>" not in svg  # names are escaped text
    assert "$x^2$ &lt;script&gt;alert(1)&lt;/script&gt;" in svg  # not TeX: shown as written
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    for n in ("A", "B"):
        assert n in [t.strip() for t in texts]
    # one line per agent (and its legend swatch): a path of 1 + 2 counted matches points each
    lines = re.findall(r'<path d="M ([^"]+)"[^>]*style="fill: none; stroke: (#[0-9a-f]{6}); stroke-width: 1.4', svg)
    first: dict[str, list[float]] = {}
    for d, colour in lines:  # the plotted line comes before its legend swatch
        first.setdefault(colour, [float(y) for y in re.findall(r"[\d.]+ ([\d.]+)", d)])
    assert len(first) == 3
    ya, yb, yx = first.values()  # in the order of the agents; SVG y grows downwards
    assert ya[0] == yb[0] == yx[0]  # everyone starts at 0
    assert ya[1] < ya[0] and yb[1] > yb[0] and yx[1] == yx[0]  # match 0: A beats B, x idle
    assert yx[2] < yx[1] and ya[2] > ya[1] and yb[2] == yb[1]  # match 1: x beats A, B idle
    assert rating_chart_svg(res, names) == svg


def test_standings_page_embeds_the_chart(tmp_path):
    rows = standings(RESULTS, ["A", "B", "C"])
    settings = {"game": "arena", "format": "round-robin", "games_per_pair": 1, "players": 2, "seed": 0}
    _, html_path = write_standings(str(tmp_path), rows, RESULTS, settings)
    page = open(html_path, encoding="utf-8").read()
    assert "<h2>Ratings over the tournament</h2>" in page
    assert page.count("<svg") == 1
    first = page
    write_standings(str(tmp_path), rows, RESULTS, settings)
    assert open(html_path, encoding="utf-8").read() == first  # same results, same bytes
    _, html_path = write_standings(str(tmp_path), standings([], ["A", "B"]), [], settings)
    assert "<svg" not in open(html_path, encoding="utf-8").read()


def test_long_names_keep_their_kind_and_file_name_in_the_legend():
    long = "rgkit:/work/shared/peers/rgkit/rgkit/bots/guardbot.py"  # 53 characters
    svg = rating_chart_svg([match(0, long, "B", long)], [long, "B"])
    texts = [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    shown = [t for t in texts if t.endswith("guardbot.py")]
    assert len(shown) == 1 and shown[0].startswith("rgkit:") and len(shown[0]) == 48 and "…" in shown[0]
