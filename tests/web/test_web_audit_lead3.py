"""Issue 23, the lead's third list from the newcomer audits, each checked in Chromium against a
real server:

- the replay viewer's header said "p2 won" and "Rules of submarine", its move list "b
  depth_charge C4", and a phone got keyboard help: colours, "How to play" and "Full rules", plain
  move words, touch help;
- on a touch screen the pages said "click" and "point at": they say "tap";
- submarine's "What just happened" had two "Turn 1" headings, an empty block for the other
  player's turn and "Armor takes effect" every turn: each block is "Your turn N" / "Blue's turn
  N" / "Setup", the other player's turn says what stays hidden (S-8), no passive noise (S-6.3);
- the lobby's "Daily: 24 hours a turn" where arena gives an hour a turn (its cap) and dadoed a
  30-day bank (D-8.3): the lobby says what the chosen clock gives in the chosen game;
- geeko's switches and gates did not say which opens which (F-3.7, G-2.2): both carry the
  channel's number, and the switch's tooltip names what it flips;
- a stale "Cursor on …" line after a click on the board: the cursor is for the keyboard only;
- the board replayed the last turn for half a minute under the end banner: the turn that ended
  the match does not play by itself.
"""

from __future__ import annotations

import re
import time

import httpx
import pytest

from tests.web.test_web_browser import WAIT_MS, browser, open_page, wait_decision, wait_ready  # noqa: F401

pytestmark = [pytest.mark.browser]


def _phone(browser, url: str):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def _wait_ended(live, mid: str) -> dict:
    for _ in range(1200):
        j = httpx.get(f"{live.url}/api/matches/{mid}").json()
        if j["status"] == "ended":
            return j
        time.sleep(0.1)
    raise AssertionError(f"match {mid} did not end within two minutes")


def _wait_point(live, mid: str, n: int) -> None:
    """Wait (up to 10 s) until match ``mid`` has decision point ``n`` open, over the API."""
    for _ in range(200):
        if httpx.get(f"{live.url}/api/matches/{mid}").json()["decision"] >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"match {mid} did not reach decision point {n}")


def _play_by_suggestion(live, mid: str, tok: str, turns: int) -> None:
    """Play ``turns`` of the seat's decisions with the random bot's suggestion (the page's own
    Suggest route), through the API."""
    for _ in range(turns):
        for _ in range(300):
            v = httpx.get(f"{live.url}/api/matches/{mid}/view", params={"token": tok}).json()
            if v["your_turn"] or v["status"] == "ended":
                break
            time.sleep(0.05)
        if v["status"] == "ended":
            return
        s = httpx.get(f"{live.url}/web/matches/{mid}/suggest", params={"token": tok, "bot": "random"})
        assert s.status_code == 200, s.text
        r = httpx.post(f"{live.url}/api/matches/{mid}/orders", headers={"Authorization": f"Bearer {tok}"},
                       json={"decision": v["decision"], "orders": s.json()["orders"]})
        assert r.status_code == 200, r.text


def test_issue23_replay_header_moves_and_help_on_a_phone(browser, live):
    m = live.create("submarine", ["builtin:random", "builtin:random"], seed=4)
    end = _wait_ended(live, m["match"])
    page = _phone(browser, f"{live.url}/replay/{m['match']}")
    page.wait_for_selector("#moves li:nth-child(3)", timeout=WAIT_MS)
    head = page.inner_text("header.top")
    winner = end["outcome"]["winner"]
    colour = {s["seat"]: s["colour"] for s in m["seats"]}
    assert (f"{colour[winner]} won" if winner else "draw") in head, head
    assert not re.search(r"\bp[12]\b", head) and "Rules of" not in head, head
    assert page.get_attribute("#howto-link", "href") == "/howto/submarine"
    assert page.locator("header.top a", has_text="Full rules").count() == 1
    moves = page.inner_text("#moves")
    assert "_" not in moves and not re.search(r"\bp[12]\b", moves), moves
    assert page.locator("#touch-help").is_visible() and not page.locator("#keys-help").is_visible()
    assert page.inner_text("#touch-help").startswith("Tap ◀ Prev")
    assert page.errors == [], page.errors


