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
- ``GET /rules/{game}`` — the game's binding rules (``web/rules/<game>.md``, a copy of
  ``shared/rules``) rendered to HTML with markdown-it-py, with a table of contents;
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
  frames at ``/web/matches/{id}/turn/{n}/frame/{j}.svg[?token=T]``.

- ``GET /editor/{game}`` — the board editor (issue 14; ``web/editor.py``): palette, grid,
  live ``board check`` through the game's ``BoardFormat.editor`` hook, load, save, play.

Secrecy is the API's: a token sees only its seat's view and events; the replay exists only
once the match has ended (its full record is public then).
"""

from __future__ import annotations

import copy
import os
import threading
from collections import OrderedDict
from typing import Any, Optional

from fastapi import Body, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from botwars.engine.events import filter_events
from botwars.engine.plugin import games as all_games
from botwars.engine.plugin import get_game
from botwars.engine.record import Record, resimulate
from botwars.engine.errors import RulesetError
from botwars.server.manager import ApiError, MatchManager
from botwars.web.editor import install_editor
from botwars.web.rendering import env
from botwars.web.rendering import page, refused_page

_HERE = os.path.dirname(__file__)

SVG_TYPE = "image/svg+xml"

MAX_SVG_BYTES = 4 << 20
"""Largest board drawing served, in bytes (issue 12): a bigger one is refused with 422
``board_too_large`` (the server's limits on map text keep real boards far below it)."""


def svg_response(svg: str, limit: int | None = None, **kw: Any) -> Response:
    """The drawing as a response, or :class:`ApiError` 422 when it is over ``limit`` bytes
    (default :data:`MAX_SVG_BYTES`)."""
    limit = MAX_SVG_BYTES if limit is None else limit
    body = svg.encode("utf-8", "backslashreplace")
    if len(body) > limit:
        raise ApiError(422, "board_too_large", f"the board drawing is {len(body)} bytes, over this server's "
                                               f"limit of {limit}")
    return Response(body, media_type=SVG_TYPE, **kw)


def report_html(rs: Any, before: Any, after: Any, events: list) -> str:
    """The report the game declares (``Game.report``: a Rich renderable or text) as an HTML
    fragment (``<pre>`` with inline styles); ``""`` for a game without reports."""
    game = get_game(rs.id)
    if game.report is None:
        return ""
    from rich.console import Console
    shown = game.describe(before, after, events)
    if shown is None or shown == "":
        return ""
    con = Console(record=True, file=open(os.devnull, "w"), width=110, color_system="truecolor")
    con.print(shown)
    return con.export_html(inline_styles=True, code_format='<pre class="report">{code}</pre>')


class ReplayCache:
    """Re-simulated ended matches (a small LRU): per match the list of
    ``(state_after, events, line)`` with index 0 the initial state."""

    def __init__(self, size: int = 8):
        self.size = size
        self.items: OrderedDict[str, list[tuple[Any, list, dict]]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, manager: MatchManager, match_id: str) -> tuple[Any, list[tuple[Any, list, dict]]]:
        """The session and its steps; raises :class:`ApiError` 403 while the match runs."""
        sess = manager.get(match_id)
        lines = manager.record(sess, None)  # 403 match_running before the end
        with self.lock:
            if sess.id in self.items:
                self.items.move_to_end(sess.id)
                return sess, self.items[sess.id]
        header, decisions = lines[0], [x for x in lines[1:] if x and x.get("type") == "decision"]
        rec = Record(header, decisions, lines[-1], "", [s["seat"] for s in header["seats"]])
        rs = sess.rs
        steps: list[tuple[Any, list, dict]] = []
        for r in resimulate(rec):
            if not steps:
                steps.append((r.before, [], {"n": 0, "turn": 0}))
            steps.append((r.after, r.events, r.line))
        if not steps:
            steps.append((rs.setup(header["config"], rec.seats, header["seed"]), [], {"n": 0, "turn": 0}))
        with self.lock:
            self.items[sess.id] = steps
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return sess, steps


class _Lru:
    """A small thread-safe LRU mapping (drawings and stage sections of viewed steps)."""

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any, make: Any) -> Any:
        """The value for ``key``, made by ``make()`` (outside the lock) on a miss."""
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = make()
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


