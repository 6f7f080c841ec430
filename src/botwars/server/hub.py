"""Change notifications from the game master's threads to WebSocket connections.

A connection subscribes to a match with its own asyncio queue; :meth:`Hub.publish` (safe to
call from any thread) puts a wake-up on every queue of that match. The connection then builds
the seat's snapshot itself, so what it sends is always filtered by :meth:`MatchManager.snapshot`.
"""

from __future__ import annotations

import asyncio
import threading


class Hub:
    """Subscribers per match id."""

    def __init__(self) -> None:
        self._subs: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]]] = {}
        self._lock = threading.Lock()

    def subscribe(self, match_id: str) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue]:
        """A new queue woken on every change of ``match_id`` (call from the event loop)."""
        sub = (asyncio.get_running_loop(), asyncio.Queue(maxsize=1))
        with self._lock:
            self._subs.setdefault(match_id, set()).add(sub)
        return sub

    def unsubscribe(self, match_id: str, sub) -> None:
        with self._lock:
            subs = self._subs.get(match_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[match_id]

    def publish(self, match_id: str) -> None:
        """Wake every subscriber of ``match_id`` (from any thread)."""
        with self._lock:
            subs = list(self._subs.get(match_id, ()))
        for loop, q in subs:
            try:
                loop.call_soon_threadsafe(_wake, q)
            except RuntimeError:  # loop closed
                pass


def _wake(q: asyncio.Queue) -> None:
    if q.empty():
        q.put_nowait(None)
