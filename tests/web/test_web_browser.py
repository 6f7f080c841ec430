"""Browser tests (issue 8): Playwright (sync API) driving the system Chromium against a real
server. For each of the five games two browser contexts join their seats and play a full turn
through the page's own controls, a spectator sees the update, and the replay viewer steps
through a finished match. Screenshots of every page go to ``test-artifacts/web/``.

Skipped, with the reason, only when Chromium cannot be found (``scripts/ensure-chromium.sh``
installs Debian's package) or started.
"""

from __future__ import annotations

import os
import subprocess
import time

import httpx
import pytest

pytestmark = pytest.mark.browser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ART = os.path.join(ROOT, "test-artifacts", "web")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 15000


@pytest.fixture(scope="module")
def browser():
    """The system Chromium under Playwright; skips with the reason when it cannot be had."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright)")
    if not os.path.exists(CHROMIUM):
        try:
            subprocess.run(["bash", os.path.join(ROOT, "scripts", "ensure-chromium.sh")], check=True,
                           capture_output=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as exc:
            pytest.skip(f"Chromium not found at {CHROMIUM} and scripts/ensure-chromium.sh failed: {exc}")
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    except Exception as exc:  # noqa: BLE001 - any launch failure is a reason to skip
        pw.stop()
        pytest.skip(f"Chromium at {CHROMIUM} could not be started: {exc}")
    os.makedirs(ART, exist_ok=True)
    yield b
    b.close()
    pw.stop()


def open_page(browser, url: str, width: int = 1280, height: int = 800):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.errors = errors  # type: ignore[attr-defined]
    return page


def decision_of(page) -> int:
    return int(page.get_attribute("#page", "data-decision") or 0)


def wait_decision(page, n: int) -> None:
    """Wait until the page (updated over its WebSocket) shows decision point ``n`` or later."""
    page.wait_for_function(f"Number(document.getElementById('page').dataset.decision || 0) >= {n}",
                           timeout=WAIT_MS)


def wait_ready(page) -> None:
    page.wait_for_function("document.getElementById('page').dataset.decision !== undefined", timeout=WAIT_MS)
    page.wait_for_selector("#board svg", timeout=WAIT_MS)


def submit_ok(page) -> None:
    page.click("#submit")
    page.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Accepted')",
                           timeout=WAIT_MS)


def suggest_and_submit(page) -> None:
    page.click("#suggest")
    page.wait_for_function("document.getElementById('orders-json').value.length > 2", timeout=WAIT_MS)
    submit_ok(page)


def shot(page, name: str) -> None:
    page.screenshot(path=os.path.join(ART, f"{name}.png"), full_page=True)


def play_arena(p1, p2) -> None:
    for page in (p1, p2):
        page.wait_for_selector(".robot", timeout=WAIT_MS)
        robots = page.locator(".robot")
        robots.nth(0).click()
        page.click("[data-order=ME]")
        robots.nth(1).click()
        page.click("[data-order=AN]")
        assert '"action":"M","dir":"E"' in page.input_value("#orders-json")
        submit_ok(page)


def play_factory(p1, p2) -> None:
    for page in (p1, p2):
        page.wait_for_selector(".cardbtn", timeout=WAIT_MS)
        for _ in range(5):
            page.locator(".cards .cardbtn").first.click()
        assert len(page.locator(".registers .cardbtn").all()) == 5
        submit_ok(page)


def play_geeko(p1, p2) -> None:
    for page in (p1, p2):
        page.wait_for_selector(".cardbtn", timeout=WAIT_MS)
        for robot in ("A", "B"):
            page.click(f"[data-robot={robot}]")
            for _ in range(3):
                page.locator(".cards .cardbtn").first.click()
        assert '"length":3' in page.input_value("#orders-json")
        submit_ok(page)


def whose_turn(pages, selector: str):
    """The page of the seat the game waits for, once it shows the open decision point and
    ``selector`` in its order entry (an alternating game: one seat at a time)."""
    page = pages[0]
    url = page.url.split("/play/")[0]
    mid = page.get_attribute("#page", "data-match")
    summary = httpx.get(f"{url}/api/matches/{mid}").json()
    seat = summary["pending"][0]
    page = next(p for p in pages if p.get_attribute("#page", "data-seat") == seat)
    wait_decision(page, summary["decision"])
    page.wait_for_selector(selector, timeout=WAIT_MS)
    return page


def play_dadoed(p1, p2) -> None:
    suggest_and_submit(p1)  # setup: supers (D-3), suggested by a built-in bot and sent from the page
    suggest_and_submit(p2)
    for _ in range(2):  # then one order each through command / tile / direction
        page = whose_turn([p1, p2], "#d-command")
        page.select_option("#d-command", "step")
        submit_ok(page)


def play_submarine(p1, p2) -> None:
    suggest_and_submit(p1)  # setup: placement and specials (S-3.3)
    suggest_and_submit(p2)
    for _ in range(2):  # then one turn each: a sequence of actions with the AP counter
        page = whose_turn([p1, p2], "#s-action")
        page.click("#s-add")
        assert page.inner_text("#ap-counter").startswith("AP ")
        submit_ok(page)


PLAYS = {"arena": play_arena, "factory": play_factory, "geeko": play_geeko, "dadoed": play_dadoed,
         "submarine": play_submarine}


@pytest.mark.parametrize("game", sorted(PLAYS))
def test_issue8_two_seats_play_a_turn_and_spectator_sees_it(browser, live, game):
    m = live.create(game, ["remote", "remote"], seed=3)
    p1 = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    p2 = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][1]['token']}")
    spec = open_page(browser, f"{live.url}/watch/{m['match']}")
    for page in (p1, p2, spec):
        wait_ready(page)
    start = decision_of(spec)
    PLAYS[game](p1, p2)
    summary = httpx.get(f"{live.url}/api/matches/{m['match']}").json()
    assert summary["decision"] > start
    wait_decision(spec, summary["decision"])  # the spectator's page was pushed the new decision
    wait_decision(p1, summary["decision"])
    assert spec.locator("#board svg").count() == 1
    assert spec.locator("#orders-json").count() == 0  # a spectator has no order entry
    shot(p1, f"{game}-seat1")
    shot(p2, f"{game}-seat2")
    shot(spec, f"{game}-spectator")
    for page in (p1, p2, spec):
        assert page.errors == [], page.errors
        page.context.close()


def test_issue8_invalid_orders_message_shown_beside_the_control(browser, live):
    m = live.create("factory", ["remote", "remote"], seed=4)
    p1 = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(p1)
    p1.wait_for_selector(".cardbtn", timeout=WAIT_MS)
    p1.locator(".cards .cardbtn").first.click()  # one card where five registers are free
    p1.click("#submit")
    p1.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Refused')", timeout=WAIT_MS)
    assert "error" in (p1.get_attribute("#order-msg", "class") or "")
    shot(p1, "factory-refused")
    p1.context.close()


def test_issue8_lobby_creates_a_match_against_a_bot_and_phone_width(browser, live):
    lobby = open_page(browser, live.url + "/")
    lobby.select_option("#game", "arena")
    shot(lobby, "lobby")
    lobby.click("#create-btn")
    lobby.wait_for_selector("#links:not([hidden]) a.seat-link", timeout=WAIT_MS)
    shot(lobby, "lobby-created")
    link = lobby.locator("a.seat-link").first.get_attribute("href")
    assert lobby.locator("a.seat-link").count() == 1  # the bot's seat has no link
    phone = open_page(browser, live.url + link, width=390, height=844)
    wait_ready(phone)
    n = decision_of(phone)
    phone.wait_for_selector(".robot", timeout=WAIT_MS)
    phone.click("[data-order=D]")
    submit_ok(phone)  # the other seat is the built-in bot: the turn resolves
    wait_decision(phone, n + 1)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"the seat page scrolls sideways on a phone: {width}px"
    shot(phone, "arena-seat-phone")
    lobby.context.close()
    phone.context.close()


@pytest.mark.parametrize("game,config", [("arena", {"max_turns": "4"}), ("factory", {"turn_limit": "2"})])
def test_issue8_replay_viewer_steps_through_a_finished_match(browser, live, game, config):
    bot = {"arena": "builtin:hunter", "factory": "builtin:random"}[game]
    m = live.create(game, [bot, bot], config, seed=5)
    for _ in range(300):
        if httpx.get(f"{live.url}/api/matches/{m['match']}").json()["status"] == "ended":
            break
        time.sleep(0.05)
    else:
        pytest.fail("the bot match did not end")
    page = open_page(browser, f"{live.url}/replay/{m['match']}")
    page.wait_for_selector("#board svg", timeout=WAIT_MS)
    count = int(page.get_attribute("#replay", "data-count"))
    assert count >= 3
    assert page.get_attribute("#replay", "data-k") == "0"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('replay').dataset.k === '1'", timeout=WAIT_MS)
    page.keyboard.press("End")
    page.wait_for_function(f"document.getElementById('replay').dataset.k === '{count - 1}'", timeout=WAIT_MS)
    page.keyboard.press("PageUp")  # a whole decision back (← steps stage by stage in factory, issue 14)
    page.wait_for_function(f"document.getElementById('replay').dataset.k === '{count - 2}'", timeout=WAIT_MS)
    if game == "factory":  # the stage report tables beside the board
        page.wait_for_selector("#stage table.stage", timeout=WAIT_MS)
    page.click("#first")
    page.wait_for_function("document.getElementById('replay').dataset.k === '0'", timeout=WAIT_MS)
    page.click("#next")
    page.wait_for_function("document.getElementById('replay').dataset.k === '1'", timeout=WAIT_MS)
    page.wait_for_selector("#board svg", timeout=WAIT_MS)
    shot(page, f"{game}-replay")
    assert page.errors == [], page.errors
    page.context.close()
