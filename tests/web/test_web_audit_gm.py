"""Browser tests of issue 24's audit as a game master (a 4-player factory match with daily
turns and names, run from the GM page alone): the GM page names every seat as the players'
pages do (display name, colour word, seat), in the seat table, the adjudication seat choice
and the result choice; and a reason given for one action is not carried silently into the
next (the reason box empties once an action is done). Playwright drives the system Chromium
(the ``browser`` fixture of test_web_browser.py)."""

from __future__ import annotations

import json

import httpx
import pytest

from test_web_browser import WAIT_MS, browser, open_page, shot, wait_ready  # noqa: F401 - browser is a fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["Ana", "Bruno", "Chen", "Dora"]


def four_named(live) -> dict:
    r = httpx.post(f"{live.url}/api/matches", json={"game": "factory", "seats": ["remote"] * 4, "config": {},
                                                    "seed": 7, "clock": True, "names": NAMES})
    assert r.status_code == 201, r.text
    return {**r.json(), "url": live.url}


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
    gm.fill("#gm-reason", "Back")
    gm.click("#gm-resume")
    gm_done(gm, "Done. The game master resumed")
    gm.locator("tr[data-seat='p3'] button.gm-extend").click()
    said = gm_done(gm, "Done. The game master gave Chen (Green)")
    assert "Holiday" not in said
    notes = httpx.get(f"{live.url}/api/matches/{m['match']}/gm",
                      headers={"Authorization": f"Bearer {m['gm_token']}"}).json()["notes"]
    assert [n["reason"] for n in notes] == ["Holiday: back on Monday", "Back", ""]
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
    assert why == "The game master ended the match: Ana (Red) wins. Reason: Season over; Ana leads."  # not "Ana (Red (p1))"
    assert not bruno.errors


def test_the_whole_game_document_keeps_the_gm_rulings_names_and_colours(live):
    m = four_named(live)
    gm = {"Authorization": f"Bearer {m['gm_token']}"}
    base = f"{live.url}/api/matches/{m['match']}/gm"
    assert httpx.post(f"{base}/pause", json={"reason": "Holiday: back on Monday"}, headers=gm).status_code == 200
    assert httpx.post(f"{base}/resume", json={"reason": "Back"}, headers=gm).status_code == 200
    assert httpx.post(f"{base}/end", json={"winner": "p1", "reason": "Season over; <b>Ana</b> leads"},
                      headers=gm).status_code == 200
    html = httpx.get(f"{live.url}/matches/{m['match']}/document").text
    assert "Result: Ana (Red) won: ended by the game master (reason: Season over; &lt;b&gt;Ana&lt;/b&gt; leads)." in html
    assert "(adjudicated)" not in html
    assert '<li data-seat="p4">Dora (Yellow) <small class="muted">seat p4</small></li>' in html and "(Yellow (p4))" not in html
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


# ---- the last GM audit's list (issue 24): the seat's own controls for the GM, corrections in any
# browser, pause words on the seat page, no resign after the end, "Turn N", the GM link kept ----
def gm_api(m, action, **body):
    return httpx.post(f"{m['url']}/api/matches/{m['match']}/gm/{action}", json=body,
                      headers={"Authorization": f"Bearer {m['gm_token']}"})


def registers(frame) -> int:
    """Fill every free register of the factory controls (in a page or a frame) by clicking."""
    frame.locator(".registers").first.wait_for(timeout=WAIT_MS)
    k = frame.locator(".registers li").count()
    for _ in range(k):
        frame.locator(".cards .cardbtn").first.click()
    return k


