"""Issue 23, the lead's fourth list, from the third fresh newcomer audit (helper-15), each checked
in Chromium against a real server:

- submarine: an action chosen but not added vanished on Submit without a word;
- the lobby: "No time limit" still showed a turn time of 432000, a typed value replaced the
  clock's silently, "Daily" gave an hour in arena and "the game's own clock" was PBEM in factory
  without saying so, and submarine's daily clock kept a 5-minute reserve; six seats' name fields
  made the phone lobby three screens long;
- geeko: unequal programs were sent cut short ("Only the first 1 card of robot A count") while
  the board drew the longer one;
- submarine subs were drawn in capitals, which read as the board's columns A–G;
- past-turn pages: submarine's turns had no owner ("Turn 1 (step 2)", events of turn 2), the
  legend card said only "the seat pages explain", factory said "stage 1" where the seat page says
  "Register 1", "by the card of priority 500" without whose, and a phone shrank the legend to 8 px;
- "not to move" beside a player who had just sent orders in a decision both make at once;
- the replay's last step did not say how the match ended, and its side panel showed the record's
  notation and the game master's "player 1 (p1)" tables by default.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.web.test_web_audit_lead3 import _phone, _play_by_suggestion, _wait_ended, _wait_point
from tests.web.test_web_browser import WAIT_MS, browser, open_page, wait_decision, wait_ready  # noqa: F401

pytestmark = [pytest.mark.browser]


def _after_setup(live, first: str = "p1") -> tuple[str, str]:
    """A submarine match of a person (Red) against the random bot, past the setup (S-3.3)."""
    m = live.create("submarine", ["remote", "builtin:random"], seed=5, config={"first_player": first})
    mid, tok = m["match"], m["seats"][0]["token"]
    _play_by_suggestion(live, mid, tok, 1)
    return mid, tok


def test_issue23_submarine_submit_waits_for_an_action_not_yet_added(browser, live):
    mid, tok = _after_setup(live)
    page = open_page(browser, f"{live.url}/play/{mid}?token={tok}")
    wait_ready(page)
    page.wait_for_selector("#s-add", timeout=WAIT_MS)
    page.click("button.sub[data-sub='a']")
    page.click("button.act[data-action='move']")
    assert page.locator("#submit").is_disabled()  # S-4.4: a move needs its direction first
    assert "choose its direction" in page.inner_text("#submit-why")
    page.click("button[data-dir='N']")
    assert page.locator("#submit").is_disabled()
    assert page.inner_text("#submit-why") == ("You chose “sub a: Move north” but have not added it to your list: "
                                              "press Add (or “Drop it”) before Submit.")
    page.click("#s-drop")
    assert not page.locator("#submit").is_disabled() and not page.locator("#s-drop").is_visible()
    page.click("button.act[data-action='move']")
    page.click("button[data-dir='N']")
    page.click("#s-add")
    assert not page.locator("#submit").is_disabled()
    assert "sub a: Move north (1 AP)" in page.inner_text("#s-seq")
    assert page.errors == [], page.errors


def test_issue23_lobby_clock_off_fields_typed_values_and_what_each_clock_is(browser, live):
    page = open_page(browser, live.url + "/")
    page.wait_for_selector("#clock-words:not(:empty)", timeout=WAIT_MS)
    page.select_option("#game", "geeko")
    turn = page.locator('.game-form[data-game="geeko"] input[data-name="turn_time_s"]')
    page.select_option("#clock-preset", "off")
    assert turn.is_disabled() and turn.get_attribute("placeholder") == "not used without a clock"
    page.select_option("#clock-preset", "daily")
    assert not turn.is_disabled() and turn.get_attribute("placeholder") == "86400 (the clock's)"
    assert page.inner_text("#clock-typed") == ""
    page.click('.game-form[data-game="geeko"] details summary')  # "Options (board or map, limits)"
    turn.fill("600")
    typed = page.inner_text("#clock-typed")
    assert "Your own value replaces the clock's" in typed and "600" in typed and "86400" in typed, typed

    def words(game: str, preset: str) -> str:
        page.select_option("#game", game)
        page.select_option("#clock-preset", preset)
        return page.inner_text("#clock-words")
    # arena P2: turn_time_limit_s tops at an hour, so Daily and PBEM both give an hour
    assert "this game allows at most 1 hour a turn" in words("arena", "daily")
    assert "the same as “Daily”" in words("arena", "pbem")
    # F-5.5: the game's own deadline is five days, which is PBEM's
    assert "5 days a turn" in words("factory", "game") and "the same as “Play by e-mail”" in words("factory", "game")
    # S-7.8: a daily clock's reserve is three turns, not the rules' 300 s
    assert "24 hours a turn, then a reserve of 3 days" in words("submarine", "daily")
    assert page.errors == [], page.errors


def test_issue23_submarine_daily_clock_keeps_a_reserve_of_three_turns(live):
    r = httpx.post(f"{live.url}/api/matches", json={"game": "submarine", "seats": ["remote", "builtin:random"],
                                                    "clock": True, "clock_preset": "daily", "seed": 2})
    assert r.status_code == 201, r.text
    clock = httpx.get(f"{live.url}/api/matches/{r.json()['match']}").json()["clock"]
    assert clock["move_limit_s"] == 86_400 and set(clock["bank_left_s"].values()) == {259_200}  # S-7.8


def test_issue23_lobby_phone_hides_the_name_fields_of_seats_left_out(browser, live):
    page = _phone(browser, live.url + "/")
    page.select_option("#game", "factory")
    form = '.game-form[data-game="factory"]'
    names = page.locator(f"{form} label.seat-name")
    shown = [names.nth(i).is_visible() for i in range(names.count())]
    assert shown == [True, True, False, False, False, False], shown  # two players, four seats left out
    page.select_option(f'{form} select[name=seat][data-index="2"]', "me")
    assert names.nth(2).is_visible() and names.nth(2).inner_text().startswith("Green player's name")
    assert page.errors == [], page.errors


def test_issue23_geeko_submit_waits_for_programs_of_equal_length(browser, live):
    m = live.create("geeko", ["remote", "builtin:random"], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    page.wait_for_selector("button.robot[data-robot='A']", timeout=WAIT_MS)
    page.click("button.robot[data-robot='A']")
    page.locator("#entry button.cardbtn").first.click()
    page.locator("#entry button.cardbtn").first.click()
    page.click("button.robot[data-robot='B']")
    page.locator("#entry button.cardbtn").first.click()
    # G-4.5: one length L for every robot; the page no longer sends A's program cut short
    assert page.locator("#submit").is_disabled()
    why = page.inner_text("#submit-why")
    assert why == ("Give your robots the same number of cards (robot A has 2 cards and robot B has 1 card): "
                   "add cards to the shorter program or take some back from the longer."), why
    assert "Only the first" not in page.inner_text("main")
    page.locator("#entry button.cardbtn").first.click()
    assert not page.locator("#submit").is_disabled()


def test_issue23_submarine_subs_are_drawn_in_small_letters(live):
    mid, tok = _after_setup(live)
    svg = httpx.get(f"{live.url}/web/matches/{mid}/board.svg", params={"token": tok}).text
    subs = re.findall(r'<g class="sub"[^>]*data-sub="([a-z])".*?<text[^>]*>([^<]*)</text>', svg, re.S)
    assert len(subs) >= 5 and all(letter == shown for letter, shown in subs), subs  # S-3.1: a–e, never "A"


def test_issue23_submarine_past_turn_pages_name_whose_turn_and_show_the_legend(browser, live):
    mid, tok = _after_setup(live, first="p1")
    _play_by_suggestion(live, mid, tok, 1)  # Red's turn 1 (S-4.1: p1 first)
    _wait_point(live, mid, 3)
    page = open_page(browser, f"{live.url}/matches/{mid}/turns/2?token={tok}")
    page.wait_for_selector(".point-words li", timeout=WAIT_MS)
    assert page.inner_text(".archive-point h2").startswith("Red's turn 1 (step 2 of the match)")
    assert "Red's turn 1" in page.inner_text("h1")
    legend = page.inner_text("#legend")
    assert "letters a–e / v–z" in legend and "explain the board's pieces" not in legend, legend
    assert page.errors == [], page.errors
    page = open_page(browser, f"{live.url}/matches/{mid}/turns/3?token={tok}")
    page.wait_for_selector(".archive-point h2", timeout=WAIT_MS)
    assert page.inner_text(".archive-point h2").startswith("Blue's turn 2")  # S-4: turns count both players' turns


def _factory_after_one_turn(live) -> tuple[str, str]:
    """A factory match of a person (Red) against the random bot after its first turn (F-5)."""
    m = live.create("factory", ["remote", "builtin:random"], seed=3)
    mid, tok = m["match"], m["seats"][0]["token"]
    _play_by_suggestion(live, mid, tok, 1)
    _wait_point(live, mid, 2)
    return mid, tok


def test_issue23_factory_past_turn_pages_say_register_and_whose_card_pushed(browser, live):
    mid, tok = _factory_after_one_turn(live)
    page = open_page(browser, f"{live.url}/matches/{mid}/turns/1?token={tok}")
    page.wait_for_selector(".point-words li", timeout=WAIT_MS)
    heads = page.locator(".archive-section h3").all_inner_texts()
    assert "Turn 1, register 1" in heads and not any("stage" in h for h in heads), heads
    caps = page.locator(".archive-frame figcaption").all_inner_texts()
    assert "the program cards move the robots, highest priority first" in caps, caps  # F-5.8's sub-steps in words
    # F-5.8: a robot moved during another robot's card is named with that robot
    said = page.evaluate("""() => window.botwarsGames.factory.sectionWords({kind: 'stage', rows: [
        ['NAME', 'p1 (red)', 'p2 (blue)'], ['MODE', 'real', 'real'], ['CARDS', 'FWD1 500', 'BCK 430'],
        ['MOVES', 'move to r3c4', '@500 pushed to r3c5']]})""")
    assert "is pushed to r3c5 (by Red's robot's move, its card of priority 500)" in said[1], said
    assert page.errors == [], page.errors


def test_issue23_phone_past_turn_legend_keeps_its_size(browser, live):
    mid, tok = _factory_after_one_turn(live)
    page = _phone(browser, f"{live.url}/matches/{mid}/turns/1?token={tok}")
    page.wait_for_selector("#legend .legend-svg svg", timeout=WAIT_MS)
    width = page.evaluate("document.querySelector('#legend .legend-svg svg').getBoundingClientRect().width")
    assert width >= 500, width  # drawn at its own 520 px, the box scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the page itself does not


def test_issue23_clock_table_says_orders_in_for_a_seat_that_has_sent_them(browser, live):
    m = live.create("geeko", ["remote", "remote"], seed=5, clock=True)
    mid, red, blue = m["match"], m["seats"][0]["token"], m["seats"][1]["token"]
    v = httpx.get(f"{live.url}/api/matches/{mid}/view", params={"token": red}).json()
    s = httpx.get(f"{live.url}/web/matches/{mid}/suggest", params={"token": red, "bot": "random"}).json()
    r = httpx.post(f"{live.url}/api/matches/{mid}/orders", headers={"Authorization": f"Bearer {red}"},
                   json={"decision": v["decision"], "orders": s["orders"]})
    assert r.status_code == 200, r.text
    page = open_page(browser, f"{live.url}/play/{mid}?token={blue}")
    wait_ready(page)
    page.wait_for_selector("#clocks tr[data-seat='p1'] td.left", timeout=WAIT_MS)
    assert page.inner_text("#clocks tr[data-seat='p1'] td.left") == "orders in"  # G-4.5: both program at once
    assert "not to move" not in page.inner_text("#clocks")


def test_issue23_replay_last_step_says_the_result_and_tables_are_one_click_away(browser, live):
    m = live.create("arena", ["builtin:hunter", "builtin:random"], {"max_turns": "6"}, seed=4)
    end = _wait_ended(live, m["match"])
    page = open_page(browser, f"{live.url}/replay/{m['match']}")
    page.wait_for_selector("#moves li:nth-child(3)", timeout=WAIT_MS)
    assert not page.locator("#orders").is_visible() and not page.locator("#report").is_visible()
    page.click("#last")
    page.wait_for_selector("#happened li.result-line", timeout=WAIT_MS)
    line = page.inner_text("#happened li.result-line")
    colour = {s["seat"]: s["colour"] for s in m["seats"]}
    winner = end["outcome"]["winner"]
    assert line.startswith("The match is over: " + (f"{colour[winner]} won" if winner else "a draw")), line
    assert "undefined" not in line and not re.search(r"\bp[12]\b", line), line
    page.click("#gm-details summary")
    assert page.locator("#report").is_visible() and page.inner_text("#orders")
    assert page.errors == [], page.errors


def test_issue23_lobby_option_texts_in_words(live):
    page = httpx.get(live.url + "/").text
    # F-6.30, F-6.20, D-3.1, G-2.3: the audit read "W2: …", "UP is open floor", "as LABEL:TILE"
    for said in ("A double-wrench square at the end of a turn: repair 2 HP or take an option instead",
                 "upgrade squares are plain floor", "A:A1 puts bot A on A1",
                 "the standard set, or your own five rooms as a file",
                 "HP lost each time a robot touches an electric fence"):
        assert said in page, said
    for engine in ("W2:", "UP is open floor", "LABEL:TILE", "if u &gt; threshold", "Points per"):
        assert engine not in page, engine


def test_issue23_howto_pictures_split_their_panel_on_a_phone(browser, live):
    desk = open_page(browser, live.url + "/howto/submarine")
    desk.wait_for_selector("figure.howto-picture svg", timeout=WAIT_MS)
    w = desk.evaluate("document.querySelector('figure.howto-picture svg').getBoundingClientRect().width")
    assert w >= 600, w  # drawn at its own size: the panel's words were ~5 px at 420 px
    phone = _phone(browser, live.url + "/howto/submarine")
    phone.wait_for_selector("figure.howto-picture .board-side svg", state="attached", timeout=WAIT_MS)
    fig = phone.locator("figure.howto-picture").first
    assert fig.locator("svg[data-cropped='true']").count() == 1 and fig.locator(".board-side svg").count() == 1
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.errors == [], phone.errors


def test_issue23_suggest_offers_the_strongest_bot_first(live):
    m = live.create("arena", ["remote", "builtin:random"], seed=2)
    html = httpx.get(f"{live.url}/play/{m['match']}", params={"token": m["seats"][0]["token"]}).text
    opts = re.findall(r"<option>([a-z]+)</option>", html.split('id="suggest-bot"')[1].split("</select>")[0])
    assert opts == ["swarm", "hunter", "defender", "random"], opts  # docs/benchmarks.md: swarm beats hunter


def test_issue23_dadoed_phone_page_is_shorter(browser, live):
    """The audit: dadoed's phone page was over 3,800 px long: the drawing's side panel (the
    command pool again) and fifteen commands one per row. The panel is folded under "The
    board's notes" and two commands share a row."""
    m = live.create("dadoed", ["remote", "builtin:random"], seed=3)
    mid, tok = m["match"], m["seats"][0]["token"]
    _play_by_suggestion(live, mid, tok, 1)  # the supers (D-3.4)
    page = _phone(browser, f"{live.url}/play/{mid}?token={tok}")
    wait_ready(page)
    page.wait_for_selector("#entry button.cmd", timeout=WAIT_MS)
    page.wait_for_selector("#board-side details", state="attached", timeout=WAIT_MS)
    assert not page.locator("#board-side svg").is_visible()
    tops = page.eval_on_selector_all("#entry button.cmd", "bs => bs.map(b => Math.round(b.getBoundingClientRect().top))")
    assert len(set(tops)) <= (len(tops) + 1) // 2 + 1, tops  # about two a row
    page.tap("#board-side summary")
    assert page.locator("#board-side svg").is_visible()
    assert page.errors == [], page.errors
