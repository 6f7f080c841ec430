"""The game master's page (issue 24 item 1): ``GET /gm/{match}?token=GM_TOKEN`` lists every
seat (who plays it, awaited or submitted, time left, last seen) with the GM's actions as
buttons and forms (``static/gm.js`` calls ``/api/matches/{id}/gm/...``, server/gm.py), and the
match's GM actions and missed deadlines in words; ``GET /gm/{match}/seat/{seat}?token=GM_TOKEN``
is that seat's own order controls for the GM (shown in a frame of the GM page). A wrong token
gets a page saying so (403)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from botwars.server.routes.gm import authenticate_gm
from botwars.server.manager import ApiError
from botwars.web.rendering import page, refused_page

router = APIRouter(include_in_schema=False)

_TITLES = {"unknown_match": "No such match", "not_game_master": "This game master link is not valid",
           "token_required": "This game master link is not valid"}


@router.get("/gm/{match_id}", response_class=HTMLResponse)
def gm_page(request: Request, match_id: str, token: str = Query("", max_length=200)) -> HTMLResponse:
    """The GM page of ``match_id`` (the token is the GM's, from the match's creation)."""
    try:
        sess = request.app.state.manager.get(match_id)
        authenticate_gm(sess, token)
    except ApiError as exc:
        return refused_page(request, exc, _TITLES.get(exc.code, "This page cannot be shown"))
    return page("gm.html", sess=sess, token=token, game=sess.rs.id)


@router.get("/gm/{match_id}/seat/{seat}", response_class=HTMLResponse)
def gm_seat_page(request: Request, match_id: str, seat: str,
                 token: str = Query("", max_length=200)) -> HTMLResponse:
    """The order controls of ``seat`` for the game master (the GM page shows it in a frame):
    the seat's own page kit on the seat's view, a reason box, and Submit sets the seat's orders
    (``/api/matches/{id}/gm/adjudicate``, the rules' check as a player's)."""
    from botwars.web.match_pages import gm_seat_controls
    try:
        sess = request.app.state.manager.get(match_id)
        authenticate_gm(sess, token)
        if seat not in sess.seats:
            raise ApiError(404, "unknown_seat", f"no seat {seat!r} in this match (seats: {', '.join(sess.seats)})")
    except ApiError as exc:
        return refused_page(request, exc, _TITLES.get(exc.code, "This page cannot be shown"))
    return gm_seat_controls(sess, seat, token)
