"""Issue 23, a newcomer audit of the factory and geeko seat pages, each checked in Chromium against
a real server:

- geeko's "Locked registers" said their cards "play every turn until repaired" while the same
  turns said "Register 7: Robot A does nothing" (G-4.7: a locked card plays only when the program
  fills every free register), and the registers panel showed no locked register (nor did
  factory's, F-7.4, F-7.5);
- stage sentences ran their clauses together ("a wall laser hits it (1 HP lost) and touches flag
  3", "moves to r3c9 and enters a teleporter and is moved to …") and the result read "Place 1:
  Blue — flags 1,2,3, 3 robots left (the winner)";
- "a robot's laser hits it" and "its beam flips the electric eye" named no shooter (F-9.6: the HITS
  row names whom each robot's laser hit);
- geeko after the finish still said "left the room (waiting for the other)"; with only robot B in
  the room Submit asked for cards for "your robots (at least one each)" and Reboot offered robot A;
- factory: a picture button of "Last turn register by register" read only "nothing moved", and the
  dot at the end of a robot's last path covered its HP number.

A seat's view is changed on its way to the page (the WebSocket routed through Playwright) where
the state the audit saw (a robot with locked registers, one robot left in the room) would take a
long game to reach.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.web.test_web_browser import WAIT_MS, browser, factory_turn, open_page, wait_ready  # noqa: F401

pytestmark = [pytest.mark.browser]


def _doctored_page(browser, url: str, change):
    """The seat page at ``url`` whose WebSocket pushes pass through ``change(snap)`` (the snapshot
    as JSON, changed in place) before the page sees them."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def route(ws):
        server = ws.connect_to_server()

        def forward(message):
            snap = json.loads(message)
            if isinstance(snap, dict) and isinstance(snap.get("view"), dict):
                change(snap)
            ws.send(json.dumps(snap))
        server.on_message(forward)
    page.route_web_socket(re.compile(r"/api/matches/[^/]+/ws"), route)
    page.goto(url)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def _words(page, game: str, section: dict) -> list[str]:
    """The kit's sentences for one report section, on the real page (its seats' names included)."""
    return page.evaluate("([g, s]) => window.botwarsGames[g].sectionWords(s)", [game, section])


def test_G_4_7_geeko_locked_registers_say_when_they_play_and_the_panel_shows_them(browser, live):
    m = live.create("geeko", ["remote"], seed=3)

    def lock(snap):  # robot A at HP 7: registers 7-9 locked (G-4.3), six free
        a = snap["view"]["robots"]["A"]
        a.update(hp=7, free=6, fused={"7": "FWD1 500", "8": "RT90 80", "9": "RT90 90"})
    page = _doctored_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}", lock)
    wait_ready(page)
    page.wait_for_selector("[aria-label='robot A locked registers'] .locked-card", timeout=WAIT_MS)
    locked = page.locator("[aria-label='robot A locked registers']").inner_text()
    assert "Register 7: Move 1 forward · priority 500" in locked, locked
    assert "Register 9: Turn right · priority 90" in locked, locked
    assert "only if robot A's program fills all 6 free registers" in locked, locked
    said = " ".join(_words(page, "geeko", {"kind": "fused", "rows": [
        ["NAME", "p1-A"], ["FUSED", "R7 FWD1 500, R8 RT90 80, R9 RT90 90"]]}))
    assert "every turn" not in said, said  # G-4.7: E(X) = L when L < free(X)
    assert said == ("Robot A: register 7 (“move 1 forward”), register 8 (“turn right”) and register 9 (“turn right”) "
                    "are locked by damage and keep their cards until repaired. They play only in a turn whose program "
                    "fills all 6 free registers (1 to 6); a shorter program stops before them."), said
    # G-4.7: a robot with no free register runs all nine every turn
    full = " ".join(_words(page, "geeko", {"kind": "fused", "rows": [["NAME", "p1-B"], ["FUSED", "R1 FWD1 500"]]}))
    assert full.endswith("No register is free, so it plays every turn."), full
    assert page.errors == [], page.errors
    page.context.close()


def test_F_7_5_factory_registers_panel_lists_the_locked_registers(browser, live):
    m = live.create("factory", ["remote", "builtin:random"], seed=3)

    def lock(snap):  # HP 5: register 5 locked (F-7.4), four free
        v = snap["view"]
        me = next(p for p in v["players"] if p["seat"] == v["you"])
        me["robot"].update(hp=5, fused={"5": "FWD2 700"})
        v["free_registers"] = 4
    page = _doctored_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}", lock)
    wait_ready(page)
    page.wait_for_selector(".locked-registers [data-locked-reg='5']", timeout=WAIT_MS)
    assert page.locator(".registers li").count() == 4  # the free registers to fill
    assert page.inner_text(".locked-registers li") == "Move 2 forward · priority 700 (locked by damage)"
    assert page.locator(".locked-registers li").get_attribute("value") == "5"
    assert page.errors == [], page.errors
    page.context.close()