def _before_point(sess: Any, n: int) -> tuple[Any, Any, list, dict]:
    """``(before, after, events, line)`` of decision point ``n`` of a session (running or
    ended), re-simulated from the referee's own record (server side: nothing leaves here but
    what the caller filters). Raises :class:`ApiError` 404 for a point not yet resolved."""
    with sess.lock:
        lines = sess.ref.record(None)
    header, decisions = lines[0], [x for x in lines[1:] if x and x.get("type") == "decision"]
    if not 1 <= n <= len(decisions):
        raise ApiError(404, "not_found", f"no resolved decision point {n} (1..{len(decisions)})")
    rec = Record(header, decisions[:n], None, "", [s["seat"] for s in header["seats"]])
    last = None
    for r in resimulate(rec):
        last = r
    assert last is not None
    return last.before, last.after, last.events, last.line


def _sections_json(sections: list[dict[str, Any]] | None, seat: Optional[str], reveal: bool,
                   url: str, query: str = "", inline: bool = False) -> list[dict[str, Any]]:
    """Stage sections as JSON for a viewer: only those ``seat`` may see (``None`` sections are
    public; ``reveal``: an ended match shows all), each frame as ``{"j", "label", "url"}``
    (``j`` numbers the frames of the sections this viewer sees, in order, so that it never
    counts the pictures of a section hidden from it: G-10.6, G-16.5) and, with ``inline``,
    its ``svg``."""
    out, j = [], 0
    for sec in _visible_sections(sections, seat, reveal):
        frames = []
        for f in sec["frames"]:
            fr = {"j": j, "label": f["label"], "url": f"{url}/frame/{j}.svg{query}"}
            if inline:
                fr["svg"] = f["svg"]
            frames.append(fr)
            j += 1
        out.append({**{k: v for k, v in sec.items() if k != "frames"}, "frames": frames})
    return out


def _visible_sections(sections: list[dict[str, Any]] | None, seat: Optional[str],
                      reveal: bool) -> list[dict[str, Any]]:
    """The stage sections ``seat`` (``None``: a spectator) may see, in order: public ones
    (``seat`` ``None``), its own, or all when ``reveal`` (an ended match)."""
    return [sec for sec in sections or [] if reveal or sec["seat"] is None or sec["seat"] == seat]


def _frame_svg(sections: list[dict[str, Any]] | None, j: int, seat: Optional[str], reveal: bool) -> str:
    """Frame ``j`` of the sections ``seat`` may see (numbered as :func:`_sections_json` does);
    404 otherwise."""
    k = 0
    for sec in _visible_sections(sections, seat, reveal):
        for f in sec["frames"]:
            if k == j:
                return str(f["svg"])
            k += 1
    raise ApiError(404, "not_found", f"no frame {j} for this viewer")


RULES_DIR = os.path.join(_HERE, "rules")


def rules_markdown(game_id: str) -> Optional[str]:
    """The binding rules of ``game_id`` as Markdown (``web/rules/<id>.md``, copied from
    ``shared/rules``), or ``None`` when the package has no rules file for it."""
    if game_id not in all_games():
        return None
    path = os.path.join(RULES_DIR, f"{game_id}.md")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


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


def step_label(rs: Any, before: Any, k: int) -> str:
    """What decision point ``k`` of a replay was, in the words the seat pages use: ``"start"``,
    ``"setup"`` or ``"turn T"`` with ``T`` the turn number the game's own view gave while that
    decision point was open (the number its reports print)."""
    if k == 0:
        return "start"
    try:
        view = rs.view(before, None)
    except Exception:  # noqa: BLE001 - a label is never worth a failed replay
        view = {}
    if view.get("phase") == "setup" or view.get("setup") is True:
        return "setup"
    t = view.get("turn")
    return f"turn {t if isinstance(t, int) else rs.turn_number(before) + 1}"


