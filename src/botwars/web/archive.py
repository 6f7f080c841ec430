"""The game's archive while it runs (issue 24 item 7), mounted by :func:`botwars.web.install_web`:

- ``GET /matches/{id}/turns/{n}[?token=T]`` — decision point ``n`` as it was published: the
  stage pictures and tables (games with stages), else the board after it; the game's report
  where this viewer may read it; the legend; links to the previous and next point and back to
  the seat (or spectator) page. Each viewer sees only what it may see: a seat token its own
  stage sections and public ones, a spectator the public ones (G-10.6, G-16.5), the same filter
  as ``/web/matches/{id}/turn/{n}/stages.json``; the board is the viewer's drawing
  (``Game.draw_svg(after, seat, filter_events(events, seat))``, fog of war and hidden
  submarines kept); the report of a game with hidden information only once the match has ended
  (it may print hands). A point not yet played: 404 with a sentence.
- ``GET /matches/{id}/turns[?token=T]`` — redirects to the last resolved point.
- ``GET /matches/{id}/document`` — after the end, the whole game as one printable HTML
  document (every point, everything revealed: the full record is public then); 403 before.
- ``GET /matches/{id}/document.pdf`` — the same document printed to PDF by Chromium through
  Playwright (:func:`pdf_of`); 503 with a sentence when Playwright or Chromium is missing.

Refusals reach a browser as a page (:func:`botwars.web.match_pages.refused`), other clients
as the API's JSON error.
"""

from __future__ import annotations

import logging

import os
import time
from typing import Any, Iterator, Optional

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from botwars.engine.events import filter_events
from botwars.engine.plugin import get_game
from botwars.engine.record import Record, resimulate
from botwars.server.deps import ManagerDep
from botwars.render.palette import seat_colours
from botwars.server.manager import ApiError, MatchManager, note_text
from botwars.web.boards import point_sections, seat_of
from botwars.web.caches import CachesDep
from botwars.server.names import seat_label, with_names
from botwars.web.drawing import before_point, named_section, report_html, step_label, visible_sections
from botwars.web.match_pages import palette_data, refused
from botwars.web.rendering import env

log = logging.getLogger("botwars.web")
router = APIRouter(include_in_schema=False)

CHROMIUM_ENV = "BOTWARS_CHROMIUM"
"""Environment variable naming the Chromium binary the PDF is printed with (default
``/usr/bin/chromium``, which ``scripts/ensure-chromium.sh`` installs)."""


def point_page(sess: Any, n: int, seat: Optional[str], before: Any, after: Any, events: list[Any],
               line: dict[str, Any], sections: list[dict[str, Any]] | None) -> dict[str, Any]:
    """What the page of resolved decision point ``n`` shows to ``seat`` (``None``: a
    spectator): ``{"n", "label", "sections": [{header, title, rows, extra, frames: [{label,
    svg}]}], "board": SVG text or None, "report": HTML or ""}``. Secrecy as the module says:
    sections filtered by :func:`visible_sections`, the board drawn for ``seat``, the report of
    a hidden-information game only once the match has ended."""
    game = get_game(sess.rs.id)
    reveal = sess.ended
    # the players' names beside their colours in headings, tables and report (issue 24 item 2)
    shown = [named_section(sec, sess.seats, sess.names) for sec in visible_sections(sections, seat, reveal)]
    board = None
    if not shown and game.svg is not None:
        board = game.draw_svg(after, seat, filter_events(events, seat))
    report = ""
    if reveal or not game.capabilities.hidden_information:
        report = with_names(report_html(sess.rs, before, after, events), sess.seats, sess.names, markup=True)
    # the events as the seat's page gets them (Referee.seat_events): archive.js says them in the
    # game's own words above the tables (issue 23 item 2), the tables go under a disclosure
    # (without the tables' own text lines and header, which the disclosure shows)
    said = [_named({"decision": n, **{k: v for k, v in e.to_json().items() if k not in ("lines", "header")}},
                   sess.seats, sess.names) for e in filter_events(events, seat)]
    return {"n": n, "label": step_label(sess.rs, before, n, sess.seats, sess.names), "sections": shown, "board": board, "report": report,
            "events": said}


