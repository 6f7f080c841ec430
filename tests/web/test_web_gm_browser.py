"""Browser tests of the game master's seat (issue 24 items 1 and 3; issue 23 item 6's "one seat,
one decision"): the GM runs a factory match from the GM page alone (pause, resume, extend,
hand a seat to a built-in bot and back, set a seat's orders with a reason, end with a result),
the players read each action in words on their seat pages, a player corrects submitted orders
with "Change orders", and a second tab on the same seat is told the turn was already played.
Playwright drives the system Chromium (the ``browser`` fixture of test_web_browser.py)."""

from __future__ import annotations

import json

import httpx
import pytest

from test_web_browser import WAIT_MS, browser, open_page, shot, wait_ready  # noqa: F401 - browser is a fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def gm_msg(page, start: str) -> str:
    page.wait_for_function(f"document.getElementById('gm-msg').textContent.startsWith({start!r})", timeout=WAIT_MS)
    return page.inner_text("#gm-msg")


def seat_says(page, text: str) -> None:
    page.wait_for_function(f"document.getElementById('gm-notes').textContent.includes({text!r})", timeout=WAIT_MS)


def fill_registers(page) -> int:
    page.wait_for_selector(".registers", timeout=WAIT_MS)
    k = page.locator(".registers li").count()
    for _ in range(k):
        page.locator(".cards .cardbtn").first.click()
    assert page.locator(".registers .cardbtn").count() == k
    return k


def test_issue24_a_gm_runs_a_factory_match_from_the_browser(browser, live):
    m = live.create("factory", ["remote", "remote"], seed=4, clock=True)  # 5-day turns (F-5)
    mid, t1, t2 = m["match"], m["seats"][0]["token"], m["seats"][1]["token"]
    gm = open_page(browser, f"{live.url}/gm/{mid}?token={m['gm_token']}")
    gm.wait_for_selector("#gm-seats tr[data-seat=p2]", timeout=WAIT_MS)
    p1 = open_page(browser, f"{live.url}/play/{mid}?token={t1}")
    wait_ready(p1)

    # pause for a holiday: every clock stands; the player reads it in words
    gm.fill("#gm-reason", "holiday week")
    gm.click("#gm-pause")
    assert "paused" in gm_msg(gm, "Done.")
    gm.wait_for_function("document.getElementById('gm').dataset.paused === 'true'", timeout=WAIT_MS)
    seat_says(p1, "The game master has paused the match")
    seat_says(p1, "holiday week")
    gm.fill("#gm-reason", "back from holiday")
    gm.click("#gm-resume")
    assert "resumed" in gm_msg(gm, "Done. The game master resumed")

    # extend p2's deadline by a day
    gm.fill("#gm-reason", "travelling")
    gm.fill("#gm-seats tr[data-seat=p2] input[type=number]", "24")
    gm.click("#gm-seats tr[data-seat=p2] button.gm-extend")
    assert "1 day more" in gm_msg(gm, "Done.")
    seat_says(p1, "gave Blue 1 day more")

    # p1 plays by clicking, then corrects its orders with "Change orders" (F-5.5: replaced until
    # the turn resolves); the API's replaced: true is told in words
    n = int(p1.get_attribute("#page", "data-decision"))
    k = fill_registers(p1)
    p1.click("#submit")
    p1.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Accepted')", timeout=WAIT_MS)
    first = p1.input_value("#orders-json")
    p1.wait_for_selector("#change-orders", timeout=WAIT_MS)
    p1.click("#change-orders")
    p1.wait_for_selector(".registers .cardbtn", timeout=WAIT_MS)
    assert p1.locator(".registers .cardbtn").count() == k  # the submitted plan is back
    assert p1.input_value("#orders-json") == first
    assert not p1.is_disabled("#submit")
    p1.locator(".registers .cardbtn").first.click()  # take the first card back out ...
    p1.locator(".cards .cardbtn").last.click()  # ... and put another in
    p1.click("#submit")
    p1.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Your new orders replace')",
                         timeout=WAIT_MS)
    assert p1.input_value("#orders-json") != first
    shot(p1, "gm-change-orders")

    # the GM sets p2's orders with a reason (what a built-in bot would play: valid orders)
    sug = httpx.get(f"{live.url}/web/matches/{mid}/suggest", params={"token": t2, "bot": "random"}).json()
    gm.fill("#gm-reason", "sent by post")
    gm.select_option("#gm-adj-seat", "p2")
    gm.click("#gm-adj-json summary")  # the JSON box is an advanced disclosure (the seat's controls are above)
    gm.fill("#gm-adj-orders", json.dumps(sug["orders"]))
    gm.click("#gm-adjudicate")
    assert "set the orders of Blue" in gm_msg(gm, "Done.")
    p1.wait_for_function(f"Number(document.getElementById('page').dataset.decision) > {n}", timeout=WAIT_MS)
    seat_says(p1, "set the orders of Blue for this turn. Reason: sent by post.")

    # hand p2 to a built-in bot (it plays p2's next turn), and back
    gm.fill("#gm-reason", "away this week")
    gm.select_option("#gm-seats tr[data-seat=p2] select", "random")
    gm.click("#gm-seats tr[data-seat=p2] button.gm-to-bot")
    assert "built-in bot random" in gm_msg(gm, "Done.")
    gm.wait_for_selector("#gm-seats tr[data-seat=p2] button.gm-back", timeout=WAIT_MS)
    assert "built-in bot random" in gm.inner_text("#gm-seats tr[data-seat=p2]")
    seat_says(p1, "handed Blue to the built-in bot random")
    gm.click("#gm-seats tr[data-seat=p2] button.gm-back")
    assert "back to its player" in gm_msg(gm, "Done.")
    assert httpx.get(f"{live.url}/api/matches/{mid}").json()["seats"][1]["agent"] == "remote"

    # orders the rules refuse: the GM reads the refusal in words; nothing changes
    gm.fill("#gm-reason", "typo")
    gm.fill("#gm-adj-orders", '{"registers": "nonsense"}')
    gm.click("#gm-adjudicate")
    assert "refuse" in gm_msg(gm, "Refused:")

    # end the match with a result
    gm.fill("#gm-reason", "p2 conceded by e-mail")
    gm.select_option("#gm-winner", "p1")
    gm.click("#gm-end")
    assert "Red wins" in gm_msg(gm, "Done.")
    gm.wait_for_function("document.getElementById('gm').dataset.status === 'ended'", timeout=WAIT_MS)
    p1.wait_for_function("document.getElementById('page').dataset.status === 'ended'", timeout=WAIT_MS)
    seat_says(p1, "The game master ended the match: Red wins.")
    assert gm.is_disabled("#gm-pause") and gm.is_disabled("#gm-end")
    shot(gm, "gm-page-ended")
    rec = httpx.get(f"{live.url}/api/matches/{mid}/record").text
    assert '"type":"gm"' in rec and '"action":"end"' in rec
    for p in (gm, p1):
        assert p.errors == [], p.errors
        p.context.close()


