"""The sixth game in a real browser (issue 11, item 2): a player types the minigame's orders
into the seat page's generic JSON box, a refusal is shown beside it, and an accepted order
moves the match on. Playwright drives the system Chromium against a real server.

Skipped, with the reason, only when Chromium cannot be found (``scripts/ensure-chromium.sh``
installs Debian's package) or started.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time

import httpx
import pytest

pytestmark = pytest.mark.browser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 15000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`botwars serve` in a thread: the API app with the pages mounted, on a free port."""
    import uvicorn

    from botwars.server.app import create_app
    from botwars.web import install_web
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(f"sqlite:///{tmp_path_factory.mktemp('mini') / 'web.db'}")
    install_web(app)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    end = time.monotonic() + 60  # a generous deadline: a loaded 2-core machine starts slowly
    while not srv.started:
        if time.monotonic() > end or not t.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    t.join(10)


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
    yield b
    b.close()
    pw.stop()


def test_M2_orders_typed_into_the_json_box_are_refused_or_played(browser, server):
    r = httpx.post(f"{server}/api/matches", json={"game": "minigame", "seats": ["remote", "builtin:greedy"],
                                                  "seed": 7, "clock": False})
    assert r.status_code == 201, r.text
    made = r.json()
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/play/{made['match']}?token={made['seats'][0]['token']}")
    page.wait_for_function("document.getElementById('page').dataset.decision === '1'", timeout=WAIT_MS)
    assert page.locator("#entry").inner_html() == ""  # no game-specific controls: the JSON box is the entry
    page.fill("#orders-json", '{"move": "S"}')  # off the board from (0, 0)
    page.click("#submit")
    page.wait_for_function("document.getElementById('order-msg').textContent.startsWith('Refused')", timeout=WAIT_MS)
    assert "leaves the board" in page.text_content("#order-msg")
    page.fill("#orders-json", '{"move": "N"}')
    page.click("#submit")
    page.wait_for_function("document.getElementById('page').dataset.decision === '2'", timeout=WAIT_MS)
    view = httpx.get(f"{server}/api/matches/{made['match']}/view",
                     headers={"Authorization": f"Bearer {made['seats'][0]['token']}"}).json()
    assert view["view"]["robots"]["p1"] == [0, 1]
    assert page.locator("#board svg").count() == 1
    assert errors == []
    page.context.close()
