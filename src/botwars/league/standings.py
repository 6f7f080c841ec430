"""The standings table and the cross table, from stored results (:mod:`botwars.league.results`).

Per agent: ``games`` (finished matches), ``wins`` (sole first place), ``draws`` (a first place
shared), ``losses`` (any other place), ``score`` (per match the share of the other seats it
placed above, a tie counting half: 1, ½ or 0 for two seats), the openskill ``rating`` (ordinal
μ − 3σ), ``mu``, ``sigma``, ``elo`` (two-seat games, arena R29; else ``None``), ``errors``
(bot errors in all its matches: late, invalid or refused replies, crashes), ``failed`` (its
matches that could not be played) and ``cross``: ``{opponent: {"wins", "draws", "losses"}}``,
counted pairwise by place. Rows are ordered by rating, then score, then the agents' order.
"""

from __future__ import annotations

import json
import os
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from botwars.league.charts import rating_chart_svg
from botwars.league.ratings import elo_ratings, fixed_order, openskill_ratings, places


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def standings(matches: list[dict[str, Any]], agents: list[str], elo_initial: float | None = None) -> list[dict[str, Any]]:
    """The standings rows (see the module text) of ``agents`` from the stored ``matches``.
    ``elo_initial``: the Elo start (the game's ``rating_initial``); ``None``: no Elo column."""
    os_r = openskill_ratings(matches, agents)
    elo = elo_ratings(matches, agents, elo_initial) if elo_initial is not None else None
    rows = {a: {"agent": a, "games": 0, "wins": 0, "draws": 0, "losses": 0, "score": 0.0,
                "rating": 0.0, "mu": 0.0, "sigma": 0.0, "elo": None, "errors": 0, "failed": 0,
                "cross": {b: {"wins": 0, "draws": 0, "losses": 0} for b in agents if b != a}} for a in agents}
    for m in matches:
        for a, seat in zip(m["agents"], m["seats"]):
            rows[a]["errors"] += int(m["errors"].get(seat, 0))
        if m["status"] != "ok":
            for a in m["agents"]:
                rows[a]["failed"] += 1
    for m in fixed_order(matches):
        p = places(m)
        specs = m["agents"]
        n = len(specs)
        best = min(p)
        for i, a in enumerate(specs):
            row = rows[a]
            row["games"] += 1
            if p[i] == best and p.count(best) == 1:
                row["wins"] += 1
            elif p[i] == best:
                row["draws"] += 1
            else:
                row["losses"] += 1
            if n > 1:
                row["score"] += sum(1.0 if p[i] < p[j] else 0.5 if p[i] == p[j] else 0.0
                                    for j in range(n) if j != i) / (n - 1)
            for j, b in enumerate(specs):
                if j != i:
                    cell = row["cross"][b]
                    cell["wins" if p[i] < p[j] else "draws" if p[i] == p[j] else "losses"] += 1
    for a, row in rows.items():
        row["score"] = _r(row["score"])
        row["mu"], row["sigma"], row["rating"] = (_r(os_r[a]["mu"]), _r(os_r[a]["sigma"]), _r(os_r[a]["ordinal"]))
        row["elo"] = _r(elo[a]) if elo is not None else None
    order = {a: i for i, a in enumerate(agents)}
    out = sorted(rows.values(), key=lambda r: (-r["rating"], -r["score"], order[r["agent"]]))
    for i, row in enumerate(out, 1):
        row["rank"] = i
    return out