def test_the_gm_sets_a_seats_orders_with_that_seats_own_controls_and_a_reason(browser, live):
    m = four_named(live)
    gm = open_page(browser, f"{live.url}/gm/{m['match']}?token={m['gm_token']}")
    gm.wait_for_selector("#gm-seats tr[data-seat='p2']", timeout=WAIT_MS)
    assert not gm.is_visible("#gm-adj-orders")  # JSON only in the closed disclosure
    gm.click("#gm-seats tr[data-seat='p2'] button.gm-set-orders")
    gm.wait_for_function("document.getElementById('gm-seat-frame').dataset.seat === 'p2'", timeout=WAIT_MS)
    frame = gm.frame_locator("#gm-seat-frame")
    frame.locator("#who").wait_for(timeout=WAIT_MS)
    gm.wait_for_function("document.getElementById('gm-seat-frame').contentDocument.getElementById('who')"
                         ".textContent.includes('Bruno (Blue)')", timeout=WAIT_MS)
    assert "game master" in frame.locator("#who").inner_text()
    assert frame.locator("#resign").count() == 0 and frame.locator("#set-name").count() == 0
    # orders the rules refuse (typed in the advanced box): a sentence, nothing set
    frame.locator("#gm-seat-reason").fill("sent by post")
    frame.locator("#advanced summary").click()
    frame.locator("#orders-json").fill("zzz")
    frame.locator("#submit").click()
    msg = frame.locator("#order-msg")
    gm.wait_for_function("document.getElementById('gm-seat-frame').contentDocument.getElementById('order-msg')"
                         ".textContent.startsWith('Refused:')", timeout=WAIT_MS)
    assert "{" not in msg.inner_text() and "p2" not in httpx.get(
        f"{live.url}/api/matches/{m['match']}").json()["submitted"]
    # the controls: click cards into the registers; a reason is required
    frame.locator("#advanced summary").click()
    k = registers(frame)
    assert k == 5
    frame.locator("#gm-seat-reason").fill("")
    frame.locator("#submit").click()
    assert "Give a reason" in msg.inner_text()
    frame.locator("#gm-seat-reason").fill("sent by post")
    frame.locator("#submit").click()
    gm.wait_for_function("document.getElementById('gm-seat-frame').contentDocument.getElementById('order-msg')"
                         ".textContent.startsWith('Done.')", timeout=WAIT_MS)
    assert "p2" in httpx.get(f"{live.url}/api/matches/{m['match']}").json()["submitted"]
    gm.wait_for_function("document.getElementById('gm-notes').textContent.includes('sent by post')", timeout=WAIT_MS)
    gm.wait_for_function("document.querySelector(\"#gm-seats tr[data-seat='p2'] .gm-turn\").textContent"
                         " === 'orders set by you'", timeout=WAIT_MS)
    shot(gm, "gm-seat-controls")
    assert not gm.errors


def test_change_orders_restores_the_submitted_plan_in_another_browser(browser, live):
    m = four_named(live)
    url = f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}"
    a = open_page(browser, url)
    wait_ready(a)
    k = registers(a)
    # the plan as submitted, read before Submit: once accepted, the page may already be
    # rebuilding its controls ("Your orders are in"), and reading them then raced that
    sent = [a.locator(".registers .cardbtn").nth(i).inner_text() for i in range(k)] if a.locator(
        ".registers .cardbtn").count() else None
    a.click("#submit")
    a.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Accepted')", timeout=WAIT_MS)
    given = httpx.get(f"{live.url}/api/matches/{m['match']}/view", params={"token": m["seats"][0]["token"]}).json()
    b = open_page(browser, url)  # another browser: its own storage, nothing of A's
    wait_ready(b)
    b.wait_for_selector("#change-orders", timeout=WAIT_MS)
    b.click("#change-orders")
    b.wait_for_selector(".registers .cardbtn", timeout=WAIT_MS)
    assert b.locator(".registers .cardbtn").count() == k
    assert json.loads(b.input_value("#orders-json")) == given["your_orders"]
    assert sent is None or [b.locator(".registers .cardbtn").nth(i).inner_text() for i in range(k)] == sent
    for p in (a, b):
        assert not p.errors
        p.context.close()


def test_a_paused_seat_page_says_so_and_offers_no_submit(browser, live):
    m = four_named(live)
    assert gm_api(m, "pause", reason="Holiday: back on Monday").status_code == 200
    ana = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    ana.wait_for_function("document.getElementById('state').textContent.startsWith('Paused')", timeout=WAIT_MS)
    assert ana.inner_text("#state").startswith("Paused by the game master: Holiday: back on Monday.")
    assert "Your move" not in ana.inner_text("#state")
    assert ana.is_disabled("#submit")
    assert gm_api(m, "resume", reason="back").status_code == 200
    ana.wait_for_function("document.getElementById('state').textContent.startsWith('Your move')", timeout=WAIT_MS)
    assert not ana.errors


