"""Issue 23 (play for people), items 4, 5 and part of 6, in Chromium against a real server:

- dadoed setup is guided (D-3.4): one bot at a time, a blue command first, then any other, each
  command's effect in words and on a small board, the pool's copies shown; Submit stays disabled,
  with the missing pick as a sentence, until all four picks are in; a second click keeps a pick
  (a double click once undid it: "a pick did not register"); a command already used says why;
- the server's setup refusals are sentences ("Pick a second command for bot B"), never JSON;
- submarine shows both scores as far as S-7.2 lets a seat know them, how points are earned, the
  AP of the turn and each special in words beside its control;
- "watch the turn": after a turn the page plays it as pictures over the board, with pause, step
  and live-board controls; under prefers-reduced-motion nothing plays by itself; the pictures
  (``watch.json``) never show a seat or a spectator a submerged enemy sub (S-8);
- the replay viewer's step bar stays in view after ten Next clicks; on a 390x844 phone the order
  controls sit right under the board; touch screens get touch help, not keyboard help.

Helpers and the browser fixture are those of ``tests/web/test_web_browser.py``.
"""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest

from tests.web.test_web_browser import (BOT, WAIT_MS, arena_turn, browser, click_square, open_page, shot,  # noqa: F401
                                        submarine_setup, submit_ok, view_of, wait_decision, wait_my_move,
                                        wait_ready)

BLUE_COMMANDS = {"step", "stride", "dash", "charge", "north_3", "south_3", "east_3", "west_3"}  # D-4.2
browser_test = [pytest.mark.browser, pytest.mark.slow]


def _no_json(text: str) -> None:
    assert "{" not in text and "undefined" not in text, text


