"""Browser tests (issues 8 and 13): Playwright (sync API) driving the system Chromium against a
real server.

Issue 13: a newcomer plays every game from its seat page by clicking alone (the board, the
cards, the command and action buttons; never the JSON box), setup included, for three full
turns against a built-in bot; a refused submarine order is followed by a valid one without a
reload; the result banner says who won and why and offers a rematch; the lobby and a seat page
fit a 390 px phone. Screenshots go to ``test-artifacts/web/``.

Skipped, with the reason, only when Chromium cannot be found (``scripts/ensure-chromium.sh``
installs Debian's package) or started.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import httpx
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ART = os.path.join(ROOT, "test-artifacts", "web")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 15000
BOT = {"arena": "builtin:hunter", "factory": "builtin:random", "geeko": "builtin:random",
       "dadoed": "builtin:random", "submarine": "builtin:random"}


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
    page.on("dialog", lambda d: d.accept())
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
    page.wait_for_selector("#board svg .grid-meta", state="attached", timeout=WAIT_MS)


def wait_my_move(page, selector: str) -> None:
    """Wait until it is this seat's move and the order controls (``selector``) are built."""
    page.wait_for_function("document.getElementById('page').dataset.yourTurn === 'true' || "
                           "document.getElementById('page').dataset.status === 'ended'", timeout=WAIT_MS)
    page.wait_for_selector(selector, timeout=WAIT_MS)
    page.wait_for_selector("#board svg .grid-meta", state="attached", timeout=WAIT_MS)


def submit_ok(page) -> int:
    """Press Submit; wait for the acceptance; returns the decision point it was sent for."""
    n = decision_of(page)
    page.click("#submit")
    try:
        page.wait_for_function("/^(Accepted|Refused|The game)/.test(document.getElementById('order-msg').textContent)",
                               timeout=WAIT_MS)
    except Exception:
        raise AssertionError(f"no answer to the submission: message {page.inner_text('#order-msg')!r}, "
                             f"status {page.inner_text('#state')!r}, errors {page.errors}") from None
    msg = page.inner_text("#order-msg")
    assert msg.startswith("Accepted"), f"{msg} (orders: {page.input_value('#orders-json')})"
    return n


def click_square(page, name: str) -> None:
    """Click the centre of square ``name`` of the board drawing (the game's own notation),
    located with the page's kit (``grid.cell``) and the drawing's grid metadata."""
    xy = page.evaluate("""(name) => {
        const svg = document.querySelector('#board svg'), g = svg.querySelector('.grid-meta').dataset;
        const kit = window.botwarsGames[document.getElementById('page').dataset.game];
        const m = {cols: +g.cols, rows: +g.rows, cell: +g.cell, margin: +g.margin};
        const cr = kit.grid.cell(name, m);
        const pt = svg.createSVGPoint();
        pt.x = m.margin + (cr[0] + .5) * m.cell; pt.y = m.margin + (cr[1] + .5) * m.cell;
        const p = pt.matrixTransform(svg.getScreenCTM());
        return [p.x, p.y]; }""", name)
    page.mouse.click(xy[0], xy[1])


def view_of(page) -> dict:
    """The seat's current observation, as the page itself fetches it."""
    return json.loads(page.evaluate("fetch(location.pathname.replace('/play/', '/api/matches/') + '/view' "
                                    "+ location.search).then(r => r.text())"))["view"]


def next_turn(page, n: int) -> None:
    """After a submission for decision point ``n``: wait until the page moved past it."""
    wait_decision(page, n + 1)


def shot(page, name: str) -> None:
    page.screenshot(path=os.path.join(ART, f"{name}.png"), full_page=True)


def no_json_typed(page) -> None:
    """The orders box was filled by the controls only (the test never types in it)."""
    assert page.input_value("#orders-json").strip(), "the controls did not fill the orders"


