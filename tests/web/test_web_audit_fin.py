"""Issue 23, the last newcomer audit's list (the play pages at 1280x800 and on a 390x844 phone),
each item checked here against a real server in Chromium:

1. dadoed's and submarine's drawings carry a side panel inside the picture; on a phone the
   board shrank to make room for it (squares of ~20 px). On a narrow screen the page shows the
   board alone at the phone's width and the panel as a second picture under it.

Helpers and the browser fixture are those of ``tests/web/test_web_browser.py``.
"""

from __future__ import annotations

import re

import httpx

import pytest

from tests.web.test_web_browser import (BOT, WAIT_MS, browser, click_square, dadoed_setup, dadoed_turn,  # noqa: F401
                                        open_page, submit_ok,
                                        view_of, wait_my_move, wait_ready)  # noqa: F401

PHONE = {"width": 390, "height": 844}


def _square_px(page, selector: str) -> float:
    """The smallest drawn width, in CSS pixels, of the board's squares (``selector``)."""
    return page.evaluate(f"""() => Math.min(...[...document.querySelectorAll('#board svg {selector}')]
                                     .map(r => r.getBoundingClientRect().width))""")


@pytest.mark.browser
@pytest.mark.parametrize("game,squares", [("dadoed", "rect.tile"), ("submarine", "rect.space")])
def test_issue23_phone_board_fills_the_width(browser, live, game, squares):
    m = live.create(game, ["remote", BOT[game]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}", **PHONE)
    wait_ready(page)
    px = _square_px(page, squares)
    assert px >= 28, f"{game}: squares of {px:.1f} CSS px on a 390 px phone"
    # the panel's facts are still on the page, under the board (a second picture of the same drawing)
    # (folded under "The board's notes": the side cards say the same in words; issue 23, a phone
    # page 800 px shorter)
    page.wait_for_selector("#board-side svg", state="attached", timeout=WAIT_MS)
    assert not page.locator("#board-side svg").is_visible()
    page.click("#board-side summary")
    side = page.evaluate("() => document.querySelector('#board-side svg').getBoundingClientRect().width")
    assert side <= 390
    board_box = page.evaluate("() => document.querySelector('#board svg').getBoundingClientRect().right")
    assert board_box <= 390, board_box  # no sideways scrolling
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    # on a desktop the drawing keeps its panel in one picture
    desk = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(desk)
    assert desk.locator("#board-side svg").count() == 0
    assert page.errors == [] and desk.errors == [], (page.errors, desk.errors)


@pytest.mark.browser
def test_S_3_3_submarine_submit_is_off_until_the_fleet_is_complete(browser, live):
    m = live.create("submarine", ["remote", BOT["submarine"]], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, "[data-setup-sub]")
    row = view_of(page)["home_row"]
    assert page.is_disabled("#submit")
    assert page.inner_text("#submit-why") == f"Place sub a on row {row} and pick its special (5 subs still to set up)."
    specials = ["torpedo", "depth_charge", "sonar", "mine", "armor"]
    for i, sub in enumerate("abcde"):
        page.click(f'[data-setup-sub="{sub}"]')
        click_square(page, f"{'BCDEF'[i]}{row}")
        if sub == "e":  # the last sub placed but without its special: still off, and says so
            assert page.is_disabled("#submit")
            assert page.inner_text("#submit-why") == "Pick a special for sub e."
        page.click(f'[data-special="{specials[i]}"]')
    assert not page.is_disabled("#submit") and page.inner_text("#submit-why") == ""
    submit_ok(page)
    assert page.errors == [], page.errors


CODE = re.compile(r"\b(FWD[123]|RVS[123]|RT90|LF90|UTRN|SLF1|SRT1|IDLE)\b")  # the cards' codes (F-5.1)


@pytest.mark.browser
@pytest.mark.parametrize("game", ["factory", "geeko"])
def test_F_5_1_program_cards_read_as_words_not_codes(browser, live, game):
    m = live.create(game, ["remote", BOT[game]], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, ".cards .cardbtn")
    hand = view_of(page)["hand"]  # the seat's own hand: codes and priorities ("LF90 350")
    words = page.locator(".cards .cardbtn").all_inner_texts()
    assert len(words) == len(hand)
    for card, text in zip(hand, words):
        move, prio = card.split()
        assert re.fullmatch(r"[A-Z][a-z-]+( [a-z0-9]+)* · priority " + prio, text), (card, text)
        assert CARD_WORDS[move] == text.split(" · ")[0], (card, text)
    if game == "geeko":
        page.click('[data-robot="A"]')
    page.click(".cards .cardbtn >> nth=0")  # into a register: the register card reads the same
    reg = page.locator(".cardbtn.in").first.inner_text()
    assert reg == words[0], (reg, words[0])
    assert not CODE.search(page.inner_text("#entry")), page.inner_text("#entry")
    assert page.errors == [], page.errors


CARD_WORDS = {"FWD1": "Move 1 forward", "FWD2": "Move 2 forward", "FWD3": "Move 3 forward", "RVS1": "Back up 1",
              "RVS2": "Back up 2", "RVS3": "Back up 3", "RT90": "Turn right", "LF90": "Turn left", "UTRN": "U-turn",
              "SLF1": "Slide 1 left", "SRT1": "Slide 1 right", "IDLE": "Do nothing"}


RULE_ID = re.compile(r"(§\d|\b[RP]\d+\b|\b[A-Z]-\d+(\.\d+)*)")  # R26, P2, D-8.3, F-6.20, §12


def test_issue23_lobby_options_are_plain_labels_with_rule_ids_only_in_tooltips(live):
    from html.parser import HTMLParser

    class Text(HTMLParser):  # what a reader sees: text, not attributes (tooltips)
        def __init__(self):
            super().__init__()
            self.parts, self.titles, self.skip = [], [], 0

        def handle_starttag(self, tag, attrs):
            self.skip += tag in ("script", "style")
            self.titles += [v for k, v in attrs if k == "title" and v]

        def handle_endtag(self, tag):
            self.skip -= tag in ("script", "style")

        def handle_data(self, data):
            if not self.skip:
                self.parts.append(data)

    html = httpx.get(f"{live.url}/").text
    p = Text()
    p.feed(html)
    shown = " ".join(p.parts)
    assert "Last turn" in shown  # the options are there (arena's max_turns, R26) ...
    assert not RULE_ID.search(shown), RULE_ID.search(shown).group(0) + ": " + shown[max(0, RULE_ID.search(shown).start() - 80):RULE_ID.search(shown).end() + 20]
    assert "Last turn (R26)" in p.titles  # ... and the rule numbers stay one hover away
    assert "self_destruct" not in shown and "sacrifice_at" not in shown


KEY_WORDS = re.compile(r"\b(Tab|Enter|Space|Esc|Shift|[Kk]eyboard|[Aa]rrow keys|[Kk]eys?:)(\b|\+)")  # key names, capitalised


def _shown_key_hints(page) -> list[str]:
    """Text on screen (visible elements' own text, and buttons' titles a touch never shows
    anyway are left out) that speaks of keys."""
    texts = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
                     && !e.closest('.visually-hidden, [hidden]'))
        .map(e => [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim())
        .filter(Boolean)""")
    return [t for t in texts if KEY_WORDS.search(t)]


@pytest.mark.browser
@pytest.mark.parametrize("game", ["arena", "factory", "geeko", "dadoed", "submarine"])
def test_issue23_touch_devices_get_touch_help_not_keyboard_help(browser, live, game):
    m = live.create(game, ["remote", BOT[game]], seed=3)
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    page.wait_for_function("document.getElementById('page').dataset.yourTurn === 'true'", timeout=WAIT_MS)
    page.wait_for_selector("#entry button", timeout=WAIT_MS)
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")  # the premise: a touch screen
    hints = _shown_key_hints(page)
    assert hints == [], hints
    assert page.is_visible("#touch-help") and page.inner_text("#touch-help").startswith("Tap")
    ctx.close()
    assert errors == [], errors


TOFU_JS = """(sel) => {  // the characters of the buttons that the font draws as the missing-glyph box
    const out = [], c = document.createElement('canvas'); c.width = 40; c.height = 40;
    const g = c.getContext('2d');
    const draw = (ch, font) => { g.clearRect(0, 0, 40, 40); g.font = font; g.fillText(ch, 4, 30);
                                 return Array.from(g.getImageData(0, 0, 40, 40).data).join(','); };
    for (const b of document.querySelectorAll(sel)) {
        const font = `24px ${getComputedStyle(b).fontFamily}`, box = draw('\\u0378', font);  // unassigned: a box
        for (const ch of b.textContent) if (ch.charCodeAt(0) > 127 && draw(ch, font) === box) out.push([b.textContent, ch]);
    }
    return out; }"""


@pytest.mark.browser
def test_issue23_watch_and_replay_buttons_draw_no_missing_glyph_boxes(browser, live):
    m = live.create("arena", ["builtin:hunter", "builtin:hunter"], config={"max_turns": 3}, seed=3)
    page = open_page(browser, f"{live.url}/watch/{m['match']}")
    page.wait_for_selector("#watch:not([hidden])", timeout=WAIT_MS)
    page.wait_for_function("document.getElementById('page').dataset.status === 'ended'", timeout=WAIT_MS)
    page.click('[data-watch="replay"]')
    assert page.evaluate(TOFU_JS, "#watch button") == []
    assert page.locator('#watch [data-watch="play"] svg.icon').count() == 1  # a drawn icon, not a glyph
    page.click('[data-watch="play"]')  # play <-> pause: both labels drawn
    assert page.evaluate(TOFU_JS, "#watch button") == []
    rp = open_page(browser, f"{live.url}/replay/{m['match']}")
    rp.wait_for_selector("#play", timeout=WAIT_MS)
    rp.click("#play")
    assert rp.evaluate(TOFU_JS, "button") == []
    assert page.errors == [] and rp.errors == [], (page.errors, rp.errors)


@pytest.mark.browser
def test_D_3_4_dadoed_setup_is_called_setup_and_the_first_turn_turn_1(browser, live):
    m = live.create("dadoed", ["remote", BOT["dadoed"]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    wait_my_move(page, "[data-part]")
    assert page.inner_text("#turn") == "Setup"
    dadoed_setup(page)
    wait_my_move(page, "[data-command]")
    first = page.inner_text("#turn")
    assert first.startswith("Turn 1"), first
    heads = page.locator("#events h3").all_inner_texts()
    assert heads[-1] == "Setup", heads  # the supers chosen (D-3.4): what happened at the setup
    assert heads.count("Turn 1") <= 1, heads
    page.reload()  # a page opened after the setup names it the same
    wait_ready(page)
    wait_my_move(page, "[data-command]")
    heads = page.locator("#events h3").all_inner_texts()
    assert heads[-1] == "Setup", heads
    dadoed_turn(page)  # Blue (us, or the bot) has played turn 1 at least
    page.wait_for_function("[...document.querySelectorAll('#events h3')].some(h => h.textContent === 'Turn 1')",
                           timeout=WAIT_MS)
    heads = page.locator("#events h3").all_inner_texts()
    assert "Setup" in heads and heads.count("Turn 1") == 1, heads
    wait_my_move(page, "[data-command]")  # Orange (the bot) has played turn 2 (D-5: one command a turn)
    assert page.inner_text("#turn").startswith("Turn 3"), page.inner_text("#turn")
    page.reload()  # a page opened now names the point just played by its turn, not the one awaited
    wait_ready(page)
    wait_my_move(page, "[data-command]")
    assert page.locator("#events h3").all_inner_texts()[0] == "Turn 2"
    assert page.errors == [], page.errors


@pytest.mark.parametrize("game,config,words", [
    ("dadoed", {"max_turns": 3}, "Draw: the turn limit was reached"),       # D-8.4
    ("submarine", {"max_rounds": 1}, None),                                  # S-7.9 (or a win before it)
])
def test_issue23_board_panel_states_the_end_in_words_not_the_engine_reason(live, game, config, words):
    from tests.web.test_web_pages import wait_ended
    m = live.create(game, [BOT[game], BOT[game]], config=config, seed=4)
    wait_ended(live, m["match"])
    outcome = httpx.get(f"{live.url}/api/matches/{m['match']}").json()["outcome"]
    svg = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg").text
    # the panel's first line: its heading (bold, left-aligned)
    head = re.search(r'<text [^>]*text-anchor="start"[^>]*font-weight="bold">(.*?)</text>', svg).group(1)
    assert f"({outcome['reason']})" not in svg and "_" not in head, head  # no "(elimination)", "(round_cap)"
    for url in ("/", f"/replay/{m['match']}"):  # the lobby's ended list, the replay viewer's heading
        assert f"({outcome['reason']})" not in httpx.get(f"{live.url}{url}").text, url
    if words:
        assert head == words, head
    else:
        assert re.fullmatch(r"Draw: .+|(Red|Blue).* wins(: .+| on points)", head), head
