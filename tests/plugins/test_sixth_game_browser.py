"""The sixth game's seat page in a real browser (issue 26 item 5): flag race, registered by the
fixture only, is played from its seat page's JSON box; a refusal is shown in words, an accepted
step moves the match on and the board (the game's own drawing) and its legend are drawn.
Playwright drives the system Chromium against a real server (the fixtures of
test_minigame_browser.py; skipped with the reason only when Chromium cannot be had)."""

from __future__ import annotations

import httpx
import pytest
from test_minigame_browser import WAIT_MS, browser, server  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def test_F2_F3_steps_typed_into_the_json_box_are_refused_or_played(flagrace, browser, server):  # noqa: F811
    r = httpx.post(f"{server}/api/matches", json={"game": "flagrace", "seats": ["remote", "builtin:perfect"],
                                                  "seed": 7, "clock": False})
    assert r.status_code == 201, r.text
    made = r.json()
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/play/{made['match']}?token={made['seats'][0]['token']}")
    page.wait_for_function("document.getElementById('page').dataset.decision === '1'", timeout=WAIT_MS)
    assert page.locator("#howto-link").count() == 1
    page.fill("#orders-json", '{"step": 4}')
    page.click("#submit")
    page.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Refused')", timeout=WAIT_MS)
    assert "from 1 to 3" in page.text_content("#order-msg")
    page.fill("#orders-json", '{"step": 3}')
    page.click("#submit")
    # p1 steps 3, the perfect p2 answers at once (to square 4), and it is p1's turn again: decision 3
    page.wait_for_function("document.getElementById('page').dataset.decision === '3'", timeout=WAIT_MS)
    view = httpx.get(f"{server}/api/matches/{made['match']}/view",
                     headers={"Authorization": f"Bearer {made['seats'][0]['token']}"}).json()
    assert view["view"]["square"] == 4 and view["view"]["to_move"] == "p1"
    page.wait_for_function("document.querySelector('#board svg') !== null", timeout=WAIT_MS)
    assert "the counter on square 4" in page.inner_html("#board")
    assert errors == []
    page.context.close()
