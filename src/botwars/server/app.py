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
import secrets
import time
from contextlib import asynccontextmanager
from typing import Any, Callable, Literal, Optional, Union

from fastapi import Depends, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, ValidationInfo, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from botwars.engine.codes import FailureCode
from botwars.engine.errors import BotwarsError, ConfigError
from botwars.engine.plugin import games as all_games
from botwars.engine.ruleset import canonical_json, get_ruleset
from botwars.server.botpool import BotPool, DEFAULT_TIME_CAP_S
from botwars.server.hub import Hub, HubFull, refuse
from botwars.server.manager import ApiError, MatchManager
from botwars.server.notices import install_notices
from botwars.server.rulespool import RulesPool, RulesUnavailable
from botwars.store import Store

log = logging.getLogger("botwars.server")

MAX_BODY = 1 << 20
"""Largest accepted request body in bytes (413 beyond)."""

MAX_BOARD_CHARS = 8192
"""Longest map, board, room-set or pool text (a ``kind="file"`` parameter) a request may give,
in characters (422 beyond): at most about 90 × 90 arena squares (the default map is 16 × 16;
the largest shipped factory board, 24 × 24, is 4,886 characters)."""

WS_PER_MATCH = 4096
"""Most WebSocket connections open on one match at a time (the next is refused, code 4429)."""

WS_PER_ADDRESS = 64
"""Most WebSocket connections open from one client address at a time (code 4429 beyond)."""

WS_SEND_TIMEOUT_S = 30.0
"""A WebSocket client that has not taken a message after this many seconds is disconnected."""


def bad_text_at(value: Any, path: str) -> str | None:
    """Where in a JSON value (strings, keys, lists, objects) text cannot be encoded as UTF-8
    (a lone surrogate such as ``"\ud800"``, which JSON allows): a path like ``orders.moves[2]``,
    or ``None``. Iterative, so any nesting depth is fine."""
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return p
        elif isinstance(v, dict):
            for i, (k, x) in enumerate(v.items()):
                try:
                    name = k.encode("utf-8").decode() if isinstance(k, str) else str(k)
                except UnicodeEncodeError:
                    return f"{p} (key {i + 1})"
                stack.append((x, f"{p}.{name}"))
        elif isinstance(v, (list, tuple)):
            stack.extend((x, f"{p}[{i}]") for i, x in enumerate(v))
    return None


