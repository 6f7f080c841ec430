"""Browser tests of the replay viewer (issue 14 item 2): a factory replay stage by stage with the
robot's square changing between stages, autoplay, a move-list click that seeks, a URL per
position, and a finished submarine replay that shows every sub. Playwright and the system
Chromium, as ``tests/web/test_web_browser.py`` (its fixtures are reused)."""

from __future__ import annotations

import re

import pytest

from tests.web.test_web_browser import WAIT_MS, browser, open_page, shot  # noqa: F401 - the fixture
from tests.web.test_web_pages import wait_ended

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _pos(page) -> tuple[int, int]:
    return int(page.get_attribute("#replay", "data-k") or -1), int(page.get_attribute("#replay", "data-f") or -1)


def _squares(page) -> dict[str, str]:
    return page.eval_on_selector_all("#board g.robot", "gs => Object.fromEntries(gs.map(g => [g.dataset.robot, g.dataset.square]))")


def test_F_5_8_factory_replay_stage_by_stage_moves_the_robot(browser, live):
    m = live.create("factory", ["builtin:pathfinder", "builtin:pathfinder"], {"turn_limit": "2"}, seed=5)
    wait_ended(live, m["match"])
    page = open_page(browser, f"{live.url}/replay/{m['match']}#k=1&f=0")
    page.wait_for_function("document.getElementById('replay').dataset.k === '1'", timeout=WAIT_MS)
    page.wait_for_selector("#board g.robot", state="attached", timeout=WAIT_MS)
    page.click("#gm-details summary")  # the tables are one click away (issue 23 item 2)
    assert "Turn 1, register 1" in page.inner_text("#stage")  # the heading in words (issue 24 item 8; issue 23: "register", as the seat page says)
    frames = page.eval_on_selector_all("#frames button", "bs => bs.length")
    assert frames >= 6  # a start picture, then at least one per stage
    seen = [_squares(page)]
    stages = {page.inner_text("#stage h3")}
    for n in range(1, frames):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"document.getElementById('replay').dataset.f === '{n}'", timeout=WAIT_MS)
        page.wait_for_function(f"document.querySelector('#frames button.current')?.dataset.frame === '{n}'",
                               timeout=WAIT_MS)
        page.wait_for_timeout(50)
        seen.append(_squares(page))
        stages.add(page.inner_text("#stage h3"))
    assert len(stages) >= 5  # the stage table follows the pictures: stage 1..5 (and the end of turn)
    assert any(a != b for a, b in zip(seen, seen[1:])), "no robot changed square between stages"
    assert re.search(r"#k=1&f=\d+$", page.url)  # a URL per position
    # the move list names cards (F-2.6), and a click seeks
    first = page.inner_text("#moves li[data-k='1']")
    assert re.search(r"Red: [A-Z0-9]+ \d+, ", first) and "(p1)" not in first, first  # seats named as the seat pages name them
    page.click("#moves li[data-k='0']")
    page.wait_for_function("document.getElementById('replay').dataset.k === '0'", timeout=WAIT_MS)
    page.click("#moves li[data-k='2']")
    page.wait_for_function("document.getElementById('replay').dataset.k === '2'", timeout=WAIT_MS)
    assert page.url.endswith("#k=2&f=0")
    shot(page, "factory-replay-stages")
    assert page.errors == [], page.errors
    page.context.close()


def test_issue14_autoplay_advances_and_pauses(browser, live):
    m = live.create("arena", ["builtin:hunter", "builtin:hunter"], {}, seed=6)
    wait_ended(live, m["match"])
    page = open_page(browser, f"{live.url}/replay/{m['match']}")
    page.wait_for_selector("#board svg", timeout=WAIT_MS)
    page.select_option("#speed", "8")
    page.click("#play")
    page.wait_for_function("Number(document.getElementById('replay').dataset.k) >= 3", timeout=WAIT_MS)
    page.keyboard.press(" ")  # pause
    k = _pos(page)[0]
    page.wait_for_timeout(600)
    assert _pos(page)[0] <= k + 1 and page.get_attribute("#replay", "data-playing") == ""
    assert page.errors == [], page.errors
    page.context.close()


def test_S_8_6_finished_submarine_replay_shows_every_sub(browser, live):
    m = live.create("submarine", ["builtin:hunter", "builtin:hunter"], {}, seed=3)
    wait_ended(live, m["match"])
    page = open_page(browser, f"{live.url}/replay/{m['match']}#k=2")
    page.wait_for_function("document.getElementById('replay').dataset.k === '2'", timeout=WAIT_MS)
    page.wait_for_selector("#board g.sub", state="attached", timeout=WAIT_MS)
    subs = set(page.eval_on_selector_all("#board g.sub", "gs => gs.map(g => g.dataset.sub)"))
    assert subs >= set("abcde") | set("vwxyz") - set(), subs  # both fleets, submerged ones included
    page.click("#gm-details summary")
    report = page.inner_text("#report")
    assert report and '{"type"' not in report
    shot(page, "submarine-replay")
    assert page.errors == [], page.errors
    page.context.close()


def test_F_9_1_watch_page_shows_the_last_turn_stage_by_stage(browser, live):
    """Issue 14 item 1: the page of a match shows its last turn as the game master published
    it — a picture after each sub-step, then the stage's table (F-9.1 columns)."""
    m = live.create("factory", ["builtin:pathfinder", "builtin:pathfinder"], {"turn_limit": "2"}, seed=5)
    wait_ended(live, m["match"])
    page = open_page(browser, f"{live.url}/watch/{m['match']}")
    page.wait_for_selector("#last-turn:not([hidden]) .stage-board svg", timeout=WAIT_MS)
    assert "(turn 2)" in page.inner_text("#last-turn summary")
    # issue 23: each register in sentences naming the robot; the F-9.1 table under "Details"
    words = page.inner_text("#last-turn .stage-words ul")
    assert "robot" in words and "plays" in words and "NAME" not in words, words
    page.click("#last-turn .stage-words details summary")
    assert page.inner_text("#last-turn table.stage thead").startswith("NAME")  # a column per robot
    labels = page.eval_on_selector_all("#last-turn table.stage td.label", "ts => ts.map(t => t.textContent)")
    assert {"MODE", "CARDS", "MOVES"} <= set(labels), labels  # F-9.1: one row per label
    buttons = page.locator("#last-turn .frames button")
    assert buttons.count() >= 6  # the start picture, then at least one per stage
    first = page.inner_html("#last-turn .stage-board")
    buttons.nth(buttons.count() - 1).click()
    page.wait_for_function("document.getElementById('last-turn').dataset.frame !== '0'", timeout=WAIT_MS)
    assert page.inner_html("#last-turn .stage-board") != first
    assert page.errors == [], page.errors
    page.context.close()
