"""The game master's publication (issue 14 item 1): a record as one self-contained HTML page,
a board picture before every report table, as the BotWars v3 and Geek-o game masters'
sites printed each turn.

For a game that declares ``stages`` (:meth:`Game.turn_stages`) every stage
gets the board after that stage, then its stage table (F-9.3 columns NAME, MODE, CARDS,
MOVES, MECH, COMBAT, HITS, HP, CHECK as an HTML table), then the end, fused and result
tables. Any other game gets, per decision point, the orders in its own notation, the board
after it (every hidden fact shown: the record is public once the match has ended) and its
report. A game that declares a ``legend`` gets it at the top (one per distinct board, e.g.
each geeko room shown). Nothing here knows a game.
"""

from __future__ import annotations

import html
import os
from typing import Any, Iterable

from botwars.engine.plugin import Game

PAGE_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1em;margin:1.2em 0 .3em}
table.stage{border-collapse:collapse;font:13px ui-monospace,monospace;margin:.3em 0 1em}
table.stage th,table.stage td{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}
table.stage th{background:#eef}table.stage td.label{font-weight:bold;background:#f6f6f6}
.flow{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
figure.board{margin:.3em 0;max-width:460px}figure.board svg{max-width:100%;height:auto}
figure.board figcaption{font-size:12px;color:#555}
pre.report{font-size:12px;white-space:pre-wrap}figure.legend{margin:.3em 0}.orders{font:13px ui-monospace,monospace}
"""


def table_html(rows: list[list[str]], kind: str = "stage") -> str:
    """A report table (``rows``: the first row is the header row ``[label, column, ...]``; a
    result table's first row is its column names) as an HTML ``<table class="stage">``."""
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in rows[0])
    body = []
    for r in rows[1:]:
        if kind == "result":
            cells = "".join(f"<td>{html.escape(str(c))}</td>" for c in r)
        else:
            cells = f'<td class="label">{html.escape(str(r[0]))}</td>' + "".join(
                f"<td>{html.escape(str(c))}</td>" for c in r[1:])
        body.append(f"<tr>{cells}</tr>")
    return f'<table class="stage {html.escape(kind)}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def section_html(section: dict[str, Any]) -> str:
    """One stage section (see :meth:`Game.turn_stages`): the board after it (its last frame),
    then its table and the lines after the table."""
    out = [f'<h3>{html.escape(section.get("header") or section.get("title", ""))}</h3><div class="flow">']
    frames = section.get("frames") or []
    if frames:
        label = html.escape(frames[-1]["label"])
        out.append(f'<figure class="board">{frames[-1]["svg"]}<figcaption>after {label}</figcaption></figure>')
    out.append("<div>" + table_html(section.get("rows", []), section.get("kind", "stage")))
    out += [f"<p>{html.escape(x)}</p>" for x in section.get("extra", [])]
    out.append("</div>")
    out.append("</div>")
    return "\n".join(out)


def rich_html(shown: Any) -> str:
    """A Rich renderable or text as an HTML ``<pre class="report">`` fragment (inline styles)."""
    if shown is None or shown == "":
        return ""
    from rich.console import Console
    with open(os.devnull, "w") as sink:
        con = Console(record=True, file=sink, width=140, color_system="truecolor")
        con.print(shown)
        return con.export_html(inline_styles=True, code_format='<pre class="report">{code}</pre>')


def recorded_moves(game: Game, before: Any, line: dict[str, Any]) -> dict[str, str]:
    """Each seat's orders of a record ``line`` as move text (``before``: the state the point
    opened on). Where the seat's default orders applied (``null`` in the record) they are
    written out with a note saying why (issue 24 item 4): "(default orders: missed the
    deadline)" or "(default orders: NOTE)" for another failure; orders the game master set
    are noted "(set by the game master: REASON)"."""
    out: dict[str, str] = {}
    rs = game.ruleset()
    gm = line.get("adjudicated") or {}
    for seat, p in (line.get("orders") or {}).items():
        if p is not None:
            out[seat] = game.order_notation(before, seat, p)
            if seat in gm:
                out[seat] += f" (set by the game master: {gm[seat]})"
            continue
        codes = [e.get("code") for e in (line.get("errors") or {}).get(seat, []) if isinstance(e, dict)]
        why = "missed the deadline" if "timeout" in codes else (str(codes[-1]).replace("_", " ") if codes else "none given")
        try:
            text = game.order_notation(before, seat, rs.orders_json(rs.default_orders(before, seat)))
        except Exception:  # noqa: BLE001 - a rule set that cannot write its defaults: the note alone
            text = "-"
        out[seat] = f"{text} (default orders: {why})"
    return out


def decision_html(game: Game, before: Any, after: Any, events: list[Any], line: dict[str, Any]) -> str:
    """One decision point as an HTML fragment: its heading and orders in the game's notation,
    then stage sections (games with ``stages``) or the board after it and its report."""
    rs = game.ruleset()
    n, turn = line.get("n", 0), rs.turn_number(after)
    out = [f'<section class="decision" id="d{n}"><h2>Decision {n} · turn {turn}</h2>']
    orders = line.get("orders", {}) or {}
    if orders:  # default orders written out with why (issue 24 item 4)
        items = "".join(f"<li><b>{html.escape(seat)}</b>: {html.escape(text)}</li>"
                        for seat, text in recorded_moves(game, before, line).items())
        out.append(f'<ul class="orders">{items}</ul>')
    if "resign" in line:
        out.append(f"<p>{html.escape(str(line['resign']))} resigns.</p>")
    sections = game.turn_stages(before, orders, events) if orders else None
    if sections:
        out += [section_html(s) for s in sections]
    else:
        try:
            svg = game.draw_revealed(after, events)
            out.append(f'<figure class="board">{svg}<figcaption>after decision {n}</figcaption></figure>')
        except NotImplementedError:
            pass
        out.append(rich_html(game.describe(before, after, events)))
    out.append("</section>")
    return "\n".join(out)


def _add_legend(legends: list[str], game: Game, state: Any) -> None:
    """Append the legend of the public drawing of ``state`` (the game's ``legend`` hook) to
    ``legends`` unless it is already there or the game draws none."""
    svg = game.draw_legend(state, None)
    if svg and svg not in legends:
        legends.append(svg)


def report_page(game: Game, title: str, steps: Iterable[Any], outcome: dict[str, Any] | None = None) -> str:
    """The whole publication as one self-contained HTML page (inline CSS and SVG, no scripts).

    ``steps``: re-simulated decision points with ``before``, ``after``, ``events`` and ``line``
    (:class:`botwars.engine.record.Replayed`)."""
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
             f"<style>{PAGE_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    legends: list[str] = []
    for s in steps:
        if not legends:
            _add_legend(legends, game, s.before)
        parts.append(decision_html(game, s.before, s.after, s.events, s.line))
        _add_legend(legends, game, s.after)
    if legends:  # what the board pictures show, drawn by the same symbols (one per distinct board)
        figs = "".join(f'<figure class="legend">{x}</figure>' for x in legends)
        parts.insert(1, f'<section class="legend" id="legend"><h2>Legend</h2><div class="flow">{figs}</div></section>')
    if outcome:
        parts.append(f"<h2>Result</h2><p>{html.escape(str(outcome.get('winner') or 'draw'))} "
                     f"({html.escape(str(outcome.get('reason', '')))})</p>")
    parts.append("</body></html>")
    return "\n".join(parts)
