"""A seat's view of a match and which seat a token is (:mod:`botwars.server.routes`)."""

from __future__ import annotations

from typing import Any, Optional

from fastapi import APIRouter, Query

from botwars.server.deps import ManagerDep, TokenDep
from botwars.server.schemas import SeatInfo, Snapshot, errs

router = APIRouter(tags=["play"])


@router.get("/api/matches/{match_id}/view", response_model=Snapshot, responses=errs(403, 404, 422))
def view(match_id: str, manager: ManagerDep, token: TokenDep,
         since: Optional[int] = Query(None, ge=0, le=10**9,
                                      description="Events of decision points after this one")) -> Any:
    """The seat's view with its token, else the spectator view; plus the seat's events."""
    sess = manager.get(match_id)
    seat = manager.authenticate(sess, token) if token else None
    return manager.snapshot(sess, seat, since)


@router.get("/api/seat", response_model=SeatInfo, responses=errs(403))
def seat_info(manager: ManagerDep, token: TokenDep) -> Any:
    """Which match and seat a token belongs to, with what its agent needs to start."""
    sess, seat = manager.find_seat(token)
    return {"match": sess.id, "seat": seat, "game": sess.rs.id, "config": sess.config, "seats": sess.seats,
            "agent_seed": sess.rs.agent_seed(sess.seed, seat), "status": sess.status}
