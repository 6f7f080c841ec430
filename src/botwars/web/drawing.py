"""Drawings and what the replay viewer and the stage pictures share: :func:`svg_response`
(capped at :data:`MAX_SVG_BYTES`), :func:`need_drawing` (404 for a game that declares no
drawing), :func:`report_html`, :func:`step_label`, a resolved decision point re-simulated
(:func:`before_point`) and the stage sections a viewer may see (:func:`sections_json`,
:func:`frame_svg`)."""

from __future__ import annotations

import os
import re
from typing import Any, Optional, Sequence

from fastapi.responses import Response

from botwars.engine.plugin import Game, get_game
from botwars.engine.record import Record, resimulate
from botwars.engine.referee import seat_view
from botwars.server.manager import ApiError
from botwars.server.names import seat_label, with_names

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

def need_drawing(game: Game, revealed: bool = False) -> Game:
    """``game`` if it declares a board drawing (its ``svg`` hook; with ``revealed``, its
    ``reveal_svg`` will do too); else :class:`ApiError` 404 ``no_drawing`` naming the game, so
    that a picture route never answers 500 for a game without one (issue 26)."""
    if game.svg is None and not (revealed and game.reveal_svg is not None):
        raise ApiError(404, "no_drawing", f"the game {game.id} has no board drawing")
    return game


def before_point(sess: Any, n: int) -> tuple[Any, Any, list, dict]:
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


_TURN_HEAD = re.compile(r"TURN (\d+)(?: (.*))?")
_HEAD_WORDS = {"STAGE": "register", "ROOM": "room", "END": "end of turn", "FUSED": "fused registers", "HAND": "hand"}


def heading_of(sec: dict[str, Any], names: dict[str, str] | None = None,
               seats: Sequence[str] | None = None) -> str:
    """A stage section's heading in words for people (issue 24 item 8): the seeds' table line
    ``=== TURN 1 STAGE 2 ROOM 3 ===`` (F-9.1, G-10.2) reads "Turn 1, register 2, room 3" (a stage
    is one register's play, and the seat page says "Register 2"), ``=== TURN
    4 END ===`` "Turn 4, end of turn", ``=== RESULT ===`` "Result"; a section of one seat's
    (a geeko room) adds the player beside the colour: "… — Ana (Red)" (``names``: display names;
    ``seats``: the match's seats, for the colour; without them "… — Ana (p1)"). The seeds'
    line itself stays in ``header`` (the text report keeps it)."""
    title = str(sec.get("title") or sec.get("header") or "").strip("= ").strip()
    m = _TURN_HEAD.fullmatch(title)
    if m:
        rest = (m.group(2) or "").split()
        words, i = [], 0
        while i < len(rest):
            w = _HEAD_WORDS.get(rest[i])
            if w in ("register", "room") and i + 1 < len(rest):
                words.append(f"{w} {rest[i + 1]}")
                i += 2
                continue
            words.append(w or rest[i].lower())
            i += 1
        if words and words[0] == "hand":
            words = ["hand"]  # the seat follows below, with its name
        text = ", ".join([f"Turn {m.group(1)}", *words])
    else:
        text = title[:1].upper() + title[1:].lower() if title.isupper() else title
    seat = sec.get("seat")
    if seat:
        name = (names or {}).get(seat)
        if seats is not None and seat in seats:
            text += f" — {seat_label(seat, seats, names or {})}"
        else:
            text += f" — {name} ({seat})" if name else f" — {seat}"
    return text


def named_section(sec: dict[str, Any], seats: Sequence[str], names: dict[str, str]) -> dict[str, Any]:
    """A stage section with the players' display names beside their colours (issue 24 item 2):
    its ``heading``, table cells, the lines after the table and its pictures' titles
    (:func:`with_names`)."""
    rows = [[with_names(str(c), seats, names) for c in r] for r in sec.get("rows") or []]
    out = {**sec, "heading": heading_of(sec, names, seats), "rows": rows,
           "extra": [with_names(str(x), seats, names) for x in sec.get("extra") or []]}
    if sec.get("frames"):
        out["frames"] = [{**f, "svg": with_names(f["svg"], seats, names, markup=True)} if "svg" in f else f
                         for f in sec["frames"]]
    return out


