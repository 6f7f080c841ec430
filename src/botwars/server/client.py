"""HTTP/WebSocket client of the game-master server (``botwars new-match``, ``botwars connect``).

:func:`connect` plays one seat with any agent spec. It follows the seat's WebSocket, asks the
agent whenever the seat's orders are awaited, and posts them; after a network error or a
server restart it reconnects and carries on (a resent order is recognised by the server as a
duplicate, so nothing is applied twice).  While the server cannot be reached it says so once,
naming the URL, and retries with exponential back-off (:class:`Outage`, built on tenacity)
for at most ``retry_for_s`` seconds, then gives up with :class:`ServerError`. Agent failures are reported to the server as such
(``failure``): the seat's default orders apply and the error is recorded, as in a local match.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable
from urllib.parse import quote

import httpx
import tenacity

from botwars.engine.codes import FailureCode
from botwars.engine.errors import BotwarsError


class ServerError(BotwarsError):
    """The server refused a request (``status``, ``code``, ``message``) or cannot be reached."""

    def __init__(self, message: str, status: int | None = None, code: str = ""):
        self.status = status
        self.code = code
        super().__init__(message)


#: First wait after a failed try and the cap of the exponential back-off, in seconds.
FIRST_RETRY_S = 0.5
MAX_RETRY_S = 10.0


def _network_errors() -> tuple[type[BaseException], ...]:
    from websockets.exceptions import WebSocketException
    return (httpx.TransportError, OSError, WebSocketException)


class Outage:
    """Retries a network call while the server at ``base`` cannot be reached.

    One outage runs from the first failed try to the next success.  At its start ``log`` gets one
    line saying plainly that the server cannot be reached, where, and for how long it will be
    tried; tries are then spaced by an exponential back-off (``first_s``, doubling, capped at
    ``max_s`` seconds; tenacity's ``wait_exponential``).  Once the outage has lasted
    ``retry_for_s`` seconds the call raises :class:`ServerError` (one line).  ``clock`` and
    ``sleep`` (seconds) are injectable for tests.
    """

    def __init__(self, base: str, retry_for_s: float, log: Callable[[str], None], *,
                 first_s: float = FIRST_RETRY_S, max_s: float = MAX_RETRY_S,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.base = base
        self.retry_for_s = retry_for_s
        self.log = log
        self.first_s = first_s
        self.max_s = max_s
        self.clock = clock
        self.sleep = sleep
        self.since: float | None = None
        self.last_error = ""

    def ok(self) -> None:
        """The server answered: the outage, if any, is over."""
        if self.since is not None:
            self.log(f"reconnected to {self.base} after {self.clock() - self.since:.1f} s")
            self.since = None

    def _failed(self, state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        self.last_error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if self.since is None:
            self.since = self.clock()
            self.log(f"cannot reach the server at {self.base} ({self.last_error}); retrying with back-off "
                     f"for up to {self.retry_for_s:g} s (--retry-for)")

    def _stop(self, state: tenacity.RetryCallState) -> bool:
        return self.since is not None and self.clock() - self.since >= self.retry_for_s

    def _give_up(self, state: tenacity.RetryCallState) -> Any:
        raise ServerError(f"the server at {self.base} could not be reached for {self.retry_for_s:g} s "
                          f"({self.last_error}); giving up")

    def call(self, fn: Callable[[], Any]) -> Any:
        """``fn()``, retried on network errors (``httpx.TransportError``, ``OSError``, WebSocket
        errors) as the class says; raises :class:`ServerError` when the outage lasts too long."""
        backoff = tenacity.wait_exponential(multiplier=self.first_s, min=self.first_s, max=self.max_s)

        def wait(state: tenacity.RetryCallState) -> float:  # never sleep past the end of --retry-for
            left = self.retry_for_s - (self.clock() - self.since) if self.since is not None else self.retry_for_s
            return max(0.0, min(backoff(state), left))

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_network_errors()),
            wait=wait,
            stop=self._stop, after=self._failed, retry_error_callback=self._give_up, sleep=self.sleep)
        r = retrying(fn)
        self.ok()
        return r


def _raise_for(r: httpx.Response) -> None:
    if r.status_code < 400:
        return
    try:
        body = r.json()
        msg, code = body.get("message", r.text), body.get("error", "")
    except ValueError:
        msg, code = r.text[:200], ""
    raise ServerError(f"server said {r.status_code}: {msg}", r.status_code, code)


def new_match(url: str, game: str, seats: list[str] | None, config: dict[str, str], seed: int | None,
              clock: bool = True, timeout: float = 30.0) -> dict[str, Any]:
    """Create a match on the server at ``url``; returns the server's answer (links, tokens).
    ``seed=None``: the server draws a secret random seed."""
    body: dict[str, Any] = {"game": game, "config": config, "clock": clock}
    if seed is not None:
        body["seed"] = seed
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
            retry_for_s: float = 300.0) -> dict[str, Any]:
    """Play the seat of ``token`` on the server at ``url`` with ``agent_spec`` until the match ends.

    Returns the ``botwars match --json`` object (winner, scores, turns, reason, replay = the
    record URL, errors = this seat's recorded errors). Raises :class:`ServerError` when the
    token is refused or the server stays unreachable for ``retry_for_s`` seconds (see
    :class:`Outage`), and :class:`~botwars.engine.errors.ConfigError` for a bad agent spec.
    """
    from websockets.sync.client import connect as ws_connect

    from botwars.agents.base import AgentFailure
    from botwars.agents.spec import make_agent

    base = url.rstrip("/")
    http = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30.0)
    outage = Outage(base, retry_for_s, log)
    retrying = outage.call

    def get(path: str) -> httpx.Response:
        return retrying(lambda: _checked(http.get(path)))  # a 5xx answer is retried as an outage

    info = get("/api/seat").json()
    match_id, seat, game = info["match"], info["seat"], info["game"]
    agent = make_agent(agent_spec, game)  # a bad spec: its one error line, no "playing" line before it
    log(f"playing {seat} of match {match_id} ({game}) with {agent_spec}")
    errors_local: list[dict[str, Any]] = []

    def follow() -> dict[str, Any] | None:
        """Follow the seat's WebSocket until the match ends (its final snapshot) or the socket
        closes or drops (``None``: the caller reconnects, its back-off starting afresh).  A
        failure to connect propagates to the retry."""
        with ws_connect(_ws_url(base, match_id, token), open_timeout=10, close_timeout=2, max_size=2**24) as ws:
            outage.ok()
            try:
                for raw in ws:
                    snap = json.loads(raw)
                    if snap["status"] == "ended":
                        return snap
                    if snap["your_turn"]:
                        _play(http, match_id, seat, snap, agent, answered, retrying, log)
            except _network_errors() as exc:
                log(f"connection to {base} lost ({type(exc).__name__}); reconnecting")
                return None
        # closed without an end: poll once (the match may have ended meanwhile)
        snap = get(f"/api/matches/{match_id}/view").json()
        return snap if snap["status"] == "ended" else None

    try:
        try:
            agent.start(game, seat, info["config"], info["agent_seed"])
        except AgentFailure as exc:
            errors_local.append({"decision": 0, "seat": seat, "code": exc.code, "detail": exc.detail})
        answered: dict[int, dict[str, Any]] = {}
        final = None
        while final is None:
            final = retrying(follow)
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


def _checked(r: httpx.Response) -> httpx.Response:
    """``r`` if it succeeded; a 5xx answer raises ``httpx.TransportError`` (retried like an
    unreachable server: it is restarting), a 4xx one :class:`ServerError`."""
    if r.status_code >= 500:
        raise httpx.TransportError(f"server error {r.status_code}")
    _raise_for(r)
    return r


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
