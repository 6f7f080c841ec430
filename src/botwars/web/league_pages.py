"""The league's browser pages (issue 15 item 4), over :class:`botwars.server.league.League`
(``app.state.league``); mounted by :func:`botwars.web.install_web`.

- ``GET /league`` — the games' ladders and the upload form (``static/league.js`` posts to
  ``POST /api/league/bots`` and shows the owner token once);
- ``GET /league/{game}`` — the ladder: rank, name, μ ± σ, ordinal, Elo (games with
  ``rating_initial``: arena R29), games, wins/draws/losses, recent form; bots in quarantine
  unranked with their clean matches so far; the quarantine and rest rules, and whether the
  ladder is resting now (issue 28 items 5 and 6);
- ``GET /league/bots/{id}`` — a bot: its ladder rank and rating, its matches with links to
  their replays, a form to challenge another bot or a built-in bot (unrated; needs the owner
  token) and one to replace or retire it (owner token: ``PUT``/``DELETE /api/league/bots/{id}``);
- ``GET /league/matches/{id}`` — a league match: queued, or its result and replay link;
- ``GET /league/matches/{id}/replay`` — registers the played match with the server's replay
  viewer (once) and redirects to ``/replay/{id}``.

An unknown bot, match or game answers 404: a browser (``Accept: text/html``) gets a page naming
it with a way back to the league, other clients the JSON error as before.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from botwars.engine.plugin import games as all_games
from botwars.engine.plugin import get_game
from botwars.server.league import CHART_MEMBERS, KINDS, League
from botwars.server.manager import ApiError
from botwars.web.rendering import page, refused_page

_TITLES = {"unknown_bot": "No such league bot", "unknown_match": "No such league match",
           "unknown_game": "No such game", "match_queued": "This match has not been played yet",
           "no_record": "This match has no replay"}



def _season_words(season: dict[str, Any]) -> dict[str, Any]:
    """:meth:`League.season` with ``since``: its start as a date people read (UTC)."""
    import time as _time
    since = _time.strftime("%Y-%m-%d %H:%M UTC", _time.gmtime(season["started_at"])) if season["number"] > 1 else ""
    return {**season, "since": since}

def install_league_pages(app: FastAPI) -> None:
    """Mount the league pages on ``app`` (a server app with ``app.state.league``; without one,
    nothing is mounted)."""
    league: League | None = getattr(app.state, "league", None)
    if league is None:
        return

    def or_refused(request: Request, make: Any) -> Response:
        """``make()``, or a browser's error page for the :class:`ApiError` it raises."""
        try:
            return make()
        except ApiError as exc:
            return refused_page(request, exc, _TITLES.get(exc.code, "This page cannot be shown"),
                                back=("/league", "league"))

    @app.get("/league", response_class=HTMLResponse, include_in_schema=False)
    def index() -> HTMLResponse:
        games = []
        for gid in sorted(all_games()):
            games.append({"id": gid, "name": get_game(gid).ruleset().name, "bots": len(league.bots(gid)),
                          "kinds": [k for k in KINDS if k not in ("rgkit", "botwars-io")
                                    or get_game(gid).agent_kind(k) is not None]})
        return page("league.html", games=games, kinds=list(KINDS), rules=league.rules)

    @app.get("/league/bots/{bot_id}", response_class=HTMLResponse, include_in_schema=False)
    def bot_page(request: Request, bot_id: str) -> Response:
        return or_refused(request, lambda: _bot_page(bot_id))

    def _bot_page(bot_id: str) -> HTMLResponse:
        bot = league.bot(bot_id)
        others = [b for b in league.bots(bot["game"]) if b["bot"] != bot_id]
        rows = league.ladder(bot["game"]) if bot["status"] == "active" else []
        row = next((r for r in rows if r["bot"] == bot_id), None)
        return page("league_bot.html", bot=bot, matches=league.bot_matches(bot_id), others=others,
                    builtins=sorted(get_game(bot["game"]).builtin_bots()), row=row, members=len(rows))

    @app.get("/league/matches/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    def match_page(request: Request, match_id: str) -> Response:
        return or_refused(request, lambda: page("league_match.html", m=league.match(match_id)))

    @app.get("/league/matches/{match_id}/replay", include_in_schema=False)
    def match_replay(request: Request, match_id: str) -> Response:
        return or_refused(request, lambda: RedirectResponse(f"/replay/{league.register_replay(match_id)}",
                                                            status_code=303))

    @app.get("/league/{game}", response_class=HTMLResponse, include_in_schema=False)
    def ladder_page(request: Request, game: str) -> Response:
        return or_refused(request, lambda: _ladder_page(game))

    def _ladder_page(game: str) -> HTMLResponse:
        if game not in all_games():
            raise ApiError(404, "unknown_game", f"no game {game[:64]!r}")
        rows, chart = league.ladder_with_chart(game)
        return page("league_ladder.html", game=game, rows=rows, elo=any(r["elo"] is not None for r in rows),
                    chart=Markup(chart) if chart else None, chart_members=CHART_MEMBERS, rules=league.rules,
                    rest=league.rest_state(game), season=_season_words(league.season(game)))
