"""Accessibility of the seat pages (issue 13, item 8): every game is played for one full turn with
the keyboard alone (``page.keyboard``: Tab, Enter, arrow keys; setup included for dadoed and
submarine; board squares chosen with the board's keyboard cursor), every control has an
accessible name (Playwright's ARIA snapshot, i.e. Chromium's accessibility tree), the board has a
text alternative, and the main text of the page reads at a WCAG contrast of at least 4.5:1
(3:1 for large text), computed from the browser's computed styles.

The mouse is never used here; the JSON box is never typed in.
"""

from __future__ import annotations

import json
import re

import pytest
from test_web_browser import (BOT, WAIT_MS, browser, open_page, shot, view_of, wait_decision,  # noqa: F401
                              wait_my_move, wait_ready)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARROW = {"N": "ArrowUp", "E": "ArrowRight", "S": "ArrowDown", "W": "ArrowLeft"}


# ---- keyboard helpers -----------------------------------------------------------------------------
def tab_to(page, selector: str, limit: int = 300) -> None:
    """Press Tab until the focused element matches ``selector`` (as a keyboard user would)."""
    for _ in range(limit):
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} cannot be reached with Tab (focus on "
                         f"{page.evaluate('document.activeElement.outerHTML.slice(0, 120)')})")


def press_on(page, selector: str, key: str = "Enter") -> None:
    tab_to(page, selector)
    page.keyboard.press(key)


def cursor_to(page, square: str) -> None:
    """Tab to the board, move its keyboard cursor to ``square`` with the arrow keys, press Enter."""
    tab_to(page, "#board")
    for _ in range(40):
        d = page.evaluate("""(name) => {
            const g = document.querySelector('#board svg .grid-meta').dataset;
            const m = {cols: +g.cols, rows: +g.rows, cell: +g.cell, margin: +g.margin};
            const kit = window.botwarsGames[document.getElementById('page').dataset.game];
            const at = kit.grid.cell(document.getElementById('board').dataset.cursor, m), to = kit.grid.cell(name, m);
            return [to[0] - at[0], to[1] - at[1]]; }""", square)
        if d == [0, 0]:
            break
        page.keyboard.press("ArrowRight" if d[0] > 0 else "ArrowLeft" if d[0] < 0 else "ArrowDown" if d[1] > 0 else "ArrowUp")
    assert page.get_attribute("#board", "data-cursor") == square
    assert page.inner_text("#board-cursor").startswith(f"Cursor on {square}")
    page.keyboard.press("Enter")


def submit_by_keyboard(page) -> int:
    n = int(page.get_attribute("#page", "data-decision"))
    press_on(page, "#submit")
    page.wait_for_function("/^(Accepted|Refused|The game)/.test(document.getElementById('order-msg').textContent)",
                           timeout=WAIT_MS)
    msg = page.inner_text("#order-msg")
    assert msg.startswith("Accepted"), f"{msg} (orders: {page.input_value('#orders-json')})"
    wait_decision(page, n + 1)
    return n


def orders(page) -> dict:
    return json.loads(page.input_value("#orders-json"))


# ---- one turn of each game by keyboard ----------------------------------------------------------------
def arena_keys(page) -> None:
    wait_my_move(page, ".robot")
    view = view_of(page)
    taken = {(r["x"], r["y"]) for r in view["robots"]}
    for r in (r for r in view["robots"] if r["side"] == "F"):
        for d, (dx, dy) in {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}.items():
            if (r["x"] + dx, r["y"] + dy) not in taken and 1 <= r["x"] + dx <= 16 and 1 <= r["y"] + dy <= 16:
                press_on(page, f'.robot[data-sq="{r["x"]}:{r["y"]}"]')  # choose the robot
                page.keyboard.press(ARROW[d])  # R-rules: a move one square N/E/S/W
                o = next(o for o in orders(page)["orders"] if (o["x"], o["y"]) == (r["x"], r["y"]))
                assert (o["action"], o.get("dir")) == ("M", d)
                assert page.evaluate("document.activeElement.dataset.sq") == f"{r['x']}:{r['y']}"  # focus kept
                submit_by_keyboard(page)
                return
    raise AssertionError("no robot of ours can move")