# ---- one turn of each game, by clicking ---------------------------------------------------
def arena_turn(page) -> None:
    wait_my_move(page, ".robot")
    view = view_of(page)
    mine = [r for r in view["robots"] if r["side"] == "F"]
    walls_or_robots = {(r["x"], r["y"]) for r in view["robots"]}
    r = mine[0]
    click_square(page, f"{r['x']}:{r['y']}")  # select the robot on the board
    for dx, dy, d in ((1, 0, "E"), (-1, 0, "W"), (0, 1, "N"), (0, -1, "S")):
        if (r["x"] + dx, r["y"] + dy) not in walls_or_robots:
            click_square(page, f"{r['x'] + dx}:{r['y'] + dy}")  # its neighbour: a move there
            break
    assert f'"x":{r["x"]},"y":{r["y"]},"action":"M","dir":"{d}"' in page.input_value("#orders-json")
    assert page.locator("#board svg g.planned .plan").count() >= 1  # the planned move is drawn
    next_turn(page, submit_ok(page))


def factory_turn(page) -> None:
    wait_my_move(page, ".registers")
    k = page.locator(".registers li").count()
    for _ in range(k):
        page.locator(".cards .cardbtn").first.click()
    assert page.locator(".registers .cardbtn").count() == k
    no_json_typed(page)
    next_turn(page, submit_ok(page))


def geeko_turn(page) -> None:
    wait_my_move(page, ".registers-multi")
    robots = page.locator(".registers-multi [data-robot]")
    for i in range(robots.count()):
        robots.nth(i).click()
        page.locator(".cards .cardbtn").first.click()
    no_json_typed(page)
    next_turn(page, submit_ok(page))


def dadoed_setup(page) -> None:
    wait_my_move(page, "[data-part]")
    view = view_of(page)
    mine = sorted(lb for lb, b in view["bots"].items() if b["owner"] == view["you"])
    picks = [("dash", "root"), ("stride", "ignite")]
    for lb, (first, second) in zip(mine, picks):
        page.click(f'[data-bot="{lb}"][data-part="0"][data-id="{first}"]')
        page.click(f'[data-bot="{lb}"][data-part="1"][data-id="{second}"]')
    assert json.loads(page.input_value("#orders-json"))["supers"][mine[0]] == ["dash", "root"]
    next_turn(page, submit_ok(page))


def dadoed_turn(page) -> None:
    wait_my_move(page, "[data-command]")
    # a blue command with copies left (D-4.3: blue copies are used up)
    cmd = next(c for c in ("step", "stride", "dash", "charge", "north_3", "south_3", "east_3", "west_3")
               if page.locator(f'[data-command="{c}"]').count())
    page.click(f'[data-command="{cmd}"]')
    for _ in range(4):  # tile on the board, then direction buttons, until the order is complete
        if "Ready" in page.inner_text("#d-ready"):
            break
        field = page.locator("#d-steps [data-field]").first
        if (field.get_attribute("data-field") or "").endswith("tile"):
            click_square(page, field.get_attribute("data-value"))
        else:
            field.click()
    assert "Ready" in page.inner_text("#d-ready")
    assert json.loads(page.input_value("#orders-json"))["command"] == cmd
    next_turn(page, submit_ok(page))


def submarine_setup(page) -> None:
    wait_my_move(page, "[data-setup-sub]")
    row = view_of(page)["home_row"]
    specials = ["torpedo", "depth_charge", "sonar", "mine", "armor"]
    for i, sub in enumerate("abcde"):
        page.click(f'[data-setup-sub="{sub}"]')
        click_square(page, f"{'BCDEF'[i]}{row}")  # placement on the board
        page.click(f'[data-special="{specials[i]}"]')
    p = json.loads(page.input_value("#orders-json"))
    assert p["placement"]["a"] == f"B{row}" and p["specials"]["e"] == "armor"
    next_turn(page, submit_ok(page))


