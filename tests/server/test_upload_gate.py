"""League uploads off the request threads (issue 25 item 4), through HTTP: an address gets at
most 5 uploads a minute (429 ``too_many_uploads`` naming the limit, replacements counted
too), and while uploads are being checked — in the server's bot pool, awaited — the server's
request threads stay free, so ``GET /api/matches/{id}`` answers before any of them is done.
(How fast it answers under a flood of 50 uploads is measured by ``benchmarks/upload_flood.py``,
never here.)"""

from __future__ import annotations

import socket
import threading
import time
import warnings

import httpx
import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

STARTER = "import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'orders': []}), flush=True)\n"
# answers nothing for 30 s: its check runs into every deadline, so it takes seconds
SLOW = "import time\ntime.sleep(30)\n" + STARTER


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")
    monkeypatch.delenv("BOTWARS_UPLOAD_RATE", raising=False)
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    app = create_app(f"sqlite:///{tmp_path}/bw.db", background=False)
    lg = app.state.league
    lg.data_dir = str(tmp_path / "data")
    lg.config = {"arena": {"max_turns": 2}}
    lg.check_decisions = 1
    with TestClient(app) as c:
        yield c, lg


def test_an_address_gets_at_most_five_uploads_a_minute(client):
    c, lg = client
    r = c.post("/api/league/bots", json={"name": "ok", "game": "arena", "kind": "jsonl-py", "source": STARTER})
    assert r.status_code == 201, r.text
    bot, token = r.json()["bot"], r.json()["token"]
    r = c.put(f"/api/league/bots/{bot}", json={"source": STARTER + "\n"}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    for i in range(3):  # refused uploads count too: the limit is on what an address sends
        r = c.post("/api/league/bots", json={"name": f"e{i}", "game": "arena", "kind": "jsonl-py", "source": " "})
        assert r.status_code == 422 and r.json()["error"] == "empty_source"
    r = c.post("/api/league/bots", json={"name": "sixth", "game": "arena", "kind": "jsonl-py", "source": STARTER})
    assert r.status_code == 429, r.text
    body = r.json()
    assert body["error"] == "too_many_uploads"
    assert "at most 5 per 1 minute" in body["message"] and "try again in" in body["message"]
    assert 1 <= body["retry_after"] <= 60
    r = c.put(f"/api/league/bots/{bot}", json={"source": STARTER}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 429
    assert c.get(f"/api/league/bots/{bot}").json()["version"] == 2  # reads are not limited


class _FewThreads:
    """The app with a request thread pool of ``tokens`` threads (the server's default is 40),
    so that a handful of uploads would fill it if they held threads."""

    def __init__(self, app, tokens: int):
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            import anyio.to_thread
            anyio.to_thread.current_default_thread_limiter().total_tokens = self.tokens
        await self.app(scope, receive, send)


def test_uploads_being_checked_hold_no_request_thread(tmp_path, monkeypatch):
    import uvicorn
    from botwars.server.app import create_app
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")
    monkeypatch.setenv("BOTWARS_UPLOAD_RATE", "100/minute")
    app = create_app(f"sqlite:///{tmp_path}/bw.db", bot_workers=2)
    lg = app.state.league
    lg.data_dir = str(tmp_path / "data")
    lg.config = {"arena": {"max_turns": 2, "turn_time_limit_s": 2.0}}
    lg.check_decisions = 1
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    server = uvicorn.Server(uvicorn.Config(_FewThreads(app, 4), host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 120
    while not server.started:
        assert time.monotonic() < end and thread.is_alive(), "the test server did not start"
        time.sleep(0.05)
    try:
        r = httpx.post(f"{url}/api/matches", json={"game": "arena", "seats": ["remote", "remote"], "seed": 1})
        assert r.status_code == 201, r.text
        mid = r.json()["match"]
        finished: list[int] = []

        def slow_upload(i: int) -> None:
            try:
                httpx.post(f"{url}/api/league/bots", timeout=300,
                           json={"name": f"slow{i}", "game": "arena", "kind": "jsonl-py", "source": SLOW})
            except httpx.HTTPError:
                pass  # cut off when the server stops
            finished.append(i)

        uploads = [threading.Thread(target=slow_upload, args=(i,), daemon=True) for i in range(6)]
        for t in uploads:
            t.start()
        time.sleep(3)  # let them reach the server (not a measurement)
        r = httpx.get(f"{url}/api/matches/{mid}", timeout=60)
        done_before = list(finished)
        assert r.status_code == 200, r.text
        assert done_before == [], f"GET waited until uploads {done_before} were done"
    finally:
        server.should_exit = True
        thread.join(30)