def factory_keys(page) -> None:
    wait_my_move(page, ".registers")
    k = page.locator(".registers li").count()
    tab_to(page, ".cards .cardbtn")
    for _ in range(k):  # focus stays in the hand after each card goes to a register
        page.keyboard.press("Enter")
    assert page.locator(".registers .cardbtn").count() == k
    cards = orders(page)["cards"]
    if k >= 2:  # reorder: Shift+ArrowRight on the first register card swaps it with the second
        tab_to(page, ".registers [data-reg]")
        page.keyboard.press("Shift+ArrowRight")
        assert orders(page)["cards"][:2] == [cards[1], cards[0]]
        page.keyboard.press("Delete")  # take it back, then put it in again from the hand
        assert page.locator(".registers .cardbtn").count() == k - 1
        press_on(page, ".cards .cardbtn")
        assert page.locator(".registers .cardbtn").count() == k
    press_on(page, "#reboot", " ")  # the reboot declaration, toggled with Space and back
    assert orders(page)["reboot"] is True
    page.keyboard.press(" ")
    assert orders(page)["reboot"] is False
    submit_by_keyboard(page)


def geeko_keys(page) -> None:
    wait_my_move(page, ".registers-multi")
    robots = [page.locator(".registers-multi [data-robot]").nth(i).get_attribute("data-robot")
              for i in range(page.locator(".registers-multi [data-robot]").count())]
    for r in robots:
        press_on(page, f'.registers-multi [data-robot="{r}"]')
        assert page.get_attribute(f'[data-robot="{r}"]', "aria-pressed") == "true"
        press_on(page, ".cards .cardbtn")
    p = orders(page)
    assert all(len(p[r]) == 1 for r in robots)
    submit_by_keyboard(page)


def dadoed_setup_keys(page) -> None:
    wait_my_move(page, "[data-part]")
    view = view_of(page)
    mine = sorted(lb for lb, b in view["bots"].items() if b["owner"] == view["you"])
    for lb, (first, second) in zip(mine, [("dash", "root"), ("stride", "ignite")]):  # D-3.4
        press_on(page, f'[data-bot="{lb}"][data-part="0"][data-id="{first}"]')
        press_on(page, f'[data-bot="{lb}"][data-part="1"][data-id="{second}"]')
    assert orders(page)["supers"][mine[0]] == ["dash", "root"]
    submit_by_keyboard(page)


def dadoed_keys(page) -> None:
    wait_my_move(page, "[data-command]")
    cmd = next(c for c in ("step", "stride", "dash", "charge", "north_3", "south_3", "east_3", "west_3")
               if page.locator(f'[data-command="{c}"]').count())
    press_on(page, f'[data-command="{cmd}"]')
    for _ in range(4):
        if "Ready" in page.inner_text("#d-ready"):
            break
        field = page.locator("#d-steps [data-field]").first
        name, value = field.get_attribute("data-field"), field.get_attribute("data-value")
        if name.endswith("tile"):
            cursor_to(page, value)  # the board's keyboard cursor
        else:
            press_on(page, f'#d-steps [data-field="{name}"][data-value="{value}"]')
    assert "Ready" in page.inner_text("#d-ready")
    assert orders(page)["command"] == cmd
    submit_by_keyboard(page)


def submarine_setup_keys(page) -> None:
    wait_my_move(page, "[data-setup-sub]")
    row = view_of(page)["home_row"]
    specials = ["torpedo", "depth_charge", "sonar", "mine", "armor"]
    for i, sub in enumerate("abcde"):
        press_on(page, f'[data-setup-sub="{sub}"]')
        if i == 0:
            cursor_to(page, f"B{row}")  # S-3.3 placement with the board cursor
        else:
            press_on(page, f'[data-space="{"BCDEF"[i]}{row}"]')
        press_on(page, f'[data-special="{specials[i]}"]')
    p = orders(page)
    assert p["placement"] == {s: f"{'BCDEF'[i]}{row}" for i, s in enumerate("abcde")}
    assert p["specials"]["e"] == "armor"
    submit_by_keyboard(page)


def submarine_keys(page) -> None:
    wait_my_move(page, "#s-add")
    view = view_of(page)
    occupied = set((view.get("visible_enemy_subs") or {}).values()) | {s["space"] for s in view["own_subs"].values()}
    for letter, s in sorted(view["own_subs"].items()):
        col, row = "ABCDEFG".index(s["space"][0]), int(s["space"][1:])
        for d, (dc, dr) in {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}.items():
            c, r = col + dc, row + dr
            if 0 <= c < 7 and 1 <= r <= 7 and f"{'ABCDEFG'[c]}{r}" not in occupied:
                press_on(page, f'[data-sub="{letter}"]')
                press_on(page, '[data-action="move"]')
                press_on(page, f'[data-dir="{d}"]')
                press_on(page, "#s-add")
                assert orders(page)["actions"] == [{"sub": letter, "action": "move", "dir": d}]  # S-4.4
                ap = view["ap"]
                assert page.inner_text("#ap-counter") == f"AP left: {ap - 1} of {ap}"
                submit_by_keyboard(page)
                return
    raise AssertionError("no sub can move")