def _printable(text: str) -> str:
    """``text`` safe to put in a UTF-8 response (unencodable characters escaped)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def param_json(p: Any) -> dict[str, Any]:
    """One row of a game's parameter table for ``GET /api/games``: name, type, default, doc,
    bounds, choices, and for a ``kind="file"`` parameter the shipped names it accepts."""
    out = {"name": p.name, "type": p.type.__name__, "default": p.default, "doc": p.doc,
           "minimum": p.minimum, "maximum": p.maximum, "choices": list(p.choices) if p.choices else None,
           "kind": p.kind}
    if p.kind == "file":
        out["names"] = list(p.names()) if p.names is not None else []
    return out


def check_config(game: str, config: dict[str, Any], max_board_chars: int = MAX_BOARD_CHARS) -> None:
    """What the server refuses in a new match's ``config`` before the rule set sees it (issue
    12): a map, board, room set or pool that would be read from a file path (only shipped names
    and text are accepted; no file is looked at), and such text over ``max_board_chars``
    characters. Raises :class:`ApiError` 422 ``bad_config`` naming the parameter; an unknown
    game is left to :meth:`MatchManager.create`."""
    try:
        rs = get_ruleset(game)
    except BotwarsError:
        return
    try:
        rs.refuse_paths(config, source="config")
    except ConfigError as exc:
        raise ApiError(422, "bad_config", exc.one_line()) from None
    table = rs.param_table()
    for k, v in config.items():
        p = table.get(k)
        if p is not None and p.kind == "file" and isinstance(v, str) and len(v) > max_board_chars:
            raise ApiError(422, "bad_config", f"config: parameter {k}: {len(v)} characters of text, over this "
                                              f"server's limit of {max_board_chars}")


# ---- wire schemas ------------------------------------------------------------------------
class _Body(BaseModel):
    """Base of request bodies: text that cannot be encoded (a lone surrogate) is a 422 naming
    the field and the place in it, never a 500 (issue 12)."""

    @field_validator("*", mode="before")
    @classmethod
    def _encodable(cls, v: Any, info: ValidationInfo) -> Any:
        bad = bad_text_at(v, info.field_name or "body")
        if bad is not None:
            raise ValueError(f"text at {bad} cannot be encoded as UTF-8 (a lone surrogate)")
        return v


class CreateMatch(_Body):
    """A new match: game id, one spec per seat (``remote`` or ``builtin:NAME``), parameter
    overrides (validated against the game's parameter table), seed, and whether the game's
    clock runs (``false``: no time limits)."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(max_length=64, description="Game id (GET /api/games)")
    seats: Optional[list[str]] = Field(None, max_length=64,
                                       description="One spec per seat: remote or builtin:NAME")
    config: dict[str, Union[StrictBool, StrictInt, StrictFloat, str]] = Field(default_factory=dict, max_length=64)
    seed: Optional[int] = Field(None, ge=0, le=2**63 - 1,
                                description="Match seed; left out: a secret random one (a seed the seats "
                                            "could guess would reveal every deal, F-14.3, S-8.1)")
    clock: bool = True


class Failure(_Body):
    """The seat's agent failed this decision: its default orders apply and this is recorded."""

    model_config = ConfigDict(extra="forbid")
    code: FailureCode
    detail: str = Field("", max_length=2000)


class OrdersIn(_Body):
    """Orders for decision point ``decision`` (the ``decision`` of the seat's view)."""

    model_config = ConfigDict(extra="forbid")
    decision: int = Field(ge=1, le=10**9)
    orders: Any = Field(None, description="The game's orders payload (JSON value or text)")
    failure: Optional[Failure] = None


class SeatLink(BaseModel):
    seat: str
    agent: str
    token: str
    url: str


class Created(BaseModel):
    match: str
    game: str
    seats: list[SeatLink]
    spectator: str
    websocket: str


class SeatAgent(BaseModel):
    seat: str
    agent: str


class Summary(BaseModel):
    match: str
    game: str
    status: Literal["running", "ended"]
    config: dict[str, Any]
    seats: list[SeatAgent]
    decision: int
    turn: int
    pending: list[str]
    submitted: list[str]
    clock: dict[str, Any]
    created_at: float
    outcome: Optional[dict[str, Any]]


class ListItem(BaseModel):
    match: str
    game: str
    status: str
    decisions: int
    turn: int
    created_at: float
    seats: list[SeatAgent]
    outcome: Optional[dict[str, Any]]


class Snapshot(BaseModel):
    match: str
    game: str
    status: Literal["running", "ended"]
    seat: Optional[str]
    decision: int
    turn: int
    pending: list[str]
    submitted: list[str]
    your_turn: bool
    view: dict[str, Any]
    events: list[dict[str, Any]]
    clock: dict[str, Any]
    outcome: Optional[dict[str, Any]]


class Ack(BaseModel):
    match: str
    seat: str
    decision: int
    accepted: bool
    duplicate: bool
    resolved: bool
    errors: list[dict[str, Any]]


class Resigned(BaseModel):
    match: str
    seat: str
    outcome: dict[str, Any]


class SeatInfo(BaseModel):
    match: str
    seat: str
    game: str
    config: dict[str, Any]
    seats: list[str]
    agent_seed: int
    status: str


class Capabilities(BaseModel):
    """What the game declares about itself (docs/plugins.md)."""

    turns: Literal["simultaneous", "alternating", "mixed"]
    hidden_information: bool
    finite_legal_orders: bool
    replace_until_resolved: bool
    counts_refusals: bool
    text_orders: bool


class GameInfo(BaseModel):
    id: str
    name: str
    min_seats: int
    max_seats: int
    rules_version: int
    params: list[dict[str, Any]]
    bots: list[str]
    agent_kinds: list[str]
    capabilities: Capabilities


class ErrorOut(BaseModel):
    error: str
    message: str


_ERRORS = {403: {"model": ErrorOut, "description": "missing or wrong seat token"},
           404: {"model": ErrorOut, "description": "unknown match"},
           409: {"model": ErrorOut, "description": "not possible now"},
           413: {"model": ErrorOut, "description": "body too large"},
           422: {"model": ErrorOut, "description": "malformed request or invalid orders"}}


def _errs(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {c: _ERRORS[c] for c in codes}


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


# ---- the app -----------------------------------------------------------------------------
_bearer = HTTPBearer(auto_error=False, description="The seat token")


def _token(creds: Optional[HTTPAuthorizationCredentials] = Depends(_bearer),
           token: Optional[str] = Query(None, max_length=200, description="The seat token (instead of the header)")
           ) -> Optional[str]:
    if creds is not None and creds.credentials:
        return creds.credentials
    return token or None


def create_app(db_url: str | None = None, *, store: Store | None = None, background: bool = True,
               now: Callable[[], float] = time.time, max_body: int = MAX_BODY,
               max_board_chars: int = MAX_BOARD_CHARS, ws_per_match: int = WS_PER_MATCH,
               ws_per_address: int = WS_PER_ADDRESS, bot_workers: int | None = None,
               bot_time_cap_s: float = DEFAULT_TIME_CAP_S) -> FastAPI:
    """The server app over the database at ``db_url`` (see :class:`Store`).

    ``background=False`` (tests) plays bots inline and enforces deadlines only when
    ``app.state.manager.tick()`` is called; ``now`` is the server clock (epoch seconds).
    The browser pages are a separate router (:func:`botwars.web.install_web`) that ``botwars
    serve`` mounts on this app.

    Limits (docs/server.md, "Limits"): ``max_body`` bytes per request, ``max_board_chars``
    characters of map/board/rooms/pool text, ``ws_per_match`` and ``ws_per_address`` open
    WebSocket connections; built-in bots play in ``bot_workers`` processes (default: the CPU
    count, 2 to 8; background mode) with at most ``bot_time_cap_s`` seconds per decision.
    """
    hub = Hub(per_match=ws_per_match, per_address=ws_per_address)
    st = store or Store(db_url)
    manager = MatchManager(st, now=now, background=background, notify=hub.publish)
    if background:
        manager.bot_pool = BotPool(bot_workers, time_cap_s=bot_time_cap_s)
        manager.rules_pool = RulesPool()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if not manager.started:
            manager.start()
        if not notices.started:
            notices.start()
        league.start()  # the league scheduler (server/league.py; BOTWARS_LEAGUE=off: none)
        yield
        league.stop()
        notices.stop()
        manager.stop()

    app = FastAPI(title="botwars game master", version="1",
                  description=__doc__.split("\n\n", 1)[1] if __doc__ else "", lifespan=lifespan)
    app.state.manager = manager
    app.state.hub = hub
    app.add_middleware(BodyLimit, limit=max_body)
    notices = install_notices(app, manager, _token, ErrorOut)  # turn notices (server/notices.py)
    app.state.notices = notices
    from botwars.server.league import install_league
    league = install_league(app, manager, st)  # the league: uploads, ladder, challenges (issue 15)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        extra = {k: _printable(v) if isinstance(v, str) else v for k, v in exc.extra.items()}
        return JSONResponse({"error": exc.code, "message": _printable(exc.message), **extra}, status_code=exc.status)

    @app.exception_handler(RulesUnavailable)
    async def _rules_unavailable(request: Request, exc: RulesUnavailable):
        # a heavy match's worker died and its record did not re-simulate (issue 12): named, never a 500
        return JSONResponse({"error": "rules_unavailable", "message": _printable(str(exc))}, status_code=503)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        parts = []
        for e in exc.errors()[:10]:
            loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            parts.append(f"{loc}: {e.get('msg', 'invalid')}")
        return JSONResponse({"error": "invalid_request",
                             "message": _printable("; ".join(parts) or "invalid request")}, status_code=422)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):
        # a bug: the details (which may name the database, its URL or a file) go to the
        # server's log only, never to the client
        log.error("internal error on %s %s: %s", request.method, request.url.path, type(exc).__name__)
        return JSONResponse({"error": "internal", "message": "internal server error"}, status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 400:  # FastAPI: a body that is not UTF-8 JSON at all
            return JSONResponse({"error": "invalid_request", "message": f"body: {exc.detail}"}, status_code=422)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse({"error": code, "message": str(exc.detail)}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    def base(request: Request) -> str:
        return str(request.base_url).rstrip("/")

    def in_thread(fn, *args):
        """Run blocking work (database, rules) off the event loop."""
        return asyncio.to_thread(fn, *args)

    async def hot(fn, *args, heavy: bool = False):
        """The order path. With SQLite a commit is short and never waits on the network, and
        the work is Python under one GIL anyway: run it on the event loop (no thread hop).
        With PostgreSQL a commit waits on a round trip, and for a ``heavy`` match (its points
        are resolved in the rules pool, or its lock may be held that long): run it in a worker
        thread, so that the event loop never waits for another match (issue 12)."""
        if st.is_sqlite and not heavy:
            return fn(*args)
        return await asyncio.to_thread(fn, *args)

    # -- games
    @app.get("/api/games", response_model=list[GameInfo], tags=["games"])
    def games() -> list[dict[str, Any]]:
        """Every installed game: seat counts, parameter table, built-in bots, the agent kinds it
        adds (for ``botwars connect``) and its declared capabilities."""
        out = []
        for gid, game in all_games().items():
            rs = game.ruleset()
            out.append({"id": gid, "name": rs.name, "min_seats": rs.min_seats, "max_seats": rs.max_seats,
                        "rules_version": rs.rules_version,
                        "params": [param_json(p) for p in rs.params],
                        "bots": sorted(game.builtin_bots()),
                        "agent_kinds": [k.prefix for k in game.agent_kinds],
                        "capabilities": game.capabilities.to_json()})
        return out

    # -- matches
    @app.post("/api/matches", response_model=Created, status_code=201, responses=_errs(413, 422), tags=["matches"])
    def create(body: CreateMatch, request: Request) -> dict[str, Any]:
        """Create a match. Each seat's link carries its secret token: give it only to that player.
        A map, board, room set or pool is a shipped name or the text itself, never a file path."""
        check_config(body.game, body.config, max_board_chars)
        seed = body.seed if body.seed is not None else secrets.randbits(63)
        sess, tokens = manager.create(body.game, body.seats, body.config, seed, body.clock)
        b = base(request)
        return {"match": sess.id, "game": sess.rs.id,
                "seats": [{"seat": s, "agent": sess.agents[s], "token": tokens[s],
                           "url": f"{b}/api/matches/{sess.id}/view?token={tokens[s]}"} for s in sess.seats],
                "spectator": f"{b}/api/matches/{sess.id}/view",
                "websocket": f"{b.replace('http', 'ws', 1)}/api/matches/{sess.id}/ws"}

    @app.get("/api/matches", response_model=list[ListItem], responses=_errs(422), tags=["matches"])
    def list_matches(status: Optional[Literal["running", "ended"]] = None,
                     limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0, le=10**9)):
        """Matches, newest first."""
        return manager.list(status, limit, offset)

    @app.get("/api/matches/{match_id}", response_model=Summary, responses=_errs(404), tags=["matches"])
    def summary(match_id: str) -> dict[str, Any]:
        """Public facts about a match: seats, open decision point, clocks, outcome."""
        return manager.summary(manager.get(match_id))

    @app.get("/api/matches/{match_id}/view", response_model=Snapshot, responses=_errs(403, 404, 422),
             tags=["play"])
    def view(match_id: str, token: Optional[str] = Depends(_token),
             since: Optional[int] = Query(None, ge=0, le=10**9,
                                          description="Events of decision points after this one")):
        """The seat's view with its token, else the spectator view; plus the seat's events."""
        sess = manager.get(match_id)
        seat = manager.authenticate(sess, token) if token else None
        return manager.snapshot(sess, seat, since)

    @app.post("/api/matches/{match_id}/orders", response_model=Ack, responses=_errs(403, 404, 409, 413, 422),
              tags=["play"])
    async def orders(match_id: str, body: OrdersIn, token: Optional[str] = Depends(_token)):
        """Submit the seat's orders for the open decision point. Acknowledged only once stored;
        resending the same orders is answered with ``duplicate: true`` and changes nothing."""
        def work():
            sess = manager.get(match_id)
            seat = manager.authenticate(sess, token)
            return manager.submit(sess.id, seat, body.decision, body.orders,
                                  body.failure.model_dump() if body.failure else None)
        live = manager.sessions.get(match_id)  # unknown or not loaded yet: the thread finds out
        return JSONResponse(await hot(work, heavy=live is None or live.heavy))

    @app.post("/api/matches/{match_id}/resign", response_model=Resigned, responses=_errs(403, 404, 409),
              tags=["play"])
    def resign(match_id: str, token: Optional[str] = Depends(_token)):
        """The seat resigns; the match ends at once."""
        sess = manager.get(match_id)
        seat = manager.authenticate(sess, token)
        return manager.resign(sess.id, seat)

    @app.get("/api/matches/{match_id}/record", responses={**_errs(403, 404, 422),
                                                          200: {"content": {"application/x-ndjson": {}},
                                                                "description": "JSON Lines record"}},
             response_class=JSONResponse, tags=["play"])
    def record(match_id: str, token: Optional[str] = Depends(_token)):
        """JSON Lines: with a token, that seat's own record at any time; without, the full
        record (``botwars replay --verify`` reads it) once the match has ended."""
        sess = manager.get(match_id)
        seat = manager.authenticate(sess, token) if token else None
        lines = manager.record(sess, seat)
        return Response("".join(canonical_json(x) + "\n" for x in lines), media_type="application/x-ndjson")

    @app.get("/api/seat", response_model=SeatInfo, responses=_errs(403), tags=["play"])
    def seat_info(token: Optional[str] = Depends(_token)):
        """Which match and seat a token belongs to, with what its agent needs to start."""
        sess, seat = manager.find_seat(token)
        return {"match": sess.id, "seat": seat, "game": sess.rs.id, "config": sess.config, "seats": sess.seats,
                "agent_seed": sess.rs.agent_seed(sess.seed, seat), "status": sess.status}

    # one snapshot per (match, seat, since, change), shared by every connection that needs it:
    # 2,000 spectators cost one snapshot per change, not 2,000 (issue 12)
    snaps: dict[str, dict[tuple, asyncio.Future]] = {}

    def build(sess, seat, since) -> tuple[dict[str, Any], str]:
        snap = manager.snapshot(sess, seat, since)
        return snap, json.dumps(snap)

    def shared_snapshot(sess, seat, since) -> asyncio.Future:
        key = (seat, since, hub.version(sess.id))
        cache = snaps.setdefault(sess.id, {})
        fut = cache.get(key)
        if fut is None or (fut.done() and fut.exception() is not None):
            if len(cache) >= 64:
                for k in [k for k in cache if k[2] < key[2]]:
                    del cache[k]
            fut = asyncio.ensure_future(in_thread(build, sess, seat, since))
            cache[key] = fut
        return fut

    # where each spectator connection is (its ``since``), so that a round of spectator messages
    # can build their shared snapshots before waking them (Hub.prepare)
    spectator_since: dict[str, dict[int, Optional[int]]] = {}

    async def prepare(match_id: str) -> None:
        sess = manager.sessions.get(match_id)
        for since in set(spectator_since.get(match_id, {}).values()):
            if sess is not None:
                await asyncio.shield(shared_snapshot(sess, None, since))

    hub.prepare = prepare

    @app.websocket("/api/matches/{match_id}/ws")
    async def ws(websocket: WebSocket, match_id: str, token: Optional[str] = None):
        """Sends the snapshot (as GET view) at once and after every change: new decision point,
        accepted order, resolution (with the seat's events since the last message), end.
        Closes at once with code 4429 when the match or the client's address has too many
        connections (``ws_per_match``, ``ws_per_address``)."""
        try:
            sess = await in_thread(manager.get, match_id)
            seat = manager.authenticate(sess, token) if token else None
        except ApiError as exc:
            await refuse(websocket, 4403 if exc.status == 403 else 4404, _printable(exc.message))
            return
        address = websocket.client.host if websocket.client else None
        try:
            sub = hub.subscribe(sess.id, address, spectator=seat is None)
        except HubFull as exc:
            await refuse(websocket, 4429, str(exc))
            return
        q = sub[1]
        last_n: int | None = None
        last_sent = None
        closed = False

        async def reader() -> None:
            """Reads (and ignores) what the client sends, until it goes: then wakes the loop."""
            nonlocal closed
            try:
                while (await websocket.receive()).get("type") != "websocket.disconnect":
                    pass
            except Exception:
                pass
            closed = True
            if q.empty():
                q.put_nowait(None)

        reading = None
        try:
            await websocket.accept()
            reading = asyncio.ensure_future(reader())
            while not closed:
                fut = shared_snapshot(sess, seat, last_n)
                snap, text = fut.result() if fut.done() else await asyncio.shield(fut)
                key = (snap["decision"], snap["status"], tuple(snap["submitted"]))
                if key != last_sent:
                    async with asyncio.timeout(WS_SEND_TIMEOUT_S):  # a client that takes nothing goes
                        await websocket.send_text(text)
                    last_sent = key
                last_n = snap["decision"] if snap["status"] == "ended" else snap["decision"] - 1
                if snap["status"] == "ended":
                    await websocket.close(code=1000)
                    return
                if seat is None:
                    spectator_since.setdefault(sess.id, {})[id(q)] = last_n
                await q.get()
        except (WebSocketDisconnect, RuntimeError, TimeoutError, OSError):
            return
        finally:
            if reading is not None:
                reading.cancel()
            hub.unsubscribe(sess.id, sub)
            spectator_since.get(sess.id, {}).pop(id(q), None)
            if not hub.connections(sess.id):
                snaps.pop(sess.id, None)
                spectator_since.pop(sess.id, None)

    return app
