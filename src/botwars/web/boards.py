"""Pictures of a match being played, mounted by :func:`botwars.web.install_web`:

- ``GET /web/matches/{id}/board.svg[?token=T]`` — the board as the seat (or a spectator) may
  see it, with the last decision point's events highlighted;
- ``GET /web/matches/{id}/legend.svg[?token=T]`` — the legend of that board (its elements drawn
  by the board's own symbols, in words), for games that declare one;
- ``GET /web/matches/{id}/turn/{n}/stages.json[?token=T&inline=1]`` — decision point ``n``
  stage by stage (issue 14) as the seat (or a spectator) may see it, running or ended;
- ``GET /web/matches/{id}/turn/{n}/frame/{j}.svg[?token=T]`` — one frame of it.
- ``GET /web/matches/{id}/turn/{n}/watch.json[?token=T]`` — decision point ``n`` as the board
  pictures the viewer may see, for the pages' "watch the last turn" player (issue 23).

A game that declares no drawing (or no stages) answers 404 with a sentence naming it."""

from __future__ import annotations

from typing import Any, Optional

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from botwars.engine.events import filter_events
from botwars.engine.plugin import get_game
from botwars.server.deps import ManagerDep
from botwars.server.manager import ApiError, MatchManager
from botwars.web.caches import CachesDep, WebCaches
from botwars.web.drawing import (before_point, frame_svg, need_drawing, sections_json, stage_caption, svg_response,
                                 visible_sections, watch_frames)

router = APIRouter(include_in_schema=False)


def seat_of(manager: MatchManager, sess: Any, token: Optional[str], as_seat: Optional[str] = None) -> Optional[str]:
    """The seat ``token`` belongs to in ``sess`` (``None`` without a token: a spectator);
    :class:`ApiError` 403 for a wrong token. With ``as_seat``, ``token`` must be the game
    master's (403 otherwise, a seat's token included) and the answer is ``as_seat``: the GM
    sets a seat's orders with that seat's own controls (issue 24 item 1); 422 for no such
    seat."""
    if as_seat is not None:
        from botwars.server.routes.gm import authenticate_gm
        authenticate_gm(sess, token)
        if as_seat not in sess.seats:
            raise ApiError(422, "unknown_seat", f"as_seat: no seat {as_seat!r} in this match "
                                                f"(seats: {', '.join(sess.seats)})")
        return as_seat
    return manager.authenticate(sess, token) if token else None


AS_SEAT = Query(None, max_length=64, description="With the game master's token: view as this seat")


@router.get("/web/matches/{match_id}/board.svg")
def board(match_id: str, manager: ManagerDep, token: Optional[str] = Query(None, max_length=200),
          as_seat: Optional[str] = AS_SEAT) -> Response:
    """The board now, as the viewer may see it; 404 for a game without a drawing."""
    sess = manager.get(match_id)
    seat = seat_of(manager, sess, token, as_seat)
    game = need_drawing(get_game(sess.rs.id))
    with sess.lock:
        events = sess.events[-1] if sess.events else []
        svg = game.draw_svg(sess.state, seat, filter_events(events, seat))
    return svg_response(svg, headers={"Cache-Control": "no-store"})


def point_sections(caches: WebCaches, sess: Any, n: int) -> list[dict[str, Any]] | None:
    """The stage sections of resolved decision point ``n`` (all of them: the caller filters)."""
    def make() -> list[dict[str, Any]] | None:
        before, _after, events, line = before_point(sess, n)
        orders = line.get("orders", {}) or {}
        return get_game(sess.rs.id).turn_stages(before, orders, events) if orders else None
    return caches.stages.get(("point", sess.id, n), make)


def _staged(manager: MatchManager, match_id: str, token: Optional[str]) -> tuple[Any, Optional[str]]:
    sess = manager.get(match_id)
    seat = seat_of(manager, sess, token)
    if get_game(sess.rs.id).stages is None:
        raise ApiError(404, "not_found", f"{sess.rs.id} has no stages")
    return sess, seat


@router.get("/web/matches/{match_id}/legend.svg")
def legend(match_id: str, manager: ManagerDep, token: Optional[str] = Query(None, max_length=200),
           as_seat: Optional[str] = AS_SEAT) -> Response:
    """The legend of the board the seat (or a spectator) sees: its elements, drawn by the
    board's own symbols, in words (404 for a game that declares none)."""
    sess = manager.get(match_id)
    seat = seat_of(manager, sess, token, as_seat)
    with sess.lock:
        svg = get_game(sess.rs.id).draw_legend(sess.state, seat)
    if svg is None:
        raise ApiError(404, "not_found", f"the game {sess.rs.id} draws no legend")
    return svg_response(svg, headers={"Cache-Control": "no-store"})


@router.get("/web/matches/{match_id}/turn/{n}/stages.json")
def turn_stages(match_id: str, n: int, manager: ManagerDep, caches: CachesDep,
                token: Optional[str] = Query(None, max_length=200), inline: bool = Query(False)) -> JSONResponse:
    """Decision point ``n`` stage by stage, the sections the viewer may see."""
    sess, seat = _staged(manager, match_id, token)
    sections = point_sections(caches, sess, n)
    query = f"?token={token}" if token else ""
    return JSONResponse({"match": sess.id, "n": n, "sections": sections_json(
        sections, seat, sess.ended, f"/web/matches/{sess.id}/turn/{n}", query, inline, sess.names, sess.seats)},
        headers={"Cache-Control": "no-store"})


@router.get("/web/matches/{match_id}/turn/{n}/frame/{j}.svg")
def turn_frame(match_id: str, n: int, j: int, manager: ManagerDep, caches: CachesDep,
               token: Optional[str] = Query(None, max_length=200)) -> Response:
    """Frame ``j`` of decision point ``n`` (numbered as in its stages.json for this viewer)."""
    sess, seat = _staged(manager, match_id, token)
    return svg_response(frame_svg(point_sections(caches, sess, n), j, seat, sess.ended),
                        headers={"Cache-Control": "no-store"})


@router.get("/web/matches/{match_id}/turn/{n}/watch.json")
def turn_watch(match_id: str, n: int, manager: ManagerDep, caches: CachesDep,
               token: Optional[str] = Query(None, max_length=200)) -> JSONResponse:
    """Decision point ``n`` as pictures for the seat (or a spectator): a game with stages, the
    stage frames it may see, captioned by register; the others :func:`watch_frames`. Answers
    ``{"match", "n", "stages", "frames": [{"j", "label", "events", "svg"}]}``; 404 before ``n``
    is resolved, or for a game without a drawing."""
    sess = manager.get(match_id)
    seat = seat_of(manager, sess, token)
    game = need_drawing(get_game(sess.rs.id))
    ended = sess.ended

    def make() -> list[dict[str, Any]]:
        if game.stages is not None:
            return [{"label": stage_caption(sec, f.get("caption") or f["label"]), "events": [], "svg": f["svg"]}
                    for sec in visible_sections(point_sections(caches, sess, n), seat, ended) for f in sec["frames"]]
        # one re-simulation per point for all its viewers
        before, after, events, _line = caches.stages.get(("before", sess.id, n), lambda: before_point(sess, n))
        return watch_frames(game, before, after, filter_events(events, seat), seat)
    frames = caches.watch.get((sess.id, n, seat, ended), make)
    return JSONResponse({"match": sess.id, "n": n, "stages": game.stages is not None,
                         "frames": [{"j": j, **f} for j, f in enumerate(frames)]},
                        headers={"Cache-Control": "no-store"})
