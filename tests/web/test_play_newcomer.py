"""Issue 23 item 7: a newcomer plays each game to the end in the browser, by clicking only.

For each of the five games, on a 1280x800 desktop and a 390x844 phone, a short match (few turns,
small board) against a built-in bot is played from its seat page by clicking the board, the
cards, the command and action buttons (the JSON box is never typed in; setups use the same
clicks as tests/web/test_web_browser.py). At every turn the visible text of the page holds no
rule id, no ``undefined`` and no JSON; the end screen says "You won / You lost / Draw / You
finished" with the reason in words and the final scores; the "How to play" link opens the game's
page, whose "Full rules" link leads on. Start, mid-game and end screenshots of the viewport go to
``docs/screens/<game>-<size>-<start|mid|end>.png`` (linked from docs/web.md).

Selectors are the pages' roles, ids and data attributes, not their layout. Skipped, with the
reason, only when Chromium cannot be had (the ``browser`` fixture of test_web_browser.py).
"""

from __future__ import annotations

import json
import os
import re

import pytest
import test_web_browser
from test_web_browser import BOT, SETUP, WAIT_MS, browser, open_page, view_of, wait_ready  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCREENS = os.path.join(ROOT, "docs", "screens")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
MAX_SHOT_BYTES = 150_000
# a rule id (R26, H5 is not one on these pages; F-5.4, G-4.5, D-3.4, S-3.3) anywhere on screen is a defect
RULE_ID = re.compile(r"\b(R\d+|[FGDS]-\d+(\.\d+)*)\b")
SEAT_ID = re.compile(r"\bp{1,2}[1-8]\b")
HEADS = ("You won", "You lost", "Draw", "You finished", "You share the win")
# small matches: a few turns on small boards
CONFIG = {"arena": {"max_turns": "3"}, "factory": {"board": "tiny-yard", "turn_limit": "2"},
          "geeko": {"turn_limit": "2"}, "dadoed": {"max_turns": "3"}, "submarine": {"max_rounds": "1"}}


def visible_text_is_plain(page, where: str) -> None:
    """What the page shows (``innerText``: closed "Details" disclosures and the orders box left
    out) has no rule id, no engine seat id (``p1``), no ``undefined`` and no JSON object."""
    text = page.evaluate("document.body.innerText")
    found = RULE_ID.search(text)
    assert not found, f"{where}: rule id {found.group(0)!r} on screen: …{text[max(0, found.start() - 80):found.end() + 80]}…"
    assert "undefined" not in text, f"{where}: 'undefined' on screen"
    seat = SEAT_ID.search(text)  # a seat is its colour or its player's name, never the engine's p1 (issue 23 item 2)
    assert not seat, f"{where}: seat id {seat.group(0)!r} on screen: …{text[max(0, seat.start() - 80):seat.end() + 80]}…"
    assert '{"' not in text, f"{where}: JSON on screen: …{text[text.index(chr(123) + chr(34)) - 80:][:200]}…"


def screenshot(page, game: str, size: str, when: str) -> None:
    """The viewport (not the full page) as docs/screens/GAME-SIZE-WHEN.png, kept small."""
    os.makedirs(SCREENS, exist_ok=True)
    path = os.path.join(SCREENS, f"{game}-{size}-{when}.png")
    page.screenshot(path=path, animations="disabled", caret="hide")
    from PIL import Image  # a 256-colour palette: a page of flat colours loses nothing visible
    with Image.open(path) as img:
        small = img.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)
    assert os.path.getsize(path) < MAX_SHOT_BYTES, f"{path}: {os.path.getsize(path)} bytes"


def click_square(page, name: str) -> None:
    """Click the centre of square ``name`` of the board, scrolled into view first (on a phone the
    board and the controls do not fit on one screen)."""
    page.evaluate("""(name) => {
        const svg = document.querySelector('#board svg'), g = svg.querySelector('.grid-meta').dataset;
        const kit = window.botwarsGames[document.getElementById('page').dataset.game];
        const m = {cols: +g.cols, rows: +g.rows, cell: +g.cell, margin: +g.margin};
        const cr = kit.grid.cell(name, m), pt = svg.createSVGPoint();
        pt.x = m.margin + (cr[0] + .5) * m.cell; pt.y = m.margin + (cr[1] + .5) * m.cell;
        const p = pt.matrixTransform(svg.getScreenCTM());
        if (p.y < 40 || p.y > innerHeight - 40) window.scrollBy(0, p.y - innerHeight / 2); }""", name)
    _original_click(page, name)


_original_click = test_web_browser.click_square


@pytest.fixture(autouse=True)
def _scrolled_board_clicks(monkeypatch):
    """The setups borrowed from test_web_browser.py click squares through :func:`click_square`."""
    monkeypatch.setattr(test_web_browser, "click_square", click_square)


def state(page) -> dict:
    return page.evaluate("({d: Number(document.getElementById('page').dataset.decision || 0),"
                         " s: document.getElementById('page').dataset.status,"
                         " mine: document.getElementById('page').dataset.yourTurn === 'true'})")


