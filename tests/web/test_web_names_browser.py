"""In the browser (issue 24 items 2 and 6): a factory seat page shows the players' names beside
their colour words, a player names their seat once from the page (a refused name says why),
and the clock table shows the factory's deadline per turn instead of "Time bank 0:00" (F-5.5:
no bank)."""

from __future__ import annotations

import httpx
import pytest

from test_web_browser import WAIT_MS, browser, open_page, wait_ready  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_factory_seat_page_shows_names_and_the_turn_deadline_in_the_bank_column(browser, live):
    r = httpx.post(f"{live.url}/api/matches", json={"game": "factory", "seats": ["remote", "remote"], "seed": 5,
                                                    "names": [None, 'Bo & "Co"'], "clock_preset": "daily"})
    assert r.status_code == 201, r.text
    m = r.json()
    mid, tok = m["match"], [s["token"] for s in m["seats"]]
    page = open_page(browser, f"{live.url}/play/{mid}?token={tok[0]}")
    wait_ready(page)
    page.wait_for_selector("#clocks tr[data-seat='p2']", timeout=WAIT_MS)
    p2 = page.text_content("#clocks tr[data-seat='p2']")
    assert 'Bo & "Co"' in p2  # the name, as text (never markup), beside the colour word
    banks = page.eval_on_selector_all("#clocks td.bank", "tds => tds.map(t => t.textContent)")
    assert banks == ["none (each turn has 1 day)"] * 2  # F-5.5: a deadline a turn, no bank
    assert "0:00" not in "".join(banks)
    # the player names the seat: a refused name first, then a good one
    page.fill("#my-name", "<b>me</b>")
    page.click("#set-name")
    page.wait_for_function("document.getElementById('name-msg').textContent.includes('markup')", timeout=WAIT_MS)
    page.fill("#my-name", "Ana")
    page.click("#set-name")
    page.wait_for_function("document.getElementById('me').textContent.startsWith('Ana (')", timeout=WAIT_MS)
    assert page.query_selector("#my-name") is None  # once: the field is gone
    assert httpx.get(f"{live.url}/api/matches/{mid}").json()["seats"][0]["name"] == "Ana"
    assert page.errors == []
