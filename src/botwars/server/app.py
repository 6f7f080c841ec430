"""The FastAPI application of the game-master server (``botwars serve``).

Endpoints (JSON; the generated OpenAPI schema at ``/openapi.json`` documents each):

- ``GET  /api/games`` — rule sets, their parameters and built-in bots.
- ``POST /api/matches`` — create a match; returns one secret link per seat and a spectator link.
- ``GET  /api/matches`` — list matches (public summaries).
- ``GET  /api/matches/{id}`` — one match's public summary.
- ``GET  /api/matches/{id}/view`` — the seat's view (with its token) or the spectator view.
- ``POST /api/matches/{id}/orders`` — a seat's orders for the open decision point.
- ``POST /api/matches/{id}/resign`` — a seat resigns.
- ``GET  /api/matches/{id}/record`` — JSON Lines record: the seat's own, or the full one once ended.
- ``GET  /api/seat`` — which match and seat a token belongs to (for ``botwars connect``).
- ``GET/POST /api/matches/{id}/gm[/ACTION]`` — the game master's view and actions (pause,
  resume, extend, replace, adjudicate, end, abort) with the GM token (routes/gm.py).
- ``WS   /api/matches/{id}/ws`` — pushes the seat's (or spectator's) snapshot on every change.

A seat token goes in ``Authorization: Bearer TOKEN`` or ``?token=TOKEN``. Errors are
``{"error": CODE, "message": TEXT}`` with a 4xx status: 403 for a missing or wrong token, 404
for an unknown match, 409 for orders at the wrong time, 413 for a body over the limit, 422 for
a malformed request or invalid orders.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from botwars.server.botpool import BotPool, DEFAULT_TIME_CAP_S
from botwars.server.cluster import RENEW_S, lease_from_env
from botwars.server.deps import (MAX_BOARD_CHARS, MAX_BODY, WS_PER_ADDRESS, WS_PER_MATCH, WS_SEND_TIMEOUT_S,
                                 Limits, seat_token)
from botwars.server.hub import Hub
from botwars.server.manager import ApiError, MatchManager
from botwars.server.notices import install_notices
from botwars.server.routes import games, gm, matches, orders, seats, ws
from botwars.server.routes.games import param_json
from botwars.server.routes.matches import check_config
from botwars.server.rulespool import RulesPool, RulesUnavailable
from botwars.server.schemas import (Ack, Capabilities, Created, CreateMatch, ErrorOut, Failure, GameInfo, ListItem,
                                    OrdersIn, Resigned, SeatAgent, SeatInfo, SeatLink, Snapshot, Summary, bad_text_at,
                                    errs, printable)
from botwars.store import Store

__all__ = ["create_app", "BodyLimit", "MAX_BODY", "MAX_BOARD_CHARS", "WS_PER_MATCH", "WS_PER_ADDRESS",
           "WS_SEND_TIMEOUT_S", "Limits", "check_config", "param_json", "bad_text_at", "errs", "Ack",
           "Capabilities", "Created", "CreateMatch", "ErrorOut", "Failure", "GameInfo", "ListItem", "OrdersIn",
           "Resigned", "SeatAgent", "SeatInfo", "SeatLink", "Snapshot", "Summary"]

log = logging.getLogger("botwars.server")

_token = seat_token  # the name install_notices and older callers know

ROUTERS = (games.router, matches.router, seats.router, orders.router, ws.router, gm.router)
"""The API's routers, one per resource (docs/server.md, "Where the routes live")."""


