"""Issue 27 item 4: what a client could exploit by spreading requests over workers is counted in
the database: the league's per-address upload rate and the WebSocket connection caps hold
across two workers (two Stores on one PostgreSQL database)."""

from __future__ import annotations

import pytest

from botwars.server.manager import ApiError
from botwars.server.uploads import UploadGate
from botwars.store.repo import Store
from botwars.store.shared import ConnectionsFull, SharedConnections, SharedRate
from tests.server.server_support import ws_refused


@pytest.fixture
def two_workers(pg_url):
    """Two Stores on one fresh PostgreSQL database: what two workers hold."""
    a, b = Store(pg_url), Store(pg_url)
    a.migrate()
    b.migrate()
    yield a, b
    a.dispose()
    b.dispose()


def test_upload_rate_holds_across_two_workers(two_workers):
    a, b = two_workers
    gates = [UploadGate(rate="3/hour", store=a), UploadGate(rate="3/hour", store=b)]
    for i in range(3):
        gates[i % 2].admit("203.0.113.9")
    with pytest.raises(ApiError) as err:
        gates[1].admit("203.0.113.9")
    assert err.value.status == 429 and "3 per 1 hour" in str(err.value.message)
    with pytest.raises(ApiError):
        gates[0].admit("203.0.113.9")
    gates[0].admit("198.51.100.1")  # another address has its own count


def test_rate_windows_reset_and_sweep(two_workers):
    a, b = two_workers
    ra, rb = SharedRate(a), SharedRate(b)
    assert ra.hit("k", 2, 60, now=600.0) == (True, 660.0)
    assert rb.hit("k", 2, 60, now=610.0) == (True, 660.0)
    assert ra.hit("k", 2, 60, now=620.0) == (False, 660.0)
    assert rb.hit("k", 2, 60, now=661.0) == (True, 720.0)  # a new window, and the old row swept
    with a.read() as s:
        from sqlalchemy import func, select

        from botwars.store.models import RateHitRow
        assert s.scalar(select(func.count()).select_from(RateHitRow)) == 1
    with pytest.raises(ValueError):
        ra.hit("k", 0, 60)


def test_rate_on_sqlite(tmp_path):
    store = Store(f"sqlite:///{tmp_path}/one.db")
    store.migrate()
    gate = UploadGate(rate="2/minute", store=store)
    gate.admit("x")
    gate.admit("x")
    with pytest.raises(ApiError) as err:
        gate.admit("x")
    assert err.value.status == 429
    store.dispose()


def test_connection_caps_hold_across_two_workers(two_workers):
    a, b = two_workers
    wa, wb = SharedConnections(a, worker="w1", ttl_s=30), SharedConnections(b, worker="w2", ttl_s=30)
    c1 = wa.claim("m1", "203.0.113.9", per_match=10, per_address=2, now=1000.0)
    wb.claim("m2", "203.0.113.9", per_match=10, per_address=2, now=1000.0)
    with pytest.raises(ConnectionsFull, match="2 connections from your address"):
        wb.claim("m1", "203.0.113.9", per_match=10, per_address=2, now=1001.0)
    wa.release(c1)
    wb.claim("m1", "203.0.113.9", per_match=10, per_address=2, now=1002.0)
    wa.claim("m1", None, per_match=2, per_address=2, now=1002.0)
    with pytest.raises(ConnectionsFull, match="this match has 2 connections"):
        wa.claim("m1", "198.51.100.1", per_match=2, per_address=2, now=1003.0)


def test_dead_workers_connections_lapse(two_workers):
    a, b = two_workers
    wa, wb = SharedConnections(a, worker="w1", ttl_s=30), SharedConnections(b, worker="w2", ttl_s=30)
    wa.claim("m1", "x", per_match=None, per_address=1, now=1000.0)  # w1 dies: it never renews
    wb.claim("m2", "y", per_match=None, per_address=1, now=1000.0)
    assert wb.renew(now=1025.0) == 1
    with pytest.raises(ConnectionsFull):
        wb.claim("m3", "x", per_match=None, per_address=1, now=1029.0)
    wb.claim("m3", "x", per_match=None, per_address=1, now=1031.0)  # w1's row lapsed
    with pytest.raises(ConnectionsFull):
        wa.claim("m4", "y", per_match=None, per_address=1, now=1040.0)  # w2's renewed row still counts


def _until_no_live_connections(store):
    import time

    from sqlalchemy import func, select

    from botwars.store.models import LiveConnectionRow
    for _ in range(200):
        with store.read() as s:
            if not s.scalar(select(func.count()).select_from(LiveConnectionRow)):
                return
        time.sleep(0.05)
    raise AssertionError("the closed connection's row was never released")


def test_two_apps_share_the_websocket_cap_per_address(pg_url, clock):
    """Two server apps (two workers) on one PostgreSQL: the per-address cap counts both."""
    from fastapi.testclient import TestClient

    from botwars.server.app import create_app
    apps = [create_app(pg_url, background=False, now=clock, ws_per_address=1) for _ in range(2)]
    with TestClient(apps[0]) as c0, TestClient(apps[1]) as c1:
        m0 = c0.post("/api/matches", json={"game": "arena"}).json()["match"]
        m1 = c1.post("/api/matches", json={"game": "arena"}).json()["match"]
        with c0.websocket_connect(f"/api/matches/{m0}/ws") as a:
            assert a.receive_json()["match"] == m0
            assert ws_refused(c1, f"/api/matches/{m1}/ws") == 4429  # the other worker counts it
        _until_no_live_connections(apps[0].state.store)  # the closing handler releases its row
        with c1.websocket_connect(f"/api/matches/{m1}/ws") as b:  # released when closed
            assert b.receive_json()["match"] == m1
