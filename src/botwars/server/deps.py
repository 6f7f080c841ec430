"""What the server's routes share, handed to them as FastAPI dependencies (``Depends``).

:func:`~botwars.server.app.create_app` keeps the shared objects on ``app.state`` (``manager``,
``hub``, ``store``, ``limits``); a route takes them as parameters typed with the aliases below,
e.g. ``def summary(match_id: str, manager: ManagerDep)``. The bearer token of a seat is
:func:`seat_token` (``TokenDep``). :func:`in_thread` and :func:`hot` run blocking work off (or
on) the event loop. The limits' defaults (:data:`MAX_BODY` ...) are re-exported by
:mod:`botwars.server.app`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Coroutine, Optional, TypeVar

from fastapi import Depends, Query
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from botwars.server.hub import Hub
from botwars.server.manager import MatchManager
from botwars.store import Store

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


@dataclass(frozen=True)
class Limits:
    """This server's limits on what a client may send (docs/server.md, "Limits"): request
    bodies in bytes, map/board/rooms/pool text in characters, open WebSocket connections."""

    max_body: int = MAX_BODY
    max_board_chars: int = MAX_BOARD_CHARS
    ws_per_match: int = WS_PER_MATCH
    ws_per_address: int = WS_PER_ADDRESS


def get_manager(conn: HTTPConnection) -> MatchManager:
    """The app's :class:`MatchManager` (``app.state.manager``); for HTTP and WebSocket routes."""
    manager: MatchManager = conn.app.state.manager
    return manager


def get_hub(conn: HTTPConnection) -> Hub:
    """The app's WebSocket :class:`Hub` (``app.state.hub``)."""
    hub: Hub = conn.app.state.hub
    return hub


def get_store(conn: HTTPConnection) -> Store:
    """The app's :class:`Store` (``app.state.store``)."""
    store: Store = conn.app.state.store
    return store


def get_limits(conn: HTTPConnection) -> Limits:
    """The app's :class:`Limits` (``app.state.limits``)."""
    limits: Limits = conn.app.state.limits
    return limits


def base_url(conn: HTTPConnection) -> str:
    """The server's own address as the client reached it, without the trailing ``/``
    (for the links a response gives)."""
    return str(conn.base_url).rstrip("/")


_bearer = HTTPBearer(auto_error=False, description="The seat token")


def seat_token(creds: Optional[HTTPAuthorizationCredentials] = Depends(_bearer),
               token: Optional[str] = Query(None, max_length=200,
                                            description="The seat token (instead of the header)")
               ) -> Optional[str]:
    """The seat token of a request: ``Authorization: Bearer TOKEN`` or ``?token=TOKEN`` (at most
    200 characters, else 422); ``None`` when it gives neither. Whether it is valid is the
    manager's to say (``MatchManager.authenticate``: 403)."""
    if creds is not None and creds.credentials:
        return creds.credentials
    return token or None


ManagerDep = Annotated[MatchManager, Depends(get_manager)]
HubDep = Annotated[Hub, Depends(get_hub)]
StoreDep = Annotated[Store, Depends(get_store)]
LimitsDep = Annotated[Limits, Depends(get_limits)]
BaseUrlDep = Annotated[str, Depends(base_url)]
TokenDep = Annotated[Optional[str], Depends(seat_token)]

T = TypeVar("T")


def in_thread(fn: Callable[..., T], *args: Any) -> Coroutine[Any, Any, T]:
    """Run blocking work (database, rules) off the event loop: a coroutine of ``fn(*args)``."""
    return asyncio.to_thread(fn, *args)


async def hot(store: Store, fn: Callable[..., T], *args: Any, heavy: bool = False) -> T:
    """The order path. With SQLite a commit is short and never waits on the network, and the
    work is Python under one GIL anyway: run ``fn(*args)`` on the event loop (no thread hop).
    With PostgreSQL a commit waits on a round trip, and for a ``heavy`` match (its points are
    resolved in the rules pool, or its lock may be held that long): run it in a worker thread,
    so that the event loop never waits for another match (issue 12)."""
    if store.is_sqlite and not heavy:
        return fn(*args)
    return await asyncio.to_thread(fn, *args)
