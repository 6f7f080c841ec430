"""Issue 23, the lead's second list from the newcomer audits, each checked in Chromium against a
real server:

- the lobby named seats "Seat p1": it names them by colour, as the match pages do;
- "The board in words" (and every piece's tooltip) said "robot 4 of player 2", "p2's robot
  (blue)", "robot A of p1 (red)", "bot A of blue": it says "Blue's robot on 8:11, 100 HP";
  a side with no piece left is listed as "none";
- after a resignation the arena's end screen had no final count (R28) and the factory's said
  "Flags touched: Blue 1" although nobody had touched a flag (the 1 was the win, not a flag, F-7);
- geeko's standings said "1. pp1 — unfinished": "1. Red — did not finish"; the race's other
  player stayed "playing" after the end;
- once the match is over, "Click the board … to choose pieces" and "not to move" clocks no longer
  apply; a daily clock's deadline read "none (1 d 0:00:00 a turn)";
- a touch screen whose browser reports a mouse to the media queries still got keyboard help;
- factory's card-count refusal spoke the bots' "free registers 1..5".
"""

from __future__ import annotations

import re
import time

import httpx
import pytest

from tests.web.test_web_browser import WAIT_MS, browser, open_page, wait_ready  # noqa: F401

pytestmark = [pytest.mark.browser]
ENGINE_WORDS = re.compile(r"\bp[1-8]\b|\bpp\d|of player \d|robot [AB] of |bot [A-D] of ")


def _resign(live, game: str, seats: list[str]) -> tuple[str, str]:
    m = live.create(game, seats, seed=3)
    tok = m["seats"][0]["token"]
    r = httpx.post(f"{live.url}/api/matches/{m['match']}/resign", headers={"Authorization": f"Bearer {tok}"})
    assert r.status_code == 200, r.text
    return m["match"], tok


def _wait_ended(live, mid: str) -> None:
    """Wait (at most a minute) until a bots-only match has ended."""
    for _ in range(600):
        if httpx.get(f"{live.url}/api/matches/{mid}").json()["status"] == "ended":
            return
        time.sleep(0.1)
    raise AssertionError(f"match {mid} did not end within a minute")


def _ended_page(browser, live, mid: str, tok: str | None, **kw):
    page = open_page(browser, f"{live.url}/play/{mid}" + (f"?token={tok}" if tok else ""), **kw)
    wait_ready(page)
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    return page


def test_issue23_the_lobby_names_seats_by_colour(live):
    html = httpx.get(live.url + "/").text
    assert "Seat p1" not in html and "seat p1" not in html
    assert re.search(r'<span class="swatch-word">Red</span>', html)
    assert 'aria-label="who plays Blue"' in html


def test_issue23_board_in_words_and_resigned_arena_end_screen(browser, live):
    mid, tok = _resign(live, "arena", ["remote", "builtin:hunter"])
    page = _ended_page(browser, live, mid, tok)
    words = page.inner_text("#board-text")
    assert "Blue's robot on 12:5, 100 HP" in words, words  # the default map's spawn points, R7
    assert not ENGINE_WORDS.search(words), words
    # R28's count (robots, then HP) even though a resignation decided the match
    assert page.inner_text("#outcome").count("Final: Red 2 robots (200 HP), Blue 2 robots (200 HP).") == 1
    # the match is over: no board hint, no running clock
    assert page.locator(".board-hint").evaluate_all("hs => hs.every(h => getComputedStyle(h).display === 'none')")
    assert page.inner_text("#clocks") == "No time limit in this match (the lobby's time control was off)."
    assert page.errors == [], page.errors


