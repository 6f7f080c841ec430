"""Helpers of the server tests (imported by name, ``from server_support import make_client``:
a module named ``conftest`` is ambiguous when several test folders are collected in one run)."""

from __future__ import annotations

import os
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class FakeClock:
    """The server clock in tests: only moves when told."""

    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, s: float) -> None:
        self.t += s


def make_client(url, clock, web=False):
    """A test client of the API app (``web=True``: with the browser pages mounted, as
    ``botwars serve`` does)."""
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    app = create_app(url, background=False, now=clock)
    if web:
        from botwars.web import install_web
        install_web(app)
    return TestClient(app)


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float = 30.0, proc=None) -> None:
    import httpx
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(url + "/api/games", timeout=2).status_code == 200:
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server at {url} did not start")


def ws_refused(client, path: str):
    """Open the WebSocket ``path`` with a Starlette test ``client``; the close code it was
    refused with (e.g. 4429 over a connection cap), or ``None`` when it was accepted."""
    from starlette.websockets import WebSocketDisconnect
    try:
        with client.websocket_connect(path) as ws:
            ws.receive_json()
    except WebSocketDisconnect as exc:
        return exc.code
    return None
