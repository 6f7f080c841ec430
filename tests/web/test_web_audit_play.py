"""Issue 23's audit (a newcomer plays dadoed, submarine and factory by clicking, in Chromium):
what the audit found on the play pages and fixed, each checked here against a real server.

- submarine: the setup's special buttons, the sub picker, the players' panel and the board in
  words showed the engine's ids of the specials (``depth_charge``); they now read as the rules
  name them (S-3.3: "Depth Charge").

Helpers and the browser fixture are those of ``tests/web/test_web_browser.py``.
"""

from __future__ import annotations

import re

import pytest

from tests.web.test_web_browser import (BOT, browser, click_square, next_turn, open_page,  # noqa: F401
                                        submit_ok, view_of, wait_my_move, wait_ready)

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