def submarine_build(page) -> None:
    """Plan one move of a sub by clicking it and a free neighbouring space, then Add."""
    view = view_of(page)
    occupied = set((view.get("visible_enemy_subs") or {}).values()) | {s["space"] for s in view["own_subs"].values()}
    for letter, s in sorted(view["own_subs"].items()):
        col, row = "ABCDEFG".index(s["space"][0]), int(s["space"][1:])
        for dc, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            c, r = col + dc, row + dr
            target = f"{'ABCDEFG'[c]}{r}" if 0 <= c < 7 and 1 <= r <= 7 else None
            if target and target not in occupied:
                click_square(page, s["space"])
                click_square(page, target)
                page.click("#s-add")
                assert json.loads(page.input_value("#orders-json"))["actions"][-1]["sub"] == letter
                return
    raise AssertionError("no sub can move")


def submarine_turn(page) -> None:
    wait_my_move(page, "#s-add")
    submarine_build(page)
    assert page.inner_text("#ap-counter").startswith("AP left:")
    next_turn(page, submit_ok(page))


TURN = {"arena": arena_turn, "factory": factory_turn, "geeko": geeko_turn, "dadoed": dadoed_turn,
        "submarine": submarine_turn}
SETUP = {"dadoed": dadoed_setup, "submarine": submarine_setup}


@pytest.mark.parametrize("game", sorted(TURN))
def test_issue13_a_newcomer_plays_three_turns_by_clicking(browser, live, game):
    m = live.create(game, ["remote", BOT[game]], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    assert page.locator("#who .swatch").count() == 1 and "You are" in page.inner_text("#who")
    assert page.locator("#sides .side-sum").count() >= 2  # a summary per side
    if game in SETUP:
        SETUP[game](page)
    for _ in range(3):
        TURN[game](page)
    happened = page.inner_text("#events")
    assert "undefined" not in happened and "Turn " in happened and "Decision point" not in happened  # issue 23
    assert "Turn" in page.inner_text("#turn") or page.inner_text("#turn") == "Setup"
    summary = httpx.get(f"{live.url}/api/matches/{m['match']}").json()
    assert summary["decision"] >= (5 if game in SETUP else 4) or summary["status"] == "ended"
    shot(page, f"{game}-three-turns")
    spec = open_page(browser, f"{live.url}/watch/{m['match']}")
    wait_ready(spec)
    assert spec.locator("#orders-json").count() == 0  # a spectator has no order entry
    assert "spectator" in spec.inner_text("#who")
    shot(spec, f"{game}-spectator")
    for p in (page, spec):
        assert p.errors == [], p.errors
        p.context.close()


def test_issue13_submarine_refused_order_then_a_valid_one_without_reload(browser, live):
    m = live.create("submarine", ["remote", "builtin:random"], seed=5)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    submarine_setup(page)
    wait_my_move(page, "#s-add")
    submarine_build(page)  # a queued action, to survive the refusal
    queued = json.loads(page.input_value("#orders-json"))
    # an order over the AP budget (S-4.3), typed in the advanced box: the server refuses it
    page.click("#advanced summary")
    over = {"type": "orders", "actions": [{"sub": "b", "action": "depth_charge", "space": "D4"}] * 3}
    page.fill("#orders-json", json.dumps(over))
    n = decision_of(page)
    page.click("#submit")
    page.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Refused')",
                           timeout=WAIT_MS)
    assert "error" in (page.get_attribute("#order-msg", "class") or "")
    shot(page, "submarine-refused")
    assert "9 AP" in page.inner_text("#order-msg")  # why, in words, beside the Submit button
    # the page is not stuck: it still shows the open decision point (S-4.3: the same seat is asked
    # again), and after a reload the queued action comes back from browser storage
    page.reload()
    wait_ready(page)
    wait_my_move(page, "#s-add")
    assert decision_of(page) >= n
    assert page.locator("#s-seq li button").count() == len(queued["actions"])
    assert json.loads(page.input_value("#orders-json")) == queued
    submit_ok(page)
    assert page.errors == [], page.errors
    page.context.close()


