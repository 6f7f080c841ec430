"""Slow and idle HTTP clients (issue 25 item 10): a deadline for a request's headers.

uvicorn (``h11``) times out a keep-alive connection that is idle *between* requests
(``timeout_keep_alive``), but not a connection that never sends a request, nor one that sends
its headers a byte at a time ("slowloris"): each byte restarts nothing, and thousands of such
connections hold the server's sockets for ever. :func:`guarded_h11` is uvicorn's own ``h11``
protocol with one more timer: from the moment the connection opens, and again when a response
is complete (the next request of a keep-alive connection), the client has
``header_timeout_s`` seconds to send a complete request line and headers; otherwise the
connection is closed. The request's body and the WebSocket after the handshake are not
covered (the body is bounded by the server's body limit; a WebSocket client that takes no
message is dropped after 30 s, and one that answers no ping after ``ws_ping_interval`` +
``ws_ping_timeout``).

``botwars serve`` passes the class to uvicorn (``http=``); ``--header-timeout`` sets the time.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("botwars.server.slowclients")

HEADER_TIMEOUT_S = 10.0
"""Default seconds a client may take to send a request's line and headers."""


class GuardedH11Protocol(H11Protocol):
    """uvicorn's ``h11`` protocol with a header deadline (:data:`header_timeout_s` seconds)."""

    header_timeout_s: float = HEADER_TIMEOUT_S
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the request line and headers are in
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()  # the next request of this keep-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.debug("closing %s: no complete request headers within %g s", self.client, self.header_timeout_s)
            self.transport.close()


def guarded_h11(header_timeout_s: float = HEADER_TIMEOUT_S) -> type[GuardedH11Protocol]:
    """The protocol class for uvicorn's ``http=`` setting with a deadline of
    ``header_timeout_s`` seconds (> 0) for each request's line and headers. Raises
    ``ValueError`` for a deadline that is not a positive number."""
    if not header_timeout_s > 0:
        raise ValueError(f"header timeout must be positive, got {header_timeout_s!r}")
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"header_timeout_s": float(header_timeout_s)})
