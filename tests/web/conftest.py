"""Fixtures of the web UI tests: a real server (uvicorn in a thread) on 127.0.0.1 with a free
port and a temporary SQLite file, and helpers to create matches through the API."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest


class LiveServer:
    """A running ``botwars serve`` app; ``url`` is its base URL."""

    def __init__(self, db_path: str):
        import uvicorn
        from botwars.server.app import create_app
        from botwars.web import install_web
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(f"sqlite:///{db_path}")
        install_web(self.app)  # as `botwars serve` does
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        end = time.monotonic() + 60  # a generous deadline: a loaded 2-core machine starts slowly
        while not self.server.started:
            if time.monotonic() > end or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)

    def create(self, game: str, seats: list[str], config: dict | None = None, seed: int = 1,
               clock: bool = False) -> dict:
        """Create a match through the API; returns the API's answer (links and tokens)."""
        r = httpx.post(f"{self.url}/api/matches", json={"game": game, "seats": seats, "config": config or {},
                                                        "seed": seed, "clock": clock})
        assert r.status_code == 201, r.text
        return r.json()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A real server for the module's tests."""
    srv = LiveServer(str(tmp_path_factory.mktemp("web") / "web.db"))
    yield srv
    srv.stop()