def test_resign_and_ask_bot_are_gone_once_the_match_is_over(browser, live):
    m = four_named(live)
    ana = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(ana)
    assert ana.is_visible("#resign") and ana.is_visible("#suggest")
    assert gm_api(m, "end", winner="p2", reason="season over").status_code == 200
    ana.wait_for_function("document.getElementById('page').dataset.status === 'ended'", timeout=WAIT_MS)
    assert not ana.is_visible("#resign") and not ana.is_visible("#suggest") and not ana.is_visible("#submit")
    assert not ana.errors


def test_the_gm_page_says_turn_n_not_decision_point(browser, live):
    m = four_named(live)
    gm = open_page(browser, f"{live.url}/gm/{m['match']}?token={m['gm_token']}")
    gm.wait_for_function("document.getElementById('gm-state').textContent.startsWith('Turn 1')", timeout=WAIT_MS)
    assert "decision point" not in gm.inner_text("#gm-state")
    gm.click("#gm-pause")  # no reason: the page asks for one, nothing is sent
    assert "Give a reason" in gm.inner_text("#gm-msg")
    assert httpx.get(f"{live.url}/api/matches/{m['match']}").json()["paused"] is False
    gm.wait_for_selector("#gm-seat-frame", state="visible", timeout=WAIT_MS)  # the first seat's controls
    assert gm_api(m, "end", winner=None, reason="rained off").status_code == 200
    gm.wait_for_function("document.getElementById('gm').dataset.status === 'ended'", timeout=WAIT_MS)
    assert not gm.is_visible("#gm-seat-frame")  # no empty controls once the match is over
    assert not gm.errors


def test_the_lobby_keeps_the_gm_link_with_a_copy_button(browser, live):
    lobby = open_page(browser, live.url + "/")
    lobby.click("#create-btn")
    lobby.wait_for_selector("#gm-link", timeout=WAIT_MS)
    href = lobby.get_attribute("#gm-link", "href")
    assert lobby.input_value("#gm-link-copy") == live.url + href
    lobby.click("#gm-link-box .copy-btn")
    lobby.wait_for_function("document.querySelector('#gm-link-box .copy-btn').textContent !== 'Copy'", timeout=WAIT_MS)
    assert lobby.inner_text("#gm-link-box .copy-btn") == "Copied"
    lobby.reload()
    lobby.wait_for_selector("#my-matches li[data-gm=yes] a.gm-resume", timeout=WAIT_MS)
    assert lobby.get_attribute("#my-matches li[data-gm=yes] a.gm-resume", "href") == href
    assert not lobby.errors


# --- issue 24 audit, second round (audit-gm2): a GM running a 4-player daily match in Chromium ---

def gm_post(m: dict, action: str, body: dict) -> httpx.Response:
    return httpx.post(f"{m['url']}/api/matches/{m['match']}/gm/{action}", json=body,
                      headers={"Authorization": f"Bearer {m['gm_token']}"})


def test_gm_actions_name_each_seat_as_the_pages_do_not_by_engine_id(live):
    """The events every player reads ("What just happened"), the GM page's notes and the whole
    game's document named seats "seat p2" and the winner "p2" where every page says
    "Bruno (Blue)" (issue 24 item 2: a name beside its colour, the same everywhere)."""
    m = four_named(live)
    assert gm_post(m, "extend", {"seat": "p2", "seconds": 172800, "reason": "Bruno is travelling"}).status_code == 200
    r = gm_post(m, "replace", {"seat": "p4", "to": "builtin:random", "reason": "Dora dropped out"})
    assert r.status_code == 200, r.text
    assert r.json()["text"] == "The game master handed Dora (Yellow) to the built-in bot random. Reason: Dora dropped out."
    assert gm_post(m, "replace", {"seat": "p4", "to": "remote", "reason": "Dora is back"}).status_code == 200
    assert gm_post(m, "end", {"winner": "p2", "reason": "Bruno was ahead"}).status_code == 200
    seat = httpx.get(f"{live.url}/api/matches/{m['match']}/view", params={"token": m["seats"][0]["token"]}).json()
    texts = [n["text"] for n in seat["notes"]]
    assert texts == ["The game master gave Bruno (Blue) 2 days more for this turn. Reason: Bruno is travelling.",
                     "The game master handed Dora (Yellow) to the built-in bot random. Reason: Dora dropped out.",
                     "The game master gave Dora (Yellow) back to its player. Reason: Dora is back.",
                     "The game master ended the match: Bruno (Blue) wins. Reason: Bruno was ahead."]
    html = httpx.get(f"{live.url}/matches/{m['match']}/document").text
    assert "The game master ended the match: Bruno (Blue) wins." in html
    assert "seat p" not in html.split('id="gm-notes"')[1].split("</div>")[0]


