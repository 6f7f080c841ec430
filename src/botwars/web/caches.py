"""What the web pages keep between requests (``app.state.web``, a :class:`WebCaches`, set by
:func:`botwars.web.install_web`): re-simulated ended matches, drawings of replay steps and stage
sections, each a small LRU. Routes take them with the :data:`CachesDep` dependency."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends
from starlette.requests import HTTPConnection

from botwars.engine.record import Record, resimulate
from botwars.server.manager import MatchManager


class ReplayCache:
    """Re-simulated ended matches (a small LRU): per match the list of
    ``(state_after, events, line)`` with index 0 the initial state."""

    def __init__(self, size: int = 8):
        self.size = size
        self.items: OrderedDict[str, list[tuple[Any, list, dict]]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, manager: MatchManager, match_id: str) -> tuple[Any, list[tuple[Any, list, dict]]]:
        """The session and its steps; raises :class:`ApiError` 403 while the match runs."""
        sess = manager.get(match_id)
        lines = manager.record(sess, None)  # 403 match_running before the end
        with self.lock:
            if sess.id in self.items:
                self.items.move_to_end(sess.id)
                return sess, self.items[sess.id]
        header, decisions = lines[0], [x for x in lines[1:] if x and x.get("type") == "decision"]
        rec = Record(header, decisions, lines[-1], "", [s["seat"] for s in header["seats"]])
        rs = sess.rs
        steps: list[tuple[Any, list, dict]] = []
        for r in resimulate(rec):
            if not steps:
                steps.append((r.before, [], {"n": 0, "turn": 0}))
            steps.append((r.after, r.events, r.line))
        if not steps:
            steps.append((rs.setup(header["config"], rec.seats, header["seed"]), [], {"n": 0, "turn": 0}))
        with self.lock:
            self.items[sess.id] = steps
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return sess, steps


class Lru:
    """A small thread-safe LRU mapping (drawings and stage sections of viewed steps)."""

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any, make: Any) -> Any:
        """The value for ``key``, made by ``make()`` (outside the lock) on a miss."""
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = make()
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


@dataclass
class WebCaches:
    """The pages' caches: ``replays`` (ended matches re-simulated), ``drawings`` (replay boards
    by (match, step): each drawn once while viewed), ``stages`` (stage sections by (match,
    point) and move lists by match)."""

    replays: ReplayCache = field(default_factory=ReplayCache)
    drawings: Lru = field(default_factory=lambda: Lru(512))
    stages: Lru = field(default_factory=lambda: Lru(64))


def get_caches(conn: HTTPConnection) -> WebCaches:
    """The app's :class:`WebCaches` (``app.state.web``)."""
    caches: WebCaches = conn.app.state.web
    return caches


CachesDep = Annotated[WebCaches, Depends(get_caches)]
