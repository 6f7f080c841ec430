"""Issue 23, the lead's items from the last newcomer audit, each checked against a real server
in Chromium:

- "Accepted: your orders for turn N are in" stayed under the end screen after the last turn:
  once the match has ended the message says what it now means (the last turn was played);
- pages said "Red (p1)": a seat is its colour ("Red") or its player's name ("Ana (Red)"), never
  the engine's seat id;
- the lobby's lists showed the game's id ("dadoed") and the seats' ids ("p1: hunter", "p2 won"):
  they show the game's name and the seats' colours.
"""

from __future__ import annotations

import re
import time

import httpx
import pytest

from tests.web.test_web_browser import (WAIT_MS, browser, open_page, submit_ok, view_of,  # noqa: F401
                                        click_square, wait_my_move, wait_ready)

SEAT_ID = re.compile(r"\bp[1-8]\b")


def _move_one_robot(page) -> None:
    """Plan one move of the learner's first robot by clicking (as tests/web/test_web_browser.py)."""
    wait_my_move(page, ".robot")
    view = view_of(page)
    r = [r for r in view["robots"] if r["side"] == "F"][0]
    taken = {(o["x"], o["y"]) for o in view["robots"]}
    click_square(page, f"{r['x']}:{r['y']}")
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if (r["x"] + dx, r["y"] + dy) not in taken:
            click_square(page, f"{r['x'] + dx}:{r['y'] + dy}")
            break


@pytest.mark.browser
def test_issue23_the_acceptance_does_not_outlive_the_match_and_seats_are_colours(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], {"max_turns": "1"}, seed=4)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    assert page.inner_text("#me") == "Red"
    _move_one_robot(page)
    submit_ok(page)  # the only turn: the match ends with it
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    page.wait_for_function("document.getElementById('order-msg').textContent.includes('last turn')", timeout=WAIT_MS)
    assert page.inner_text("#order-msg") == "Accepted. That was the last turn: the result is above."
    body = page.inner_text("body")
    assert "are in" not in body, body  # "your orders for turn 1 are in" no longer applies
    assert not SEAT_ID.search(page.inner_text("#page")), SEAT_ID.search(page.inner_text("#page"))
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
def test_issue23_the_lobby_lists_name_the_game_and_the_seats_colours(browser, live):
    games = {g["id"]: g["name"] for g in httpx.get(f"{live.url}/api/games").json()}
    running = live.create("dadoed", ["remote", "builtin:random"], seed=2)
    ended = live.create("arena", ["builtin:hunter", "builtin:swarm"], {"max_turns": "2"}, seed=3)
    for _ in range(300):  # the bots play the arena match to its end
        if httpx.get(f"{live.url}/api/matches/{ended['match']}").json()["status"] == "ended":
            break
        time.sleep(0.1)
    lobby = open_page(browser, live.url + "/")
    run = lobby.wait_for_selector(f'#running li[data-match="{running["match"]}"]', timeout=WAIT_MS).inner_text()
    assert run.startswith(games["dadoed"] + " · "), run
    assert "Blue: " in run and "Orange: " in run, run
    end = lobby.wait_for_selector(f'#ended li[data-match="{ended["match"]}"]', timeout=WAIT_MS).inner_text()
    assert end.startswith(games["arena"] + " · "), end
    assert not SEAT_ID.search(end), end  # "Red won" / "Blue won" / "draw", never "p2 won"
    # the lobby's own new match: seats by colour in the links and in "My matches"
    lobby.select_option("#game", "arena")
    lobby.click("#create-btn")
    link = lobby.wait_for_selector(".seat-link", timeout=WAIT_MS).inner_text()
    assert link.startswith("Open your seat (Red)"), link
    mine = lobby.inner_text("#my-matches")
    assert games["arena"] in mine and "seat p1" not in mine, mine
    assert lobby.errors == [], lobby.errors
    lobby.context.close()
