"""Issue 23's audit (a newcomer plays dadoed, submarine and factory by clicking, in Chromium):
what the audit found on the play pages and fixed, each checked here against a real server.

- submarine: the setup's special buttons, the sub picker, the players' panel and the board in
  words showed the engine's ids of the specials (``depth_charge``); they now read as the rules
  name them (S-3.3: "Depth Charge");
- the "watch the turn" bar under the board was headed "Last turn (decision point 1)" / "Last turns
  (decision points 2–3)" and its first picture read "the start of decision point 2" (the engine's
  count, which is not the page's "Turn 3 of 200"); it now reads "The last move" / "The last 2
  moves" and "the board as it was before these moves";
- dadoed: the board in words (what a screen reader reads of the board, and the pieces' tooltips)
  gave each bot's super as engine ids ("super step + spread_fire"); it now names the commands
  (D-4.2: "super Dash then Root"), and the board's side panel gave the last order as ids ("last:
  Orange north_3 H8 North 3"); it now names the command ("last: Orange March North H8 North 3");
- factory: a damaged robot with one free register was told "click 1 cards from your hand"; now
  "click 1 card" (and "where it would take your robot").

Helpers and the browser fixture are those of ``tests/web/test_web_browser.py``.
"""

from __future__ import annotations

import re

import pytest

from tests.web.test_web_browser import (BOT, WAIT_MS, browser, click_square, dadoed_setup, factory_turn,  # noqa: F401
                                        dadoed_turn, next_turn, open_page, submit_ok, view_of, wait_my_move,
                                        wait_ready)

ENGINE_ID = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")  # snake_case ids such as depth_charge, north_3


@pytest.mark.browser
@pytest.mark.slow
def test_S_3_3_submarine_specials_read_as_names_not_engine_ids(browser, live):
    m = live.create("submarine", ["remote", BOT["submarine"]], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, "[data-setup-sub]")
    # setup (S-3.3): the buttons name the specials
    assert page.inner_text('[data-special="depth_charge"]') == "Depth Charge"
    assert page.inner_text('[data-special="ram"]') == "Battering Ram"
    row = view_of(page)["home_row"]
    for i, (sub, special) in enumerate(zip("abcde", ["torpedo", "depth_charge", "sonar", "mine", "armor"])):
        page.click(f'[data-setup-sub="{sub}"]')
        click_square(page, f"{'BCDEF'[i]}{row}")
        page.click(f'[data-special="{special}"]')
    assert page.inner_text('[data-setup-sub="b"]') == f"b: C{row}, Depth Charge"
    assert not ENGINE_ID.search(page.inner_text("#entry")), page.inner_text("#entry")
    next_turn(page, submit_ok(page))
    wait_my_move(page, "#s-add")
    # the turn: the sub picker, the players' panel and the board in words
    for where in ("#entry", "#sides", "#board-text"):
        if page.locator(where).count():
            text = page.inner_text(where)
            assert not ENGINE_ID.search(text), (where, text)
    assert "Depth Charge" in page.inner_text('#entry button[data-sub="b"]')
    assert page.errors == [], page.errors


