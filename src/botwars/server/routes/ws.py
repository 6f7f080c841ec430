"""``WS /api/matches/{id}/ws``: a seat's (or spectator's) snapshot pushed on every change
(:mod:`botwars.server.routes`). :class:`SharedSnapshots` (``app.state.snapshots``) builds one
snapshot per change for every connection that needs it."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect
from starlette.requests import HTTPConnection

from botwars.server import deps
from botwars.server.deps import HubDep, ManagerDep, in_thread
from botwars.server.hub import Hub, HubFull, refuse
from botwars.server.manager import ApiError, MatchManager
from botwars.server.schemas import printable

router = APIRouter()


class SharedSnapshots:
    """One snapshot per (match, seat, since, change), shared by every connection that needs it:
    2,000 spectators cost one snapshot per change, not 2,000 (issue 12). It also knows where
    each spectator connection is (its ``since``), so that a round of spectator messages can
    build their shared snapshots before waking them (:meth:`prepare`, the hub's
    ``prepare``)."""

    def __init__(self, manager: MatchManager, hub: Hub):
        self.manager = manager
        self.hub = hub
        self.snaps: dict[str, dict[tuple, asyncio.Future]] = {}
        self.spectator_since: dict[str, dict[int, Optional[int]]] = {}
        hub.prepare = self.prepare

    def _build(self, sess: Any, seat: Optional[str], since: Optional[int]) -> tuple[dict[str, Any], str]:
        snap = self.manager.snapshot(sess, seat, since)
        return snap, json.dumps(snap)

    def get(self, sess: Any, seat: Optional[str], since: Optional[int]) -> asyncio.Future:
        """A future of ``(snapshot, its JSON text)`` for ``seat`` (``None``: a spectator)
        with the events of decision points after ``since``, at the match's current change."""
        key = (seat, since, self.hub.version(sess.id))
        cache = self.snaps.setdefault(sess.id, {})
        fut = cache.get(key)
        if fut is None or (fut.done() and fut.exception() is not None):
            if len(cache) >= 64:
                for k in [k for k in cache if k[2] < key[2]]:
                    del cache[k]
            fut = asyncio.ensure_future(in_thread(self._build, sess, seat, since))
            cache[key] = fut
        return fut

    async def prepare(self, match_id: str) -> None:
        """Build the spectators' snapshots of ``match_id`` before the hub wakes them."""
        sess = self.manager.sessions.get(match_id)
        for since in set(self.spectator_since.get(match_id, {}).values()):
            if sess is not None:
                await asyncio.shield(self.get(sess, None, since))

    def forget(self, match_id: str, q: Any) -> None:
        """Connection ``q`` of ``match_id`` has gone: drop its place, and the match's cached
        snapshots once no connection is left."""
        self.spectator_since.get(match_id, {}).pop(id(q), None)
        if not self.hub.connections(match_id):
            self.snaps.pop(match_id, None)
            self.spectator_since.pop(match_id, None)


def get_snapshots(conn: HTTPConnection) -> SharedSnapshots:
    """The app's :class:`SharedSnapshots` (``app.state.snapshots``)."""
    snapshots: SharedSnapshots = conn.app.state.snapshots
    return snapshots


async def _drain(websocket: WebSocket, q: asyncio.Queue, gone: list[bool]) -> None:
    """Reads (and ignores) what the client sends, until it goes: then wakes the sender."""
    try:
        while (await websocket.receive()).get("type") != "websocket.disconnect":
            pass
    except Exception:
        pass
    gone.append(True)
    if q.empty():
        q.put_nowait(None)


async def _push(websocket: WebSocket, shared: SharedSnapshots, sess: Any, seat: Optional[str],
                q: asyncio.Queue, gone: list[bool]) -> None:
    """Send the snapshot whenever it changed, until the match ends or the client goes."""
    last_n: int | None = None
    last_sent = None
    while not gone:
        fut = shared.get(sess, seat, last_n)
        snap, text = fut.result() if fut.done() else await asyncio.shield(fut)
        key = (snap["decision"], snap["status"], tuple(snap["submitted"]), len(snap["notes"]),
               snap["clock"].get("paused"), tuple(sorted(snap["bots"])))
        if key != last_sent:
            async with asyncio.timeout(deps.WS_SEND_TIMEOUT_S):  # a client that takes nothing goes
                await websocket.send_text(text)
            last_sent = key
        last_n = snap["decision"] if snap["status"] == "ended" else snap["decision"] - 1
        if snap["status"] == "ended":
            await websocket.close(code=1000)
            return
        if seat is None:
            shared.spectator_since.setdefault(sess.id, {})[id(q)] = last_n
        await q.get()


async def _claim_shared(hub: Hub, match_id: str, address: Optional[str]) -> Optional[str]:
    """Count the connection in the database when workers share one (``hub.shared``, issue 27
    item 4), so the caps hold across workers; returns its id, or ``None`` without sharing.
    Raises :class:`HubFull` beyond a cap."""
    if hub.shared is None:
        return None
    from botwars.store.shared import ConnectionsFull
    try:
        return await in_thread(hub.shared.claim, match_id, address, hub.per_match, hub.per_address)
    except ConnectionsFull as exc:
        raise HubFull(str(exc)) from None


@router.websocket("/api/matches/{match_id}/ws")
async def ws(websocket: WebSocket, match_id: str, manager: ManagerDep, hub: HubDep,
             shared: SharedSnapshots = Depends(get_snapshots), token: Optional[str] = None) -> None:
    """Sends the snapshot (as GET view) at once and after every change: new decision point,
    accepted order, resolution (with the seat's events since the last message), end.
    Closes at once with code 4429 when the match or the client's address has too many
    connections (``ws_per_match``, ``ws_per_address``)."""
    try:
        sess = await in_thread(manager.get, match_id)
        seat = manager.authenticate(sess, token) if token else None
    except ApiError as exc:
        await refuse(websocket, 4403 if exc.status == 403 else 4404, printable(exc.message))
        return
    address = websocket.client.host if websocket.client else None
    try:
        sub = hub.subscribe(sess.id, address, spectator=seat is None)
    except HubFull as exc:
        await refuse(websocket, 4429, str(exc))
        return
    try:
        cid = await _claim_shared(hub, sess.id, address)
    except HubFull as exc:
        hub.unsubscribe(sess.id, sub)
        await refuse(websocket, 4429, str(exc))
        return
    q = sub[1]
    gone: list[bool] = []
    reading = None
    try:
        await websocket.accept()
        reading = asyncio.ensure_future(_drain(websocket, q, gone))
        await _push(websocket, shared, sess, seat, q, gone)
    except (WebSocketDisconnect, RuntimeError, TimeoutError, OSError):
        return
    finally:
        if reading is not None:
            reading.cancel()
        hub.unsubscribe(sess.id, sub)
        shared.forget(sess.id, q)
        if cid is not None:  # on the loop, not awaited: a cancelled handler still releases its row
            hub.shared.release(cid)
