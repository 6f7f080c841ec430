"""A match's pages, mounted by :func:`botwars.web.install_web`: ``GET /play/{id}?token=T`` (a
seat's page), ``GET /watch/{id}`` (the spectator page), ``GET /replay/{id}`` (the replay
viewer of an ended match). A page refused (unknown match, wrong token, a replay before the
end): a browser gets the reason as a page with a way on, at the same status; other clients
keep the JSON error."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from botwars.engine.plugin import get_game
from botwars.render.palette import PALETTE, palette_json
from botwars.server.deps import ManagerDep
from botwars.server.manager import ApiError, MatchManager
from botwars.web.caches import CachesDep
from botwars.web.howto import has_how_to_play
from botwars.web.rendering import page, refused_page

router = APIRouter(include_in_schema=False)

_TITLES = {"match_running": "This match is still being played", "unknown_match": "No such match",
           "bad_token": "This seat link is not valid"}


def palette_data(seats: list[str]) -> dict[str, Any]:
    """The seat colours for a page's data (render/palette.py, the only copy): ``seats`` maps
    each seat to ``{word, name, colour, ink, edge}``, ``words`` every palette word to the same."""
    return {"seats": palette_json(seats), "words": {c.word: c.to_json() for c in PALETTE}}


def refused(request: Request, exc: ApiError, match_id: str) -> HTMLResponse:
    """The page for a refused match page (see :func:`refused_page`); raises ``exc`` again for a
    client that is not a browser."""
    watch = f"/watch/{match_id}" if exc.code == "match_running" else None
    # the API's words for a running match name seat tokens, which this page cannot take
    return refused_page(request, exc, _TITLES.get(exc.code, "This page cannot be shown"), watch=watch,
                        message="A match's replay is public once the match has ended." if watch else None)


def _play(manager: MatchManager, match_id: str, token: str) -> HTMLResponse:
    sess = manager.get(match_id)
    seat = manager.authenticate(sess, token)
    game = get_game(sess.rs.id)
    return page("match.html", sess=sess, seat=seat, token=token, game=sess.rs.id,
                # the plug-in lists its bots weakest first (docs/plugins.md): Suggest offers the
                # strongest first (a newcomer asking "defender" in arena lost every robot)
                bots=list(reversed(list(game.builtin_bots()))), entry_script=game.web_entry is not None,
                has_stages=game.stages is not None, palette=palette_data(sess.seats),
                has_legend=game.legend is not None, howto=has_how_to_play(sess.rs.id),
                replaces=game.capabilities.replace_until_resolved)


def gm_seat_controls(sess: Any, seat: str, gm_token: str) -> HTMLResponse:
    """The seat page of ``seat`` in the game master's mode (issue 24 item 1): the seat's view
    and its own order controls, a reason box, Submit sets the seat's orders for the open
    point (``/api/matches/{id}/gm/adjudicate``); no resign, no name, no live socket (the page
    polls the GM's view of the seat). The caller has checked ``gm_token``."""
    game = get_game(sess.rs.id)
    return page("match.html", sess=sess, seat=seat, token=gm_token, game=sess.rs.id, bots=[],
                entry_script=game.web_entry is not None, has_stages=game.stages is not None,
                palette=palette_data(sess.seats), has_legend=game.legend is not None, howto=False,
                replaces=True, gm=True)


@router.get("/play/{match_id}", response_class=HTMLResponse)
def play(request: Request, match_id: str, manager: ManagerDep,
         token: str = Query(..., max_length=200)) -> HTMLResponse:
    """A seat's page: board, private information, order entry, clocks, live updates."""
    try:
        return _play(manager, match_id, token)
    except ApiError as exc:
        return refused(request, exc, match_id)


@router.get("/watch/{match_id}", response_class=HTMLResponse)
def watch(request: Request, match_id: str, manager: ManagerDep) -> HTMLResponse:
    """The spectator page."""
    try:
        sess = manager.get(match_id)
    except ApiError as exc:
        return refused(request, exc, match_id)
    game = get_game(sess.rs.id)
    return page("match.html", sess=sess, seat=None, token="", game=sess.rs.id, bots=[],
                entry_script=game.web_entry is not None, has_stages=game.stages is not None,
                palette=palette_data(sess.seats), has_legend=game.legend is not None, howto=has_how_to_play(sess.rs.id))


@router.get("/replay/{match_id}", response_class=HTMLResponse)
def replay(request: Request, match_id: str, manager: ManagerDep, caches: CachesDep) -> HTMLResponse:
    """The replay viewer of an ended match."""
    try:
        sess, steps = caches.replays.get(manager, match_id)
    except ApiError as exc:
        return refused(request, exc, match_id)
    game = get_game(sess.rs.id)
    return page("replay.html", sess=sess, count=len(steps), game=sess.rs.id, howto=has_how_to_play(sess.rs.id),
                entry_script=game.web_entry is not None, palette=palette_data(sess.seats))