TURN = {"arena": arena_keys, "factory": factory_keys, "geeko": geeko_keys, "dadoed": dadoed_keys,
        "submarine": submarine_keys}
SETUP = {"dadoed": dadoed_setup_keys, "submarine": submarine_setup_keys}

# ---- checks done by hand: names and contrast ---------------------------------------------------------
UNNAMED = re.compile(r"^\s*- (button|combobox|checkbox|textbox|spinbutton|radio|listbox|slider|switch)(\s*\[[^\]]*\])*\s*:?\s*$")

CONTRAST_JS = """(selectors) => {
  const parse = c => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, bot) => { const a = top[3]; return [0, 1, 2].map(i => top[i] * a + bot[i] * (1 - a)).concat([1]); };
  const lum = c => { const ch = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]; };
  function background(e) {  // the composited background behind e (solid colours; no images)
    const layers = [];
    for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
      const cs = getComputedStyle(n), bg = parse(cs.backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] === 1) break;
    }
    let c = [255, 255, 255, 1];
    for (const l of layers.reverse()) c = over(l, c);
    return c;
  }
  function opacity(e) { let o = 1; for (let n = e; n && n.nodeType === 1; n = n.parentElement) o *= Number(getComputedStyle(n).opacity); return o; }
  const out = [];
  for (const sel of selectors) for (const e of document.querySelectorAll(sel)) {
    if (!e.getClientRects().length || !e.textContent.trim() || e.disabled || e.closest('[hidden], .visually-hidden, svg')) continue;
    const cs = getComputedStyle(e), bg = background(e), fg = parse(cs.color);
    fg[3] *= opacity(e);
    const ink = over(fg, bg), l1 = lum(ink), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    out.push({sel, text: e.textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100, need: large ? 3 : 4.5,
              fg: cs.color, bg: `rgb(${bg.slice(0, 3).map(Math.round).join(',')})`});
  }
  return out;
}"""
TEXT = ["header.top a", "header.top span", "#who", ".when", "#state", ".swatch", ".hint", ".note", ".keys", ".cmdhelp",
        "#order-msg", ".near-msg", "#board-cursor", "h2", "h3", "summary", "label", "button", ".side-name", ".side-sum li",
        "table.clocks td", "table.clocks th", "ul.happened li", ".events h3", ".empty", ".apbar", ".chosen", ".ready",
        "ul.warnings li", "#result-head", "#result-why", ".banner a"]


def check_names(page, game: str, pieces: bool = True) -> None:
    """Every button, select, input and textarea has an accessible name (Chromium's
    accessibility tree, as Playwright's ARIA snapshot shows it); the board is an image with a
    name and a text alternative of its pieces."""
    snap = page.locator("body").aria_snapshot()
    bad = [line for line in snap.splitlines() if UNNAMED.match(line)]
    assert not bad, f"{game}: controls without an accessible name:\n" + "\n".join(bad)
    assert page.get_by_role("button", name="Submit orders").count() == 1
    assert page.locator("#orders-json").evaluate("e => e.labels.length") == 1
    svg_name = page.get_attribute("#board svg", "aria-label") or ""
    assert page.get_attribute("#board svg", "role") == "img" and svg_name.startswith(f"{game} board")
    assert page.get_attribute("#board", "tabindex") == "0"
    assert "The board in words" in page.locator("#board-text").text_content()
    if pieces:  # a heading per side, then its pieces
        assert page.locator("#board-text h4").count() >= 1, f"{game}: no pieces in the board's text alternative"
        assert page.locator("#board-text li").count() >= 1


def check_contrast(page, game: str) -> list[dict]:
    rows = page.evaluate(CONTRAST_JS, TEXT)
    assert len(rows) >= 20, f"{game}: too few text elements measured ({len(rows)})"
    low = [r for r in rows if r["ratio"] < r["need"]]
    assert not low, f"{game}: text below the WCAG contrast minimum: {low}"
    return rows


