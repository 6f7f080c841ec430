"""HTTP/WebSocket client of the game-master server (``botwars new-match``, ``botwars connect``).

:func:`connect` plays one seat with any agent spec. It follows the seat's WebSocket, asks the
agent whenever the seat's orders are awaited, and posts them; after a network error or a
server restart it reconnects and carries on (a resent order is recognised by the server as a
duplicate, so nothing is applied twice). Agent failures are reported to the server as such
(``failure``): the seat's default orders apply and the error is recorded, as in a local match.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable
from urllib.parse import quote

import httpx

from botwars.engine.codes import FailureCode
from botwars.engine.errors import BotwarsError


class ServerError(BotwarsError):
    """The server refused a request (``status``, ``code``, ``message``) or cannot be reached."""

    def __init__(self, message: str, status: int | None = None, code: str = ""):
        self.status = status
        self.code = code
        super().__init__(message)


def _raise_for(r: httpx.Response) -> None:
    if r.status_code < 400:
        return
    try:
        body = r.json()
        msg, code = body.get("message", r.text), body.get("error", "")
    except ValueError:
        msg, code = r.text[:200], ""
    raise ServerError(f"server said {r.status_code}: {msg}", r.status_code, code)


def new_match(url: str, game: str, seats: list[str] | None, config: dict[str, str], seed: int,
              clock: bool = True, timeout: float = 30.0) -> dict[str, Any]:
    """Create a match on the server at ``url``; returns the server's answer (links, tokens)."""
    body: dict[str, Any] = {"game": game, "config": config, "seed": seed, "clock": clock}
    if seats:
        body["seats"] = seats
    try:
        r = httpx.post(url.rstrip("/") + "/api/matches", json=body, timeout=timeout)
    except httpx.HTTPError as exc:
        raise ServerError(f"cannot reach {url}: {exc}") from None
    _raise_for(r)
    return r.json()


def _ws_url(url: str, match_id: str, token: str) -> str:
    base = url.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base[len("https://"):]
    elif base.startswith("http://"):
        base = "ws://" + base[len("http://"):]
    return f"{base}/api/matches/{match_id}/ws?token={quote(token)}"


