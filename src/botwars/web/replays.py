"""The replay viewer's data (an ended match: its full record is public), mounted by
:func:`botwars.web.install_web`:

- ``GET /web/matches/{id}/replay.json`` — every decision point: orders, events, the rule set's
  report as HTML;
- ``GET /web/matches/{id}/replay/{k}.svg[?seat=S]`` — the board after decision point ``k``
  (``0``: the start), everything revealed or as seat ``S`` saw it;
- ``GET /web/matches/{id}/replay/index.json`` — the light index: per step its decision number,
  turn and every seat's orders in the game's notation (the move list);
- ``GET /web/matches/{id}/replay/{k}.json`` — one step in full: orders, events, the readable
  report, hands, and for games with stages the stage sections with one picture URL per frame
  (``/web/matches/{id}/replay/{k}/frame/{j}.svg``).

While the match runs each answers 403 ``match_running``; a game without a drawing answers 404
for the pictures."""

from __future__ import annotations

from typing import Any, Optional

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from botwars.engine.events import filter_events
from botwars.engine.plugin import get_game
from botwars.engine.referee import seat_view
from botwars.server.deps import ManagerDep
from botwars.server.manager import ApiError, MatchManager
from botwars.render.publication import recorded_moves
from botwars.server.names import with_names
from botwars.web.caches import CachesDep, WebCaches
from botwars.web.drawing import frame_svg, need_drawing, report_html, sections_json, step_label, svg_response

router = APIRouter(include_in_schema=False)


def _step(manager: MatchManager, caches: WebCaches, match_id: str, k: int) -> tuple[Any, list]:
    """The session and steps of an ended match, with ``k`` checked (404 beyond the last)."""
    sess, steps = caches.replays.get(manager, match_id)
    if not 0 <= k < len(steps):
        raise ApiError(404, "not_found", f"no decision point {k} (0..{len(steps) - 1})")
    return sess, steps


def replay_sections(caches: WebCaches, sess: Any, steps: list, k: int) -> list[dict[str, Any]] | None:
    """The stage sections of replay step ``k`` (``None`` for the start or a game without
    stages)."""
    if k == 0:
        return None
    before, (after, events, line) = steps[k - 1][0], steps[k]
    return caches.stages.get(("replay", sess.id, k), lambda: get_game(sess.rs.id).turn_stages(
        before, line.get("orders", {}) or {}, events) if line.get("orders") else None)


@router.get("/web/matches/{match_id}/replay.json")
def replay_json(match_id: str, manager: ManagerDep, caches: CachesDep) -> JSONResponse:
    """Every step of the replay in full."""
    sess, steps = caches.replays.get(manager, match_id)
    rs = sess.rs
    out = []
    for k, (after, events, line) in enumerate(steps):
        before = steps[k - 1][0] if k else after
        out.append({"k": k, "n": line.get("n", 0), "turn": rs.turn_number(after),
                    "label": step_label(rs, before, k, sess.seats, sess.names),
                    "orders": line.get("orders", {}), "errors": line.get("errors", {}),
                    "events": [e.to_json() for e in events],
                    "report": with_names(report_html(rs, before, after, events), sess.seats, sess.names,
                                         markup=True) if k else ""})
    o = sess.outcome.to_json() if sess.outcome else None
    return JSONResponse({"match": sess.id, "game": rs.id, "steps": out, "outcome": o, "seats": sess.seats})


@router.get("/web/matches/{match_id}/replay/{k}.svg")
def replay_svg(match_id: str, k: int, manager: ManagerDep, caches: CachesDep,
               seat: Optional[str] = Query(None, max_length=64)) -> Response:
    """The board after step ``k``: revealed, or as ``seat`` saw it; 404 without a drawing."""
    sess, steps = _step(manager, caches, match_id, k)
    if seat is not None and seat not in sess.seats:
        raise ApiError(422, "unknown_seat", f"no seat {seat[:64]!r} (seats: {', '.join(sess.seats)})")
    # the match has ended, so its full record is public: any seat's picture may be shown
    after, events, _ = steps[k]
    if seat is not None:  # "board as seen by" a seat
        game = need_drawing(get_game(sess.rs.id))
        return svg_response(game.draw_svg(after, seat, filter_events(events, seat)))
    # everything revealed: every hidden fact is drawn (issue 14)
    game = need_drawing(get_game(sess.rs.id), revealed=True)
    svg = caches.drawings.get(("replay", sess.id, k), lambda: game.draw_revealed(after, events))
    return svg_response(svg, headers={"Cache-Control": "max-age=3600"})


@router.get("/web/matches/{match_id}/replay/index.json")
def replay_index(match_id: str, manager: ManagerDep, caches: CachesDep) -> JSONResponse:
    """The move list of the replay."""
    sess, steps = caches.replays.get(manager, match_id)
    game = get_game(sess.rs.id)

    def make() -> list[dict[str, Any]]:
        rows = []
        for k, (after, events, line) in enumerate(steps):
            before = steps[k - 1][0] if k else after
            moves = recorded_moves(game, before, line)
            if "resign" in line:
                moves[str(line["resign"])] = "resign"
            rows.append({"k": k, "n": line.get("n", 0), "turn": sess.rs.turn_number(after),
                         "label": step_label(sess.rs, before, k, sess.seats, sess.names), "moves": moves})
        return rows
    rows = caches.stages.get(("index", sess.id), make)
    o = sess.outcome.to_json() if sess.outcome else None
    return JSONResponse({"match": sess.id, "game": sess.rs.id, "count": len(steps), "stages": game.stages is not None,
                         "steps": rows, "outcome": o, "seats": sess.seats})


def _hands(rs: Any, before: Any, seats: list[str]) -> dict[str, Any]:
    """Each seat's hand before a step, where its view has one (revealed: the match ended)."""
    hands = {}
    for seat in seats:
        try:
            hand = seat_view(rs, before, seat).get("hand")
        except Exception:  # a view that needs more than a state (never for the shipped games)
            hand = None
        if hand:
            hands[seat] = hand
    return hands


@router.get("/web/matches/{match_id}/replay/{k}.json")
def replay_step(match_id: str, k: int, manager: ManagerDep, caches: CachesDep) -> JSONResponse:
    """Step ``k`` of the replay in full."""
    sess, steps = _step(manager, caches, match_id, k)
    rs, game = sess.rs, get_game(sess.rs.id)
    after, events, line = steps[k]
    before = steps[k - 1][0] if k else after
    sections = replay_sections(caches, sess, steps, k)
    orders = line.get("orders", {}) or {}
    return JSONResponse({
        "k": k, "n": line.get("n", 0), "turn": rs.turn_number(after), "orders": orders,
        "moves": recorded_moves(game, before, line),
        "errors": line.get("errors", {}), "events": [e.to_json() for e in events],
        "hands": _hands(rs, before, sess.seats),
        "report": "" if (k == 0 or sections) else with_names(report_html(rs, before, after, events), sess.seats,
                                                             sess.names, markup=True),
        "sections": sections_json(sections, None, True, f"/web/matches/{sess.id}/replay/{k}",
                                  names=sess.names, seats=sess.seats)})


@router.get("/web/matches/{match_id}/replay/{k}/frame/{j}.svg")
def replay_frame(match_id: str, k: int, j: int, manager: ManagerDep, caches: CachesDep) -> Response:
    """Frame ``j`` of step ``k``'s stage sections."""
    sess, steps = _step(manager, caches, match_id, k)
    return svg_response(frame_svg(replay_sections(caches, sess, steps, k), j, None, True),
                        headers={"Cache-Control": "max-age=3600"})
