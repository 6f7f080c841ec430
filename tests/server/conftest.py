"""Fixtures of the server tests: databases (SQLite, and PostgreSQL when one can be had), a
fake server clock, apps in test mode, and a real server on loopback."""

from __future__ import annotations

import os
import secrets
import subprocess
import threading
import time
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_PG: dict[str, str | None] = {}


def postgres_url() -> tuple[str | None, str]:
    """A PostgreSQL server URL: $BOTWARS_TEST_POSTGRES, else scripts/ensure-postgres.sh; or the reason why not."""
    if "url" in _PG:
        return _PG["url"], _PG["why"] or ""
    url, why = os.environ.get("BOTWARS_TEST_POSTGRES"), ""
    if not url:
        try:
            r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "ensure-postgres.sh")], capture_output=True,
                               text=True, timeout=300)
            if r.returncode == 0 and r.stdout.strip():
                url = r.stdout.strip().splitlines()[-1]
            else:
                why = "scripts/ensure-postgres.sh failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"scripts/ensure-postgres.sh could not run: {exc}"
    _PG["url"], _PG["why"] = url, why
    return url, why


@pytest.fixture
def pg_url():
    """A fresh, empty PostgreSQL database (dropped afterwards); skips with the reason if none."""
    url, why = postgres_url()
    if not url:
        pytest.skip(f"no PostgreSQL server: {why} (set BOTWARS_TEST_POSTGRES to a URL)")
    import sqlalchemy as sa
    name = "bwtest_" + secrets.token_hex(6)
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f"CREATE DATABASE {name}"))
    yield url.rsplit("/", 1)[0] + "/" + name
    with admin.connect() as c:
        c.execute(sa.text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """Each storage test runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/bw.db"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path}/bw.db"


class FakeClock:
    """The server clock in tests: only moves when told."""

    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, s: float) -> None:
        self.t += s


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def toy():
    """Register the test-only toy game for the duration of a test."""
    from botwars.engine import ruleset as R
    from server_toygame import ToyRuleset
    R.register(ToyRuleset)
    yield ToyRuleset
    R.unregister(ToyRuleset.id)


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


@pytest.fixture
def api(sqlite_url, clock):
    """A test client of an app on SQLite with a fake clock (bots inline, ticks by hand), with
    the browser pages mounted as ``botwars serve`` does."""
    with make_client(sqlite_url, clock, web=True) as c:
        yield c


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


@pytest.fixture
def live_server(sqlite_url):
    """A real uvicorn server in a thread on 127.0.0.1 (background threads on); yields its URL."""
    import uvicorn
    from botwars.server.app import create_app
    port = free_port()
    app = create_app(sqlite_url)
    from uvicorn.config import WS_PROTOCOLS
    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "auto"
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws=ws))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    url = f"http://127.0.0.1:{port}"
    wait_http(url)
    yield url
    server.should_exit = True
    t.join(timeout=10)