def _named(v: Any, seats: list[str], names: dict[str, str]) -> Any:
    """``v`` (an event's JSON) with each named seat's "p1 (red)" read "Ana (red)" in every text
    in it, as the tables beside it name the players (issue 24 item 2)."""
    if isinstance(v, str):
        return with_names(v, seats, names)
    if isinstance(v, list):
        return [_named(x, seats, names) for x in v]
    if isinstance(v, dict):
        return {k: _named(x, seats, names) for k, x in v.items()}
    return v


def _kit(sess: Any) -> dict[str, Any]:
    """What turn.html needs to say the events in the game's words: whether the game ships a web
    kit (``/web/games/ID/entry.js``) and the seats' colours."""
    return {"entry_script": get_game(sess.rs.id).web_entry is not None, "palette": palette_data(sess.seats)}


def _legend(sess: Any, state: Any, seat: Optional[str]) -> str | None:
    """The game's legend of the board ``seat`` sees in ``state`` (SVG text; the plug-in's
    ``legend`` hook), ``None`` for a game that declares none or a legend that fails to draw."""
    try:
        return get_game(sess.rs.id).draw_legend(state, seat)
    except Exception:  # noqa: BLE001 - a legend is never worth a failed archive page
        log.exception("archive: legend of match %s", sess.id)
        return None


def _players(sess: Any) -> list[dict[str, str]]:
    colours = seat_colours(sess.seats)
    return [{"seat": s, "name": sess.names.get(s, ""), "colour": colours[s].name,
             "label": seat_label(s, sess.seats, sess.names)} for s in sess.seats]


def _gm_notes(sess: Any, n: Optional[int] = None) -> list[str]:
    """The game master's actions and missed deadlines in words (issue 24 item 1), oldest first,
    each with its time (UTC): the printed game keeps the rulings beside the turns. ``n``: only
    those taken while decision point ``n`` was open (a turn's published page names the rulings
    that shaped it: a pause, an extension, a seat handed to a bot, orders the GM set)."""
    return [f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(x['at']))}: {note_text(x, sess.seats, sess.names)}"
            for x in sess.notes if n is None or x.get("n") == n]


@router.get("/matches/{match_id}/turns", response_class=HTMLResponse)
def last_turn(request: Request, match_id: str, manager: ManagerDep,
              token: Optional[str] = Query(None, max_length=200)) -> Response:
    """Redirect to the page of the last resolved decision point (404 before the first)."""
    try:
        sess = manager.get(match_id)
        seat_of(manager, sess, token)
        n = sess.n
        if n < 1:
            raise ApiError(404, "not_found", "no turn has been played yet in this match")
    except ApiError as exc:
        return refused(request, exc, match_id)
    return RedirectResponse(f"/matches/{sess.id}/turns/{n}" + (f"?token={token}" if token else ""), status_code=303)


@router.get("/matches/{match_id}/turns/{n}", response_class=HTMLResponse)
def turn_page(request: Request, match_id: str, n: int, manager: ManagerDep, caches: CachesDep,
              token: Optional[str] = Query(None, max_length=200)) -> HTMLResponse:
    """Decision point ``n`` as the viewer may see it, with the previous and next points."""
    try:
        sess = manager.get(match_id)
        seat = seat_of(manager, sess, token)
        before, after, events, line = before_point(sess, n)
        sections = point_sections(caches, sess, n) if get_game(sess.rs.id).stages is not None else None
        point = point_page(sess, n, seat, before, after, events, line, sections)
    except ApiError as exc:
        return refused(request, exc, match_id)
    query = f"?token={token}" if token else ""
    back = f"/play/{sess.id}{query}" if seat else f"/watch/{sess.id}"
    html = env.get_template("turn.html").render(
        sess=sess, seat=seat, point=point, players=_players(sess), query=query, back=back, **_kit(sess),
        legend=_legend(sess, after, seat),
        prev=n - 1 if n > 1 else None, next=n + 1 if n < sess.n else None, document=False,
        gm_notes=_gm_notes(sess, n))
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


