"""Change notifications from the game master's threads to WebSocket connections.

A connection subscribes to a match with its own asyncio queue; :meth:`Hub.publish` (safe to
call from any thread) wakes every queue of that match with one call per event loop (not one
per connection) and counts the match's changes (:meth:`Hub.version`), so that connections
woken by the same change can share one snapshot per seat. The connection sends what
:meth:`MatchManager.snapshot` gives its seat, so what it sends is always filtered for it.

Seat connections are woken at once. Spectators (any number of them) are woken in chunks of
``CHUNK`` per turn of the event loop, so that a change seen by thousands of spectators never
holds up an order's acknowledgement behind thousands of sends, and at most every
``spectator_interval_s`` per match, or less often while waking them takes long: a round of
spectator messages starts no sooner than ``DUTY`` times its previous round's duration after
that round began, so spectators of one match never take more than about 1 / ``DUTY`` of the
event loop's time, however many they are (issue 12). A burst of changes is folded into one
message (which carries the events of every decision point since the previous one).

The hub also holds the connection limits (issue 12): at most ``per_match`` connections on one
match and ``per_address`` from one client address (:class:`HubFull` beyond; :func:`refuse`
closes such a connection with code 4429 after the handshake).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Callable


CHUNK = 8
"""Spectator connections woken per turn of the event loop (each costs one WebSocket send,
about 0.1 ms on the reference machine: an order arriving meanwhile waits at most about 1 ms per
turn of the loop it needs, not 3 ms as with 32)."""

DUTY = 4.0
"""A round of spectator messages waits at least this many times the previous round's duration."""


class HubFull(Exception):
    """A connection over a limit; the message says which."""


class Hub:
    """Subscribers per match id, change counters, and connection limits."""

    def __init__(self, per_match: int | None = None, per_address: int | None = None,
                 spectator_interval_s: float = 0.2) -> None:
        self.per_match = per_match
        self.per_address = per_address
        self.shared: Any = None  # a botwars.store.shared.SharedConnections where workers share a database
        self.spectator_interval_s = spectator_interval_s
        self._subs: dict[str, dict[asyncio.AbstractEventLoop, set[asyncio.Queue]]] = {}
        self._spectators: set[asyncio.Queue] = set()
        self._pumping: dict[tuple[str, asyncio.AbstractEventLoop], bool] = {}
        self._last_pump: dict[tuple[str, asyncio.AbstractEventLoop], float] = {}
        self._pump_cost: dict[tuple[str, asyncio.AbstractEventLoop], float] = {}
        self.prepare: Callable[[str], Awaitable[None]] | None = None
        """Awaited (on the event loop) before a round of spectator messages of a match: the app
        builds the snapshot the spectators will share here, so that they do not all wait for
        it and then send at once."""
        self._count: dict[str, int] = {}
        self._by_address: dict[str, int] = {}
        self._version: dict[str, int] = {}
        self._lock = threading.Lock()

    def subscribe(self, match_id: str, address: str | None = None, spectator: bool = False) -> tuple[Any, ...]:
        """A new queue woken on every change of ``match_id`` (call from the event loop);
        ``spectator``: woken at the spectators' pace (see the module). Raises
        :class:`HubFull` when the match or ``address`` has too many connections."""
        loop = asyncio.get_running_loop()
        q: asyncio.Queue = asyncio.Queue(maxsize=1)
        with self._lock:
            n = self._count.get(match_id, 0)
            if self.per_match is not None and n >= self.per_match:
                raise HubFull(f"this match has {n} connections, the most this server allows")
            if address is not None and self.per_address is not None:
                a = self._by_address.get(address, 0)
                if a >= self.per_address:
                    raise HubFull(f"{a} connections from your address, the most this server allows")
                self._by_address[address] = a + 1
            self._count[match_id] = n + 1
            self._subs.setdefault(match_id, {}).setdefault(loop, set()).add(q)
            if spectator:
                self._spectators.add(q)
        return (loop, q, address)

    def unsubscribe(self, match_id: str, sub: tuple[Any, ...]) -> None:
        loop, q, address = sub
        with self._lock:
            loops = self._subs.get(match_id)
            if loops is None or q not in loops.get(loop, ()):
                return
            loops[loop].discard(q)
            self._spectators.discard(q)
            if not loops[loop]:
                del loops[loop]
                self._last_pump.pop((match_id, loop), None)
                self._pump_cost.pop((match_id, loop), None)
            if not loops:
                del self._subs[match_id]
                self._version.pop(match_id, None)
            self._count[match_id] -= 1
            if not self._count[match_id]:
                del self._count[match_id]
            if address is not None and address in self._by_address:
                self._by_address[address] -= 1
                if not self._by_address[address]:
                    del self._by_address[address]

    def connections(self, match_id: str) -> int:
        """Open connections on ``match_id``."""
        with self._lock:
            return self._count.get(match_id, 0)

    def version(self, match_id: str) -> int:
        """How many changes of ``match_id`` were published while someone was subscribed."""
        with self._lock:
            return self._version.get(match_id, 0)

    def publish(self, match_id: str) -> None:
        """Wake every subscriber of ``match_id`` (from any thread)."""
        with self._lock:
            loops = self._subs.get(match_id)
            if not loops:
                return
            self._version[match_id] = self._version.get(match_id, 0) + 1
            targets = list(loops)
        for loop in targets:
            try:
                loop.call_soon_threadsafe(self._wake, match_id, loop)
            except RuntimeError:  # loop closed
                pass

    def _wake(self, match_id: str, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            queues = list(self._subs.get(match_id, {}).get(loop, ()))
            spectators = [q for q in queues if q in self._spectators]
            seats = [q for q in queues if q not in self._spectators]
        for q in seats:
            _put(q)
        key = (match_id, loop)
        if spectators and not self._pumping.get(key):
            self._pumping[key] = True
            gap = max(self.spectator_interval_s, DUTY * self._pump_cost.get(key, 0.0))
            delay = max(0.0, self._last_pump.get(key, 0.0) + gap - loop.time())
            loop.create_task(self._pump(key, delay))

    async def _pump(self, key: tuple[str, asyncio.AbstractEventLoop], delay: float) -> None:
        match_id, loop = key
        await asyncio.sleep(delay)
        self._pumping[key] = False
        t0 = self._last_pump[key] = loop.time()
        if self.prepare is not None:
            try:
                await self.prepare(match_id)
            except Exception:  # the connections will find out for themselves
                pass
        with self._lock:
            queues = [q for q in self._subs.get(match_id, {}).get(loop, ()) if q in self._spectators]
        if not queues:
            self._last_pump.pop(key, None)
            self._pump_cost.pop(key, None)
            return
        for start in range(0, len(queues), CHUNK):
            for q in queues[start:start + CHUNK]:
                _put(q)
            await asyncio.sleep(0)  # those connections, and everyone else, have a turn
        await asyncio.sleep(0)
        self._pump_cost[key] = loop.time() - t0


async def refuse(websocket: Any, code: int, reason: str) -> None:
    """Refuse a WebSocket connection with ``code`` (4403 wrong token, 4404 unknown match, 4429
    over a limit: :class:`HubFull`) and ``reason`` (at most 120 characters are sent).

    The handshake is completed first and the connection then closed: a close before the
    handshake reaches a client of a real server (uvicorn) as an HTTP 403 with no code or reason
    at all (issue 25 item 10), where the documented code is what clients act on."""
    await websocket.accept()
    await websocket.close(code=code, reason=reason[:120])


def _put(q: asyncio.Queue) -> None:
    if q.empty():
        q.put_nowait(None)