_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}tr:nth-child(even){background:#fafafa}
.w{color:#060}.l0{color:#a00}small{color:#666}
figure.chart{margin:0}figure.chart svg{max-width:100%;height:auto}
</style></head><body>
<h1>{{ title }}</h1>
<p>{{ settings_line }}</p>
<h2>Standings</h2>
<table><tr><th>#</th><th class="l">agent</th><th>games</th><th>wins</th><th>draws</th><th>losses</th><th>score</th>
<th>rating</th><th>μ ± σ</th>{% if has_elo %}<th>Elo</th>{% endif %}<th>bot errors</th><th>failed</th></tr>
{% for r in rows %}<tr><td>{{ r.rank }}</td><td class="l">{{ r.agent }}</td><td>{{ r.games }}</td><td>{{ r.wins }}</td>
<td>{{ r.draws }}</td><td>{{ r.losses }}</td><td>{{ "%g"|format(r.score) }}</td><td>{{ "%.2f"|format(r.rating) }}</td>
<td>{{ "%.2f"|format(r.mu) }} ± {{ "%.2f"|format(r.sigma) }}</td>{% if has_elo %}<td>{{ "%.1f"|format(r.elo) }}</td>{% endif %}
<td>{{ r.errors }}</td><td>{{ r.failed }}</td></tr>
{% endfor %}</table>
{% if chart %}<h2>Ratings over the tournament</h2>
<p><small>each agent's rating (openskill μ − 3σ) after every finished match, in schedule order</small></p>
<figure class="chart">{{ chart }}</figure>{% endif %}
<h2>Cross table</h2><p><small>row agent's wins–draws–losses against the column agent (pairwise by place)</small></p>
<table><tr><th class="l"></th>{% for r in rows %}<th>{{ r.rank }}</th>{% endfor %}</tr>
{% for r in rows %}<tr><th class="l">{{ r.rank }}. {{ r.agent }}</th>{% for c in rows %}<td>{% if c.agent == r.agent %}–{% else %}{% set x = r.cross[c.agent] %}{{ x.wins }}–{{ x.draws }}–{{ x.losses }}{% endif %}</td>{% endfor %}</tr>
{% endfor %}</table>
<h2>Matches ({{ matches|length }})</h2>
<table><tr><th>round</th><th>#</th><th class="l">seats (agent)</th><th class="l">result</th><th>turns</th><th>bot errors</th><th class="l">replay</th></tr>
{% for m in matches %}<tr><td>{{ m.round }}</td><td>{{ m.seq }}</td>
<td class="l">{% for s, a in m.pairs %}{{ s }}: {{ a }}{% if not loop.last %}<br>{% endif %}{% endfor %}</td>
<td class="l">{{ m.result }}</td><td>{{ m.turns }}</td><td>{{ m.nerr }}</td>
<td class="l">{% if m.replay %}<a href="{{ m.replay }}">{{ m.match_id }}</a>{% else %}{{ m.match_id }}{% endif %}</td></tr>
{% endfor %}</table>
</body></html>
"""


def _result_text(m: dict[str, Any]) -> str:
    if m["status"] != "ok":
        d = m["error_detail"][0]["detail"] if m["error_detail"] else ""
        return f"not played: {d}"
    out = m["outcome"]
    w = out.get("winner")
    seat_agent = dict(zip(m["seats"], m["agents"]))
    return f"{'draw' if w is None else 'winner ' + w + ' (' + seat_agent.get(w, '?') + ')'}, {out.get('reason', '')}"


def write_standings(out_dir: str, rows: list[dict[str, Any]], matches: list[dict[str, Any]],
                    settings: dict[str, Any]) -> tuple[str, str]:
    """Write ``standings.json`` (the rows, a JSON list; no timings, so the same results give
    the same bytes) and the self-contained ``standings.html`` (tables, a chart of the ratings over
    the tournament, :func:`botwars.league.charts.rating_chart_svg`, and a list of matches linking
    to their records) into ``out_dir``; returns both paths."""
    jpath = os.path.join(out_dir, "standings.json")
    hpath = os.path.join(out_dir, "standings.html")
    with open(jpath + ".part", "w", encoding="utf-8") as f:
        f.write(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    os.replace(jpath + ".part", jpath)
    ordered = sorted(matches, key=lambda m: (m["round"], m["seq"], m["match_id"]))
    view = [{"round": m["round"], "seq": m["seq"], "match_id": m["match_id"], "replay": m["replay"],
             "pairs": list(zip(m["seats"], m["agents"])), "result": _result_text(m), "turns": m["turns"],
             "nerr": sum(int(v) for v in m["errors"].values())} for m in ordered]
    fmt = settings.get("format")
    line = (f"{settings.get('game')}, {fmt}, {settings.get('games_per_pair')} game(s) per pairing in every seat "
            f"order, {settings.get('players')} players per match, seed {settings.get('seed')}")
    html = Environment(autoescape=True).from_string(_HTML).render(
        title=f"botwars tournament: {settings.get('game')}", settings_line=line, rows=rows, matches=view,
        has_elo=any(r["elo"] is not None for r in rows),
        chart=Markup(svg) if (svg := rating_chart_svg(matches, [r["agent"] for r in rows])) else None)
    with open(hpath + ".part", "w", encoding="utf-8") as f:
        f.write(html)
    os.replace(hpath + ".part", hpath)
    return jpath, hpath
