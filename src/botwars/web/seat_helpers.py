"""What a seat page's order entry asks while it plays, mounted by :func:`botwars.web.install_web`
(each needs the seat's token; ``helpers`` and ``plan`` also take the game master's token with
``as_seat=SEAT``, for the GM's order controls of that seat, issue 24 item 1):

- ``GET /web/matches/{id}/helpers?token=T`` — legal orders (``Ruleset.legal_orders``), built-in
  bot names, and the facts the game's ``page_helpers`` adds while the seat is to move;
- ``GET /web/matches/{id}/suggest?token=T&bot=NAME`` — the orders a fresh built-in bot would
  give for the seat's view (a starting point the player may edit);
- ``POST /web/matches/{id}/plan?token=T`` — where the seat's (partial) program would take its
  robot(s) (issue 13; the game's ``plan`` hook; 404 for a game without one)."""

from __future__ import annotations

import copy
from typing import Any, Optional

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse

from botwars.engine.plugin import get_game
from botwars.server.deps import ManagerDep
from botwars.server.manager import ApiError
from botwars.web.boards import AS_SEAT, seat_of

router = APIRouter(include_in_schema=False)


@router.get("/web/matches/{match_id}/helpers")
def helpers(match_id: str, manager: ManagerDep, token: str = Query(..., max_length=200),
            as_seat: Optional[str] = AS_SEAT) -> JSONResponse:
    """Legal orders, bots and the game's page facts for the seat (``as_seat`` with the game
    master's token: for that seat)."""
    sess = manager.get(match_id)
    seat = seat_of(manager, sess, token, as_seat)
    assert seat is not None
    rs = sess.rs
    game = get_game(rs.id)
    with sess.lock:
        legal, facts = None, {}
        if not sess.ended and seat in sess.pending():
            legal = rs.legal_orders(sess.state, seat)
            facts = game.page_facts(sess.state, seat)
    return JSONResponse({**facts, "legal": legal, "bots": sorted(game.builtin_bots())})


@router.get("/web/matches/{match_id}/suggest")
def suggest(match_id: str, manager: ManagerDep, token: str = Query(..., max_length=200),
            bot: str = Query(..., max_length=64)) -> JSONResponse:
    """A built-in bot's orders for the seat's view; 422 for an unknown or failing bot."""
    from botwars.engine.agent import AgentFailure, CallableAgent
    sess = manager.get(match_id)
    seat = manager.authenticate(sess, token)
    bots = get_game(sess.rs.id).builtin_bots()
    if bot not in bots:
        raise ApiError(422, "unknown_bot", f"no built-in bot {bot!r} (known: {', '.join(sorted(bots))})")
    with sess.lock:
        view = sess.ref.view(seat)  # the seat's view as its bots get it (Referee.view)
    agent = CallableAgent(bots[bot](), f"builtin:{bot}")
    pool = manager.bot_pool
    try:
        agent.start(sess.rs.id, seat, copy.deepcopy(sess.config), sess.rs.agent_seed(sess.seed, seat) + sess.n)
        # in the bot pool where the server has one: a time limit, and no bot code in this process
        payload = pool.call(agent, view, None) if pool is not None and pool.running else agent.act(view, None)
    except AgentFailure as exc:
        raise ApiError(422, "bot_failed", f"bot {bot} failed: {exc}") from None
    return JSONResponse({"orders": payload})


@router.post("/web/matches/{match_id}/plan")
def plan(match_id: str, manager: ManagerDep, payload: dict[str, Any] = Body(...),
         token: str = Query(..., max_length=200), as_seat: Optional[str] = AS_SEAT) -> JSONResponse:
    """Issue 13: where the seat's (partial) program would take its robot(s) on the current
    board, other robots ignored (the game's ``plan`` hook, from the seat's own view)."""
    from botwars.engine.errors import InvalidOrders
    sess = manager.get(match_id)
    seat = seat_of(manager, sess, token, as_seat)
    game = get_game(sess.rs.id)
    if game.plan is None:
        raise ApiError(404, "not_found", f"{sess.rs.id} draws no planned path")
    with sess.lock:
        view = sess.ref.view(seat)  # the seat's view as its bots get it (Referee.view)
    try:
        steps = game.plan_path(view, payload)
    except InvalidOrders as exc:
        raise ApiError(422, "invalid_plan", exc.message) from None
    except (ValueError, KeyError, IndexError, TypeError) as exc:  # a position the plan cannot read
        raise ApiError(422, "no_plan", f"no plan for this position: {type(exc).__name__}: {exc}") from None
    return JSONResponse({"steps": steps}, headers={"Cache-Control": "no-store"})