def test_issue23_resigned_factory_counts_flags_not_the_win(browser, live):
    mid, tok = _resign(live, "factory", ["remote", "builtin:random"])
    page = _ended_page(browser, live, mid, tok)
    out = page.inner_text("#outcome")
    assert "You resigned. Flags touched: Red 0, Blue 0." in out, out  # F-7: nobody touched a flag
    words = page.inner_text("#board-text")
    assert "Red's robot on" in words and "Blue's next flag: flag 1" in words, words
    assert not ENGINE_WORDS.search(words), words
    # F-5.3/F-5.4's message to bots, as the page words it for a player
    said = page.evaluate("window.botwarsGames.factory.refusal('expected 5 cards for free registers 1..5, got 2')")
    assert said == "put 5 cards in your registers (there are 2)"
    said = page.evaluate("window.botwarsGames.factory.refusal('expected 3 cards for free registers 1..3 "
                         "(registers 4, 5 are fused and cannot be changed), got 0')")
    assert said == "put 3 cards in your registers (none is there yet); registers 4, 5 are locked by damage and keep their cards"
    assert page.errors == [], page.errors


def test_issue23_geeko_standings_and_the_race_after_the_end(browser, live):
    m = live.create("geeko", ["builtin:random", "builtin:random"], {"turn_limit": "1"}, seed=4)
    _wait_ended(live, m["match"])
    page = _ended_page(browser, live, m["match"], m["seats"][0]["token"])
    info = page.inner_text("#sides")
    assert re.search(r"1\. (Red|Blue) — (did not finish|left room 5|won)", info), info
    assert "pp1" not in info and "p1" not in info, info
    assert "still playing" not in info and "private until the end" not in info, info
    assert "turns used: 1 (limit 1)" in info, info  # G-1.2: the one turn played
    assert page.errors == [], page.errors


def test_issue23_a_touch_screen_gets_touch_help_and_a_daily_clock_reads_in_days(browser, live):
    r = httpx.post(f"{live.url}/api/matches", json={"game": "factory", "seats": ["remote", "remote"], "seed": 5,
                                                    "clock_preset": "daily"})
    assert r.status_code == 201, r.text
    m = r.json()
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    page.wait_for_selector("#keys-help", state="attached", timeout=WAIT_MS)
    visible = page.evaluate("sel => [...document.querySelectorAll(sel)].filter(e => getComputedStyle(e).display !== 'none')"
                            ".map(e => e.id || e.className)", ".keys-only, .touch-only")
    assert "touch-help" in visible and "keys-help" not in visible, visible
    assert not any("keys-only" in v for v in visible), visible
    banks = page.eval_on_selector_all("#clocks td.bank", "tds => tds.map(t => t.textContent)")
    assert banks == ["none (each turn has 1 day)"] * 2  # F-5.5: a deadline a turn, no bank
    r = httpx.post(f"{live.url}/api/matches/{m['match']}/resign", headers={"Authorization": f"Bearer {m['seats'][0]['token']}"})
    assert r.status_code == 200, r.text
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    page.wait_for_function("document.getElementById('clocks').innerText.includes('over')", timeout=WAIT_MS)
    assert page.inner_text("#clocks") == "The match is over: no clock runs."
    ctx.close()


def test_issue23_a_page_opened_after_the_end_shows_the_last_turn_not_nothing(browser, live):
    # dadoed's turn limit (D-8.5) ends the match on a decision point of its own, whose only event
    # is the result: the page opened afterwards said "Nothing you can see happened"
    m = live.create("dadoed", ["builtin:random", "builtin:random"], {"max_turns": "4"}, seed=3)
    _wait_ended(live, m["match"])
    page = _ended_page(browser, live, m["match"], m["seats"][0]["token"])
    page.wait_for_function("document.querySelectorAll('#events h3').length >= 2", timeout=WAIT_MS)
    heads = page.eval_on_selector_all("#events h3", "hs => hs.map(h => h.textContent)")
    assert heads[:2] == ["The end", "Turn 4"], heads
    text = page.inner_text("#events")
    assert "Nothing you can see happened" not in text, text
    assert "The match ended: the result is above." in text
    turn4 = page.inner_text("#events ul.happened >> nth=1")
    assert re.search(r"(Blue|Orange)", turn4), turn4  # the last turn's events, named by side
    assert page.errors == [], page.errors