def test_issue23_a_touch_screen_reads_tap_not_click(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], seed=2)
    page = _phone(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    text = page.inner_text("main")
    assert "Tap one of your robots" in text, text[:2000]
    assert not re.search(r"\b[Cc]lick", text), re.findall(r".{40}[Cc]lick.{40}", text)
    # the same page at a desk says "click"
    desk = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(desk)
    assert "Click one of your robots" in desk.inner_text("main")


def test_issue23_submarine_turns_are_headed_by_whose_turn_it_was(browser, live):
    m = live.create("submarine", ["remote", "builtin:random"], seed=5,
                    config={"first_player": "p2"})
    mid, tok = m["match"], m["seats"][0]["token"]
    _play_by_suggestion(live, mid, tok, 3)  # the setup, then two turns of Red's
    page = open_page(browser, f"{live.url}/play/{mid}?token={tok}")
    wait_ready(page)
    v = httpx.get(f"{live.url}/api/matches/{mid}/view", params={"token": tok}).json()
    wait_decision(page, v["decision"])
    page.wait_for_function("document.querySelectorAll('#events h3').length >= 1", timeout=WAIT_MS)
    heads = page.locator("#events h3").all_inner_texts()
    assert all(re.fullmatch(r"Your turn \d+|Blue's turn \d+|Setup|The end", h) for h in heads), heads
    assert len(heads) == len(set(heads)), heads  # never two "Turn 1"
    text = page.inner_text("#events")
    assert "takes effect" not in text, text  # S-6.3 passives: the subs panel says what they do
    assert any(h.startswith("Blue's turn") for h in heads), heads  # Blue moves first (first_player p2)
    assert "what its submerged subs did is hidden from you" in text, text  # S-8
    assert page.errors == [], page.errors


def test_issue23_the_lobby_says_what_a_clock_gives_in_each_game(browser, live):
    page = open_page(browser, live.url + "/")
    page.wait_for_selector("#clock-words:not(:empty)", timeout=WAIT_MS)

    def words(game: str, preset: str) -> str:
        page.select_option("#game", game)
        page.select_option("#clock-preset", preset)
        return page.inner_text("#clock-words")
    # F-5.5: a day a turn; arena's turn_time_limit_s tops at an hour (its parameter's range)
    assert "24 hours a turn" in words("factory", "daily")
    assert "1 hour a turn" in words("arena", "daily")
    # D-8.3: a bank for the whole game charged in 30 s steps, running out loses
    w = words("dadoed", "daily")
    assert "a bank of 30 days for the whole game" in w and "at least 30 seconds" in w and "loses" in w, w
    # S-7.8: a time a turn, then the reserve
    w = words("submarine", "blitz")
    assert "30 seconds a turn, then a reserve of 5 minutes" in w, w
    assert "no time limit" in words("geeko", "off")


def test_issue23_switches_and_gates_carry_their_channel(live):
    m = live.create("geeko", ["remote", "builtin:random"], seed=5)
    svg = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg",
                    params={"token": m["seats"][0]["token"]}).text
    tags = re.findall(r'data-el="channel" data-channel="(\d+)"><title>([^<]*)</title>', svg)
    # room 1 (G-2.1 Intake): switch SG1 on r4c7 opens the gate on r7c4 (channel 1)
    assert ("1", "channel 1: flips the gate on r7c4") in tags, tags
    assert ("1", "channel 1: flipped by the green switch on r4c7") in tags, tags


def test_issue23_a_click_on_the_board_leaves_no_cursor_line(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], seed=2)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    page.click("#board svg", position={"x": 200, "y": 200})
    assert page.inner_text("#board-cursor") == ""
    page.keyboard.press("ArrowRight")  # the keyboard still gets its cursor once it moves it
    assert page.inner_text("#board-cursor").startswith("Cursor on")


def test_issue23_the_last_turn_does_not_play_under_the_end_banner(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], seed=2, config={"max_turns": 2})
    mid, tok = m["match"], m["seats"][0]["token"]
    page = open_page(browser, f"{live.url}/play/{mid}?token={tok}")
    wait_ready(page)
    _play_by_suggestion(live, mid, tok, 1)
    wait_decision(page, 2)
    page.wait_for_function("window.botwarsWatch.frames.length > 0", timeout=WAIT_MS)
    assert page.get_attribute(".watch-bar, [data-playing]", "data-playing") == "true"  # a turn mid-game plays
    _play_by_suggestion(live, mid, tok, 1)
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    page.wait_for_timeout(1500)
    assert page.locator("[data-playing]").first.get_attribute("data-playing") == "false"
    assert page.errors == [], page.errors