def test_an_unnamed_seat_is_named_by_its_colour_in_the_gm_notes(live):
    m = {**live.create("factory", ["remote", "remote"], seed=3, clock=True), "url": live.url}
    r = gm_post(m, "extend", {"seat": "p2", "seconds": 3600})
    assert r.status_code == 200, r.text
    assert r.json()["text"] == "The game master gave Blue 1 hour more for this turn."


def test_the_gm_page_links_past_turns_and_the_whole_game_document(browser, live):
    """The GM page linked only "watch": after the end the GM could not reach the whole game as
    a document (HTML, PDF) from it, nor the past turns while it ran (issue 24 item 7)."""
    m = four_named(live)
    gm = open_page(browser, f"{live.url}/gm/{m['match']}?token={m['gm_token']}")
    gm.wait_for_selector("#gm-seats tr[data-seat='p4']", timeout=WAIT_MS)
    assert not gm.is_visible("#gm-document")  # no document before the end
    assert not gm.is_visible("#gm-turns")     # no turn played yet
    assert gm_post(m, "end", {"winner": "p3", "reason": "Season over"}).status_code == 200
    gm.reload()
    gm.wait_for_function("document.getElementById('gm-state').textContent.startsWith('The match has ended')",
                         timeout=WAIT_MS)
    assert gm.is_visible("#gm-doc-html") and gm.is_visible("#gm-doc-pdf") and gm.is_visible("#gm-replay")
    shot(gm, "gm-ended-document-links")
    doc = httpx.get(live.url + gm.get_attribute("#gm-doc-html", "href"))
    assert doc.status_code == 200 and "the whole game of match" in doc.text
    assert "Chen (Green) won" in doc.text
    assert gm.get_attribute("#gm-doc-pdf", "href") == f"/matches/{m['match']}/document.pdf"
    assert httpx.get(live.url + gm.get_attribute("#gm-turns", "href"), follow_redirects=False).status_code in (303, 404)
    assert not gm.errors


def wait_decision(live, m: dict, at_least: int) -> None:
    import time
    end = time.monotonic() + 60
    while time.monotonic() < end:
        v = httpx.get(f"{live.url}/api/matches/{m['match']}/gm", headers={"Authorization": f"Bearer {m['gm_token']}"}).json()
        if v["decision"] >= at_least:
            return
        time.sleep(0.3)
    raise AssertionError(f"decision point {at_least} was not reached in 60 s")


def test_a_past_turns_page_names_the_gm_rulings_of_that_turn(live):
    """A turn's published page showed the stage tables but not the GM's rulings that shaped it
    (a seat handed to a bot, an extension): the GM published them beside each turn."""
    m = four_named(live)
    assert gm_post(m, "extend", {"seat": "p1", "seconds": 3600, "reason": "Ana asked"}).status_code == 200
    for s in ("p1", "p2", "p3", "p4"):
        assert gm_post(m, "replace", {"seat": s, "to": "builtin:random", "reason": "holiday cover"}).status_code == 200
    wait_decision(live, m, 2)  # turn 1 played by the bots
    assert gm_post(m, "pause", {"reason": "Holiday in turn two"}).status_code == 200
    page1 = httpx.get(f"{live.url}/matches/{m['match']}/turns/1", params={"token": m["seats"][1]["token"]}).text
    assert "What the game master and the clock did in turn 1" in page1
    assert "The game master gave Ana (Red) 1 hour more for this turn. Reason: Ana asked." in page1
    assert "The game master handed Chen (Green) to the built-in bot random. Reason: holiday cover." in page1
    assert "Holiday in turn two" not in page1  # the pause belongs to turn 2