def wait_turn_or_end(page) -> str:
    """Wait until this seat is to move (its controls built) or the match has ended."""
    page.wait_for_function("document.getElementById('page').dataset.status === 'ended' || "
                           "(document.getElementById('page').dataset.yourTurn === 'true' && "
                           " document.querySelector('#entry button'))", timeout=WAIT_MS * 4)
    page.wait_for_selector("#board svg .grid-meta", state="attached", timeout=WAIT_MS)
    return "ended" if state(page)["s"] == "ended" else "mine"


def submit(page) -> None:
    """Press Submit; wait for the acceptance, then for the match to move on (or end)."""
    n = state(page)["d"]
    page.click("#submit")
    page.wait_for_function("/^(Accepted|Refused|The game)/.test(document.getElementById('order-msg').textContent)",
                           timeout=WAIT_MS)
    msg = page.inner_text("#order-msg")
    assert msg.startswith("Accepted"), f"{msg} (orders: {page.input_value('#orders-json')})"
    page.wait_for_function(f"Number(document.getElementById('page').dataset.decision) > {n} || "
                           "document.getElementById('page').dataset.status === 'ended'", timeout=WAIT_MS * 4)


# ---- one turn's orders by clicking (no submission) ---------------------------------------------------
def arena_orders(page) -> None:
    view = view_of(page)
    mine = [r for r in view["robots"] if r["side"] == "F"]
    taken = {(r["x"], r["y"]) for r in view["robots"]}
    for r in mine[:1]:
        click_square(page, f"{r['x']}:{r['y']}")  # choose the robot on the board
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if (r["x"] + dx, r["y"] + dy) not in taken:
                click_square(page, f"{r['x'] + dx}:{r['y'] + dy}")  # a neighbour: a move there
                break


def factory_orders(page) -> None:
    for _ in range(page.locator(".registers li").count()):
        page.locator(".cards .cardbtn").first.click()


def geeko_orders(page) -> None:
    robots = page.locator(".registers-multi [data-robot]")
    for i in range(robots.count()):
        robots.nth(i).click()
        if page.locator(".cards .cardbtn").count():
            page.locator(".cards .cardbtn").first.click()


def dadoed_orders(page) -> None:
    cmd = next(c for c in ("step", "stride", "dash", "charge", "north_3", "south_3", "east_3", "west_3", "root", "douse")
               if page.locator(f'[data-command="{c}"]:not([disabled])').count())
    page.click(f'[data-command="{cmd}"]')
    for _ in range(6):  # the tile on the board, then direction buttons, until the order is complete
        if "Ready" in page.inner_text("#d-ready"):
            break
        field = page.locator("#d-steps [data-field]").first
        if (field.get_attribute("data-field") or "").endswith("tile"):
            click_square(page, field.get_attribute("data-value"))
        else:
            field.click()
    assert "Ready" in page.inner_text("#d-ready")


def submarine_orders(page) -> None:
    view = view_of(page)
    occupied = set((view.get("visible_enemy_subs") or {}).values()) | {s["space"] for s in view["own_subs"].values()}
    for _letter, s in sorted(view["own_subs"].items()):
        col, row = "ABCDEFG".index(s["space"][0]), int(s["space"][1:])
        for dc, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            c, r = col + dc, row + dr
            target = f"{'ABCDEFG'[c]}{r}" if 0 <= c < 7 and 1 <= r <= 7 else None
            if target and target not in occupied:
                click_square(page, s["space"])
                click_square(page, target)
                page.click("#s-add")
                return


ORDERS = {"arena": arena_orders, "factory": factory_orders, "geeko": geeko_orders, "dadoed": dadoed_orders,
          "submarine": submarine_orders}


def how_to_play_opens(page, game: str) -> None:
    """The seat page's "How to play" link opens the game's page (pictures drawn), and its
    "Full rules" link is one click further."""
    link = page.get_by_role("link", name="How to play")
    assert link.count() == 1 and link.get_attribute("href") == f"/howto/{game}"
    with page.context.expect_page() as new:
        link.click()
    howto = new.value
    howto.wait_for_load_state()
    assert howto.title().startswith("How to play")
    assert howto.locator("figure.howto-picture svg").count() >= 2
    assert howto.get_by_role("link", name="Full rules").first.get_attribute("href") == f"/rules/{game}"
    visible_text_is_plain(howto, f"{game}: How to play")
    howto.close()


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("game", sorted(ORDERS))
def test_issue23_a_newcomer_plays_a_whole_match_by_clicking(browser, live, game, size):
    m = live.create(game, ["remote", BOT[game]], CONFIG[game], seed=7)
    width, height = SIZES[size]
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}", width, height)
    wait_ready(page)
    how_to_play_opens(page, game)
    visible_text_is_plain(page, f"{game} {size}: start")
    screenshot(page, game, size, "start")
    if game in SETUP:  # the same clicks as the issue 13 tests (test_web_browser.py)
        SETUP[game](page)
    turns = 0
    while wait_turn_or_end(page) == "mine":
        ORDERS[game](page)
        assert page.input_value("#orders-json").strip(), "the clicks filled no orders"
        submit(page)
        turns += 1
        page.wait_for_function("document.querySelectorAll('#events li').length > 0", timeout=WAIT_MS)
        visible_text_is_plain(page, f"{game} {size}: after turn {turns}")
        if turns == 1:
            screenshot(page, game, size, "mid")
        assert turns <= 6, "the short match did not end"
    assert turns >= 1
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    head, why = page.inner_text("#result-head"), page.inner_text("#result-why")
    assert head in HEADS, head
    assert why.strip() and "_" not in why and "Why: the game finished" not in why, why
    visible_text_is_plain(page, f"{game} {size}: end")
    page.locator("#outcome").scroll_into_view_if_needed()
    screenshot(page, game, size, "end")
    # the headings of "What just happened" are turns, not decision points (issue 23 item 2)
    assert "Decision point" not in page.inner_text("#events")
    # (games of alternate turns say whose: "Your turn 4", "Blue's turn 5")
    assert re.search(r"^((Your|Red's|Blue's) turn \d+|Turn \d+|Setup|The end)$", page.inner_text("#events h3").strip()), \
        page.inner_text("#events h3")
    if size == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    assert page.errors == [], page.errors
    page.context.close()


