"""The browser UI of the game-master server (issue 8): lobby, seat pages, spectator page and
replay viewer, rendered server-side with Jinja2 and driven by plain JavaScript (no build step).

:func:`install_web` mounts these routes on a server app made by
:func:`botwars.server.app.create_app` (``botwars serve`` does; the API server itself does not
import this package). Nothing here knows a game: each page asks the game's plug-in
(docs/plugins.md) for its drawing, report and order-entry script.

- ``GET /`` — the lobby: create a match (game, parameters, seats as human or built-in bot,
  clock) and list running and ended matches; when bots cannot be isolated at the level uploads
  need (``BOTWARS_SANDBOX_MIN``), it says that league uploads are off and why;
- ``GET /play/{id}?token=T`` — a seat's page: board, private information, order entry, clocks,
  live updates over the WebSocket;
- ``GET /watch/{id}`` — the spectator page;
- ``GET /replay/{id}`` — the replay viewer of an ended match;
- ``GET /howto/{game}`` — the game's How-to-play page (``web/howto.py``: its plug-in's
  ``how_to_play`` Markdown with pictures drawn by the game; 404 for a game without one);
- ``GET /rules/{game}`` — the game's binding rules (the ``rules_page`` its plug-in declares in
  its own folder, a copy of ``shared/rules``; 404 for a game without one) rendered to HTML with markdown-it-py, with a table of contents;
- ``GET /web/matches/{id}/board.svg[?token=T]`` — the board as the seat (or a spectator) may
  see it, with the last decision point's events highlighted;
- ``GET /web/matches/{id}/helpers?token=T`` — what the order-entry controls need: legal orders
  (``Ruleset.legal_orders``), built-in bot names, and the facts the game's ``page_helpers``
  adds while the seat is to move;
- ``GET /web/games/{game}/entry.js`` — the game's order-entry script (its ``web_entry``);
- ``GET /web/matches/{id}/suggest?token=T&bot=NAME`` — the orders a fresh built-in bot would
  give for the seat's view (a starting point the player may edit);
- ``GET /web/matches/{id}/replay.json`` and ``/web/matches/{id}/replay/{k}.svg`` — the
  decision points of an ended match (orders, events, the rule set's report as HTML) and the
  board after decision point ``k`` (``0``: the start).

- ``GET /web/matches/{id}/replay/index.json`` — the light index of an ended match's replay:
  per step its decision number, turn and every seat's orders in the game's notation (the move
  list); ``/web/matches/{id}/replay/{k}.json`` — one step in full: orders, events, the readable
  report, hands, and for games with stages the stage sections with one picture URL per frame
  (``/web/matches/{id}/replay/{k}/frame/{j}.svg``);
- ``GET /web/matches/{id}/turn/{n}/stages.json[?token=T&inline=1]`` — decision point ``n``
  stage by stage (issue 14) as the seat (or a spectator) may see it, running or ended;
  frames at ``/web/matches/{id}/turn/{n}/frame/{j}.svg[?token=T]``;
- ``GET /web/matches/{id}/turn/{n}/watch.json[?token=T]`` — decision point ``n`` as board
  pictures the seat (or a spectator) may see, for the pages' "watch the last turn" player
  (issue 23; :func:`botwars.web.drawing.watch_frames`, or the stage frames it may see).

- ``GET /matches/{id}/turns/{n}[?token=T]`` — the archive while it runs (issue 24 item 7;
  :mod:`.archive`): a past decision point's published page as the viewer may see it, with the
  previous and next; ``/matches/{id}/document`` and ``document.pdf`` — the whole game after the end.

- ``GET /editor/{game}`` — the board editor (issue 14; ``web/editor.py``): palette, grid,
  live ``board check`` through the game's ``BoardFormat.editor`` hook, load, save, play.

Where the routes live (docs/server.md): one router per resource, each a module with
``router = APIRouter(include_in_schema=False)`` that :func:`install_web` includes —
:mod:`.lobby`, :mod:`.match_pages` (play, watch, replay pages), :mod:`.game_pages` (rules,
entry script), :mod:`.boards` (live board and stage pictures), :mod:`.replays` (replay data and
pictures), :mod:`.seat_helpers` (helpers, suggest, plan); the editor (:mod:`.editor`) and the
league pages (:mod:`.league_pages`) mount themselves. The pages' caches are ``app.state.web``
(:mod:`.caches`). A picture of a game that declares no drawing answers 404, never 500.

Secrecy is the API's: a token sees only its seat's view and events; the replay exists only
once the match has ended (its full record is public then).
"""

from __future__ import annotations

import os

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from botwars.web import archive, boards, game_pages, gm_page, howto, lobby, match_pages, replays, seat_helpers
from botwars.web.caches import Lru, ReplayCache, WebCaches
from botwars.web.drawing import MAX_SVG_BYTES, SVG_TYPE, report_html, step_label, svg_response
from botwars.web.editor import install_editor
from botwars.web.game_pages import rules_html, rules_markdown
from botwars.web.league_pages import install_league_pages
from botwars.web.rendering import env

__all__ = ["install_web", "ROUTERS", "rules_html", "rules_markdown", "MAX_SVG_BYTES", "SVG_TYPE",
           "svg_response", "report_html", "step_label", "ReplayCache", "Lru", "WebCaches"]

ROUTERS = (lobby.router, match_pages.router, game_pages.router, howto.router, boards.router, seat_helpers.router,
           replays.router, gm_page.router, archive.router)
"""The pages' routers, one per resource, in the order :func:`install_web` includes them."""


def install_web(app: FastAPI) -> None:
    """Mount the pages, the static files and the page helper endpoints on ``app``, a server
    app made by :func:`botwars.server.app.create_app` (its ``app.state.manager`` drives them;
    the pages' caches go to ``app.state.web``)."""
    app.mount("/static", StaticFiles(directory=os.path.join(os.path.dirname(__file__), "static")), name="static")
    app.state.web = WebCaches()
    install_league_pages(app)  # the league pages (web/league_pages.py, issue 15 item 4)
    install_editor(app, env)  # the board editor, /editor/GAME (web/editor.py)
    from botwars.web.notice_pages import install_notice_pages
    install_notice_pages(app)  # the notice confirmation page (web/notice_pages.py, issue 25 item 6)
    for router in ROUTERS:
        app.include_router(router)