def _choices(p: Any) -> list[str]:
    """The values the lobby offers in a drop-down for parameter ``p``: its ``choices``, or the
    shipped names of a ``kind="file"`` parameter (boards, maps, room sets); ``[]``: free input."""
    if p.choices:
        return [str(c) for c in p.choices]
    if p.kind == "file" and p.names is not None:
        try:
            return [str(n) for n in p.names()]
        except Exception:  # noqa: BLE001 - a broken listing leaves the field free
            return []
    return []


def _games() -> list[dict[str, Any]]:
    out = []
    for gid, game in all_games().items():
        rs = game.ruleset()
        out.append({"id": gid, "name": rs.name, "min_seats": rs.min_seats, "max_seats": min(rs.max_seats, 6),
                    "seat_names": rs.seat_names(min(rs.max_seats, 6)),
                    "params": [{"name": p.name, "type": p.type.__name__, "default": p.default, "doc": p.doc,
                                "choices": _choices(p), "file": p.kind == "file"}
                               for p in rs.params],
                    "bots": sorted(game.builtin_bots())})
    return out


def install_web(app: FastAPI) -> None:
    """Mount the pages, the static files and the page helper endpoints on ``app``, a server
    app made by :func:`botwars.server.app.create_app` (its ``app.state.manager`` drives them)."""
    manager: MatchManager = app.state.manager
    app.mount("/static", StaticFiles(directory=os.path.join(_HERE, "static")), name="static")
    replays = ReplayCache()
    drawings = _Lru(512)  # replay boards by (match, step): each drawn once while viewed
    stage_cache = _Lru(64)  # stage sections by (match, point) and move lists by match
    from botwars.web.league_pages import install_league_pages
    install_league_pages(app)  # the league pages (web/league_pages.py, issue 15 item 4)

    install_editor(app, env)  # the board editor, /editor/GAME (web/editor.py)
    from botwars.web.notice_pages import install_notice_pages
    install_notice_pages(app)  # the notice confirmation page (web/notice_pages.py, issue 25 item 6)

    def seat_of(sess, token: Optional[str]) -> Optional[str]:
        return manager.authenticate(sess, token) if token else None

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def lobby() -> HTMLResponse:
        from botwars.server.uploads import uploads_off_reason
        return page("lobby.html", games=_games(), running=manager.list("running", 50, 0),
                    ended=manager.list("ended", 50, 0), uploads_off=uploads_off_reason())

    # A page refused (unknown match, wrong token, a replay before the end): a browser gets the
    # reason as a page with a way on, at the same status; other clients keep the JSON error.
    _TITLES = {"match_running": "This match is still being played", "unknown_match": "No such match",
               "bad_token": "This seat link is not valid"}

    def refused(request: Request, exc: ApiError, match_id: str) -> HTMLResponse:
        watch = f"/watch/{match_id}" if exc.code == "match_running" else None
        # the API's words for a running match name seat tokens, which this page cannot take
        return refused_page(request, exc, _TITLES.get(exc.code, "This page cannot be shown"), watch=watch,
                            message="A match's replay is public once the match has ended." if watch else None)

    @app.get("/play/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    def play(request: Request, match_id: str, token: str = Query(..., max_length=200)) -> HTMLResponse:
        try:
            return _play(match_id, token)
        except ApiError as exc:
            return refused(request, exc, match_id)

    def _play(match_id: str, token: str) -> HTMLResponse:
        sess = manager.get(match_id)
        seat = manager.authenticate(sess, token)
        game = get_game(sess.rs.id)
        return page("match.html", sess=sess, seat=seat, token=token, game=sess.rs.id,
                    bots=sorted(game.builtin_bots()), entry_script=game.web_entry is not None,
                    has_stages=game.stages is not None)

    @app.get("/watch/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    def watch(request: Request, match_id: str) -> HTMLResponse:
        try:
            sess = manager.get(match_id)
        except ApiError as exc:
            return refused(request, exc, match_id)
        game = get_game(sess.rs.id)
        return page("match.html", sess=sess, seat=None, token="", game=sess.rs.id, bots=[],
                    entry_script=game.web_entry is not None, has_stages=game.stages is not None)

    @app.get("/rules/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    def rules_page(game_id: str) -> HTMLResponse:
        text = rules_markdown(game_id)
        if text is None:
            raise ApiError(404, "not_found", f"no rules page for game {game_id[:64]!r}")
        body, toc = rules_html(text)
        return page("rules.html", game=game_id, body=body, toc=toc)


    @app.get("/web/games/{game_id}/entry.js", include_in_schema=False)
    def entry_js(game_id: str) -> Response:
        try:
            text = get_game(game_id).entry_script()
        except RulesetError:
            text = None
        if text is None:
            raise ApiError(404, "not_found", f"no order-entry script for game {game_id[:64]!r}")
        return Response(text, media_type="text/javascript")

    @app.get("/replay/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    def replay(request: Request, match_id: str) -> HTMLResponse:
        try:
            sess, steps = replays.get(manager, match_id)
        except ApiError as exc:
            return refused(request, exc, match_id)
        game = get_game(sess.rs.id)
        return page("replay.html", sess=sess, count=len(steps), game=sess.rs.id,
                    entry_script=game.web_entry is not None)

    @app.get("/web/matches/{match_id}/board.svg", include_in_schema=False)
    def board(match_id: str, token: Optional[str] = Query(None, max_length=200)) -> Response:
        sess = manager.get(match_id)
        seat = seat_of(sess, token)
        with sess.lock:
            events = sess.events[-1] if sess.events else []
            svg = get_game(sess.rs.id).draw_svg(sess.state, seat, filter_events(events, seat))
        return svg_response(svg, headers={"Cache-Control": "no-store"})

    @app.get("/web/matches/{match_id}/helpers", include_in_schema=False)
    def helpers(match_id: str, token: str = Query(..., max_length=200)) -> JSONResponse:
        sess = manager.get(match_id)
        seat = manager.authenticate(sess, token)
        rs = sess.rs
        game = get_game(rs.id)
        with sess.lock:
            legal, facts = None, {}
            if not sess.ended and seat in sess.pending():
                legal = rs.legal_orders(sess.state, seat)
                facts = game.page_facts(sess.state, seat)
        return JSONResponse({**facts, "legal": legal, "bots": sorted(game.builtin_bots())})

    @app.get("/web/matches/{match_id}/suggest", include_in_schema=False)
    def suggest(match_id: str, token: str = Query(..., max_length=200),
                bot: str = Query(..., max_length=64)) -> JSONResponse:
        from botwars.engine.agent import AgentFailure, CallableAgent
        sess = manager.get(match_id)
        seat = manager.authenticate(sess, token)
        bots = get_game(sess.rs.id).builtin_bots()
        if bot not in bots:
            raise ApiError(422, "unknown_bot", f"no built-in bot {bot!r} (known: {', '.join(sorted(bots))})")
        with sess.lock:
            view = sess.rs.view(sess.state, seat)
        agent = CallableAgent(bots[bot](), f"builtin:{bot}")
        pool = manager.bot_pool
        try:
            agent.start(sess.rs.id, seat, copy.deepcopy(sess.config), sess.rs.agent_seed(sess.seed, seat) + sess.n)
            # in the bot pool where the server has one: a time limit, and no bot code in this process
            payload = pool.call(agent, view, None) if pool is not None and pool.running else agent.act(view, None)
        except AgentFailure as exc:
            raise ApiError(422, "bot_failed", f"bot {bot} failed: {exc}") from None
        return JSONResponse({"orders": payload})

    @app.post("/web/matches/{match_id}/plan", include_in_schema=False)
    def plan(match_id: str, payload: dict[str, Any] = Body(...),
             token: str = Query(..., max_length=200)) -> JSONResponse:
        """Issue 13: where the seat's (partial) program would take its robot(s) on the current
        board, other robots ignored (the game's ``plan`` hook, from the seat's own view)."""
        from botwars.engine.errors import InvalidOrders
        sess = manager.get(match_id)
        seat = manager.authenticate(sess, token)
        game = get_game(sess.rs.id)
        if game.plan is None:
            raise ApiError(404, "not_found", f"{sess.rs.id} draws no planned path")
        with sess.lock:
            view = sess.rs.view(sess.state, seat)
        try:
            steps = game.plan_path(view, payload)
        except InvalidOrders as exc:
            raise ApiError(422, "invalid_plan", exc.message) from None
        except (ValueError, KeyError, IndexError, TypeError) as exc:  # a position the plan cannot read
            raise ApiError(422, "no_plan", f"no plan for this position: {type(exc).__name__}: {exc}") from None
        return JSONResponse({"steps": steps}, headers={"Cache-Control": "no-store"})

    @app.get("/web/matches/{match_id}/replay.json", include_in_schema=False)
    def replay_json(match_id: str) -> JSONResponse:
        sess, steps = replays.get(manager, match_id)
        rs = sess.rs
        out = []
        for k, (after, events, line) in enumerate(steps):
            before = steps[k - 1][0] if k else after
            out.append({"k": k, "n": line.get("n", 0), "turn": rs.turn_number(after),
                        "label": step_label(rs, before, k),
                        "orders": line.get("orders", {}), "errors": line.get("errors", {}),
                        "events": [e.to_json() for e in events],
                        "report": report_html(rs, before, after, events) if k else ""})
        o = sess.outcome.to_json() if sess.outcome else None
        return JSONResponse({"match": sess.id, "game": rs.id, "steps": out, "outcome": o, "seats": sess.seats})

    @app.get("/web/matches/{match_id}/replay/{k}.svg", include_in_schema=False)
    def replay_svg(match_id: str, k: int, seat: Optional[str] = Query(None, max_length=64)) -> Response:
        sess, steps = replays.get(manager, match_id)
        if not 0 <= k < len(steps):
            raise ApiError(404, "not_found", f"no decision point {k} (0..{len(steps) - 1})")
        if seat is not None and seat not in sess.seats:
            raise ApiError(422, "unknown_seat", f"no seat {seat[:64]!r} (seats: {', '.join(sess.seats)})")
        # the match has ended, so its full record is public: any seat's picture may be shown
        after, events, _ = steps[k]
        if seat is not None:  # "board as seen by" a seat
            return svg_response(get_game(sess.rs.id).draw_svg(after, seat, filter_events(events, seat)))
        # everything revealed: every hidden fact is drawn (issue 14)
        svg = drawings.get(("replay", sess.id, k), lambda: get_game(sess.rs.id).draw_revealed(after, events))
        return svg_response(svg, headers={"Cache-Control": "max-age=3600"})

    # ---- issue 14: the replay viewer's index and steps, and turns stage by stage -------------
    def replay_sections(sess: Any, steps: list, k: int) -> list[dict[str, Any]] | None:
        if k == 0:
            return None
        before, (after, events, line) = steps[k - 1][0], steps[k]
        return stage_cache.get(("replay", sess.id, k), lambda: get_game(sess.rs.id).turn_stages(
            before, line.get("orders", {}) or {}, events) if line.get("orders") else None)

    @app.get("/web/matches/{match_id}/replay/index.json", include_in_schema=False)
    def replay_index(match_id: str) -> JSONResponse:
        sess, steps = replays.get(manager, match_id)
        game = get_game(sess.rs.id)

        def make() -> list[dict[str, Any]]:
            rows = []
            for k, (after, events, line) in enumerate(steps):
                before = steps[k - 1][0] if k else after
                moves = {seat: game.order_notation(before, seat, p) for seat, p in (line.get("orders") or {}).items()}
                if "resign" in line:
                    moves[str(line["resign"])] = "resign"
                rows.append({"k": k, "n": line.get("n", 0), "turn": sess.rs.turn_number(after),
                             "label": step_label(sess.rs, before, k), "moves": moves})
            return rows
        rows = stage_cache.get(("index", sess.id), make)
        o = sess.outcome.to_json() if sess.outcome else None
        return JSONResponse({"match": sess.id, "game": sess.rs.id, "count": len(steps), "stages": game.stages is not None,
                             "steps": rows, "outcome": o, "seats": sess.seats})

    @app.get("/web/matches/{match_id}/replay/{k}.json", include_in_schema=False)
    def replay_step(match_id: str, k: int) -> JSONResponse:
        sess, steps = replays.get(manager, match_id)
        if not 0 <= k < len(steps):
            raise ApiError(404, "not_found", f"no decision point {k} (0..{len(steps) - 1})")
        rs, game = sess.rs, get_game(sess.rs.id)
        after, events, line = steps[k]
        before = steps[k - 1][0] if k else after
        sections = replay_sections(sess, steps, k)
        hands = {}
        for seat in sess.seats:
            try:
                hand = rs.view(before, seat).get("hand")
            except Exception:  # a view that needs more than a state (never for the shipped games)
                hand = None
            if hand:
                hands[seat] = hand
        orders = line.get("orders", {}) or {}
        return JSONResponse({
            "k": k, "n": line.get("n", 0), "turn": rs.turn_number(after), "orders": orders,
            "moves": {seat: game.order_notation(before, seat, p) for seat, p in orders.items()},
            "errors": line.get("errors", {}), "events": [e.to_json() for e in events], "hands": hands,
            "report": "" if (k == 0 or sections) else report_html(rs, before, after, events),
            "sections": _sections_json(sections, None, True, f"/web/matches/{sess.id}/replay/{k}")})

    @app.get("/web/matches/{match_id}/replay/{k}/frame/{j}.svg", include_in_schema=False)
    def replay_frame(match_id: str, k: int, j: int) -> Response:
        sess, steps = replays.get(manager, match_id)
        if not 0 <= k < len(steps):
            raise ApiError(404, "not_found", f"no decision point {k} (0..{len(steps) - 1})")
        return svg_response(_frame_svg(replay_sections(sess, steps, k), j, None, True),
                            headers={"Cache-Control": "max-age=3600"})

    def point_sections(sess: Any, n: int) -> list[dict[str, Any]] | None:
        def make() -> list[dict[str, Any]] | None:
            before, _after, events, line = _before_point(sess, n)
            orders = line.get("orders", {}) or {}
            return get_game(sess.rs.id).turn_stages(before, orders, events) if orders else None
        return stage_cache.get(("point", sess.id, n), make)

    @app.get("/web/matches/{match_id}/turn/{n}/stages.json", include_in_schema=False)
    def turn_stages(match_id: str, n: int, token: Optional[str] = Query(None, max_length=200),
                    inline: bool = Query(False)) -> JSONResponse:
        sess = manager.get(match_id)
        seat = seat_of(sess, token)
        if get_game(sess.rs.id).stages is None:
            raise ApiError(404, "not_found", f"{sess.rs.id} has no stages")
        sections = point_sections(sess, n)
        query = f"?token={token}" if token else ""
        return JSONResponse({"match": sess.id, "n": n, "sections": _sections_json(
            sections, seat, sess.ended, f"/web/matches/{sess.id}/turn/{n}", query, inline)},
            headers={"Cache-Control": "no-store"})

    @app.get("/web/matches/{match_id}/turn/{n}/frame/{j}.svg", include_in_schema=False)
    def turn_frame(match_id: str, n: int, j: int, token: Optional[str] = Query(None, max_length=200)) -> Response:
        sess = manager.get(match_id)
        seat = seat_of(sess, token)
        if get_game(sess.rs.id).stages is None:
            raise ApiError(404, "not_found", f"{sess.rs.id} has no stages")
        return svg_response(_frame_svg(point_sections(sess, n), j, seat, sess.ended),
                            headers={"Cache-Control": "no-store"})
