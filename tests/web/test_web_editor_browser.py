"""The board editor in Chromium (issue 14 item 4): build a small valid factory board by clicks,
see a check error appear on its square and disappear, save the board (a download), start a
match on it and see the seat page; geeko's entry board says REJECT, then ACCEPT once loaded.

Skipped, with the reason, only when Chromium cannot be found or started (the ``browser``
fixture of ``test_web_browser.py``).
"""

from __future__ import annotations

import os

import pytest

from tests.web.test_web_browser import ART, WAIT_MS, browser, open_page  # noqa: F401 - the fixture
from tests.web.test_web_editor import ENTRY

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def use(page, tool: str, **params: str) -> None:
    """Pick a palette tool and set its fields (selects by value)."""
    page.click(f'#tools .tool[data-tool="{tool}"]')
    for name, value in params.items():
        page.select_option(f'#tool-params [data-param="{name}"]', value)


def status_is(page, text: str) -> None:
    page.wait_for_function(f"document.getElementById('status').textContent === {text!r}", timeout=WAIT_MS)


def test_issue14_editor_build_check_save_and_play(live, browser):  # noqa: F811
    page = open_page(browser, f"{live.url}/editor/factory")
    page.fill("#rows", "3")
    page.fill("#cols", "3")
    page.click("#new-board")
    # a blank board has no flag: F-3.8, a problem of the whole board (no square)
    page.wait_for_function("document.getElementById('problems').textContent.includes('flags must be exactly')",
                           timeout=WAIT_MS)
    assert page.locator("#play").is_disabled()
    use(page, "flag", n="1")
    page.click('#grid .sq[data-square="r3c3"]')
    status_is(page, "no problems")
    use(page, "conveyor", dir="E")
    page.click('#grid .sq[data-square="r2c2"]')
    use(page, "wall")
    page.check('input[name=side][value="E"]')
    page.click('#grid .sq[data-square="r1c1"]')
    page.wait_for_function("document.getElementById('text').value.includes('./wE')", timeout=WAIT_MS)
    assert page.locator('#grid .sq[data-square="r1c1"]').evaluate("b => b.classList.contains('wE')")
    # a second F1: the error appears on the square that repeats it ...
    use(page, "flag", n="1")
    page.click('#grid .sq[data-square="r2c1"]')
    bad = page.locator('#grid .sq.bad[data-square="r2c1"]')
    bad.wait_for(timeout=WAIT_MS)
    assert "F-3.8: flags must be exactly F1..Fn" in bad.get_attribute("data-problem")
    assert page.locator('#problems li[data-square="r2c1"]').count() == 1
    page.screenshot(path=os.path.join(ART, "editor-error.png"))
    # ... and goes once the square is erased
    use(page, "erase")
    page.click('#grid .sq[data-square="r2c1"]')
    status_is(page, "no problems")
    assert page.locator("#grid .sq.bad").count() == 0
    assert page.locator("#preview svg").count() == 1  # the game's own drawing
    with page.expect_download() as dl:
        page.click("#save")
    saved = open(dl.value.path(), encoding="utf-8").read()
    assert dl.value.suggested_filename == "my-board.board"
    rows = [ln.split() for ln in saved.splitlines() if ln.startswith("r") and ln[1].isdigit()]
    assert rows == [["r3", ".", ".", "F1"], ["r2", ".", "CYE", "."], ["r1", "./wE", ".", "."]]
    assert "rows: 3\ncols: 3\nstart: r1c1 N\n" in saved
    page.wait_for_function("!document.getElementById('play').disabled", timeout=WAIT_MS)
    page.click("#play")
    page.wait_for_url("**/play/*", timeout=WAIT_MS)
    page.locator("#page").wait_for(timeout=WAIT_MS)
    assert page.get_attribute("#page", "data-game") == "factory"
    assert not page.errors, page.errors


def test_G_11_editor_entry_board_verdict_live(live, browser):  # noqa: F811
    page = open_page(browser, f"{live.url}/editor/geeko")
    page.wait_for_function("document.getElementById('verdict').textContent === 'REJECT'", timeout=WAIT_MS)
    assert "REJECT V3: it has 0 flags" in page.text_content("#problems")
    page.fill("#text", ENTRY)
    page.click("#load-text")
    page.wait_for_function("document.getElementById('verdict').textContent === 'ACCEPT'", timeout=WAIT_MS)
    assert page.text_content('#grid .sq[data-square="r4c7"] .tok') == "F1"
    assert page.text_content("#problems").strip() == "none"
    assert not page.errors, page.errors