# ---- item 5: dadoed guided setup -------------------------------------------------------------------
@pytest.mark.browser
@pytest.mark.slow
def test_D_3_4_dadoed_setup_is_guided_and_submit_waits_for_every_pick(browser, live):
    m = live.create("dadoed", ["remote", BOT["dadoed"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, "[data-part]")
    assert page.is_disabled("#submit")
    assert page.inner_text("#submit-why") == "Pick a first command for bot A."
    # step 1 of bot A offers the blue (walking) commands only (D-3.4a), and no second part yet
    first = {b.get_attribute("data-id") for b in page.locator('[data-bot="A"][data-part="0"]').all()}
    assert first == BLUE_COMMANDS
    assert page.locator('[data-bot="A"][data-part="1"]').count() == 0
    # a command's effect in words and on a small board; the pool's copies (D-4.2) shown
    page.hover('[data-bot="A"][data-part="0"][data-id="dash"]')
    assert "walks 3 tiles" in page.inner_text("#setup-effect")
    assert page.locator("#setup-detail svg.mini-board").count() == 1
    pool = page.inner_text("#setup-pool")
    assert "Dash 2" in pool and "Charge 1" in pool and "Drop Bot ∞" in pool
    assert "pool 1" in page.inner_text('[data-bot="A"][data-part="0"][data-id="charge"]')
    shot(page, "play-ui-dadoed-setup")

    page.click('[data-bot="A"][data-part="0"][data-id="dash"]')
    assert page.inner_text("#submit-why") == "Pick a second command for bot A."
    second = {b.get_attribute("data-id") for b in page.locator('[data-bot="A"][data-part="1"]').all()}
    assert {"root", "drop_bot", "spread_fire"} <= second  # any command (D-3.4b)
    # a double click on a pick keeps it (it used to take it back: the pick "did not register")
    page.dblclick('[data-bot="A"][data-part="1"][data-id="root"]')
    # bot A is complete: the guide moved on to bot B
    page.wait_for_selector('[data-bot="B"][data-part="0"]', timeout=WAIT_MS)
    assert page.inner_text('[data-step-bot="A"]').startswith("✓")
    assert "Dash then Root" in page.inner_text('[data-step-bot="A"]')
    assert page.inner_text("#submit-why") == "Pick a first command for bot B."
    # a command bot A already holds: a sentence says why, and nothing is picked (D-3.4c)
    page.click('[data-bot="B"][data-part="0"][data-id="dash"]')
    said = page.inner_text("#entry .near-msg")
    assert "Dash is already bot A's first command" in said
    _no_json(said)
    assert page.get_attribute('[data-bot="B"][data-part="0"][data-id="dash"]', "aria-pressed") == "false"
    assert page.is_disabled("#submit")

    page.click('[data-bot="B"][data-part="0"][data-id="stride"]')
    assert page.inner_text("#submit-why") == "Pick a second command for bot B."
    page.click('[data-bot="B"][data-part="1"][data-id="ignite"]')
    assert not page.is_disabled("#submit") and page.inner_text("#submit-why") == ""
    assert json.loads(page.input_value("#orders-json"))["supers"] == {"A": ["dash", "root"], "B": ["stride", "ignite"]}
    wait_decision(page, submit_ok(page) + 1)
    assert page.errors == [], page.errors
    page.context.close()


def test_D_3_4_dadoed_setup_refusals_are_sentences_naming_the_missing_pick(live):
    m = live.create("dadoed", ["remote", "remote"], seed=3)
    tok = m["seats"][0]["token"]

    def refusal(orders) -> str:
        r = httpx.post(f"{live.url}/api/matches/{m['match']}/orders", params={"token": tok},
                       json={"decision": 1, "orders": orders})
        assert r.status_code >= 400, r.text
        return r.json()["message"]

    msg = refusal({"type": "setup", "supers": {"A": ["dash", "root"], "B": ["stride", None]}})
    assert msg.startswith("Pick a second command for bot B")
    msg = refusal({"type": "setup", "supers": {"A": [None, "root"], "B": ["stride", "ignite"]}})
    assert msg.startswith("Pick a first command for bot A")
    msg = refusal({"type": "setup", "supers": {"A": ["dash", "root"]}})
    assert msg.startswith("Pick a super for bot B")
    for bad in ("", {"type": "command"}):
        msg = refusal(bad)
        _no_json(msg)
        assert "super for each of your bots" in msg


# ---- item 5: submarine facts -----------------------------------------------------------------------
@pytest.mark.browser
@pytest.mark.slow
def test_S_7_1_S_7_2_submarine_shows_both_scores_points_ap_and_specials_in_words(browser, live):
    m = live.create("submarine", ["remote", BOT["submarine"]], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, "[data-setup-sub]")
    page.hover('[data-special="depth_charge"]')  # setup: a special in words beside its button
    assert "Depth Charge (active, 3 AP)" in page.inner_text("#s-special-words")
    submarine_setup(page)
    wait_my_move(page, "#s-add")
    sides = page.inner_text("#sides")
    view = view_of(page)
    # both scores: the seat's own exactly, the other's as far as S-7.2 lets it know (25 announced or not)
    assert f"Red (you): {view['score']} points of the 50 needed to win." in sides
    other = "25 points or more" if view["announced_25"]["p2"] else "under 25 points"
    assert f"Blue: {other} (the exact score is secret until the end)." in sides
    assert "each of your subs on a gold space scores its number" in sides and "doubled if the sub is surfaced" in sides
    assert f"Action points this turn: {view['ap']}" in sides
    # the chosen sub's special in words next to the action buttons
    page.click('[data-sub="a"]')
    assert re.search(r"Sub a's special — Torpedo \(active, 2 AP\): the first sub within 3 spaces", page.inner_text("#s-special"))
    assert page.inner_text("#ap-counter").startswith("AP left:")
    _no_json(sides)
    shot(page, "play-ui-submarine-facts")
    assert page.errors == [], page.errors
    page.context.close()


# ---- item 4: watch the turn ------------------------------------------------------------------------
def _watch_state(page) -> tuple[str, str, str]:
    w = page.locator("#watch")
    return w.get_attribute("data-frame"), w.get_attribute("data-playing"), w.get_attribute("data-count")


@pytest.mark.browser
@pytest.mark.slow
def test_issue23_the_turn_plays_over_the_board_with_pause_step_and_live(browser, live):
    m = live.create("arena", ["remote", "builtin:defender"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    assert page.locator("#watch").is_hidden()  # nothing resolved yet: nothing to watch
    arena_turn(page)
    page.wait_for_selector("#watch:not([hidden])", timeout=WAIT_MS)
    frame, playing, count = _watch_state(page)
    assert playing == "true" and int(count) >= 2  # it plays by itself after the turn
    assert page.locator("#watch-pic").is_visible() and page.locator("#watch-pic svg").count() == 1
    page.click('[data-watch="play"]')  # pause
    frame, playing, _ = _watch_state(page)
    assert playing == "false"
    page.click('[data-watch="replay"]')
    page.click('[data-watch="play"]')  # pause at the first picture: the board before the turn
    assert _watch_state(page)[0] == "0"
    assert page.inner_text(".watch-caption").startswith("Before:")
    captions = []
    for j in range(1, int(count)):
        page.click('[data-watch="next"]')
        assert _watch_state(page)[0] == str(j)
        captions.append(page.inner_text(".watch-caption"))
        _no_json(captions[-1])
    assert any("moved" in c or "ordered" in c for c in captions), captions
    shot(page, "play-ui-watch-arena")
    page.click('[data-watch="next"]')  # past the last picture: the live board
    assert _watch_state(page)[0] == "live" and page.locator("#watch-pic").is_hidden()
    page.click('[data-watch="prev"]')  # from the live board back to the last picture
    assert _watch_state(page)[0] == str(int(count) - 1)
    page.click('[data-watch="live"]')
    assert _watch_state(page)[0] == "live"
    # a click on the board while it plays goes back to the live board, and counts there
    page.click('[data-watch="replay"]')
    assert _watch_state(page)[1] == "true"
    robot = next(r for r in view_of(page)["robots"] if r["side"] == "F")
    page.evaluate("window.scrollTo(0, 0)")  # the board back on screen (the bar's buttons scrolled it)
    click_square(page, f"{robot['x']}:{robot['y']}")
    assert _watch_state(page)[:2] == ("live", "false")
    assert page.locator("#board svg g.planned .mark.sel").count() == 1  # the robot was chosen
    assert page.errors == [], page.errors
    page.context.close()
    # a spectator's page opened after the turn offers it without playing it by itself
    spec = open_page(browser, f"{live.url}/watch/{m['match']}")
    spec.wait_for_selector("#watch:not([hidden])", timeout=WAIT_MS)
    assert _watch_state(spec)[:2] == ("live", "false")
    spec.click('[data-watch="next"]')
    assert _watch_state(spec)[0] == "0" and spec.locator("#watch-pic svg").count() == 1
    assert spec.errors == [], spec.errors
    spec.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_issue23_reduced_motion_shows_the_final_board_and_steps_only(browser, live):
    m = live.create("arena", ["remote", "builtin:defender"], seed=3)
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    arena_turn(page)
    page.wait_for_selector("#watch:not([hidden])", timeout=WAIT_MS)
    page.wait_for_timeout(1500)  # an animation would have moved on by now
    frame, playing, count = _watch_state(page)
    assert (frame, playing) == ("live", "false") and int(count) >= 2
    assert page.locator("#watch-pic").is_hidden() and page.locator("#board").is_visible()
    assert page.locator('[data-watch="play"]').is_hidden()  # no play button: nothing moves by itself
    page.click('[data-watch="next"]')
    assert _watch_state(page)[:2] == ("0", "false")
    page.wait_for_timeout(1500)
    assert _watch_state(page)[:2] == ("0", "false")  # still: stepping only
    assert errors == [], errors
    ctx.close()


def _sub_letters(svg: str) -> set[str]:
    return set(re.findall(r'data-sub="([a-z])"', svg))


def test_S_8_watch_pictures_never_show_a_submerged_enemy_sub(live):
    """The pictures of a turn in which p1's sub dives: p1 sees it in every picture; p2 and a
    spectator see it only in the picture of the board before the turn (it was surfaced then)."""
    m = live.create("submarine", ["remote", "remote"], seed=5)
    mid, tok = m["match"], {s["seat"]: s["token"] for s in m["seats"]}
    api = f"{live.url}/api/matches/{mid}"

    def send(seat, orders):
        n = httpx.get(api).json()["decision"]
        r = httpx.post(f"{api}/orders", params={"token": tok[seat]}, json={"decision": n, "orders": orders})
        assert r.status_code == 200, r.text

    for seat in ("p1", "p2"):  # setup (S-3.3): a built-in bot's suggestion
        send(seat, httpx.get(f"{live.url}/web/matches/{mid}/suggest", params={"token": tok[seat], "bot": "random"}).json()["orders"])
    first = httpx.get(f"{api}/view", params={"token": tok["p1"]}).json()["view"]["first_player"]
    if first == "p2":
        send("p2", {"type": "orders", "actions": []})
    n = httpx.get(api).json()["decision"]
    send("p1", {"type": "orders", "actions": [{"sub": "a", "action": "submerge"}]})

    def frames(who):
        r = httpx.get(f"{live.url}/web/matches/{mid}/turn/{n}/watch.json", params={"token": tok[who]} if who else {})
        assert r.status_code == 200, r.text
        return r.json()["frames"]

    own = frames("p1")
    assert own[0]["label"] == "before" and len(own) >= 2
    assert all("a" in _sub_letters(f["svg"]) for f in own)  # the owner sees its sub throughout
    for who in ("p2", None):
        fs = frames(who)
        assert "a" in _sub_letters(fs[0]["svg"])  # surfaced before the turn: public then
        for f in fs[1:]:
            assert "a" not in _sub_letters(f["svg"]), (who, f["label"])
    r = httpx.get(f"{live.url}/web/matches/{mid}/turn/{n + 5}/watch.json")
    assert r.status_code == 404  # not resolved yet


# ---- item 6: the replay bar, a phone, touch --------------------------------------------------------
@pytest.mark.browser
@pytest.mark.slow
def test_issue23_replay_step_bar_stays_in_view_after_ten_next_clicks(browser, live):
    m = live.create("arena", ["builtin:hunter", "builtin:swarm"], {"max_turns": "30"}, seed=5)
    end = time.monotonic() + 120
    while httpx.get(f"{live.url}/api/matches/{m['match']}").json()["status"] != "ended":
        if time.monotonic() > end:
            pytest.fail("the bot match did not end")
        time.sleep(0.05)
    page = open_page(browser, f"{live.url}/replay/{m['match']}", width=1280, height=800)
    page.wait_for_selector("#board svg", timeout=WAIT_MS)
    for i in range(1, 11):
        page.click("#next")
        page.wait_for_function(f"document.getElementById('replay').dataset.k === '{i}'", timeout=WAIT_MS)
        page.wait_for_timeout(100)
        top, bottom = page.evaluate("(() => { const r = document.getElementById('next').getBoundingClientRect(); return [r.top, r.bottom]; })()")
        assert 0 <= top and bottom <= 800, f"after Next #{i} the step bar is off screen: {top}..{bottom}"
    page.mouse.wheel(0, 900)  # scrolled down, the bar stays at the top of the screen (sticky)
    page.wait_for_timeout(200)
    if page.evaluate("scrollY") > 0:
        assert page.evaluate("document.getElementById('next').getBoundingClientRect().top") >= 0
    assert page.locator("#keys-help").is_visible() and page.locator("#touch-help").is_hidden()
    assert page.errors == [], page.errors
    page.context.close()
    touch = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    tp = touch.new_page()
    tp.goto(f"{live.url}/replay/{m['match']}")
    tp.wait_for_selector("#board svg", timeout=WAIT_MS)
    assert tp.locator("#touch-help").is_visible() and tp.locator("#keys-help").is_hidden()
    touch.close()


@pytest.mark.browser
@pytest.mark.slow
def test_issue23_on_a_phone_the_controls_sit_under_the_board_with_touch_help(browser, live):
    m = live.create("factory", ["remote", BOT["factory"]], seed=3)
    url = f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}"
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    page.goto(url)
    wait_my_move(page, ".registers")
    box = page.evaluate("""() => { const r = s => { const b = document.querySelector(s).getBoundingClientRect();
        return [b.top + scrollY, b.bottom + scrollY]; };
        return {board: r('#board'), orders: r('#orders-card'), hand: r('.cards'), sides: r('#sides')}; }""")
    screen = 844
    assert box["board"][0] < screen  # the board on the first screen
    assert box["orders"][0] - box["board"][1] < 0.25 * screen, box  # the orders right under the board
    assert box["hand"][1] < 1.5 * screen, box  # the hand within the first one and a half screens
    assert box["sides"][0] > box["orders"][0]  # the other cards come after the orders
    assert page.locator("#touch-help").is_visible() and page.locator("#keys-help").is_hidden()
    assert "Tap" in page.inner_text("#touch-help")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "play-ui-factory-phone")
    ctx.close()
    desk = open_page(browser, url)  # a mouse and keyboard: the keyboard help
    wait_my_move(desk, ".registers")
    assert desk.locator("#keys-help").is_visible() and desk.locator("#touch-help").is_hidden()
    desk.context.close()


def test_issue23_watch_steps_one_event_a_step_then_by_kind_then_equal_runs():
    from botwars.engine.events import Event
    from botwars.web.drawing import WATCH_MAX_FRAMES, watch_steps
    few = [Event("move"), Event("hole"), Event("move")]
    assert watch_steps(few) == [[0], [1], [2]]  # a few events: one picture each
    many = [Event("move")] * 20 + [Event("attack")] * 10  # an arena turn: all moves, then all attacks
    assert watch_steps(many) == [list(range(20)), list(range(20, 30))]
    mixed = [Event("move" if i % 2 else "attack") for i in range(60)]  # no two alike in a row
    steps = watch_steps(mixed)
    assert len(steps) <= WATCH_MAX_FRAMES
    assert [i for st in steps for i in st] == list(range(60))  # every event once, in order