def test_issue13_result_banner_and_rematch(browser, live):
    m = live.create("arena", ["remote", "builtin:hunter"], {"max_turns": "2"}, seed=6)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    arena_turn(page)
    page.click("#resign")  # the confirm dialog is accepted
    page.wait_for_selector("#outcome:not([hidden]) #result-head", timeout=WAIT_MS)
    assert page.inner_text("#result-head") == "You lost"
    assert "you resigned" in page.inner_text("#result-why").lower()
    assert "lost" in (page.get_attribute("#outcome", "class") or "")
    shot(page, "arena-result-banner")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/matches")) as req:
        page.click("#rematch")
    sent = json.loads(req.value.post_data)
    assert sent["game"] == "arena" and int(sent["config"]["max_turns"]) == 2  # the same game again
    assert "seed" not in sent  # the server draws a secret seed: none the other seat could guess (S-8.1, F-14.3)
    page.wait_for_url(lambda u: "/play/" in u and m["match"] not in u, timeout=WAIT_MS)
    wait_ready(page)
    assert page.inner_text("#me") == "Red"  # never the engine id p1 (issue 23)
    assert page.errors == [], page.errors
    page.context.close()


def test_issue13_lobby_and_seat_page_fit_a_phone(browser, live):
    lobby = open_page(browser, live.url + "/", width=390, height=844)
    lobby.select_option("#game", "factory")
    board = lobby.locator('.game-form[data-game="factory"] select[data-name="board"]')
    assert "tiny-yard" in board.evaluate("s => [...s.options].map(o => o.value)")  # shipped boards in a drop-down
    lobby.click("#create-btn")
    lobby.wait_for_selector("#links:not([hidden]) a.seat-link", timeout=WAIT_MS)
    assert lobby.locator("#my-matches a.resume").count() >= 1  # remembered in the browser
    width = lobby.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the lobby scrolls sideways on a phone: {width}px"
    shot(lobby, "lobby-phone")
    link = lobby.locator("a.seat-link").first.get_attribute("href")
    phone = open_page(browser, live.url + link, width=390, height=844)
    wait_ready(phone)
    factory_turn(phone)
    wait_my_move(phone, ".registers")
    k = phone.locator(".registers li").count()
    phone.click("#suggest")  # a bot's suggestion goes into the controls, not only the JSON box
    phone.wait_for_function(f"document.querySelectorAll('.registers .cardbtn').length === {k}", timeout=WAIT_MS)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the seat page scrolls sideways on a phone: {width}px"
    shot(phone, "factory-seat-phone")
    for p in (lobby, phone):
        assert p.errors == [], p.errors
        p.context.close()


@pytest.mark.parametrize("game,config", [("arena", {"max_turns": "4"}), ("geeko", {"turn_limit": "2"})])
def test_issue8_replay_viewer_steps_through_a_finished_match(browser, live, game, config):
    m = live.create(game, [BOT[game], BOT[game]], config, seed=5)
    end = time.monotonic() + 120  # a deadline, not a count of sleeps: bots run slowly under load
    while httpx.get(f"{live.url}/api/matches/{m['match']}").json()["status"] != "ended":
        if time.monotonic() > end:
            pytest.fail("the bot match did not end")
        time.sleep(0.05)
    page = open_page(browser, f"{live.url}/replay/{m['match']}")
    page.wait_for_selector("#board svg", timeout=WAIT_MS)
    count = int(page.get_attribute("#replay", "data-count"))
    assert count >= 3
    assert page.get_attribute("#replay", "data-k") == "0"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('replay').dataset.k === '1'", timeout=WAIT_MS)
    assert page.inner_text("#pos").startswith("Turn 1 (step 1 of ")  # never "decision point" (issue 23)
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
    if game == "geeko":  # the robots of a seat's room, lettered, in the replay (G-10.6: public after the end)
        page.select_option("#as-seat", "p1")
        page.wait_for_selector('#board svg g.robot[data-letter="A"]', timeout=WAIT_MS)
        assert page.locator('#board svg g.robot[data-letter="B"]').count() == 1
    assert "undefined" not in page.inner_text("#happened")
    shot(page, f"{game}-replay")
    assert page.errors == [], page.errors
    page.context.close()