@pytest.mark.browser
@pytest.mark.slow
def test_D_5_dadoed_watch_bar_speaks_of_moves_not_decision_points(browser, live):
    m = live.create("dadoed", ["remote", BOT["dadoed"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    dadoed_setup(page)  # by clicking: two supers
    dadoed_turn(page)   # by clicking: a blue command, its tile and direction; the bot answers
    page.wait_for_selector("#watch:not([hidden])", timeout=WAIT_MS)
    page.wait_for_function("document.querySelector('#watch .watch-title').textContent.startsWith('The last')",
                           timeout=WAIT_MS)
    assert re.fullmatch(r"The last (move|\d+ moves)(: .+| \(.+ to .+\))?", page.inner_text("#watch .watch-title"))
    page.click('[data-watch="replay"]')  # the first picture: the board before the moves
    if page.get_attribute("#watch", "data-playing") == "true":
        page.click('[data-watch="play"]')  # pause: step by hand
    captions = []
    for _ in range(int(page.get_attribute("#watch", "data-count"))):
        captions.append(page.inner_text("#watch .watch-caption"))
        page.click('[data-watch="next"]')
    assert captions and captions[0].startswith("Before: the board as it was before th"), captions
    for text in [page.inner_text("#watch"), *captions]:
        assert "decision point" not in text.lower(), text
    assert page.errors == [], page.errors


@pytest.mark.browser
@pytest.mark.slow
def test_D_4_2_dadoed_board_in_words_names_the_super_commands(browser, live):
    m = live.create("dadoed", ["remote", BOT["dadoed"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    dadoed_setup(page)  # by clicking: Dash then Root for the first bot, Stride then Ignite for the second
    wait_my_move(page, "[data-command]")
    words = page.inner_text("#board-text")
    assert "super Dash then Root" in words and "super Stride then Ignite" in words, words
    assert not ENGINE_ID.search(words), words
    assert page.errors == [], page.errors


@pytest.mark.browser
@pytest.mark.slow
def test_F_7_factory_one_free_register_is_one_card_not_one_cards(browser, live):
    # robots of 2 HP: one free register (the rest locked by damage) from the first turn
    m = live.create("factory", ["remote", BOT["factory"]], config={"max_hp": 2, "reinstate_hp": 2}, seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, "#submit")
    free = view_of(page)["free_registers"]
    assert free == 1, free  # the premise: one card to place
    page.wait_for_function("document.getElementById('state').textContent.startsWith('Your move')", timeout=WAIT_MS)
    assert "click 1 card from your hand" in page.inner_text("#state")
    assert "where it would take your robot" in page.inner_text("#state")
    assert "Click 1 card into your registers" in page.inner_text("#entry")
    assert "1 cards" not in page.inner_text("body")
    assert page.errors == [], page.errors


@pytest.mark.browser
@pytest.mark.slow
def test_D_4_2_dadoed_board_panel_names_the_last_command(browser, live):
    m = live.create("dadoed", ["remote", BOT["dadoed"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    dadoed_setup(page)
    dadoed_turn(page)  # by clicking; the bot answers, so the last order is the bot's or ours
    wait_my_move(page, "[data-command]")
    last = page.evaluate("""() => [...document.querySelectorAll('#board svg text')].map(t => t.textContent)
                              .find(t => t.startsWith('last:'))""")
    assert last and re.match(r"last: (Blue|Orange)\S* (\(.*?\) )?[A-Z][a-z]+", last), last
    assert not ENGINE_ID.search(last), last
    assert page.errors == [], page.errors


# ---- the second audit (audit-play2): a newcomer played dadoed, submarine and factory again ------------
@pytest.mark.browser
@pytest.mark.slow
def test_D_8_1_dadoed_elimination_names_the_side_left_without_bots_not_a_knock_out(browser, live):
    """D-8.1: the side with no bot left on the board loses, however its last bot went. The audit lost
    a match by walking its own last bot off the edge and read "Orange knocked out your last bot on
    the board"; the reason now says who has no bot left, and that reserves do not count."""
    m = live.create("dadoed", ["remote", BOT["dadoed"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    said = page.evaluate("""() => {
      const k = window.botwarsGames.dadoed, o = {winner: "orange", reason: "elimination"};
      return [k.outcome(o, "blue", null).why, k.outcome(o, "orange", null).why, k.outcome(o, null, null).why];
    }""")
    assert said == ["You have no bot left on the board (captured bots in reserve do not count).",
                    "Blue has no bot left on the board (captured bots in reserve do not count).",
                    "Blue has no bot left on the board (captured bots in reserve do not count)."], said
    assert not any("knocked out" in s for s in said)
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_S_3_3_S_4_4_submarine_action_buttons_name_the_specials(browser, live):
    """S-3.3 and S-4.4: in the turn the action buttons and the chosen sub's special read "torpedo (2
    AP)", "depth charge (3 AP)" and "Sub a's special — torpedo (active ...)" while the sub list beside
    them says "Torpedo" and "Depth Charge"; they now use the specials' names and words for the
    other actions ("Move", "Submerge", "Replace special"), and a planned action reads "sub a: Torpedo
    north" (it read "a torpedo N")."""
    m = live.create("submarine", ["remote", BOT["submarine"]], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}", 390, 844)
    wait_ready(page)
    wait_my_move(page, "[data-setup-sub]")
    row = view_of(page)["home_row"]
    for i, (sub, special) in enumerate(zip("abcde", ["torpedo", "depth_charge", "sonar", "mine", "armor"])):
        page.click(f'[data-setup-sub="{sub}"]')
        click_square(page, f"{'BCDEF'[i]}{row}")
        page.click(f'[data-special="{special}"]')
    next_turn(page, submit_ok(page))
    wait_my_move(page, "#s-add")
    page.click('#entry button[data-sub="a"]')
    assert page.inner_text('[data-action="torpedo"]') == "Torpedo (2 AP)"
    assert page.inner_text('[data-action="move"]') == "Move (1 AP)"
    assert page.inner_text('[data-action="replace"]') == "Replace special (2 AP)"
    assert page.inner_text("#s-special").startswith("Sub a's special — Torpedo (active, 2 AP)")
    page.click('[data-action="torpedo"]')
    assert "Torpedo: the first sub within 3 spaces" in page.inner_text("#entry")
    page.click('[data-dir="N"]')
    assert page.inner_text("#s-add") == 'Add "sub a: Torpedo north" (2 AP)'
    page.click("#s-add")
    assert "sub a: Torpedo north (2 AP)" in page.inner_text("#entry")
    page.click('#entry button[data-sub="b"]')
    assert page.inner_text('[data-action="depth_charge"]') == "Depth Charge (3 AP)"
    assert not ENGINE_ID.search(page.inner_text("#entry")), page.inner_text("#entry")
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_D_4_4_dadoed_board_pool_heading_is_words_not_gold_refreshes(browser, live):
    """D-4.3 and D-4.4: the board's side panel headed the command pool "pool (gold refreshes 0)", the
    engine's counter; it now reads "command pool (copies left/in all)" (and, once the gold copies
    have come back, "gold commands refilled 1 time")."""
    m = live.create("dadoed", ["remote", BOT["dadoed"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    board = page.inner_text("#board")
    assert "command pool (copies left/in all)" in board, board
    assert "refreshes" not in board
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_F_1_1_factory_end_of_turn_counts_robots_as_lives(browser, live):
    """F-1.1: a player owns three robots in all, one on the board at a time. The end of a turn read
    "Red's robot has 10 HP and 3 robots left", which the audit's newcomer took for three robots on
    the board; it now says "3 robots left, this one included"."""
    m = live.create("factory", ["remote", BOT["factory"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    factory_turn(page)
    page.wait_for_function("() => /End of turn/.test(document.getElementById('events').innerText)", timeout=WAIT_MS)
    events = page.inner_text("#events")
    assert re.search(r"End of turn: Red's robot .*has \d+ HP and [123] robots? left, this one included", events), events
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_F_9_1_factory_last_turn_pictures_are_labelled_in_words(browser, live):
    """F-9.1: the "Last turn register by register" pictures were labelled with the engine's sub-step
    names "start", "cards" and "stage end" (the board unchanged as nothing moved); on the play page
    they read "before the cards", "cards played" and "nothing moved"."""
    m = live.create("factory", ["remote", BOT["factory"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    factory_turn(page)
    page.wait_for_selector("#last-turn:not([hidden]) .frames button", timeout=WAIT_MS)
    labels = page.eval_on_selector_all("#last-turn .frames button", "bs => bs.map(b => b.textContent)")
    assert labels[0] == "before the cards", labels
    assert "cards played" in labels, labels
    assert not {"start", "cards", "stage end"} & set(labels), labels
    assert page.errors == [], page.errors
    page.context.close()
