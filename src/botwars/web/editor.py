"""The board editor pages (issue 14 item 4), mounted by :func:`botwars.web.install_web`.

- ``GET /editor`` — the games that have a board editor;
- ``GET /editor/{game}`` — the editor: palette, grid, live check, preview, load, save, play;
- ``GET /web/editor/{game}/spec.json`` — the game's modes and palette
  (:meth:`botwars.engine.plugin.Game.editor_spec`);
- ``POST /web/editor/{game}/check`` — body ``{"text": board text, "mode": mode id}``: the
  game's checker's answer (:meth:`~botwars.engine.plugin.Game.editor_check`): problems with
  their squares, ACCEPT/REJECT where the mode has an entry test, the parsed grid, the game's
  own SVG drawing, and the match to create on it. The text is only ever parsed as a board,
  never taken as a file path. Limits: a body over :data:`MAX_EDITOR_BODY` bytes is refused
  with 413, text over :data:`MAX_EDITOR_CHARS` characters with 422.

Nothing here knows a game: the page asks the game's ``BoardFormat.editor`` hook.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from jinja2 import Environment
from pydantic import BaseModel, Field, ValidationError

from botwars.engine.errors import BotwarsError, ConfigError
from botwars.engine.plugin import games as all_games
from botwars.engine.plugin import get_game
from botwars.server.manager import ApiError

MAX_EDITOR_CHARS = 65536
"""Longest board text the check endpoint reads, in characters (422 beyond): a 40 × 40 board
of long tokens is about 20,000."""

MAX_EDITOR_BODY = 4 * MAX_EDITOR_CHARS + 1024
"""Largest check request body in bytes (413 beyond; JSON escapes may quadruple a character)."""


class CheckIn(BaseModel):
    """The check request: the board text and the editor mode."""

    text: str = Field(max_length=MAX_EDITOR_CHARS)
    mode: str = Field(max_length=32)


def _editor_game(game_id: str) -> Any:
    """The game, if it has a board editor; :class:`ApiError` 404 otherwise."""
    try:
        game = get_game(game_id)
    except BotwarsError:
        game = None
    if game is None or game.board_editor() is None:
        raise ApiError(404, "not_found", f"no board editor for game {game_id[:64]!r}")
    return game


def install_editor(app: FastAPI, env: Environment) -> None:
    """Mount the editor's page and endpoints on ``app`` (templates from ``env``)."""

    @app.get("/editor", response_class=HTMLResponse, include_in_schema=False)
    def editor_index() -> HTMLResponse:
        have = [(gid, g.name) for gid, g in all_games().items() if g.board_editor() is not None]
        return HTMLResponse(env.get_template("editor.html").render(game=None, games=have, spec="null"))

    @app.get("/editor/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    def editor_page(game_id: str) -> HTMLResponse:
        game = _editor_game(game_id)
        spec = json.dumps(game.editor_spec()).replace("</", "<\\/")
        return HTMLResponse(env.get_template("editor.html").render(game=game.id, name=game.name, games=[],
                                                                    spec=spec))

    @app.get("/web/editor/{game_id}/spec.json", include_in_schema=False)
    def editor_spec(game_id: str) -> JSONResponse:
        return JSONResponse(_editor_game(game_id).editor_spec())

    @app.post("/web/editor/{game_id}/check", include_in_schema=False)
    async def editor_check(game_id: str, request: Request) -> JSONResponse:
        game = _editor_game(game_id)
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_EDITOR_BODY:
            raise ApiError(413, "body_too_large", f"the request body is over {MAX_EDITOR_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_EDITOR_BODY:
                raise ApiError(413, "body_too_large", f"the request body is over {MAX_EDITOR_BODY} bytes")
        try:
            body = CheckIn.model_validate_json(raw)
        except ValidationError as exc:
            e = exc.errors()[0]
            where = ".".join(str(x) for x in e.get("loc", ())) or "body"
            raise ApiError(422, "bad_request", f"{where}: {e.get('msg', 'invalid')}") from None
        try:
            return JSONResponse(game.editor_check(body.text, body.mode))
        except ConfigError as exc:
            raise ApiError(422, "bad_request", exc.one_line()) from None