# ---- body size limit ---------------------------------------------------------------------
class BodyLimit:
    """ASGI middleware: 413 for a request body over ``limit`` bytes (declared or streamed)."""

    def __init__(self, app, limit: int = MAX_BODY):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    declared = int(v)
                except ValueError:
                    declared = 0
                if declared > self.limit:
                    return await _send_413(send, self.limit)
        if scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        # read the whole body first (at most ``limit`` bytes), then hand it on
        chunks: list[bytes] = []
        seen = 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            body = msg.get("body", b"")
            seen += len(body)
            if seen > self.limit:
                return await _send_413(send, self.limit)
            chunks.append(body)
            if not msg.get("more_body", False):
                break
        whole = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _send_413(send, limit: int) -> None:
    body = json.dumps({"error": "body_too_large", "message": f"request body over {limit} bytes"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# ---- errors ------------------------------------------------------------------------------
async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    extra = {k: printable(v) if isinstance(v, str) else v for k, v in exc.extra.items()}
    return JSONResponse({"error": exc.code, "message": printable(exc.message), **extra}, status_code=exc.status)


async def _rules_unavailable(request: Request, exc: Exception) -> JSONResponse:
    # a heavy match's worker died and its record did not re-simulate (issue 12): named, never a 500
    return JSONResponse({"error": "rules_unavailable", "message": printable(str(exc))}, status_code=503)


DATABASE_DOWN = ("the database cannot be reached just now; nothing of this request was stored. This server "
                 "keeps trying: send it again in a few seconds")
"""The sentence of a 503 ``database_unavailable`` (issue 27)."""


async def _database_down(request: Request, exc: Exception) -> JSONResponse:
    # the connection to the database dropped (or it is being restarted): nothing was
    # acknowledged that is not stored; the pool makes new connections as it comes back
    log.warning("database unavailable on %s %s: %s", request.method, request.url.path, type(exc).__name__)
    return JSONResponse({"error": "database_unavailable", "message": DATABASE_DOWN}, status_code=503,
                        headers={"Retry-After": "2"})


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for e in exc.errors()[:10]:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {e.get('msg', 'invalid')}")
    return JSONResponse({"error": "invalid_request",
                         "message": printable("; ".join(parts) or "invalid request")}, status_code=422)


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    # a bug: the details (which may name the database, its URL or a file) go to the
    # server's log only, never to the client
    log.error("internal error on %s %s: %s", request.method, request.url.path, type(exc).__name__)
    return JSONResponse({"error": "internal", "message": "internal server error"}, status_code=500)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:  # FastAPI: a body that is not UTF-8 JSON at all
        return JSONResponse({"error": "invalid_request", "message": f"body: {exc.detail}"}, status_code=422)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return JSONResponse({"error": code, "message": str(exc.detail)}, status_code=exc.status_code,
                        headers=getattr(exc, "headers", None))


ERROR_HANDLERS: dict[Any, Callable[..., Any]] = {
    ApiError: _api_error, RulesUnavailable: _rules_unavailable, RequestValidationError: _invalid,
    OperationalError: _database_down, InterfaceError: _database_down,
    Exception: _internal, StarletteHTTPException: _http_error}
"""Every error as ``{"error": CODE, "message": TEXT}``: never a traceback, never a 500 with
details (they go to the server's log)."""


# ---- the app -----------------------------------------------------------------------------
async def _renew_connections(shared: Any) -> None:
    """Keep this worker's WebSocket connections counted by every worker (issue 27 item 4):
    renew their rows every third of their lifetime, forever (cancelled at shutdown)."""
    from botwars.server.deps import in_thread
    while True:
        await asyncio.sleep(shared.ttl_s / 3)
        try:
            await in_thread(shared.renew)
        except Exception:  # the database away for a moment: the next round tries again
            logging.getLogger(__name__).warning("could not renew the shared WebSocket connections", exc_info=True)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start the match manager, the turn notices and the league scheduler; stop them at the end."""
    manager, notices, league = app.state.manager, app.state.notices, app.state.league
    if not manager.started:
        manager.start()
    if not notices.started:
        notices.start()
    league.start()  # the league scheduler (server/league.py; BOTWARS_LEAGUE=off: none)
    renewing = asyncio.ensure_future(_renew_connections(app.state.hub.shared)) if app.state.hub.shared else None
    yield
    if renewing is not None:
        renewing.cancel()
    league.stop()
    notices.stop()
    manager.stop()


def create_app(db_url: str | None = None, *, store: Store | None = None, background: bool = True,
               now: Callable[[], float] = time.time, max_body: int = MAX_BODY,
               max_board_chars: int = MAX_BOARD_CHARS, ws_per_match: int = WS_PER_MATCH,
               ws_per_address: int = WS_PER_ADDRESS, bot_workers: int | None = None,
               bot_time_cap_s: float = DEFAULT_TIME_CAP_S) -> FastAPI:
    """The server app over the database at ``db_url`` (see :class:`Store`).

    ``background=False`` (tests) plays bots inline and enforces deadlines only when
    ``app.state.manager.tick()`` is called; ``now`` is the server clock (epoch seconds).
    The browser pages are a separate set of routers (:func:`botwars.web.install_web`) that
    ``botwars serve`` mounts on this app.

    Limits (docs/server.md, "Limits"): ``max_body`` bytes per request, ``max_board_chars``
    characters of map/board/rooms/pool text, ``ws_per_match`` and ``ws_per_address`` open
    WebSocket connections; built-in bots play in ``bot_workers`` processes (default: the CPU
    count, 2 to 8; background mode) with at most ``bot_time_cap_s`` seconds per decision.

    The shared objects live on ``app.state`` (``manager``, ``hub``, ``store``, ``limits``,
    ``snapshots``, ``notices``, ``league``); routes take them through the dependencies of
    :mod:`botwars.server.deps`.
    """
    hub = Hub(per_match=ws_per_match, per_address=ws_per_address)
    st = store or Store(db_url)
    if not st.is_sqlite:  # workers may share this database: count WebSocket connections in it (issue 27)
        from botwars.store.shared import SharedConnections
        hub.shared = SharedConnections(st)
    manager = MatchManager(st, now=now, background=background, notify=hub.publish, lease_s=lease_from_env(),
                           renew_s=min(RENEW_S, lease_from_env() / 4))
    if background:
        manager.bot_pool = BotPool(bot_workers, time_cap_s=bot_time_cap_s)
        manager.rules_pool = RulesPool()

    app = FastAPI(title="botwars game master", version="1",
                  description=__doc__.split("\n\n", 1)[1] if __doc__ else "", lifespan=_lifespan)
    app.state.manager = manager
    app.state.hub = hub
    app.state.store = st
    app.state.limits = Limits(max_body, max_board_chars, ws_per_match, ws_per_address)
    app.state.snapshots = ws.SharedSnapshots(manager, hub)
    app.add_middleware(BodyLimit, limit=max_body)
    app.state.notices = install_notices(app, manager, _token, ErrorOut)  # turn notices (server/notices.py)
    from botwars.server.league import install_league  # late, as before: the league's imports are heavy
    app.state.league = install_league(app, manager, st)  # the league: uploads, ladder, challenges (issue 15)
    for kind, handler in ERROR_HANDLERS.items():
        app.add_exception_handler(kind, handler)
    for router in ROUTERS:
        app.include_router(router)
    return app
