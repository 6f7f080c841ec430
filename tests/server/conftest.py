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

from server_support import ROOT, FakeClock, free_port, make_client, wait_http  # noqa: F401 (the tests import them from there)
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


@pytest.fixture
def api(sqlite_url, clock):
    """A test client of an app on SQLite with a fake clock (bots inline, ticks by hand), with
    the browser pages mounted as ``botwars serve`` does."""
    with make_client(sqlite_url, clock, web=True) as c:
        yield c


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