def test_issue24_the_gm_link_is_shown_once_in_the_lobby_and_a_seat_token_is_refused(browser, live):
    lobby = open_page(browser, live.url + "/")
    lobby.click("#create-btn")
    lobby.wait_for_selector("#gm-link", timeout=WAIT_MS)
    href = lobby.get_attribute("#gm-link", "href")
    assert href.startswith("/gm/") and "token=" in href
    gm = open_page(browser, live.url + href)
    gm.wait_for_selector("#gm-seats tr", timeout=WAIT_MS)
    seat = lobby.get_attribute("a.seat-link", "href")  # /play/MID?token=SEAT
    bad = open_page(browser, live.url + "/gm/" + seat.split("/play/")[1])
    assert "not valid" in bad.inner_text("main")
    for p in (lobby, gm, bad):
        p.context.close()


def test_issue23_a_second_tab_on_one_seat_is_told_the_turn_was_already_played(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], {"max_turns": "5"}, seed=8)
    url = f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}"
    a, b = open_page(browser, url), open_page(browser, url)
    for p in (a, b):
        wait_ready(p)
        p.wait_for_selector(".robot", timeout=WAIT_MS)
    a.click("#submit")  # tab A gives turn 1's orders; the bot answers at once: turn 2 opens
    a.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Accepted')", timeout=WAIT_MS)
    b.wait_for_function("document.getElementById('page').dataset.decision === '2'", timeout=WAIT_MS)
    b.wait_for_function("document.getElementById('order-msg').textContent.includes('already played')", timeout=WAIT_MS)
    assert "here is what happened" in b.inner_text("#order-msg")
    assert "Turn 1" in b.inner_text("#events")  # what happened on the turn tab B had shown
    # nothing was sent for turn 2 from either tab
    v = httpx.get(f"{live.url}/api/matches/{m['match']}/view", params={"token": m["seats"][0]["token"]}).json()
    assert v["decision"] == 2 and v["your_turn"] and "p1" not in v["submitted"]
    for p in (a, b):
        assert p.errors == [], p.errors
        p.context.close()
