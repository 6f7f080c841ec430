"""``POST /api/matches/{id}/orders``: a seat's orders (:mod:`botwars.server.routes`)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from botwars.server.deps import ManagerDep, StoreDep, TokenDep, hot
from botwars.server.schemas import Ack, OrdersIn, errs

router = APIRouter(tags=["play"])


@router.post("/api/matches/{match_id}/orders", response_model=Ack, responses=errs(403, 404, 409, 413, 422))
async def orders(match_id: str, body: OrdersIn, token: TokenDep, manager: ManagerDep,
                 store: StoreDep) -> JSONResponse:
    """Submit the seat's orders for the open decision point. Acknowledged only once stored;
    resending the same orders is answered with ``duplicate: true`` and changes nothing."""
    def work() -> dict:
        return manager.submit_with_token(match_id, token, body.decision, body.orders,
                                         body.failure.model_dump() if body.failure else None)
    live = manager.sessions.get(match_id)  # unknown or not loaded yet: the thread finds out
    return JSONResponse(await hot(store, work, heavy=live is None or live.heavy))