def connect(url: str, token: str, agent_spec: str, *, log: Callable[[str], None] = lambda _m: None,
            retry_s: float = 0.5, give_up_s: float = 300.0) -> dict[str, Any]:
    """Play the seat of ``token`` on the server at ``url`` with ``agent_spec`` until the match ends.

    Returns the ``botwars match --json`` object (winner, scores, turns, reason, replay = the
    record URL, errors = this seat's recorded errors). Raises :class:`ServerError` when the
    token is refused or the server stays unreachable for ``give_up_s`` seconds, and
    :class:`~botwars.engine.errors.ConfigError` for a bad agent spec.
    """
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect as ws_connect

    from botwars.agents.base import AgentFailure
    from botwars.agents.spec import make_agent

    base = url.rstrip("/")
    http = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30.0)
    down_since: list[float | None] = [None]

    def retrying(fn):
        while True:
            try:
                r = fn()
                down_since[0] = None
                return r
            except (httpx.TransportError, OSError, WebSocketException) as exc:
                now = time.monotonic()
                if down_since[0] is None:
                    down_since[0] = now
                if now - down_since[0] > give_up_s:
                    raise ServerError(f"server {base} unreachable for {give_up_s:g} s: {exc}") from None
                log(f"network error ({type(exc).__name__}); retrying")
                time.sleep(retry_s)

    def get(path: str) -> httpx.Response:
        r = retrying(lambda: http.get(path))
        if r.status_code >= 500:
            raise httpx.TransportError(f"server error {r.status_code}")
        _raise_for(r)
        return r

    info = retrying(lambda: _get_ok(http, "/api/seat"))
    match_id, seat, game = info["match"], info["seat"], info["game"]
    log(f"playing {seat} of match {match_id} ({game}) with {agent_spec}")
    agent = make_agent(agent_spec, game)
    errors_local: list[dict[str, Any]] = []
    try:
        try:
            agent.start(game, seat, info["config"], info["agent_seed"])
        except AgentFailure as exc:
            errors_local.append({"decision": 0, "seat": seat, "code": exc.code, "detail": exc.detail})
        answered: dict[int, dict[str, Any]] = {}
        final = None
        while final is None:
            try:
                with ws_connect(_ws_url(base, match_id, token), open_timeout=10, close_timeout=2,
                                max_size=2**24) as ws:
                    down_since[0] = None
                    for raw in ws:
                        snap = json.loads(raw)
                        if snap["status"] == "ended":
                            final = snap
                            break
                        if snap["your_turn"]:
                            _play(http, match_id, seat, snap, agent, answered, retrying, log)
                    else:
                        # closed without an end: poll once (the match may have ended meanwhile)
                        snap = get(f"/api/matches/{match_id}/view").json()
                        if snap["status"] == "ended":
                            final = snap
            except (OSError, WebSocketException, httpx.TransportError) as exc:
                now = time.monotonic()
                if down_since[0] is None:
                    down_since[0] = now
                if now - down_since[0] > give_up_s:
                    raise ServerError(f"server {base} unreachable for {give_up_s:g} s: {exc}") from None
                log(f"connection lost ({type(exc).__name__}); reconnecting")
                time.sleep(retry_s)
    finally:
        try:
            agent.close()
        except Exception:
            pass
    out = final["outcome"] or {}
    errors = list(errors_local)
    rec = get(f"/api/matches/{match_id}/record").text
    for line in rec.splitlines():
        obj = json.loads(line)
        if obj.get("type") == "decision":
            for e in obj.get("errors", {}).get(seat, []):
                errors.append({"decision": obj["n"], "seat": seat, **e})
    http.close()
    return {"winner": out.get("winner"), "scores": out.get("scores", {}), "turns": final["turn"],
            "reason": out.get("reason"), "replay": f"{base}/api/matches/{match_id}/record", "errors": errors,
            "match": match_id, "seat": seat}


def _get_ok(http: httpx.Client, path: str) -> dict[str, Any]:
    r = http.get(path)
    if r.status_code >= 500:
        raise httpx.TransportError(f"server error {r.status_code}")
    _raise_for(r)
    return r.json()


def _play(http, match_id, seat, snap, agent, answered, retrying, log) -> None:
    """Answer one decision point (once per decision: a resend reuses the first answer)."""
    from botwars.agents.base import AgentFailure

    n = snap["decision"]
    body = answered.get(n)
    if body is None:
        left = snap["clock"].get("time_left_s", {}).get(seat)
        try:
            payload = agent.act(snap["view"], left)
            body = {"decision": n, "orders": payload}
        except AgentFailure as exc:
            body = {"decision": n, "orders": None, "failure": {"code": exc.code, "detail": exc.detail[:2000]}}
        answered.clear()
        answered[n] = body
    path = f"/api/matches/{match_id}/orders"
    r = retrying(lambda: http.post(path, json=body))
    if r.status_code == 422 and "failure" not in body:
        # invalid orders: as in a local match (P10 and its kin) the default orders apply, recorded
        try:
            msg = r.json().get("message", "")
        except ValueError:
            msg = r.text[:200]
        log(f"decision {n}: orders refused: {msg}")
        body = {"decision": n, "orders": body["orders"],
                "failure": {"code": FailureCode.MALFORMED, "detail": msg[:2000]}}
        answered[n] = body
        r = retrying(lambda: http.post(path, json=body))
    if r.status_code == 409:
        log(f"decision {n}: {r.json().get('message', '')}")
        return
    if r.status_code >= 500:
        raise httpx.TransportError(f"server error {r.status_code}")
    _raise_for(r)
