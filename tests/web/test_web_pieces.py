"""The seat colours and the legend as the pages and the publication serve them (issue 23 item 3,
issue 24: one palette; render/palette.py)."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from html import unescape

import httpx
import pytest
from typer.testing import CliRunner

from botwars.cli import app
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import get_ruleset
from botwars.render.palette import PALETTE, palette_json

NS = "{http://www.w3.org/2000/svg}"
RS = get_ruleset("factory")


def test_each_seat_has_one_colour_in_the_text_report_the_page_and_the_drawing(live):
    """Issue 24: for seats 1-8 the colour word of the text report (F-2.9), the colour the seat
    page names and the fill of the robot drawn agree (seat 4 is yellow everywhere)."""
    seats = [f"p{i}" for i in range(1, 9)]
    st = RS.setup(RS.validate_config({"board": "tiny-yard"}), seats, 1)
    report = RS.render_text(st, None)
    words = dict(re.findall(r"^[A-H] (p\d) \((\w+)\):", report, re.M))
    doc = ET.fromstring(RS.svg(st))
    fills = {g.get("data-owner"): g.find(f"{NS}circle[@class='disc']").get("fill")
             for g in doc.iter(f"{NS}g") if g.get("class") == "robot"}
    m = live.create("factory", ["remote"] * 8, config={"board": "tiny-yard"})
    html = httpx.get(f"{live.url}/watch/{m['match']}").text
    page = json.loads(unescape(re.search(r'data-palette="([^"]*)"', html).group(1)))["seats"]
    for k, seat in enumerate(seats):
        want = PALETTE[k]
        assert words[seat] == want.word, seat
        assert fills[seat] == want.fill, seat
        assert page[seat]["name"] == want.name and page[seat]["colour"] == want.fill, seat
    assert words["p4"] == "yellow" and page["p4"]["name"] == "Yellow"
    assert palette_json(seats) == page


def test_legend_is_served_for_the_seat_page_and_in_the_publication(live, tmp_path):
    m = live.create("factory", ["remote", "remote"], config={"board": "tiny-yard"})
    r = httpx.get(f"{live.url}/web/matches/{m['match']}/legend.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert 'data-el="pit"' in r.text
    html = httpx.get(f"{live.url}/watch/{m['match']}").text
    assert 'data-legend="yes"' in html
    a = live.create("arena", ["remote", "remote"])
    assert httpx.get(f"{live.url}/web/matches/{a['match']}/legend.svg").status_code == 404
    # the published report (botwars replay --html) carries the legend before the first decision
    rec, out = tmp_path / "r.jsonl", tmp_path / "r.html"
    runner = CliRunner()
    res = runner.invoke(app, ["match", "factory", "builtin:random", "builtin:random", "--seed", "3",
                              "--set", "turn_limit=1", "--set", "board=tiny-yard", "--replay", str(rec)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["replay", str(rec), "--report", "--html", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert page.index('<section class="legend"') < page.index('<section class="decision"')
    assert page.count('class="legend-row" data-el="pit"') >= 1
    assert get_game("factory").legend is not None


@pytest.mark.browser
def test_seat_page_shows_the_drawn_legend_and_the_palette_names(live):
    """In Chromium: the factory seat page's legend card holds the legend drawn from the board's
    symbols (with the teleporter row on a board that has teleporters), and the players card names
    seat 4 Yellow with the palette's colour (issue 24: "p4 (yellow)" everywhere)."""
    from tests.web.test_web_browser import CHROMIUM, ARGS  # the browser tests' one Chromium setup
    pw_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM} (scripts/ensure-chromium.sh installs it)")
    m = live.create("factory", ["remote"] * 4, config={"board": "assembly-hall"})
    token = m["seats"][3]["token"]
    with pw_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = b.new_context(viewport={"width": 1280, "height": 800}).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{live.url}/play/{m['match']}?token={token}")
            page.click("#legend-card summary")
            page.wait_for_selector("#legend-board svg g.legend-row[data-el='teleporter']", timeout=15000)
            rows = page.eval_on_selector_all("#legend-board g.legend-row", "gs => gs.map(g => g.dataset.el)")
            assert "teleporter" in rows and "robot" in rows and len(rows) == len(set(rows))
            page.wait_for_function("document.getElementById('sides').textContent.includes('Yellow')", timeout=15000)
            colour = page.evaluate("JSON.parse(document.getElementById('page').dataset.palette).seats.p4.colour")
            assert colour == PALETTE[3].fill
            sides = page.inner_text("#sides")
            assert all(w in sides for w in ("Red", "Blue", "Green", "Yellow")) and "Orange" not in sides
            assert not errors, errors
        finally:
            b.close()


def test_turn_notices_name_the_seat_by_its_colour():
    """Issue 24: notices use the same colour word as the page and the reports."""
    from botwars.server.notices import NoticeService
    p = {"event": "move", "match": "m1", "game": "factory", "seat": "p4", "colour": PALETTE[3].word, "decision": 3,
         "turn": 2, "deadline_utc": None, "link": "http://x/watch/m1"}
    subject, body = NoticeService.render_mail(p)
    assert "It is seat p4 (yellow)'s move" in body