# ---- the fresh audit of 2026-11-29 (helper-13) -------------------------------------------------

def test_issue23_submit_waits_while_a_suggestion_is_on_its_way(browser, live):
    """Geeko: a Submit pressed while Suggest was loading sent the empty program (G-4.5 refusal)."""
    m = live.create("geeko", ["remote", "builtin:random"], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    held: list = []
    page.route("**/suggest?**", lambda route: held.append(route))
    page.click("#suggest")
    page.wait_for_function("document.getElementById('submit').disabled", timeout=WAIT_MS)
    assert page.inner_text("#submit-why") == "Asking the bot for a suggestion…"
    assert page.locator("#suggest").is_disabled()
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    held[0].continue_()
    page.wait_for_function("!document.getElementById('submit').disabled", timeout=WAIT_MS)
    assert "Suggestion loaded" in page.inner_text("main")
    assert page.errors == [], page.errors


def test_issue23_geeko_cards_and_register_counts_in_words(browser, live):
    m = live.create("geeko", ["remote", "builtin:random"], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    page.wait_for_selector("button.robot[data-robot='A']", timeout=WAIT_MS)
    # G-4.5: 10 HP, 9 registers; nothing placed yet
    assert page.inner_text("button.robot[data-robot='A']") == "Robot A (r1c3: 0 of 9 registers filled)"
    page.locator("#entry button.cardbtn").first.click()
    assert page.inner_text("button.robot[data-robot='A']") == "Robot A (r1c3: 1 of 9 registers filled)"
    # a locked register (G-4.5, F-5.4) names its card in words, as the hand does
    said = page.evaluate("""() => window.botwarsGames.geeko.sectionWords({kind: 'fused',
        rows: [['NAME', 'p1-A'], ['FUSED', 'R8 FWD2, R9 UTRN']]})""")
    text = " ".join(said)
    assert "register 8 (“move 2 forward”) and register 9 (“U-turn”) are locked by damage" in text, said
    assert "FWD2" not in text and "UTRN" not in text, said


def test_issue23_arena_says_a_defending_robot_took_a_reduced_hit(browser, live):
    """R24: a robot without an order defends; the sentence of a hit on it says so."""
    m = live.create("arena", ["remote", "builtin:hunter"], seed=2)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    lines = page.evaluate("""() => { const k = window.botwarsGames.arena, ui = {seatInfo: s => ({name: s === 'p1' ? 'Red' : 'Blue'}), seat: 'p1'};
        return [{decision: 7, kind: 'orders', player: 2, orders: '12:5-D'},
                {decision: 7, kind: 'orders', player: 1, orders: '11:5-A-E,5:5-M-N'},
                {decision: 7, kind: 'move', robot: 2, from: '5:5', to: '5:4'},
                {decision: 7, kind: 'attack', robot: 1, from: '11:5', to: '12:5', damage: 6, target: 9},
                {decision: 7, kind: 'attack', robot: 9, from: '12:5', to: '5:4', damage: 12, target: 2}].map(e => k.describe(e, ui)); }""")
    assert lines[3].endswith("lost 6 HP (it was defending, so the hit was reduced)."), lines
    assert "defending" not in lines[4], lines  # the robot that moved to 5:4 was not defending
    page.click("#legend-card summary")
    legend = page.inner_text("#legend-card")
    assert "(p1)" not in legend and "Red's robot" in legend


def test_issue23_lobby_options_in_words(live):
    html = httpx.get(live.url + "/").text
    for label in ("Red&#39;s home row", "Time bank (seconds)", "Initial HP", "Wipeout ends game"):
        assert f">{label}\n" in html or f">{label} " in html or f">{label}<" in html, label
    assert "docs/arena-robotgame.md" not in html and "t mod spawn_interval" not in html
    assert '<option value="p2" >Blue</option>' in html  # submarine's first player by colour
    assert re.search(r'data-name="wipeout_ends_game"[^>]*>\s*<option value="true" >yes</option>\s*<option value="false" selected>no</option>', html)


def test_issue23_howto_pages_match_the_game(live):
    sub = httpx.get(live.url + "/howto/submarine").text
    assert "drawn at random for each match" in sub  # S-3.2: home rows and the first player
    dad = httpx.get(live.url + "/howto/dadoed").text
    assert "the exploding bot last" in dad and "this one included, is destroyed" not in dad  # D rules E16
    gee = httpx.get(live.url + "/howto/geeko").text
    assert "robot A's tab" not in gee


def test_issue23_phone_controls_are_big_enough_and_the_legend_fits(browser, live):
    m = live.create("factory", ["remote", "builtin:random"], seed=3)
    url = f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}"
    page = open_page(browser, url)
    wait_ready(page)
    page.click("#legend-card summary")
    page.wait_for_selector("#legend svg", timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    phone = _phone(browser, url)
    wait_ready(phone)
    phone.wait_for_selector("#suggest", timeout=WAIT_MS)
    small = phone.evaluate("""() => [...document.querySelectorAll('#entry button, #entry select, #suggest, #submit')]
        .filter(b => b.offsetParent).map(b => [b.textContent.trim().slice(0, 20), b.getBoundingClientRect().height])
        .filter(([, h]) => h < 36)""")
    assert small == [], small


def test_issue23_past_turn_pages_say_the_turn_in_words_and_keep_tables_one_click_away(browser, live):
    """The audit's finding A: a past-turn page printed the game master's tables ("NAME p1 (red) /
    MODE real / CARDS LF90 330") and arena's "player 1 (p1): 5:5-D"; it now says each event as
    the seat page does, the tables under "The game master's table/report"."""
    for game, bot in (("factory", "builtin:random"), ("arena", "builtin:hunter")):
        m = live.create(game, ["remote", bot], seed=3)
        mid, tok = m["match"], m["seats"][0]["token"]
        _play_by_suggestion(live, mid, tok, 1)
        _wait_point(live, mid, 2)
        page = open_page(browser, f"{live.url}/matches/{mid}/turns/1?token={tok}")
        page.wait_for_selector(".point-words li", timeout=WAIT_MS)
        words = page.inner_text(".point-words")
        shown = page.inner_text("main")
        assert "undefined" not in shown and not re.search(r"\bp[12]\b", shown), (game, shown[:3000])
        if game == "factory":  # F-8: each register's cards and moves as sentences
            assert re.search(r"Register 1: (Red|Blue)'s robot plays “", words), words
            assert page.locator("details.gm-table").count() >= 1 and "CARDS" not in shown
        else:  # R30: the orders of both sides and what they did
            assert "Red ordered:" in words and "Blue ordered:" in words, words
            assert page.locator("details.gm-report").count() == 1 and "player 1" not in shown
        assert page.errors == [], page.errors


# ---- the second fresh audit of 2026-11-29 (helper-14) ------------------------------------------

def test_issue23_dadoed_names_a_walker_by_its_owner_at_the_time_after_a_burn(browser, live):
    """D-7: a burned bot goes to the other side's reserve, and the view's log names no reserve
    for a burn, so a bot burned and dropped back by the other side was named by its first owner
    in every later walk ("Blue's bot B walked ... (Dash)" on Orange's turn). Every walk is named
    by the player whose turn it was (the log's player), at every turn of a whole match."""
    m = live.create("dadoed", ["remote", "builtin:greedy"], seed=7)
    mid, tok = m["match"], m["seats"][0]["token"]
    for _ in range(120):
        v = httpx.get(f"{live.url}/api/matches/{mid}/view", params={"token": tok}).json()
        if v["status"] == "ended":
            break
        if not v["your_turn"]:
            time.sleep(0.05)
            continue
        s = httpx.get(f"{live.url}/web/matches/{mid}/suggest", params={"token": tok, "bot": "greedy"}).json()
        httpx.post(f"{live.url}/api/matches/{mid}/orders", headers={"Authorization": f"Bearer {tok}"},
                   json={"decision": v["decision"], "orders": s["orders"]})
    view = httpx.get(f"{live.url}/api/matches/{mid}/view", params={"token": tok}).json()["view"]
    log = view.get("log", [])
    burns = [x for t in log for x in t.get("events", []) if x.get("type") == "burn"]
    drops = [x for t in log for x in t.get("events", []) if x.get("type") == "drop"]
    assert burns and drops, "seed 7 of greedy against greedy burns a bot and drops it back (the case under test)"
    page = open_page(browser, f"{live.url}/play/{mid}?token={tok}")
    wait_ready(page)
    wrong = page.evaluate("""(view) => { const k = window.botwarsGames.dadoed, out = [];
      const ui = {seat: 'p1', snap: {view}, seatInfo: s => ({name: s}), seatName: s => s};
      (view.log || []).forEach((t, i) => (t.events || []).forEach(x => {
        const e = Object.assign({kind: x.type}, x); delete e.type;
        const said = k.describe(e, ui), who = (k.seats[t.player] || {name: t.player}).name;
        if (x.type === 'move' && said && / walked /.test(said) && !said.startsWith(who + "'s")) out.push([i, t.order, said]);
      })); return out; }""", view)
    assert wrong == [], wrong


def test_issue23_geeko_submit_waits_until_both_robots_have_cards(browser, live):
    """G-4.5: both robots run the same number of registers, 1 to 9: with robot B empty the
    program would be cut to 0 cards, so Submit waits and says why."""
    m = live.create("geeko", ["remote", "builtin:random"], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    page.wait_for_selector("button.robot[data-robot='A']", timeout=WAIT_MS)
    assert page.locator("#submit").is_disabled()
    page.click("button.robot[data-robot='A']")
    page.locator("#entry button.cardbtn").first.click()
    assert page.locator("#submit").is_disabled()
    assert page.inner_text("#submit-why") == "Give robot B cards too: both robots run the same number of registers."
    assert "first 0 card" not in page.inner_text("main")
    page.click("button.robot[data-robot='B']")
    page.locator("#entry button.cardbtn").first.click()
    assert not page.locator("#submit").is_disabled()


def test_issue23_arena_a_robot_spawned_this_turn_is_not_defending(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], seed=2)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    said = page.evaluate("""() => { const k = window.botwarsGames.arena, ui = {seatInfo: s => ({name: s === 'p1' ? 'Red' : 'Blue'}), seat: 'p1'};
        return [{decision: 30, kind: 'orders', player: 2, orders: '6:5-A-W'},
                {decision: 30, kind: 'orders', player: 1, orders: ''},
                {decision: 30, kind: 'spawn', robot: 40, player: 1, at: '5:5'},
                {decision: 30, kind: 'attack', robot: 9, from: '6:5', to: '5:5', damage: 12, target: 40}].map(e => k.describe(e, ui)); }""")
    assert said[3].endswith("lost 12 HP."), said  # R19 / R24: no order, no defence for a new robot


def test_issue23_submarine_a_special_is_chosen_with_one_tap(browser, live):
    """The second audit: on a phone a special often took two taps (the first only showed its
    words). On a touch screen the specials no longer change the page on hover; one tap places
    and one tap chooses (this emulation did not reproduce the two taps before the change)."""
    m = live.create("submarine", ["remote", "builtin:random"], seed=5)
    page = _phone(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    page.wait_for_selector("[data-setup-sub='a']", timeout=WAIT_MS)
    page.tap("[data-setup-sub='a']")
    page.tap("button[data-space]:not([disabled])")
    page.tap("button[data-special='torpedo']")
    page.wait_for_timeout(300)
    # S-3.3: sub a is placed and holds the torpedo after one tap; each sub a different special,
    # so the next sub may no longer pick it
    assert re.search(r"^a: [A-G]\d, Torpedo$", page.inner_text("#entry"), re.M), page.inner_text("#entry")[:800]
    assert page.locator("button[data-special='torpedo']").is_disabled()


def test_issue23_lobby_clock_fields_show_what_the_clock_sets(browser, live):
    page = open_page(browser, live.url + "/")
    page.select_option("#game", "dadoed")
    page.select_option("#clock-preset", "daily")
    bank = page.locator('.game-form[data-game="dadoed"] input[data-name="time_bank_s"]')
    assert bank.get_attribute("placeholder") == "2592000 (the clock's)"  # D-8.3: 30 days, the preset's bank
    page.select_option("#clock-preset", "game")
    assert bank.get_attribute("placeholder") == "1800"  # the game's own default
    assert "about a day" not in page.inner_text("#clock-preset")