def test_G_9_3_geeko_kit_names_joint_winners_for_the_banner(browser, live):
    """Issue 13 (geeko): the result said "draw" while the standings listed both players as
    winners. G-9.3: the finished players of rank 1 all win; if nobody finished nobody wins. The
    banner asks the game's kit who won instead of reading a missing single winner as a draw."""
    m = live.create("geeko", ["remote", "builtin:pathfinder"], seed=2)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_ready(page)
    winners = page.evaluate("""() => {
      const w = window.botwarsGames.geeko.winners;
      return [w({ranking: [["p1", "p2"]], details: {turns: {p1: 12, p2: 12}}}),
              w({ranking: [["p1", "p2"]], details: {turns: {p1: "-", p2: "-"}}}),
              w({ranking: [["p2"], ["p1"]], details: {turns: {p1: "-", p2: 9}}})];
    }""")
    assert winners == [["p1", "p2"], [], ["p2"]]
    assert page.errors == [], page.errors
    page.context.close()


def test_issue13_the_page_reconnects_after_the_connection_drops(browser, live):
    """Issue 13 item 6: the live connection drops (the test closes the page's WebSocket from the
    network side); the page says so, reconnects with back-off and follows the match again."""
    import re as _re
    m = live.create("arena", ["remote", "remote"], seed=4)
    tokens = [s["token"] for s in m["seats"]]
    sockets = []

    def through(ws):  # every WebSocket the page opens goes to the real server through here
        ws.connect_to_server()
        sockets.append(ws)

    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route_web_socket(_re.compile(r".*/api/matches/.*/ws.*"), through)
    page.goto(f"{live.url}/play/{m['match']}?token={tokens[0]}")
    wait_ready(page)
    assert len(sockets) == 1
    sockets[0].close()
    page.wait_for_function("document.getElementById('conn').textContent.includes('Connection lost')", timeout=WAIT_MS)
    page.wait_for_function("document.getElementById('conn').textContent === ''", timeout=WAIT_MS)
    assert len(sockets) == 2  # a new connection
    for tok in tokens:  # both seats order through the API: the page hears of it over the new socket
        r = httpx.post(f"{live.url}/api/matches/{m['match']}/orders", headers={"Authorization": f"Bearer {tok}"},
                       json={"decision": 1, "orders": {"orders": []}}, timeout=30)
        assert r.status_code == 200, r.text
    page.wait_for_function("document.getElementById('page').dataset.decision === '2'", timeout=WAIT_MS)
    assert errors == [], errors
    ctx.close()


def test_issue13_factory_planned_path_comes_from_the_rules_on_this_board(browser, live):
    """Issue 13 item 2: after a card is chosen, the page draws the path the rules give on the
    current board (POST /web/matches/ID/plan), not only its straight-line sketch."""
    m = live.create("factory", ["remote", "builtin:pathfinder"], seed=3)
    page = open_page(browser, f"{live.url}/play/{m['match']}?token={m['seats'][0]['token']}")
    wait_my_move(page, ".registers")
    with page.expect_response(lambda r: "/plan" in r.url and r.request.method == "POST") as resp:
        page.locator(".cards .cardbtn").first.click()
    assert resp.value.status == 200
    page.wait_for_function("[...document.querySelectorAll('#board svg title')].some(t => "
                           "/register 1(: turns|: the robot would be destroyed| \\(on this board\\))/.test(t.textContent))", timeout=WAIT_MS)
    assert page.errors == [], page.errors
    page.context.close()