def sections_json(sections: list[dict[str, Any]] | None, seat: Optional[str], reveal: bool,
                   url: str, query: str = "", inline: bool = False,
                   names: dict[str, str] | None = None, seats: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Stage sections as JSON for a viewer: only those ``seat`` may see (``None`` sections are
    public; ``reveal``: an ended match shows all), each frame as ``{"j", "label", "url"}``
    (``j`` numbers the frames of the sections this viewer sees, in order, so that it never
    counts the pictures of a section hidden from it: G-10.6, G-16.5) and, with ``inline``,
    its ``svg``."""
    out, j = [], 0
    for sec in visible_sections(sections, seat, reveal):
        frames = []
        for f in sec["frames"]:
            fr = {"j": j, "label": f["label"], "url": f"{url}/frame/{j}.svg{query}"}
            if inline:
                fr["svg"] = f["svg"]
            frames.append(fr)
            j += 1
        base = {k: v for k, v in sec.items() if k != "frames"}
        if seats is not None:  # names beside the colours in the heading, the table and its lines
            base = named_section(base, seats, names or {})
        out.append({**base, "heading": heading_of(sec, names, seats), "frames": frames})
    return out


def visible_sections(sections: list[dict[str, Any]] | None, seat: Optional[str],
                      reveal: bool) -> list[dict[str, Any]]:
    """The stage sections ``seat`` (``None``: a spectator) may see, in order: public ones
    (``seat`` ``None``), its own, or all when ``reveal`` (an ended match)."""
    return [sec for sec in sections or [] if reveal or sec["seat"] is None or sec["seat"] == seat]


def frame_svg(sections: list[dict[str, Any]] | None, j: int, seat: Optional[str], reveal: bool) -> str:
    """Frame ``j`` of the sections ``seat`` may see (numbered as :func:`sections_json` does);
    404 otherwise."""
    k = 0
    for sec in visible_sections(sections, seat, reveal):
        for f in sec["frames"]:
            if k == j:
                return str(f["svg"])
            k += 1
    raise ApiError(404, "not_found", f"no frame {j} for this viewer")


WATCH_MAX_FRAMES = 24
"""Most pictures :func:`watch_frames` draws for one decision point (steps are merged above it)."""


def watch_steps(events: list[Any], limit: int = WATCH_MAX_FRAMES) -> list[list[int]]:
    """The steps of a decision point's events, as lists of event indices: one event a step;
    over ``limit`` steps, consecutive events of the same kind are one step (all the moves, then
    all the attacks...); still over, they are cut into ``limit`` equal runs."""
    steps = [[i] for i in range(len(events))]
    if len(steps) > limit:
        steps = []
        for i, e in enumerate(events):
            if steps and events[steps[-1][-1]].kind == e.kind:
                steps[-1].append(i)
            else:
                steps.append([i])
    if len(steps) > limit:
        flat = [i for st in steps for i in st]
        size = -(-len(flat) // limit)
        steps = [flat[k:k + size] for k in range(0, len(flat), size)]
    return steps


def watch_frames(game: Game, before: Any, after: Any, events: list[Any], seat: Optional[str]) -> list[dict[str, Any]]:
    """Issue 23 item 4: a decision point as board pictures for ``seat`` (``None``: a spectator),
    drawn by the game's own ``draw_svg`` for that viewer only, so nothing hidden from it shows:
    frame 0 the board before the point (as the viewer saw it then), then one frame per step of
    the viewer's ``events`` (already filtered for ``seat``; see :func:`watch_steps`): the board
    after the point with the events up to that step marked. Each frame is ``{"label", "events":
    [the step's events as JSON], "svg"}``; ``label`` is ``"before"``, ``"step K"`` or ``"after"``
    (a point without visible events: before and after only)."""
    frames: list[dict[str, Any]] = [{"label": "before", "events": [], "svg": game.draw_svg(before, seat, [])}]
    steps = watch_steps(events)
    for k, step in enumerate(steps):
        frames.append({"label": f"step {k + 1}", "events": [events[i].to_json() for i in step],
                       "svg": game.draw_svg(after, seat, events[:step[-1] + 1])})
    if not steps:
        frames.append({"label": "after", "events": [], "svg": game.draw_svg(after, seat, [])})
    return frames


def stage_caption(sec: dict[str, Any], label: str) -> str:
    """A stage frame's caption in the words of the turn: ``"Register 2: the conveyor belts
    carry the robots on them"`` for a stage (one register of the program; ``label`` is the
    frame's ``caption`` where the game gives one, else its label), the words alone for the end
    section."""
    if sec.get("kind") == "stage" and sec.get("stage") is not None:
        return f"Register {sec['stage']}: {label}"
    return label[:1].upper() + label[1:] if label else str(sec.get("title") or "")


def step_label(rs: Any, before: Any, k: int, seats: Sequence[str] = (), names: dict[str, str] | None = None) -> str:
    """What decision point ``k`` of a replay was, in the words the seat pages use: ``"start"``,
    ``"setup"`` or ``"turn T"`` with ``T`` the turn number the game's own view gave while that
    decision point was open (the number its reports print). Where one seat of several moves at
    a time (submarine, dadoed) and ``seats`` is given, whose turn it was: ``"Red's turn 3"``
    (``names``: display names, "Ana (Red)'s turn 3"), as the seat page's headings say."""
    if k == 0:
        return "start"
    try:
        view = seat_view(rs, before, None)
    except Exception:  # noqa: BLE001 - a label is never worth a failed replay
        view = {}
    if view.get("phase") == "setup" or view.get("setup") is True:
        return "setup"
    t = view.get("turn")
    label = f"turn {t if isinstance(t, int) else rs.turn_number(before) + 1}"
    try:
        moving = rs.pending(before) if len(seats) > 1 else []
    except Exception:  # noqa: BLE001 - as above
        moving = []
    if len(moving) == 1 and moving[0] in seats:
        return f"{seat_label(moving[0], list(seats), names or {})}'s {label}"
    return label
