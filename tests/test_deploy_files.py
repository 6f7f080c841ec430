"""deploy/ (issue 27 item 5): the compose file, the nginx config and the Dockerfile agree with
one another and with the real command line of ``botwars serve`` (no Docker needed: the files are
parsed, not run)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def _serve_options() -> set[str]:
    """Every option name ``botwars serve`` really accepts (from the click command Typer builds)."""
    import typer.main

    from botwars.cli import app
    serve = typer.main.get_command(app).commands["serve"]
    return {name for p in serve.params for name in getattr(p, "opts", [])}


def _servers(compose) -> dict[str, dict]:
    return {k: v for k, v in compose["services"].items() if "botwars" in " ".join(v.get("command", []))}


def test_compose_has_a_database_two_servers_and_a_proxy(compose):
    services = compose["services"]
    assert services["db"]["image"].startswith("postgres:")
    assert len(_servers(compose)) == 2
    assert services["proxy"]["image"].startswith("nginx:")
    assert set(services["proxy"]["depends_on"]) == set(_servers(compose))


def test_every_flag_in_the_server_commands_exists(compose):
    known = _serve_options()
    dockerfile_cmd = re.search(r"^CMD (\[.*\])$", (DEPLOY / "Dockerfile").read_text(), re.M).group(1)
    commands = [v["command"] for v in _servers(compose).values()] + [yaml.safe_load(dockerfile_cmd)]
    for cmd in commands:
        assert cmd[:2] == ["botwars", "serve"]
        flags = [a for a in cmd if a.startswith("--")]
        assert flags and set(flags) <= known, f"unknown flags: {set(flags) - known}"
        assert cmd[cmd.index("--host") + 1] == "0.0.0.0"


def test_servers_use_the_compose_database(compose):
    db = compose["services"]["db"]["environment"]
    for name, svc in _servers(compose).items():
        cmd = svc["command"]
        url = cmd[cmd.index("--db") + 1]
        assert url == f"postgresql+psycopg://{db['POSTGRES_USER']}:{db['POSTGRES_PASSWORD']}@db:5432/{db['POSTGRES_DB']}"
        assert svc["depends_on"]["db"]["condition"] == "service_healthy"
        assert svc["environment"]["FORWARDED_ALLOW_IPS"]  # the client's address, not the proxy's, is limited


def test_nginx_upstreams_are_the_server_services_and_websockets_upgrade(compose):
    conf = (DEPLOY / "nginx.conf").read_text()
    upstreams = set(re.findall(r"^\s*server\s+([\w.-]+:\d+);", conf, re.M))
    expected = {f"{name}:{svc['command'][svc['command'].index('--port') + 1]}"
                for name, svc in _servers(compose).items()}
    assert upstreams == expected
    assert "proxy_set_header Upgrade $http_upgrade;" in conf and "proxy_http_version 1.1;" in conf
    assert "X-Forwarded-For" in conf
    listen = re.search(r"^\s*listen\s+(\d+);", conf, re.M).group(1)
    proxy = compose["services"]["proxy"]
    assert any(p.endswith(f":{listen}") for p in proxy["ports"])
    assert any(v.startswith("./nginx.conf:") for v in proxy["volumes"])


def test_the_dockerfile_copies_what_exists():
    text = (DEPLOY / "Dockerfile").read_text()
    for src in re.findall(r"^COPY (.+) \S+$", text, re.M):
        for part in src.split():
            assert (ROOT / part).exists(), part
