"""Slow clients and the WebSocket cap against a real ``botwars serve`` (issue 25 item 10):

- a WebSocket over ``--ws-per-match`` gets the documented close code 4429 and a reason, not an
  HTTP 403 (a close before the handshake);
- a connection that sends no request, or its headers a byte at a time (slowloris), is closed
  after ``--header-timeout`` seconds (1 s here, so the test waits little; the default is 10 s);
- a client that sends its request in time, also several on one keep-alive connection, is
  served.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

from server_support import ROOT, free_port, wait_http

ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src"), "BOTWARS_LEAGUE": "off"}
HEADER_TIMEOUT_S = 1.0


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = tmp_path_factory.mktemp("slow") / "bw.db"
    port = free_port()
    log = open(db.with_suffix(".log"), "w")
    proc = subprocess.Popen([sys.executable, "-m", "botwars.cli", "serve", "--db", f"sqlite:///{db}", "--port",
                             str(port), "--ws-per-match", "1", "--header-timeout", str(HEADER_TIMEOUT_S)],
                            stdout=log, stderr=log, env=ENV)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url, 240, proc)
        yield url, port
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _closed_after(sock: socket.socket, limit_s: float, trickle: bytes = b"") -> float:
    """Seconds until the server closes ``sock`` while this side sends ``trickle`` one byte every
    0.2 s (then nothing); fails after ``limit_s``."""
    sock.settimeout(0.2)
    t0 = time.monotonic()
    sent = 0
    while time.monotonic() - t0 < limit_s:
        if sent < len(trickle):
            try:
                sock.sendall(trickle[sent:sent + 1])
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - t0
            sent += 1
        try:
            data = sock.recv(4096)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return time.monotonic() - t0
        assert data == b"", data  # the server answers nothing: it only hangs up
        return time.monotonic() - t0
    raise AssertionError(f"the server kept the connection open for {limit_s} s (sent {sent} bytes)")


@pytest.mark.slow
def test_a_silent_connection_is_closed_after_the_header_timeout(served):
    _, port = served
    with socket.create_connection(("127.0.0.1", port)) as s:
        took = _closed_after(s, 15.0)
    assert HEADER_TIMEOUT_S * 0.8 <= took


@pytest.mark.slow
def test_headers_sent_a_byte_at_a_time_are_cut_off(served):
    _, port = served
    slow = b"GET /api/games HTTP/1.1\r\nHost: x\r\n" + b"X-Padding: " + b"a" * 400 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as s:
        took = _closed_after(s, 15.0, trickle=slow)
    # 0.2 s a byte: the whole request would take over 80 s; the server hung up near its deadline
    assert HEADER_TIMEOUT_S * 0.8 <= took < 10.0


@pytest.mark.slow
def test_a_prompt_client_is_served_also_on_a_keep_alive_connection(served):
    url, _ = served
    with httpx.Client(base_url=url, timeout=10) as c:
        for _ in range(3):
            assert c.get("/api/games").status_code == 200
            time.sleep(HEADER_TIMEOUT_S * 0.6)  # idle between requests, under the deadline each time


@pytest.mark.slow
def test_a_websocket_over_the_cap_gets_close_code_4429(served):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect
    url, port = served
    r = httpx.post(url + "/api/matches", json={"game": "arena", "seats": ["remote", "remote"]}, timeout=30)
    assert r.status_code == 201, r.text
    mid = r.json()["match"]
    ws_url = f"ws://127.0.0.1:{port}/api/matches/{mid}/ws"
    with connect(ws_url, open_timeout=10) as first:
        assert first.recv(timeout=10)  # the first spectator gets its snapshot
        with connect(ws_url, open_timeout=10) as second:  # the handshake succeeds, then the close
            with pytest.raises(ConnectionClosed) as exc:
                second.recv(timeout=10)
        assert exc.value.rcvd is not None and exc.value.rcvd.code == 4429
        assert "connections" in exc.value.rcvd.reason
    # a wrong token gets its own code, also through a real server
    with connect(ws_url + "?token=not-a-token", open_timeout=10) as bad:
        with pytest.raises(ConnectionClosed) as exc:
            bad.recv(timeout=10)
    assert exc.value.rcvd.code == 4403
