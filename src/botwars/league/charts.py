"""Pictures for the standings page: how each agent's rating moved over the tournament.

Drawn with matplotlib's object API (no pyplot, so no global state; the SVG back end, text kept
as text) into an SVG string that ``standings.html`` embeds. The bytes depend only on the stored
results (no date in the metadata, a fixed id salt), like ``standings.json``.
"""

from __future__ import annotations

import io
from typing import Any

from botwars.league.ratings import fixed_order, rating_history

#: at most this many points per line (a long tournament is sampled evenly, the last kept)
MAX_POINTS = 400
_STYLES = ("-", "--", ":", "-.")


def _short(text: str, most: int = 48) -> str:
    """``text`` cut in the middle to ``most`` characters: the kind and the file name of a long
    spec stay (``rgkit:/wo…/bots/guardbot.py``)."""
    if len(text) <= most:
        return text
    head = 10
    return text[:head] + "…" + text[len(text) - (most - head - 1):]


def rating_chart_svg(matches: list[dict[str, Any]], agents: list[str],
                     labels: dict[str, str] | None = None) -> str | None:
    """An SVG line chart (a string starting ``<svg``) of each agent's openskill ordinal
    (μ − 3σ, :func:`botwars.league.ratings.rating_history`) against the number of counted
    matches, one line per agent with its legend in the order of ``agents`` (give the
    standings' order) and its text from ``labels`` (default: the agent itself). Agents of the
    matches that are not in ``agents`` are rated too (they move the others' ratings) but not
    drawn. ``None`` when no match counts yet. Raises nothing for any stored results."""
    n = len(fixed_order(matches))
    if n == 0:
        return None
    import matplotlib
    from matplotlib.figure import Figure

    others = sorted({a for m in matches for a in m["agents"]} - set(agents))
    hist = rating_history(matches, list(agents) + others)
    labels = labels or {}
    step = max(1, -(-n // MAX_POINTS))
    xs = list(range(0, n + 1, step))
    if xs[-1] != n:
        xs.append(n)
    with matplotlib.rc_context({"svg.hashsalt": "botwars-standings", "svg.fonttype": "none",
                                "font.family": "sans-serif", "font.size": 9,
                                "text.parse_math": False}):  # an agent's name is text, never TeX
        fig = Figure(figsize=(8.0, 3.6), dpi=100)
        ax = fig.add_subplot()
        for i, a in enumerate(agents):  # ten colours, then the same colours dashed, dotted, ...
            ax.plot(xs, [hist[a][x] for x in xs], linewidth=1.4, linestyle=_STYLES[i // 10 % len(_STYLES)],
                    label=_short(labels.get(a, a)))
        ax.set_xlabel("matches counted (in schedule order)")
        ax.set_ylabel("rating (openskill μ − 3σ)")
        ax.grid(True, linewidth=0.4, alpha=0.5)
        ax.set_xlim(0, max(n, 1))
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, fontsize=8)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]