def all_points(sess: Any) -> Iterator[dict[str, Any]]:
    """Every resolved decision point of an ended match as :func:`point_page` shows it with
    everything revealed, re-simulating the record once."""
    with sess.lock:
        lines = sess.ref.record(None)
    header, decisions = lines[0], [x for x in lines[1:] if x and x.get("type") == "decision"]
    game = get_game(sess.rs.id)
    rec = Record(header, decisions, None, "", [s["seat"] for s in header["seats"]])
    for k, r in enumerate(resimulate(rec), start=1):
        orders = r.line.get("orders", {}) or {}
        sections = game.turn_stages(r.before, orders, r.events) if orders and game.stages is not None else None
        yield point_page(sess, k, None, r.before, r.after, r.events, r.line, sections)


def document_html(manager: MatchManager, match_id: str) -> str:
    """The whole game of an ended match as one printable HTML document; :class:`ApiError` 403
    ``match_running`` before the end, 404 for an unknown match."""
    sess = manager.get(match_id)
    if not sess.ended:
        raise ApiError(403, "match_running", "the whole game as a document is published once the match has "
                                             "ended; past turns can be read one by one meanwhile")
    with sess.lock:
        final = sess.state
    o = sess.outcome
    winner = seat_label(o.winner, sess.seats, sess.names) if o is not None and o.winner in sess.seats else None
    return env.get_template("turn.html").render(sess=sess, seat=None, points=list(all_points(sess)), winner=winner,
                                                legend=_legend(sess, final, None),
                                                players=_players(sess), query="", back=f"/replay/{sess.id}", **_kit(sess),
                                                document=True, gm_notes=_gm_notes(sess))


@router.get("/matches/{match_id}/document", response_class=HTMLResponse)
def document(request: Request, match_id: str, manager: ManagerDep) -> HTMLResponse:
    """The whole game as one printable HTML document (after the end)."""
    try:
        return HTMLResponse(document_html(manager, match_id))
    except ApiError as exc:
        return refused(request, exc, match_id)


def pdf_of(html: str) -> bytes:
    """``html`` printed to PDF (A4, backgrounds on) by Chromium under Playwright, the
    browser the tests already drive. Raises :class:`ApiError` 503 ``pdf_unavailable`` with a
    sentence when Playwright is not installed (``pip install 'botwars[pdf]'``) or Chromium
    (``$BOTWARS_CHROMIUM``, default ``/usr/bin/chromium``) cannot be started."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise ApiError(503, "pdf_unavailable", "this server cannot make PDFs: Playwright is not installed "
                                               "(pip install 'botwars[pdf]'); the HTML document prints "
                                               "from a browser") from None
    path = os.environ.get(CHROMIUM_ENV, "/usr/bin/chromium")
    if not os.path.exists(path):
        raise ApiError(503, "pdf_unavailable", f"this server cannot make PDFs: no Chromium at {path} (set "
                                               f"{CHROMIUM_ENV} or run scripts/ensure-chromium.sh); the HTML "
                                               f"document prints from a browser")
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=path, args=["--headless", "--no-sandbox", "--disable-gpu"])
        except Exception as exc:  # noqa: BLE001 - any launch failure: the server cannot print now
            raise ApiError(503, "pdf_unavailable", f"this server cannot make PDFs now: Chromium did not start "
                                                   f"({type(exc).__name__})") from None
        try:
            pg = browser.new_page()
            pg.set_content(html, wait_until="load")
            return pg.pdf(format="A4", print_background=True)
        finally:
            browser.close()


@router.get("/matches/{match_id}/document.pdf")
def document_pdf(request: Request, match_id: str, manager: ManagerDep) -> Response:
    """The whole game as one PDF (after the end); 503 with a sentence when it cannot be made."""
    try:
        data = pdf_of(document_html(manager, match_id))
    except ApiError as exc:
        return refused(request, exc, match_id)
    return Response(data, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="botwars-{match_id}.pdf"'})
