"""The web pages' one Jinja environment (``templates/``, HTML autoescaped), :func:`page`, and
:func:`refused_page`: an :class:`~botwars.server.manager.ApiError` (unknown match, bot or game, a
seat link that is not valid, a replay before the end) answered to a browser as a short HTML page
at the same status, with the reason in words and a way on; every other client gets the JSON
error as before. Used by the match pages (``botwars.web``), the league pages
(``botwars.web.league_pages``) and the board editor."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from botwars.engine.plugin import games
from botwars.server.manager import ApiError
from botwars.server.names import seat_label

env = Environment(loader=PackageLoader("botwars.web", "templates"), autoescape=select_autoescape(["html"]))


def has_rules(game_id: str) -> bool:
    """Whether ``game_id`` is a known game that declares a rules page (``/rules/ID``): pages link
    only to pages that exist (a game without one gets no link, and the route answers 404)."""
    game = games().get(str(game_id))
    return game is not None and game.rules_page is not None


env.globals["has_rules"] = has_rules


# a seat as pages name it: its colour, with the player's name where there is one ("Ana (Red)");
# never the engine's seat id (issue 23 item 2)
env.globals["seat_label"] = seat_label


def page(name: str, **ctx: object) -> HTMLResponse:
    """The template ``name`` rendered with ``ctx``, status 200."""
    return HTMLResponse(env.get_template(name).render(**ctx))


def refused_page(request: Request, exc: ApiError, title: str, *, message: str | None = None,
                 watch: str | None = None, back: tuple[str, str] = ("/", "lobby")) -> HTMLResponse:
    """The page for ``exc`` when ``request`` accepts ``text/html``: ``title`` as its heading,
    ``message`` (default: the error's own) in words, a link to watch a running match (``watch``,
    a path) and one back (``back``: the path and the page's name, "Back to the NAME"). Raises
    ``exc`` again for any other client, so that the API's JSON error is unchanged."""
    if "text/html" not in request.headers.get("accept", ""):
        raise exc
    resp = page("error.html", title=title, message=exc.message if message is None else message, code=exc.code,
                watch=watch, back_url=back[0], back_name=back[1])
    resp.status_code = exc.status
    return resp
