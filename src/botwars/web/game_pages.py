"""A game's pages, mounted by :func:`botwars.web.install_web`: ``GET /rules/{game}`` (the
binding rules, the ``rules_page`` the game's plug-in declares in its own folder, e.g.
``games/factory/rules.md``, a copy of ``shared/rules``, rendered to HTML with markdown-it-py,
with a table of contents; 404 for a game that is not installed or declares no rules page) and ``GET /web/games/{game}/entry.js`` (the game's order-entry script, its
``web_entry``; 404 without one)."""

from __future__ import annotations

import logging
from typing import Optional

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from botwars.engine.errors import RulesetError
from botwars.engine.plugin import games as all_games
from botwars.engine.plugin import get_game
from botwars.server.manager import ApiError
from botwars.web.rendering import page

router = APIRouter(include_in_schema=False)
log = logging.getLogger("botwars.web.game_pages")


def rules_markdown(game_id: str) -> Optional[str]:
    """The binding rules of ``game_id`` as Markdown (the game's declared ``rules_page``, then its
    ``rules_variants`` sections), or
    ``None`` when the game is unknown, declares none, or its file cannot be read (logged)."""
    game = all_games().get(game_id)
    if game is None:
        return None
    try:
        return game.rules_text()
    except RulesetError as exc:  # a declared page that cannot be read: the game's fault, logged
        log.warning("rules page of %s: %s", game_id[:64], exc)
        return None


def rules_html(text: str) -> tuple[str, list[tuple[int, str, str]]]:
    """Markdown ``text`` as HTML (markdown-it-py, CommonMark with tables; raw HTML in the
    source is escaped) and its table of contents ``[(level, anchor, title)]`` for the level 2
    and 3 headings, which get ``id`` anchors (``s-1``, ``s-2``...)."""
    from markdown_it import MarkdownIt
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    toc: list[tuple[int, str, str]] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag in ("h2", "h3"):
            anchor = f"s-{len(toc) + 1}"
            tok.attrSet("id", anchor)
            toc.append((int(tok.tag[1]), anchor, tokens[i + 1].content))
    return md.renderer.render(tokens, md.options, {}), toc


@router.get("/rules/{game_id}", response_class=HTMLResponse)
def rules_page(game_id: str) -> HTMLResponse:
    """The game's rules page; :class:`ApiError` 404 naming the game when there is none."""
    text = rules_markdown(game_id)
    if text is None:
        raise ApiError(404, "not_found", f"no rules page for game {game_id[:64]!r}")
    body, toc = rules_html(text)
    return page("rules.html", game=game_id, body=body, toc=toc)


@router.get("/web/games/{game_id}/entry.js")
def entry_js(game_id: str) -> Response:
    """The game's order-entry script; :class:`ApiError` 404 naming the game when it has none."""
    try:
        text = get_game(game_id).entry_script()
    except RulesetError:
        text = None
    if text is None:
        raise ApiError(404, "not_found", f"no order-entry script for game {game_id[:64]!r}")
    return Response(text, media_type="text/javascript")
