"""Issue 23 item 1: How-to-play pages over HTTP (no browser). Each shipped game declares its page
in its plug-in (``Game.how_to_play``); ``/howto/GAME`` renders it with pictures drawn by the
game's own SVG drawing from ``position`` blocks (scenario documents played through the referee);
the lobby, seat and spectator pages link it, the full rules one click further; a game without a
page (the test-only minigame) gets no link and a 404, never a 500."""

from __future__ import annotations

import re

import httpx
import pytest

from botwars.engine.plugin import get_game
from botwars.web.howto import how_to_play_html, position_svg

GAMES = ("arena", "factory", "geeko", "dadoed", "submarine")


def words(markdown: str) -> int:
    """Words a reader reads: the Markdown without its picture blocks."""
    prose = re.sub(r"```position\n.*?```", "", markdown, flags=re.S)
    return len(prose.split())


@pytest.mark.parametrize("game", GAMES)
def test_issue23_each_game_serves_a_how_to_play_page_with_pictures(live, game):
    text = get_game(game).how_to_play_text()
    assert text is not None
    assert 450 <= words(text) <= 1000, words(text)  # read in about three minutes
    for part in ("## The goal", "step by step", "## A worked example"):
        assert part in text
    r = httpx.get(f"{live.url}/howto/{game}")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert r.text.count('<figure class="howto-picture"') >= 2
    assert r.text.count("<svg") >= 2 and "howto-missing" not in r.text  # every picture was drawn
    assert f'href="/rules/{game}"' in r.text and "Full rules" in r.text
    body = re.sub(r"<svg.*?</svg>", "", r.text, flags=re.S)
    assert not re.search(r"\b(R\d+|[FGDS]-\d+(\.\d+)*)\b", re.sub(r"<[^>]+>", " ", body)), "a rule id on the page"


def test_issue23_position_block_plays_its_turns_through_the_rules():
    """The arena worked example (R20 attacks after R18 moves): the Blue robot walking into Red's
    attack is drawn with 88 HP, where the start position had it at 100."""
    game = get_game("arena")
    block = ('map: "#######\\n#.....#\\n#1...2#\\n#######"\nrobots: {1a: "2:2", 2a: "4:2"}\n'
             'turns:\n  - orders: {1a: A-E, 2a: M-W}\n')
    svg, _ = position_svg(game, block, "test")
    start, _ = position_svg(game, block + "start_only: true\n", "test")
    assert ">88<" in svg and ">88<" not in start and ">100<" in start


def test_issue23_a_broken_picture_is_said_in_words_never_a_500(live, monkeypatch):
    from botwars.web import howto
    game = get_game("arena")
    monkeypatch.setattr(type(game), "how_to_play_text",
                        lambda self: "## The goal\n\n```position\nrobots: [not, a, mapping]\n```\n")
    monkeypatch.setattr(howto, "_cache", {})
    html, _ = how_to_play_html("arena")
    assert "Picture 1 cannot be drawn" in html and "<svg" not in html


def test_issue23_lobby_and_match_pages_link_how_to_play_then_full_rules(live):
    lobby = httpx.get(f"{live.url}/").text
    for game in GAMES:
        assert f'href="/howto/{game}"' in lobby
    m = live.create("arena", ["remote", "builtin:swarm"])
    for url in (f"/play/{m['match']}?token={m['seats'][0]['token']}", f"/watch/{m['match']}"):
        page = httpx.get(live.url + url).text
        assert 'id="howto-link"' in page and 'href="/howto/arena"' in page
        assert 'href="/rules/arena"' in page and "Full rules" in page


def test_issue23_a_game_without_a_page_gets_no_link_and_a_404(live):
    assert get_game("minigame").how_to_play is None
    for gid in ("minigame", "no-such-game", "x" * 300):
        r = httpx.get(f"{live.url}/howto/{gid}", headers={"Accept": "text/html"})
        assert r.status_code == 404, (gid, r.status_code)
        assert "No How-to-play page" in r.text and "x" * 65 not in r.text
    assert httpx.get(f"{live.url}/howto/..%2Fetc").status_code == 404
    assert httpx.get(f"{live.url}/howto/minigame").json()["error"] == "not_found"  # an API client: JSON
    r = httpx.post(f"{live.url}/api/matches", json={"game": "minigame", "seats": ["remote", "builtin:random"],
                                                    "seed": 2, "config": {}})
    assert r.status_code == 201, r.text
    m = r.json()
    page = httpx.get(f"{live.url}/play/{m['match']}", params={"token": m["seats"][0]["token"]}).text
    assert "howto-link" not in page and "/howto/" not in page
    assert 'data-howto="minigame"' not in httpx.get(f"{live.url}/").text
