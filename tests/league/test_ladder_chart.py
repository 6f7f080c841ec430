"""The ladder page's rating chart (issue 15 item 4: a ladder page with ratings; a picture of
how they moved): drawn from the stored ladder matches, only once there is one, with the
members' display names, kept until the results change (a page view does not redraw it)."""

from __future__ import annotations

import re
import warnings

import pytest

from test_league_server import make_league_client, upload

warnings.filterwarnings("ignore", message=".*httpx2.*")


@pytest.fixture
def house_league(tmp_path, monkeypatch):
    client, lg = make_league_client(tmp_path, monkeypatch)
    lg.house = {"arena": ["random", "hunter"]}
    with client:
        yield client, lg


def test_ladder_page_draws_the_ratings_once_matches_are_stored(house_league, monkeypatch):
    c, lg = house_league
    page = c.get("/league/arena")
    assert upload(c, "chart-bot").status_code == 201  # a ladder needs an uploaded bot (sandboxed check)
    page = c.get("/league/arena")
    assert page.status_code == 200 and "<svg" not in page.text  # no match yet: no chart
    assert lg.step(3) == 3
    import botwars.league.charts as charts
    drawn = []
    real = charts.rating_chart_svg
    monkeypatch.setattr(charts, "rating_chart_svg", lambda *a, **k: drawn.append(1) or real(*a, **k))
    page = c.get("/league/arena").text
    assert "<h2>Ratings over the ladder</h2>" in page and page.count("<svg") == 1
    svg = page[page.index("<svg"):page.index("</svg>")]
    texts = {t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}
    assert {"chart-bot", "builtin:random", "builtin:hunter"} <= texts  # the members' display names
    assert c.get("/league/arena").text == page and len(drawn) == 1  # kept: not drawn again
    assert lg.step(1) == 1
    assert c.get("/league/arena").text != page and len(drawn) == 2  # a new result: drawn anew
