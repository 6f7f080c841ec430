"""A newcomer's audit of the browser pages (defects found by playing every game from the lobby),
one test per fix:

- a seat page of a game without stages asked the server for the last turn's stage pictures after
  every turn and got 404 each time (a console error per turn in arena, dadoed and submarine);
- a submarine spectator was told "no sub seen" for both sides while the board drew every surfaced
  sub (the summary read the seats' field ``visible_enemy_subs``, absent from a spectator's view,
  instead of ``surfaced_subs``, S-8.1: surfaced subs are public);
- the geeko "what just happened" panel said "room room 1";
- a league ladder page scrolled sideways on a 390 px phone (its eight-column table);
- a browser that opened a replay before the end (the lobby's "replay (when over)" link), a
  mistyped match or a stale seat link got a line of raw JSON instead of a page with a way on.

Playwright and the system Chromium, as ``tests/web/test_web_browser.py`` (its fixtures and helpers
are reused).
"""

from __future__ import annotations

import httpx
import pytest

from tests.web.test_web_browser import (WAIT_MS, arena_turn, browser, geeko_turn, open_page, shot,  # noqa: F401
                                        submarine_setup, wait_decision, wait_my_move, wait_ready)


def _failed_responses(page) -> list[str]:
    """Every response of status 400 or more the page receives from now on (a live list)."""
    bad: list[str] = []
    page.on("response", lambda r: bad.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return bad


@pytest.mark.browser
@pytest.mark.slow
def test_audit_seat_page_of_a_game_without_stages_asks_for_no_stage_pictures(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], seed=3, clock=False)
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    bad = _failed_responses(page)
    page.goto(f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    page.errors = []  # type: ignore[attr-defined] - what arena_turn's helpers read
    wait_ready(page)
    for _ in range(2):
        arena_turn(page)
    wait_decision(page, 3)
    page.wait_for_selector("#board svg .grid-meta", state="attached", timeout=WAIT_MS)
    page.wait_for_timeout(500)  # the answers to what the page asked when decision point 3 opened
    assert bad == [], bad  # before the fix: 404 .../turn/1/stages.json, .../turn/2/stages.json
    assert page.locator("#last-turn").is_hidden()
    ctx.close()


@pytest.mark.browser
@pytest.mark.slow
def test_audit_submarine_spectator_summary_names_the_surfaced_subs(browser, live):
    m = live.create("submarine", ["remote", "builtin:random"], seed=5, clock=False)
    seat = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(seat)
    submarine_setup(seat)  # then the match waits for p1 (the bot has moved first, or p1 moves first)
    wait_my_move(seat, "#s-add")
    page = open_page(browser, f"{live.url}/watch/{m['match']}")
    wait_ready(page)
    page.wait_for_selector("#sides .side-sum[data-seat=p1]", timeout=WAIT_MS)
    # the page's own view (its raw panel) and its summaries, read in one script turn
    surfaced, sides = page.evaluate("""() => [JSON.parse(document.querySelector('#info dd[data-key=surfaced_subs]').textContent),
        Object.fromEntries(['p1', 'p2'].map(s => [s, document.querySelector(`#sides .side-sum[data-seat=${s}]`).innerText]))]""")
    assert surfaced
    for sub, space in surfaced.items():
        owner = "p1" if sub in "abcde" else "p2"  # S-3.1
        assert f"{sub} {space}" in sides[owner], (sub, space, sides)
    assert "no sub seen" not in sides["p1"] + sides["p2"], sides
    words = page.inner_text("#board-text")
    assert "enemy" not in words  # a spectator has no enemy; both fleets are named by seat
    shot(page, "audit-submarine-spectator")
    assert page.errors == [], page.errors
    seat.context.close()
    page.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_audit_geeko_events_name_the_room_once(browser, live):
    m = live.create("geeko", ["remote", "builtin:random"], seed=3, clock=False)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    geeko_turn(page)
    page.wait_for_function("document.getElementById('events').textContent.includes('End of turn')", timeout=WAIT_MS)
    text = page.inner_text("#events")
    assert "room room" not in text, text
    assert "room 1" in text, text
    assert page.errors == [], page.errors
    page.context.close()


def test_audit_pages_refused_to_a_browser_say_why_as_a_page(live):
    running = live.create("factory", ["remote", "remote"], clock=False)
    html = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}  # what a browser sends
    r = httpx.get(f"{live.url}/replay/{running['match']}", headers=html)
    assert r.status_code == 403 and r.headers["content-type"].startswith("text/html")
    assert "still being played" in r.text and f'href="/watch/{running["match"]}"' in r.text
    assert "public once the match has ended" in r.text and "token" not in r.text  # no API advice on a page
    r = httpx.get(f"{live.url}/play/{running['match']}", params={"token": "not-a-seat"}, headers=html)
    assert r.status_code == 403 and "not valid" in r.text and "this token is not a seat of this match" in r.text
    for path in ("/watch/nosuchmatch", "/replay/nosuchmatch", "/play/nosuchmatch?token=x"):
        r = httpx.get(f"{live.url}{path}", headers=html)
        assert r.status_code == 404 and "No such match" in r.text and 'href="/"' in r.text, path
    # other clients keep the JSON error of before
    r = httpx.get(f"{live.url}/replay/{running['match']}")
    assert r.status_code == 403 and r.json()["error"] == "match_running"


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("game", ["arena", "submarine"])
def test_audit_ladder_page_fits_a_phone(browser, live, game):
    """The ladder table (eight columns) scrolls inside its card; the page does not scroll sideways."""
    page = open_page(browser, f"{live.url}/league/{game}", width=390, height=844)
    page.wait_for_selector("#ladder")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # every column is still there, reachable by scrolling the table's own box
    assert page.locator("#ladder thead th").count() >= 7
    shot(page, f"audit-ladder-{game}-390")
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_audit_a_double_click_on_submit_submits_once(browser, live):
    """A player's double click on Submit: the first click sends this decision point's orders; the
    built-in bot answers at once, the next point opens, and the second click (detail 2) must not
    send that point's untouched controls."""
    m = live.create("arena", ["remote", "builtin:defender"], seed=3, clock=False)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, ".robot")
    box = page.locator("#submit").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)  # the first click: decision point 1's orders
    wait_decision(page, 2)
    wait_my_move(page, ".robot")
    page.wait_for_selector("#submit:not([disabled])", timeout=WAIT_MS)
    box = page.locator("#submit").bounding_box()  # the button where it is now (the page may have moved)
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down(click_count=2)
    page.mouse.up(click_count=2)  # the second click of the double click
    page.wait_for_timeout(1500)  # a submission would have been answered, and point 3 opened
    assert page.evaluate("document.getElementById('page').dataset.decision") == "2"
    assert page.evaluate("document.getElementById('page').dataset.yourTurn") == "true"
    state = httpx.get(f"{live.url}/api/matches/{m['match']}").json()
    assert state["decision"] == 2, state
    # a plain click still submits
    page.click("#submit")
    wait_decision(page, 3)
    assert page.errors == [], page.errors
    page.context.close()