def test_issue23_factory_turn_pictures_are_captioned_in_words(live):
    # item 4: the watched turn said "Register 2: cards"; each picture names F-5.8's sub-step in words
    m = live.create("factory", ["builtin:random", "builtin:random"], {"board": "tiny-yard", "turn_limit": "1"}, seed=2)
    _wait_ended(live, m["match"])
    r = httpx.get(f"{live.url}/web/matches/{m['match']}/turn/1/watch.json")
    assert r.status_code == 200, r.text
    labels = [f["label"] for f in r.json()["frames"]]
    assert "Register 1: the program cards move the robots, highest priority first" in labels, labels
    assert all(not re.fullmatch(r"Register \d: [a-z ]+", x) or len(x.split(": ", 1)[1].split()) > 2 for x in labels), labels
    assert labels[-1].startswith("The end of the turn"), labels


def test_issue23_dadoed_history_names_a_captured_bot_by_its_owner_at_the_time(browser, live):
    # the audit: after Orange captured Blue's bot A (D-7) and dropped it, the earlier turns read
    # "Orange's bot A walked from A5 to A7" — history re-told with today's owner
    m = live.create("dadoed", ["remote", "builtin:random"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    view = {"bots": {"A": {"owner": "orange", "tile": "B7"}, "B": {"owner": "blue", "tile": "H1"},
                     "C": {"owner": "orange", "tile": "A6"}, "D": {"owner": "orange", "tile": "H8"}},
            "log": [{"turn": 5, "player": "blue", "order": "stride A5 North 2",
                     "events": [{"type": "move", "object": "A", "from": "A5", "to": "A7"}, {"type": "hole", "tile": "A5"}]},
                    {"turn": 6, "player": "orange", "order": "stride A8 South 2",
                     "events": [{"type": "move", "object": "A", "from": "A7", "to": "A5"},
                                {"type": "fall", "object": "A", "tile": "A5", "reserve": "orange"},
                                {"type": "move", "object": "C", "from": "A8", "to": "A6"}]},
                    {"turn": 8, "player": "orange", "order": "drop_bot B7 A",
                     "events": [{"type": "drop", "bot": "A", "owner": "orange", "tile": "B7"}]}]}
    said = page.evaluate("""(view) => {
        const kit = window.botwarsGames.dadoed, ui = {snap: {view}};
        return view.log.flatMap(t => t.events.map(x => { const {type, ...rest} = x; return kit.describe({kind: type, ...rest}, ui); }));
    }""", view)
    assert said[0] == "Blue's bot A walked from A5 to A7 (Stride).", said
    assert said[1].startswith("A5 crumbled into a hole: Blue's bot A walked off it"), said
    assert said[2].startswith("Blue's bot A was pushed from A7 to A5"), said
    assert said[3].startswith("Blue's bot A was pushed into the hole at A5 by Orange's bot C"), said
    assert said[3].endswith("it goes to Orange's reserve."), said
    assert said[5] == "Orange dropped bot A onto B7: it now plays for Orange.", said
    assert page.errors == [], page.errors


def test_issue23_the_card_legend_speaks_words_not_card_codes(browser, live):
    # the audit: the legend still explained "FWDn forward n, RT90/LF90 …", codes no page shows any more
    for game in ("factory", "geeko"):
        m = live.create(game, ["remote", "builtin:random"], seed=3)
        page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
        wait_ready(page)
        page.click("#legend-card summary")
        text = page.inner_text("#legend")
        assert "priority number decides who moves first" in text, text
        assert not re.search(r"FWD|RVS|RT90|LF90|UTRN|SLF1|SRT1", text), text


def test_issue23_the_lobby_lists_name_games_and_seats_before_the_script_redraws_them(live):
    # the audit: for the seconds before the lobby's script refreshed its lists, the page as served
    # said "geeko · turn 1 · p1: a person, p2: bot planner" and "arena · 20 turns · p1 won"
    m = live.create("arena", ["builtin:hunter", "builtin:random"], {"max_turns": "2"}, seed=2)
    _wait_ended(live, m["match"])
    live.create("dadoed", ["remote", "builtin:random"], seed=2)
    html = httpx.get(live.url + "/").text
    running = html[html.index('id="running"'):html.index('id="ended"')]
    ended = html[html.index('id="ended"'):]
    assert "Do Androids Dream of Electric Deathmatches?" in running and "Blue: a person" in running, running[:400]
    assert not re.search(r"\bp[12]\b|\bdadoed\b", running), running[:400]
    assert re.search(r"Arena \(BotWars\.io\).*?· 2 turns ·\s*<span[^>]*>(Red won|Blue won|draw)</span>", ended, re.S), ended[:400]
    assert not re.search(r"\bp[12] won\b", ended), ended[:400]


def test_issue23_a_resigned_dadoed_match_shows_its_last_turn_and_nobody_to_move(browser, live):
    # the audit: reloaded after a resignation, the page said "No turn has been played yet." and
    # "to move now" under "You lost — You resigned."
    m = live.create("dadoed", ["builtin:random", "remote"], {"max_turns": "40"}, seed=3)
    tok = m["seats"][1]["token"]
    for _ in range(600):  # the set-up and Blue's first turn (the bot), then Orange is to move
        s = httpx.get(f"{live.url}/api/matches/{m['match']}/view", headers={"Authorization": f"Bearer {tok}"}).json()
        if s["your_turn"] and s["view"].get("phase") != "setup":
            break
        if s["your_turn"]:  # Orange's set-up: a built-in bot's picks
            sug = httpx.get(f"{live.url}/web/matches/{m['match']}/suggest", params={"token": tok, "bot": "random"}).json()
            httpx.post(f"{live.url}/api/matches/{m['match']}/orders", headers={"Authorization": f"Bearer {tok}"},
                       json={"decision": s["decision"], "orders": sug["orders"]})
        time.sleep(0.1)
    r = httpx.post(f"{live.url}/api/matches/{m['match']}/resign", headers={"Authorization": f"Bearer {tok}"})
    assert r.status_code == 200, r.text
    page = _ended_page(browser, live, m["match"], tok)
    page.wait_for_function("document.querySelectorAll('#events h3').length >= 1", timeout=WAIT_MS)
    events = page.inner_text("#events")
    assert "No turn has been played yet" not in events and re.search(r"Turn \d", events), events
    assert "to move now" not in page.inner_text("#sides")
    assert page.errors == [], page.errors


def test_issue23_submarine_depth_charge_and_factory_flags_in_words(browser, live):
    m = live.create("submarine", ["remote", "builtin:random"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    said = page.evaluate("""() => window.botwarsGames.submarine.describe({kind: "depth_charge", sub: "w", centre: "C1",
        hits: [{sub: "a", space: "B1", damage: 1}]}, {snap: {view: {you: "p1"}}})""")
    # S-6: the space named is where the charge fell, not where the sub is
    assert said.startswith("Blue's sub w dropped a depth charge on C1 (the space and its neighbours): "), said
    m = live.create("factory", ["remote", "builtin:random"], {"board": "tiny-yard"}, seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    rows = page.evaluate("""() => { const v = {board: "grid:\\nr1 F1 F2/wE .\\nend", players: [
        {name: "p1", next_flag: 3, flags: [1, 2], robots_left: 3, checkpoint: "r1c1", robot: null},
        {name: "p2", next_flag: 2, flags: [1], robots_left: 3, checkpoint: "r1c1", robot: null}]};
        return window.botwarsGames.factory.summary(v, {status: "ended"}, {}).map(r => r.lines.join(" | ")); }""")
    assert "every flag touched" in rows[0] and "F3" not in rows[0], rows  # F-3.8: F1..F2 only
    assert "next flag: F2" in rows[1], rows


def test_issue23_geeko_players_panel_says_where_each_robot_is_by_its_mode(browser, live):
    # the audit: the panel said "robot B: left the room (waiting for the other)" for a robot in
    # transit (G-5.5) and "not on the board" for the one that had left the room (G-10.2 modes)
    m = live.create("geeko", ["remote"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    lines = page.evaluate("""() => window.botwarsGames.geeko.summary({you: 1, room: 3, turn: 12, robots: {
        A: {square: null, mode: "exited", hp: 10}, B: {square: null, mode: "transit", transit: 2, hp: 10}}},
        {status: "running"}, {})[0].lines""")
    text = " | ".join(lines)
    assert "robot A: left the room (waiting for the other)" in text, text
    assert "robot B: destroyed; its replacement is on its way through the rooms" in text, text
