"""Browser tests of issue 24's audit as a game master (a 4-player factory match with daily
turns and names, run from the GM page alone): the GM page names every seat as the players'
pages do (display name, colour word, seat), in the seat table, the adjudication seat choice
and the result choice; and a reason given for one action is not carried silently into the
next (the reason box empties once an action is done). Playwright drives the system Chromium
(the ``browser`` fixture of test_web_browser.py)."""

from __future__ import annotations

import httpx
import pytest

from test_web_browser import WAIT_MS, browser, open_page  # noqa: F401 - browser is a fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["Ana", "Bruno", "Chen", "Dora"]


def four_named(live) -> dict:
    r = httpx.post(f"{live.url}/api/matches", json={"game": "factory", "seats": ["remote"] * 4, "config": {},
                                                    "seed": 7, "clock": True, "names": NAMES})
    assert r.status_code == 201, r.text
    return r.json()


def gm_done(page, start: str) -> str:
    page.wait_for_function(f"document.getElementById('gm-msg').textContent.startsWith({start!r})", timeout=WAIT_MS)
    return page.inner_text("#gm-msg")


def test_gm_page_names_each_seat_with_name_and_colour(browser, live):
    m = four_named(live)
    gm = open_page(browser, f"{live.url}/gm/{m['match']}?token={m['gm_token']}")
    gm.wait_for_selector("#gm-seats tr[data-seat='p4']", timeout=WAIT_MS)
    heads = [gm.inner_text(f"#gm-seats tr[data-seat='p{i}'] th") for i in range(1, 5)]
    # the palette's words in seat order (render/palette.py): red, blue, green, yellow
    assert heads == ["Ana (Red, p1)", "Bruno (Blue, p2)", "Chen (Green, p3)", "Dora (Yellow, p4)"]
    adj = gm.locator("#gm-adj-seat option").all_inner_texts()
    assert adj == heads
    win = gm.locator("#gm-winner option").all_inner_texts()
    assert win == ["a draw"] + [f"{h} wins" for h in heads]
    assert not gm.errors


def test_gm_reason_is_not_carried_into_the_next_action(browser, live):
    m = four_named(live)
    gm = open_page(browser, f"{live.url}/gm/{m['match']}?token={m['gm_token']}")
    gm.wait_for_selector("#gm-seats tr[data-seat='p3']", timeout=WAIT_MS)
    gm.fill("#gm-reason", "Holiday: back on Monday")
    gm.click("#gm-pause")
    assert "Reason: Holiday: back on Monday" in gm_done(gm, "Done. The game master paused")
    assert gm.input_value("#gm-reason") == ""
    gm.click("#gm-resume")
    gm_done(gm, "Done. The game master resumed")
    gm.locator("tr[data-seat='p3'] button.gm-extend").click()
    said = gm_done(gm, "Done. The game master gave seat p3")
    assert "Holiday" not in said
    notes = httpx.get(f"{live.url}/api/matches/{m['match']}/gm",
                      headers={"Authorization": f"Bearer {m['gm_token']}"}).json()["notes"]
    assert [n["reason"] for n in notes] == ["Holiday: back on Monday", "", ""]
    assert not gm.errors


def test_a_match_the_gm_ended_says_so_with_the_reason_not_a_game_score(browser, live):
    m = four_named(live)
    r = httpx.post(f"{live.url}/api/matches/{m['match']}/gm/end", json={"winner": "p1", "reason": "Season over; Ana leads"},
                   headers={"Authorization": f"Bearer {m['gm_token']}"})
    assert r.status_code == 200, r.text
    bruno = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][1]['token']}")
    bruno.wait_for_selector("#result-why", timeout=WAIT_MS)
    assert bruno.inner_text("#result-head") == "You lost"
    why = bruno.inner_text("#result-why")
    # nobody touched a flag: the GM's 1/0 result is no "Flags touched: Red 1" (F-8 scores)
    assert why == "The game master ended the match: Ana (Red (p1)) wins. Reason: Season over; Ana leads."
    assert not bruno.errors


def test_the_whole_game_document_keeps_the_gm_rulings_names_and_colours(live):
    m = four_named(live)
    gm = {"Authorization": f"Bearer {m['gm_token']}"}
    base = f"{live.url}/api/matches/{m['match']}/gm"
    assert httpx.post(f"{base}/pause", json={"reason": "Holiday: back on Monday"}, headers=gm).status_code == 200
    assert httpx.post(f"{base}/resume", json={"reason": ""}, headers=gm).status_code == 200
    assert httpx.post(f"{base}/end", json={"winner": "p1", "reason": "Season over; <b>Ana</b> leads"},
                      headers=gm).status_code == 200
    html = httpx.get(f"{live.url}/matches/{m['match']}/document").text
    assert "Result: Ana (p1) won: ended by the game master (reason: Season over; &lt;b&gt;Ana&lt;/b&gt; leads)." in html
    assert "(adjudicated)" not in html
    assert '<li data-seat="p4">Dora (Yellow (p4))</li>' in html
    assert '<h2>What the game master and the clock did</h2>' in html
    assert "The game master paused the match: every clock stands still. Reason: Holiday: back on Monday" in html
    assert "<b>Ana</b>" not in html  # the reason is escaped


def test_the_events_do_not_say_nothing_happened_under_the_gm_pause(browser, live):
    m = four_named(live)
    r = httpx.post(f"{live.url}/api/matches/{m['match']}/gm/pause", json={"reason": "Holiday: back on Monday"},
                   headers={"Authorization": f"Bearer {m['gm_token']}"})
    assert r.status_code == 200, r.text
    ana = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    ana.wait_for_function("document.body.innerText.includes('Reason: Holiday: back on Monday')", timeout=WAIT_MS)
    ana.wait_for_selector("#events p.hint", timeout=WAIT_MS)
    assert ana.inner_text("#events p.hint") == "No turn has been played yet."
    assert "Nothing has happened yet." not in ana.inner_text("body")
    assert not ana.errors
