"""A bot author's audit of the league pages in a browser (issue 15 item 4), one test per fix:

- the upload form offered every kind for every game (``data-kinds`` on the game options was
  never read), so a dadoed author could pick "rgkit robot" and learn only from the refusal;
- the owner token was given "to replace, retire or challenge with it", but no page could replace
  or retire a bot: the bot page has a form for both now.

Playwright and the system Chromium, as ``tests/web/test_web_browser.py`` (its fixtures reused).
"""

from __future__ import annotations

import os

import httpx
import pytest

from tests.web.test_web_browser import WAIT_MS, browser, open_page, shot  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STARTER = os.path.join(ROOT, "examples", "starters", "python", "bot.py")


@pytest.mark.browser
@pytest.mark.slow
def test_league_upload_form_offers_only_the_kinds_of_the_chosen_game(browser, live):
    page = open_page(browser, f"{live.url}/league", width=390, height=844)
    enabled = "[...document.getElementById('bot-kind').options].filter(o => !o.disabled).map(o => o.value)"
    assert page.evaluate(enabled) == ["py", "rgkit", "botwars-io", "jsonl-py", "jsonl-js"]  # arena first
    page.select_option("#bot-kind", "rgkit")
    page.select_option("#bot-game", "dadoed")
    assert page.evaluate(enabled) == ["py", "jsonl-py", "jsonl-js"]  # rgkit and botwars-io: arena only
    assert page.input_value("#bot-kind") == "py"  # the chosen rgkit is not left selected
    assert page.errors == [], page.errors
    page.context.close()


@pytest.mark.browser
@pytest.mark.slow
def test_league_bot_page_replaces_and_retires_with_the_owner_token(browser, live):
    with open(STARTER, encoding="utf-8") as f:
        source = f.read()
    r = httpx.post(f"{live.url}/api/league/bots", timeout=120,
                   json={"name": "owned", "game": "arena", "kind": "jsonl-py", "source": source})
    assert r.status_code == 201, r.text
    bot, token = r.json()["bot"], r.json()["token"]
    page = open_page(browser, f"{live.url}/league/bots/{bot}", width=390, height=844)
    page.fill("#owner-token-2", "not-the-token")
    page.fill("#new-source", source)
    page.click("#replace-btn")
    page.wait_for_function("document.getElementById('owner-error').textContent.length > 0", timeout=WAIT_MS)
    assert "not the owner token" in page.text_content("#owner-error")
    page.fill("#owner-token-2", token)
    page.set_input_files("#new-file", STARTER)
    page.wait_for_function("document.getElementById('new-source').value.length > 0", timeout=WAIT_MS)
    with page.expect_navigation(timeout=120_000):
        page.click("#replace-btn")
    assert httpx.get(f"{live.url}/api/league/bots/{bot}").json()["version"] == 2
    assert "version 2" in page.inner_text("main")
    page.fill("#owner-token-2", token)
    with page.expect_navigation(timeout=WAIT_MS):
        page.click("#retire-btn")  # its confirm() is accepted by open_page
    assert httpx.get(f"{live.url}/api/league/bots/{bot}").json()["status"] == "retired"
    assert page.locator("#owner-form").count() == 0 and "retired" in page.inner_text("main")
    shot(page, "league-audit-retired-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.errors == [], page.errors
    page.context.close()
