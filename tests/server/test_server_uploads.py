"""The gate for untrusted uploads (issue 12, item 2 and "Done when"): below the operator's
minimum isolation level an upload is refused with 503 and a message that says why."""

from __future__ import annotations

import pytest

from botwars.agents import sandbox
from botwars.server.manager import ApiError
from botwars.server.uploads import require_upload_isolation


def _detected(monkeypatch, level, reasons=()):
    """Pretend this machine's probe found ``level`` (no bwrap is started)."""
    monkeypatch.setattr(sandbox, "_probe_cache", sandbox.Report([], level, reasons=list(reasons)))


def test_refused_below_the_configured_minimum_with_the_reason(monkeypatch):
    _detected(monkeypatch, "process", ["bubblewrap: bwrap not found (run scripts/ensure-bubblewrap.sh)"])
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "full")
    with pytest.raises(ApiError) as info:
        require_upload_isolation()
    err = info.value
    assert err.status == 503 and err.code == "sandbox_unavailable"
    assert "'process'" in err.message and "'full'" in err.message and "bwrap not found" in err.message
    # an explicit minimum wins over the environment
    with pytest.raises(ApiError):
        require_upload_isolation("namespaces")


def test_accepted_at_or_above_the_minimum(monkeypatch):
    _detected(monkeypatch, "process", ["bubblewrap: bwrap not found"])
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "process")
    assert require_upload_isolation().level == "process"
    _detected(monkeypatch, "full")
    monkeypatch.delenv("BOTWARS_SANDBOX_MIN")  # default minimum: full
    assert require_upload_isolation().level == "full"


def test_unknown_minimum_is_a_503_naming_it_not_a_500(monkeypatch):
    _detected(monkeypatch, "full")
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "strong")
    with pytest.raises(ApiError) as info:
        require_upload_isolation()
    assert info.value.status == 503 and info.value.code == "sandbox_misconfigured"
    assert "'strong'" in info.value.message


def test_through_http_the_refusal_is_a_503_json_error(monkeypatch, sqlite_url, clock):
    """As the league's upload endpoint will use it: the server's error handler answers it."""
    from fastapi.testclient import TestClient

    from botwars.server.app import create_app
    app = create_app(sqlite_url, background=False, now=clock)

    @app.post("/test-upload")
    def upload() -> dict:
        return {"level": require_upload_isolation().level}

    _detected(monkeypatch, "namespaces", ["seccomp: cannot build the filter"])
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "full")
    with TestClient(app) as c:
        r = c.post("/test-upload")
        assert r.status_code == 503
        body = r.json()
        assert body["error"] == "sandbox_unavailable" and "seccomp" in body["message"]
        monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "namespaces")
        r = c.post("/test-upload")
        assert r.status_code == 200 and r.json() == {"level": "namespaces"}
