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


def _play_one_turn(page) -> None:
    """Move one robot, submit, and wait until the next decision point is open."""
    _move_one_robot(page)
    n = submit_ok(page)
    page.wait_for_function(f"Number(document.getElementById('page').dataset.decision) > {n}", timeout=WAIT_MS)


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


@pytest.mark.browser
def test_issue23_dadoed_events_name_who_pushed_whom_and_why(browser, live):
    """Seed example E3 (D-6.5, D-7.1, D-7.3, D-12.6): Blue plays March East on F1 with bot A;
    Orange's bot C in front is pushed off the edge first, then A walks off after it. Each event
    names the bot, its side and the command that moved it (before: "A boulder moved from D5 to
    D6", "Orange's bot D fell off the edge", no cause)."""
    m = live.create("dadoed", ["remote", "builtin:random"], seed=2)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    said = page.evaluate("""() => {
      const evs = [{type: "move", object: "C", from: "G1", to: "H1"}, {type: "fall", object: "C", tile: "off", reserve: "blue"},
                   {type: "move", object: "A", from: "F1", to: "H1"}, {type: "hole", tile: "F1"},
                   {type: "fall", object: "A", tile: "off", reserve: "orange"}];
      const nudge = [{type: "move", object: "boulder", from: "D5", to: "D6"}];
      const view = {log: [{turn: 4, player: "blue", order: "east_3 F1 East 3", events: evs},
                          {turn: 5, player: "orange", order: "nudge_boulder D5 North", events: nudge}],
                    bots: {A: {owner: "orange", tile: null}, C: {owner: "blue", tile: null}}};
      const kit = window.botwarsGames.dadoed, ui = {snap: {view}};
      return evs.concat(nudge).map(x => { const {type, ...data} = x; return kit.describe({kind: type, ...data, decision: 9}, ui); });
    }""")
    assert said == [
        "Orange's bot C was pushed from G1 to H1 by Blue's bot A (March East).",
        "Orange's bot C was pushed off the edge of the arena by Blue's bot A (March East); it goes to Blue's reserve.",
        "Blue's bot A walked from F1 to H1 (March East).",
        "F1 crumbled into a hole: Blue's bot A walked off it (a walking command always leaves a hole).",
        "Blue's bot A walked off the edge of the arena (March East); it goes to Orange's reserve.",
        "A boulder was pushed from D5 to D6 by Orange's Nudge Boulder.",
    ], said
    legend = page.inner_text("#legend") if page.locator("#legend").count() else ""
    assert "C D (orange) are Orange's" not in legend  # a captured bot keeps its letter but changes side
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
def test_D_3_4_dadoed_setup_picks_survive_a_reload(browser, live):
    """Set-up picks (D-3.4: a super per bot, a blue command then any other) are kept across a
    reload, as turn orders are: the page comes back with the same picks, the same bot to set up
    next and Submit still off until both supers are complete."""
    m = live.create("dadoed", ["remote", "builtin:random"], seed=5)
    url = f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}"
    page = open_page(browser, url)
    wait_my_move(page, "[data-part]")
    view = view_of(page)
    mine = sorted(lb for lb, b in view["bots"].items() if b["owner"] == view["you"])
    page.click(f'[data-bot="{mine[0]}"][data-part="0"][data-id="dash"]')
    page.click(f'[data-bot="{mine[0]}"][data-part="1"][data-id="root"]')
    page.click(f'[data-bot="{mine[1]}"][data-part="0"][data-id="stride"]')  # bot 2: first part only
    page.reload()
    wait_my_move(page, "[data-part]")
    page.wait_for_selector(f'[data-bot="{mine[1]}"][data-part="0"][data-id="stride"][aria-pressed="true"]', timeout=WAIT_MS)
    steps = page.inner_text(".setup-steps")
    assert f"Bot {mine[0]}" in steps and "Dash then Root" in steps, steps
    assert "Stride then …" in steps, steps
    assert page.is_disabled("#submit")
    assert page.inner_text("#setup-status") == f"Pick a second command for bot {mine[1]}."
    page.click(f'[data-bot="{mine[1]}"][data-part="1"][data-id="ignite"]')
    assert not page.is_disabled("#submit")
    submit_ok(page)
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
def test_issue23_the_acceptance_says_its_turn_was_played_once_the_next_one_opens(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], {"max_turns": "5"}, seed=4)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    _play_one_turn(page)
    page.wait_for_function("document.getElementById('order-msg').textContent.includes('were played')", timeout=WAIT_MS)
    assert page.inner_text("#order-msg") == "Accepted: your orders for turn 1 were played (see “What just happened”)."
    assert "are in" not in page.inner_text("body")
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
def test_issue23_a_resignation_shows_the_result_and_says_you_resigned_not_accepted(browser, live):
    """The late audit (2026-11-28): after resigning, the orders panel read "Accepted. That was the
    last turn" (nothing had been submitted) and the result stayed scrolled out of view on a phone."""
    m = live.create("arena", ["remote", "builtin:hunter"], {"max_turns": "5"}, seed=4)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}", width=390, height=844)
    wait_ready(page)
    _play_one_turn(page)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # down at the orders
    page.click("#resign")  # the confirm dialog is accepted (open_page)
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    page.wait_for_function("(() => { const r = document.getElementById('outcome').getBoundingClientRect(); "
                           "return r.top >= -1 && r.top < window.innerHeight; })()", timeout=WAIT_MS)
    page.wait_for_function("document.getElementById('order-msg').textContent !== ''", timeout=WAIT_MS)
    assert page.inner_text("#order-msg") == "You resigned."
    assert "Accepted" not in page.inner_text("#page")
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
def test_issue23_a_refusal_drops_the_rule_id_and_keeps_its_explanation(browser, live):
    """The late audit: geeko's refusal read "… (G-4.5: every program has length …)"; the page
    leaves the rule id out and keeps the words (the whole message stays under Details)."""
    g = live.create("geeko", ["remote"], seed=2)
    page = open_page(browser, f"{live.url}/play/{g['match']}?token={g['seats'][0]['token']}")
    wait_ready(page)
    page.wait_for_function("document.getElementById('page').dataset.yourTurn === 'true'", timeout=WAIT_MS)
    # the empty program, which the rules refuse (G-4.5). The page itself keeps Submit disabled
    # until both robots have cards, so it plans one card each and the request on its way is
    # emptied, as a page whose controls the server judges otherwise would send it
    import json as _json

    def empty(route):
        body = _json.loads(route.request.post_data)
        body["orders"] = {"type": "program", "length": 0, "reboot": None, "A": [], "B": []}
        route.continue_(post_data=_json.dumps(body))
    page.route("**/orders**", empty)
    for robot in ("A", "B"):
        page.click(f"button.robot[data-robot='{robot}']")
        page.locator("#entry button.cardbtn").first.click()
    page.click("#submit")
    page.wait_for_function("/^Refused/.test(document.getElementById('order-msg').textContent)", timeout=WAIT_MS)
    said = page.inner_text("#order-msg")
    assert "G-4.5" not in said and "(every program has length" in said, said
    page.context.close()
