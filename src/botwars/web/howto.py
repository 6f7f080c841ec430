"""How-to-play pages (issue 23 item 1): ``GET /howto/{game}``, a newcomer's page a game declares
in its plug-in (``Game.how_to_play``, docs/plugins.md), rendered like the rules page
(markdown-it-py) with pictures drawn by the game's own SVG drawing.

A picture is a fenced block whose info string is ``position``: a YAML scenario document of the
game's own format (docs/<game>.md) plus two keys of this page, ``caption`` (the text under the
picture), ``seat`` (draw the board as that seat sees it; default: a spectator) and
``start_only`` (``true``: draw the starting position; the format's entries are not read). Its entries
(``turns``) are played through the referee (:func:`botwars.engine.scenario.play_position`) and the
position after them is drawn with the last decision point's events, as the seat page does.

Nothing here names a game: a game without a page gets 404 and no link.
"""

from __future__ import annotations

import html
import logging
import threading
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from botwars.engine.errors import BotwarsError, RulesetError
from botwars.engine.events import filter_events
from botwars.engine.plugin import Game, games, get_game
from botwars.engine.safeload import load_yaml
from botwars.engine.scenario import play_position
from botwars.server.manager import ApiError
from botwars.web.rendering import page, refused_page

log = logging.getLogger("botwars.web.howto")

_cache: dict[str, tuple[str, list[tuple[int, str, str]]]] = {}
_lock = threading.Lock()

PAGE_KEYS = ("caption", "seat", "start_only")
"""The keys of a ``position`` block that belong to this page, not to the scenario format."""


def has_how_to_play(game_id: str) -> bool:
    """Whether ``game_id`` is a known game that declares a How-to-play page."""
    game = games().get(game_id)
    return game is not None and game.how_to_play is not None


def position_svg(game: Game, text: str, source: str) -> tuple[str, str]:
    """``(svg, caption)`` of one ``position`` block: ``text`` is its YAML (a scenario document of
    ``game`` plus :data:`PAGE_KEYS`). Raises :class:`BotwarsError` (``ConfigError``) naming
    ``source`` for a malformed block, ``ValueError`` for YAML that does not parse."""
    doc = load_yaml(text, source)  # the one safe reader (engine/safeload.py), even for shipped pages
    if not isinstance(doc, dict):
        raise ValueError("a position block must be a YAML mapping")
    caption = str(doc.pop("caption", "") or "")
    seat = doc.pop("seat", None)
    play = doc.pop("start_only", False) is not True
    doc.setdefault("game", game.id)
    doc.setdefault("name", caption or "how to play")
    state, events = play_position(game.scenario_format(), game.ruleset(), doc, source, play)
    seat = None if seat is None else str(seat)
    return game.draw_svg(state, seat, filter_events(events, seat)), caption


def how_to_play_html(game_id: str) -> tuple[str, list[tuple[int, str, str]]] | None:
    """The How-to-play page of ``game_id`` as an HTML fragment and its table of contents
    ``[(level, anchor, title)]`` (as :func:`botwars.web.rules_html`), or ``None`` when the game
    is unknown or declares no page. Drawn once per game and kept. A picture that cannot be drawn
    is replaced by a sentence saying so (and logged): a page is never refused for it."""
    if not has_how_to_play(game_id):
        return None
    with _lock:
        if game_id in _cache:
            return _cache[game_id]
    game = get_game(game_id)
    text = game.how_to_play_text() or ""
    from markdown_it import MarkdownIt
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    toc: list[tuple[int, str, str]] = []
    pictures = 0
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag in ("h2", "h3"):
            anchor = f"s-{len(toc) + 1}"
            tok.attrSet("id", anchor)
            toc.append((int(tok.tag[1]), anchor, tokens[i + 1].content))
        elif tok.type == "fence" and tok.info.strip() == "position":
            pictures += 1
            source = f"{game.how_to_play} (picture {pictures})"
            try:
                svg, caption = position_svg(game, tok.content, source)
                body = (f'<figure class="howto-picture" data-picture="{pictures}"><div class="board">{svg}</div>'
                        f"<figcaption>{html.escape(caption)}</figcaption></figure>\n")
            except (BotwarsError, ValueError, KeyError, TypeError) as exc:
                log.warning("%s: the picture cannot be drawn: %s", source, exc)
                body = f'<p class="note howto-missing">(Picture {pictures} cannot be drawn.)</p>\n'
            tok.type, tok.content = "html_block", body
    out = (md.renderer.render(tokens, md.options, {}), toc)
    with _lock:
        _cache[game_id] = out
    return out


router = APIRouter(include_in_schema=False)


@router.get("/howto/{game_id}", response_class=HTMLResponse)
def howto(request: Request, game_id: str) -> HTMLResponse:
    """``GET /howto/{game_id}``: the game's How-to-play page, or 404 (an HTML page for a browser,
    the JSON error for other clients) for an unknown game or one without a page."""
    try:
        found = how_to_play_html(game_id)
    except RulesetError as exc:  # a declared page that cannot be read: the game's fault, said so
        log.warning("how to play %s: %s", game_id[:64], exc)
        found = None
    if found is None:
        exc = ApiError(404, "not_found", f"There is no How-to-play page for the game {game_id[:64]!r}.")
        return refused_page(request, exc, "No How-to-play page")
    body, toc = found
    return page("howto.html", game=game_id, title=get_game(game_id).name, body=body, toc=toc)