def test_a_players_correction_after_the_gm_set_orders_is_not_recorded_as_the_gms(live):
    """The GM set Chen's orders; Chen's page then offered "Change orders" (the rules allow a
    second order until the turn resolves). A correction the player gave was still marked as
    the GM's ruling: the GM page said "orders set by you" and the record line put it under
    ``adjudicated`` with the GM's reason, though the orders played were the player's."""
    m = {**live.create("factory", ["remote", "remote"], seed=5, clock=True), "url": live.url}
    gm = {"Authorization": f"Bearer {m['gm_token']}"}

    def program(k: int) -> dict:  # five cards of seat k's hand (F-15.1)
        hand = httpx.get(f"{live.url}/api/matches/{m['match']}/view", params={"token": m["seats"][k]["token"]}).json()["view"]["hand"]
        return {"type": "program", "cards": hand[:5], "reboot": False}
    r = gm_post(m, "adjudicate", {"seat": "p1", "orders": program(0), "reason": "sent by post"})
    assert r.status_code == 200, r.text
    seats = {s["seat"]: s for s in httpx.get(f"{live.url}/api/matches/{m['match']}/gm", headers=gm).json()["seats"]}
    assert seats["p1"]["adjudicated"] == "sent by post"  # the GM's orders, marked so
    own = {"Authorization": f"Bearer {m['seats'][0]['token']}"}
    r = httpx.post(f"{live.url}/api/matches/{m['match']}/orders", headers=own, json={"decision": 1, "orders": {**program(0), "cards": program(0)["cards"][::-1]}})
    assert r.status_code == 200 and r.json()["replaced"] is True, r.text
    seats = {s["seat"]: s for s in httpx.get(f"{live.url}/api/matches/{m['match']}/gm", headers=gm).json()["seats"]}
    assert seats["p1"]["adjudicated"] is None and seats["p1"]["submitted"]
    two = {"Authorization": f"Bearer {m['seats'][1]['token']}"}
    assert httpx.post(f"{live.url}/api/matches/{m['match']}/orders", headers=two,
                      json={"decision": 1, "orders": program(1)}).status_code == 200
    wait_decision(live, m, 2)
    assert gm_post(m, "abort", {"reason": "test over"}).status_code == 200
    lines = [json.loads(x) for x in httpx.get(f"{live.url}/api/matches/{m['match']}/record").text.splitlines()]
    first = [x for x in lines if x.get("type") == "decision" and x["n"] == 1][0]
    assert "adjudicated" not in first


def test_a_seat_page_says_when_the_gm_set_its_orders_or_a_bot_plays_it(browser, live):
    """Chen's page said "Orders accepted; your orders are in" though Chen gave none (the GM set
    them), and Dora's, handed to a bot, said "Orders accepted; waiting for ..." at the top with
    the hand-over only at the bottom of the page."""
    m = four_named(live)
    hand = httpx.get(f"{live.url}/api/matches/{m['match']}/view", params={"token": m["seats"][2]["token"]}).json()["view"]["hand"]
    r = gm_post(m, "adjudicate", {"seat": "p3", "orders": {"type": "program", "cards": hand[:5], "reboot": False},
                                  "reason": "Chen sent these by e-mail"})
    assert r.status_code == 200, r.text
    assert gm_post(m, "replace", {"seat": "p4", "to": "builtin:random", "reason": "Dora dropped out"}).status_code == 200
    own = httpx.get(f"{live.url}/api/matches/{m['match']}/view", params={"token": m["seats"][2]["token"]}).json()
    assert own["your_orders_by_gm"] == "Chen sent these by e-mail"
    other = httpx.get(f"{live.url}/api/matches/{m['match']}/view", params={"token": m["seats"][0]["token"]}).json()
    assert other["your_orders_by_gm"] is None  # never another seat's
    chen = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][2]['token']}")
    chen.wait_for_function("document.getElementById('state').textContent.startsWith('The game master set your orders')",
                           timeout=WAIT_MS)
    assert chen.inner_text("#state") == ("The game master set your orders for this turn (reason: Chen sent these by "
                                         "e-mail); waiting for Ana (Red), Bruno (Blue).")
    assert "The game master set your orders for this turn." in chen.inner_text("#entry")
    chen.wait_for_selector("#change-orders", timeout=WAIT_MS)  # the player may still correct them
    dora = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][3]['token']}")
    dora.wait_for_function("document.getElementById('state').textContent.includes('built-in bot random')", timeout=WAIT_MS)
    assert dora.inner_text("#state").startswith("The game master has handed your seat to the built-in bot random")
    assert not chen.errors and not dora.errors