@pytest.mark.parametrize("game", sorted(TURN))
def test_issue13_a_keyboard_user_plays_a_turn_of_every_game(browser, live, game):  # noqa: F811
    m = live.create(game, ["remote", BOT[game]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    if game in SETUP:
        page.wait_for_selector("#keys-help", timeout=WAIT_MS)
        check_names(page, game, pieces=False)
        SETUP[game](page)
    wait_my_move(page, "#keys-help")
    assert "Keyboard:" in page.inner_text("#keys-help")  # the help line of every seat page
    check_names(page, game)
    check_contrast(page, game)
    TURN[game](page)
    assert page.get_attribute("#page", "data-status") in ("running", "ended")
    # the live region says what just happened (issue 23: "Turn 8"; "Your turn 4" where turns alternate)
    page.wait_for_function("/^((Your|Red's|Blue's) turn \\d+|Turn \\d+|Setup): /.test(document.getElementById('announce').textContent)",
                           timeout=WAIT_MS)
    check_contrast(page, game)
    shot(page, f"{game}-keyboard")
    assert page.errors == [], page.errors
    page.context.close()


def test_issue13_a_refusal_is_spoken_next_to_its_control(browser, live):  # noqa: F811
    """Submarine: Add over the AP budget is refused beside Add (role=alert); a full factory
    register set refuses the next card beside the hand."""
    m = live.create("factory", ["remote", BOT["factory"]], seed=4)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, ".registers")
    k = page.locator(".registers li").count()
    tab_to(page, ".cards .cardbtn")
    for _ in range(k + 1):  # one card too many
        page.keyboard.press("Enter")
    near = page.locator(".cards + .near-msg")
    assert near.count() == 1 and "registers are full" in near.inner_text()
    assert near.get_attribute("role") == "alert"
    assert page.inner_text("#order-msg") == ""  # not far away beside Submit
    assert page.errors == [], page.errors
    page.context.close()


def test_issue13_spectator_page_names_and_contrast(browser, live):  # noqa: F811
    m = live.create("dadoed", [BOT["dadoed"], BOT["dadoed"]], seed=2)
    page = open_page(browser, f"{live.url}/watch/{m['match']}")
    wait_ready(page)
    snap = page.locator("body").aria_snapshot()
    assert not [line for line in snap.splitlines() if UNNAMED.match(line)]
    page.wait_for_selector("#board-text h4", state="attached", timeout=WAIT_MS)
    assert re.search(r"(Blue|Orange)'s bot [A-D] on [A-H]\d", page.locator("#board-text").text_content())  # pieces in words
    rows = check_contrast(page, "dadoed spectator")
    # the measurement sees what a reader sees: faded muted text is caught
    # (appended and measured in one script turn, on <main>, which live updates never replace:
    # the events panel is re-rendered on each decision point and could drop the probe between calls)
    faded = page.evaluate("(sel) => { (document.querySelector('main') || document.body).append(Object.assign("
                          "document.createElement('p'), {className: 'hint', id: 'faded', textContent: 'faded text', "
                          f"style: 'opacity: .6'}})); return ({CONTRAST_JS})(sel); }}", ["#faded"])
    assert len(faded) == 1 and faded[0]["ratio"] < 4.5
    assert page.errors == [], page.errors
    page.context.close()


def test_issue13_lobby_and_rules_names_and_contrast(browser, live):  # noqa: F811
    page = open_page(browser, live.url + "/")
    page.wait_for_selector("#create-btn", timeout=WAIT_MS)
    snap = page.locator("body").aria_snapshot()
    bad = [line for line in snap.splitlines() if UNNAMED.match(line)]
    assert not bad, "lobby controls without an accessible name:\n" + "\n".join(bad)
    rows = page.evaluate(CONTRAST_JS, TEXT + [".pdoc", "p", "li", "a", "option", "legend"])
    assert len(rows) >= 20
    low = [r for r in rows if r["ratio"] < r["need"]]
    assert not low, f"lobby: text below the WCAG contrast minimum: {low}"
    page.goto(live.url + "/rules/submarine")
    rows = page.evaluate(CONTRAST_JS, ["article.rules p", "article.rules li", "article.rules td", ".toc a", "h1", "h2"])
    assert rows and not [r for r in rows if r["ratio"] < r["need"]]
    assert page.errors == [], page.errors
    page.context.close()