def test_F_9_3_stage_clauses_each_have_a_subject_and_the_result_reads_as_places(browser, live):
    m = live.create("factory", ["remote", "builtin:random"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    blue = page.evaluate("window.botwarsGames.factory.seats.p2.name")
    stage = {"kind": "stage", "stage": 3, "rows": [
        ["NAME", "p2 (blue)"], ["MODE", "real"], ["CARDS", "FWD1 640"], ["MOVES", "move to r11c11"],
        ["MECH", "laser -1 HP"], ["COMBAT", "-"], ["HITS", "-"], ["HP", "9"], ["CHECK", "flag 3"]]}
    assert _words(page, "factory", stage) == [
        f"{blue}'s robot plays “move 1 forward” (priority 640); it moves to r11c11; a wall laser hits it (1 HP lost); "
        "it touches flag 3; it has 9 HP left."]
    stage["rows"][3:5] = [["MOVES", "move to r3c9, teleport to r9c1"], ["MECH", "-"]]
    said = _words(page, "factory", stage)[0]
    assert "; it moves to r3c9; it enters a teleporter and is moved to r9c1" in said and " and enters" not in said, said
    result = {"kind": "result", "rows": [["RANK", "NAME", "FLAGS", "ROBOTS", "HP", "STATUS"],
                                         ["1", "p2", "1,2,3", "3", "9", "winner"], ["2", "p1", "1", "1", "4", "-"]]}
    assert _words(page, "factory", result) == [f"1st: {blue}, the winner — touched flags 1, 2 and 3; 3 robots left.",
                                               f"2nd: {page.evaluate('window.botwarsGames.factory.seats.p1.name')} — "
                                               "touched flag 1; 1 robot left."]
    page.context.close()
    g = live.create("geeko", ["remote"], seed=3)
    page = open_page(browser, f"{live.url}/play/{g['match']}?token={g['seats'][0]['token']}")
    wait_ready(page)
    said = _words(page, "geeko", {"kind": "stage", "stage": 2, "rows": [
        ["NAME", "p1-A"], ["MODE", "real"], ["CARDS", "FWD2 700"], ["MOVES", "move to r3c9, teleport to r9c1"],
        ["MECH", "laser -1 HP"], ["HITS", "-"], ["HP", "8"]]})
    assert said == ["Robot A plays “move 2 forward” (priority 700); it moves to r3c9; it enters a teleporter and is moved "
                    "to r9c1, the next free teleporter in letter order (A, then B, then C …, back to A); a wall laser "
                    "hits it (1 HP lost); it has 8 HP left."], said
    res = _words(page, "geeko", {"kind": "result", "rows": [["RANK", "NAME", "TURNS", "ROOMS", "LOST", "STATUS"],
                                                            ["1", "p1", "30", "5", "0", "winner"]]})
    assert res == [f"1st: {page.evaluate('window.botwarsGames.geeko.seats.p1.name')}, the winner — left room 5 on turn 30; "
                   "no robot lost."], res
    assert page.errors == [], page.errors
    page.context.close()


def test_F_9_6_a_laser_hit_and_an_eye_flip_name_the_shooter(browser, live):
    m = live.create("factory", ["remote", "builtin:random"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    red = page.evaluate("window.botwarsGames.factory.seats.p1.name")
    said = _words(page, "factory", {"kind": "stage", "stage": 1, "rows": [
        ["NAME", "p1 (red)", "p2 (blue)"], ["MODE", "real", "real"], ["CARDS", "-", "-"], ["MOVES", "-", "-"],
        ["MECH", "-", "shot -1 HP"], ["COMBAT", "r3c4-r3c6", "-"], ["HITS", "p2, eye r3c7 on", "-"], ["HP", "10", "9"]]})
    assert said[0] == f"{red}'s robot's laser hits {page.evaluate('window.botwarsGames.factory.seats.p2.name')}; " \
                      f"{red}'s robot's laser flips the electric eye on r3c7 (now on).", said
    assert said[1] == f"{page.evaluate('window.botwarsGames.factory.seats.p2.name')}'s robot: {red}'s robot's laser hits it " \
                      "(1 HP lost); it has 9 HP left.", said
    page.context.close()
    g = live.create("geeko", ["remote"], seed=3)
    page = open_page(browser, f"{live.url}/play/{g['match']}?token={g['seats'][0]['token']}")
    wait_ready(page)
    said = _words(page, "geeko", {"kind": "stage", "stage": 1, "rows": [
        ["NAME", "p1-A", "p1-B"], ["MODE", "real", "real"], ["CARDS", "-", "-"], ["MOVES", "-", "-"],
        ["MECH", "-", "shot -1 HP"], ["HITS", "p1-B", "-"], ["HP", "10", "9"]]})
    assert said[1] == "Robot B: Robot A's laser hits it (1 HP lost); it has 9 HP left.", said
    assert "a robot's laser" not in " ".join(said), said
    page.context.close()


def test_G_8_1_geeko_with_robot_b_alone_in_the_room_hint_and_reboot_speak_of_b(browser, live):
    m = live.create("geeko", ["remote"], seed=3)

    def away(snap):  # robot A has left the room through the gate (G-6.3): B alone is programmed
        snap["view"]["robots"]["A"].update(square=None, facing=None, mode="exited", free=0)
    page = _doctored_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}", away)
    wait_ready(page)
    page.wait_for_selector("button.robot[data-robot='B']", timeout=WAIT_MS)
    assert page.locator("button.robot[data-robot='A']").count() == 0
    assert page.inner_text("#submit-why") == "Click cards into robot B's registers (at least one)."
    # G-8.1 with F-7.7: a robot off the board cannot be declared (the rules refuse it)
    options = page.eval_on_selector_all("#reboot option", "os => os.map(o => o.textContent)")
    assert options == ["no reboot", "reboot robot B"], options
    # G-9.1: once finished, both robots are through room 5, neither waits for the other
    lines = page.evaluate("""() => window.botwarsGames.geeko.summary({you: 1, room: 5, turn: 12, finished: 12, robots: {
        A: {square: null, mode: "exited", hp: 10}, B: {square: null, mode: "exited", hp: 8}}}, {status: "running"}, {})[0].lines""")
    text = " | ".join(lines)
    assert "waiting for the other" not in text, text
    assert "robot A: finished (left room 5 on turn 12)" in text and "robot B: finished (left room 5 on turn 12)" in text, text
    assert page.errors == [], page.errors
    page.context.close()


def test_F_5_8_a_register_where_nothing_moved_names_its_register(browser, live):
    m = live.create("factory", ["remote", "builtin:random"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)

    def still(route):  # register 2's pictures as the server sends them when nothing moved in it
        body = route.fetch().json()
        for sec in body["sections"]:
            if sec.get("kind") == "stage" and sec.get("stage") == 2:
                sec["frames"] = [{"label": "unchanged", "caption": "nothing moved", "svg": sec["frames"][-1]["svg"]
                                  if sec["frames"] else "<svg xmlns='http://www.w3.org/2000/svg'/>"}]
        route.fulfill(json=body)
    page.route(re.compile(r"/turn/\d+/stages\.json"), still)
    factory_turn(page)
    page.wait_for_selector("#last-turn:not([hidden]) .frames button", timeout=WAIT_MS)
    buttons = page.eval_on_selector_all("#last-turn .frames button",
                                        "bs => bs.map(b => [b.textContent, b.getAttribute('aria-label')])")
    assert ["register 2: nothing moved",
            "register 2: nothing moved; the board as it stood after the previous picture"] in [list(b) for b in buttons], buttons
    assert all(label.startswith(("register ", "end of turn", "locked registers", "result")) for _, label in buttons), buttons
    assert page.errors == [], page.errors
    page.context.close()


def test_F_9_stage_pictures_label_a_register_without_pictures_unchanged():
    from botwars.games.factory.stages import STAGE_WORDS, _run_sections
    from botwars.engine.events import Event
    frames = [{"stage": 0, "label": "start", "svg": "<svg/>"}, {"stage": 1, "label": "cards", "svg": "<svg>1</svg>"}]
    tables = [Event("stage", {"turn": 1, "stage": s, "header": "", "rows": [], "extra": [], "lines": []}) for s in (1, 2)]
    secs = _run_sections(None, frames, tables)
    assert [f["label"] for f in secs[1]["frames"]] == ["unchanged"]  # not "stage end": nothing of S10 happened
    assert secs[1]["frames"][0]["svg"] == "<svg>1</svg>" and "nothing moved" in STAGE_WORDS["unchanged"]


def test_issue23_factory_last_path_runs_under_the_robot_so_its_hp_stays_legible(browser, live):
    m = live.create("factory", ["remote", "builtin:random"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    factory_turn(page)
    page.wait_for_selector("#board svg .lastmove", state="attached", timeout=WAIT_MS)
    # the path's end dot lies on the robot's square: drawn before (under) every robot, never over its HP
    order = page.evaluate("""() => { const svg = document.querySelector('#board svg');
        const dots = [...svg.querySelectorAll('.lastmove')], bots = [...svg.querySelectorAll('g.robot')];
        return {dots: dots.length, bots: bots.length,
                under: dots.every(d => bots.every(b => d.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING))}; }""")
    assert order["dots"] and order["bots"] and order["under"], order
    assert page.errors == [], page.errors
    page.context.close()