def test_issue23_end_screens_in_words(browser, live):
    """The end screen's sentences, per game, from the rules' outcome: arena names its tie-break
    (R28: robots, then total HP), solo geeko says the turn its robots left room 5 (G-1.2), a
    resignation says who resigned, and a spectator reads the third person."""
    m = live.create("arena", ["remote", "builtin:hunter"], {"max_turns": "3"}, seed=7)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    said = page.evaluate("""() => {
      const ui = {seatInfo: s => window.botwarsGames.arena.seats[s]};
      const o = {winner: "p2", reason: "turn_limit", details: {robots: {p1: 4, p2: 4}, hp: {p1: 180, p2: 212}}};
      return [window.botwarsGames.arena.outcome(o, "p1", ui), window.botwarsGames.arena.outcome(o, null, ui)];
    }""")
    assert said[0]["why"] == "4 robots each; Blue wins on total HP 212 to 180."
    assert "Red 4 robots (180 HP), Blue 4 robots (212 HP)" in said[1]["scores"]
    page.click("#resign")  # the confirm dialog is accepted (open_page)
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    assert page.inner_text("#result-head") == "You lost" and page.inner_text("#result-why").startswith("You resigned.")
    spec = open_page(browser, f"{live.url}/watch/{m['match']}")
    spec.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    assert spec.inner_text("#result-head") == "Blue won" and "Red resigned." in spec.inner_text("#result-why")
    for p in (page, spec):
        assert p.errors == [], p.errors
        p.context.close()
    # solo geeko: "You finished" and the score turn, lower is better (the rules' outcome, as sent)
    g = live.create("geeko", ["remote"], {"turn_limit": "2"}, seed=7)
    page = open_page(browser, f"{live.url}/play/{g['match']}?token={g['seats'][0]['token']}")
    wait_ready(page)
    said = page.evaluate("""() => window.botwarsGames.geeko.outcome(
      {winner: "p1", reason: "finished", scores: {p1: 23}, ranking: [["p1"]],
       details: {turns: {p1: 23}, rooms: {p1: 5}, lost: {p1: 0}}}, "p1")""")
    assert said["head"] == "You finished" and said["why"] == "You left room 5 on turn 23; lower is better."
    page.click("#resign")
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    assert page.inner_text("#result-head") == "You finished"
    assert page.inner_text("#result-why").startswith("You resigned; you completed 0 of the 5 rooms.")
    assert page.errors == [], page.errors
    page.context.close()


def test_issue23_refusals_are_sentences_with_the_rule_under_details(browser, live):
    """A refused order (submarine, over the AP budget, S-4.3) reads as a sentence beside Submit;
    the rule number and the refused part wait under a closed "Details" disclosure."""
    m = live.create("submarine", ["remote", "builtin:random"], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    SETUP["submarine"](page)
    page.wait_for_selector("#s-add", timeout=WAIT_MS * 2)
    page.click("#advanced summary")  # the only typed orders in this file: a refusal needs a bad order
    page.fill("#orders-json", json.dumps({"type": "orders", "actions": [{"sub": "b", "action": "depth_charge",
                                                                           "space": "D4"}] * 3}))
    page.click("#advanced summary")
    page.click("#submit")
    page.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Refused')", timeout=WAIT_MS)
    msg = page.inner_text("#order-msg")
    assert msg.endswith("Change the orders and submit again.") and "9 AP" in msg
    assert not RULE_ID.search(msg) and '{"' not in msg
    assert page.locator("#order-msg-details").is_visible()
    assert page.get_attribute("#order-msg-details", "open") is None
    page.click("#order-msg-details summary")
    assert "rule" in page.inner_text("#order-msg-details pre")
    assert page.errors == [], page.errors
    page.context.close()
