"""Matches: create, list, public summary, resign, record (:mod:`botwars.server.routes`)."""

from __future__ import annotations

import secrets
from typing import Any, Literal, Optional

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from botwars.engine.errors import BotwarsError, ConfigError
from botwars.engine.ruleset import canonical_json, get_ruleset
from botwars.server.deps import MAX_BOARD_CHARS, BaseUrlDep, LimitsDep, ManagerDep, TokenDep
from botwars.server.manager import GM_KEY, ApiError
from botwars.server.schemas import Created, CreateMatch, ListItem, Named, NameIn, Resigned, Summary, errs
from botwars.render.palette import seat_colours

router = APIRouter()

CLOCK_PRESETS = {"blitz": 30.0, "daily": 86_400.0, "pbem": 432_000.0}
"""Seconds a turn of each clock preset (issue 24 item 6): blitz 30 s, daily 24 h, PBEM (play
by e-mail) 5 days. :meth:`Ruleset.clock_settings` turns them into the game's parameters."""


def check_config(game: str, config: dict[str, Any], max_board_chars: int = MAX_BOARD_CHARS) -> None:
    """What the server refuses in a new match's ``config`` before the rule set sees it (issue
    12): a map, board, room set or pool that would be read from a file path (only shipped names
    and text are accepted; no file is looked at), and such text over ``max_board_chars``
    characters. Raises :class:`ApiError` 422 ``bad_config`` naming the parameter; an unknown
    game is left to :meth:`MatchManager.create`."""
    try:
        rs = get_ruleset(game)
    except BotwarsError:
        return
    try:
        rs.refuse_paths(config, source="config")
    except ConfigError as exc:
        raise ApiError(422, "bad_config", exc.one_line()) from None
    table = rs.param_table()
    for k, v in config.items():
        p = table.get(k)
        if p is not None and p.kind == "file" and isinstance(v, str) and len(v) > max_board_chars:
            raise ApiError(422, "bad_config", f"config: parameter {k}: {len(v)} characters of text, over this "
                                              f"server's limit of {max_board_chars}")


@router.post("/api/matches", response_model=Created, status_code=201, responses=errs(413, 422), tags=["matches"])
def create(body: CreateMatch, manager: ManagerDep, limits: LimitsDep, b: BaseUrlDep) -> dict[str, Any]:
    """Create a match. Each seat's link carries its secret token: give it only to that player.
    A map, board, room set or pool is a shipped name or the text itself, never a file path."""
    check_config(body.game, body.config, limits.max_board_chars)
    seed = body.seed if body.seed is not None else secrets.randbits(63)
    preset = CLOCK_PRESETS[body.clock_preset] if body.clock_preset else None
    sess, tokens = manager.create(body.game, body.seats, body.config, seed, body.clock, names=body.names,
                                  preset_s=preset)
    gm = tokens[GM_KEY]  # the game master's token: in this answer only (issue 24 item 1)
    return {"match": sess.id, "game": sess.rs.id, "gm_token": gm, "gm_url": f"{b}/gm/{sess.id}?token={gm}",
            "seats": [{"seat": s, "agent": sess.agents[s], "name": sess.names.get(s), "token": tokens[s],
                       "colour": seat_colours(sess.seats)[s].name,
                       "url": f"{b}/api/matches/{sess.id}/view?token={tokens[s]}"} for s in sess.seats],
            "spectator": f"{b}/api/matches/{sess.id}/view",
            "websocket": f"{b.replace('http', 'ws', 1)}/api/matches/{sess.id}/ws"}


@router.get("/api/matches", response_model=list[ListItem], responses=errs(422), tags=["matches"])
def list_matches(manager: ManagerDep, status: Optional[Literal["running", "ended"]] = None,
                 limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0, le=10**9)) -> Any:
    """Matches, newest first."""
    return manager.list(status, limit, offset)


@router.get("/api/matches/{match_id}", response_model=Summary, responses=errs(404), tags=["matches"])
def summary(match_id: str, manager: ManagerDep) -> dict[str, Any]:
    """Public facts about a match: seats, open decision point, clocks, outcome."""
    return manager.summary(manager.get(match_id))


@router.post("/api/matches/{match_id}/resign", response_model=Resigned, responses=errs(403, 404, 409),
             tags=["play"])
def resign(match_id: str, manager: ManagerDep, token: TokenDep) -> Any:
    """The seat resigns; the match ends at once."""
    sess = manager.get(match_id)
    seat = manager.authenticate(sess, token)
    return manager.resign(sess.id, seat)


@router.post("/api/matches/{match_id}/name", response_model=Named, responses=errs(403, 404, 409, 422),
             tags=["play"])
def set_name(match_id: str, body: NameIn, manager: ManagerDep, token: TokenDep) -> Any:
    """The seat's player sets the seat's display name, once (1-40 characters, any script; no
    ``<`` ``>`` or control characters: 422 naming the fault; a second name: 409 ``name_set``)."""
    sess = manager.get(match_id)
    seat = manager.authenticate(sess, token)
    return manager.set_name(sess, seat, body.name)


@router.get("/api/matches/{match_id}/record", responses={**errs(403, 404, 422),
                                                         200: {"content": {"application/x-ndjson": {}},
                                                               "description": "JSON Lines record"}},
            response_class=JSONResponse, tags=["play"])
def record(match_id: str, manager: ManagerDep, token: TokenDep) -> Response:
    """JSON Lines: with a token, that seat's own record at any time; without, the full
    record (``botwars replay --verify`` reads it) once the match has ended."""
    sess = manager.get(match_id)
    seat = manager.authenticate(sess, token) if token else None
    lines = manager.record(sess, seat)
    return Response("".join(canonical_json(x) + "\n" for x in lines), media_type="application/x-ndjson")
