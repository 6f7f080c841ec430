"""Issue 28 item 4: the standings and cross tables are readable at any width from 80 columns:
every number is shown whole (no ``…``, no blank cell), names are folded, never cut, and no line
is wider than the terminal."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from botwars.league.tables import standings_tables

NAMES = ["builtin:defender", "cmd:python3 /home/someone/projects/very/long/path/to/my_bot_number_one.py",
         "rgkit:/work/shared/peers/rgbots/team_15.py", "builtin:hunter(aggressive=true)", "x",
         "cmd:node --jitless bot.js", "rgkit:guardbot.py", "rgkit:randombot.py"]


def make_rows(names: list[str], elo: bool = True) -> list[dict]:
    """Standings rows as :func:`botwars.league.standings.standings` gives them, with numbers
    as wide as a long tournament makes them (3-digit W/L, 4-digit errors, 4-digit Elo)."""
    rows = []
    for i, n in enumerate(names):
        rows.append({"rank": i + 1, "agent": n, "games": 112 + i, "wins": 100 - i, "draws": 3 + i % 2,
                     "losses": 9 + i, "score": 103.5 - i, "rating": 12.3456 - 2.5 * i, "mu": 30.123 - i,
                     "sigma": 0.89 + i / 100, "elo": (1523.4 - 17 * i) if elo else None, "errors": 1234 + i,
                     "failed": i % 3,
                     "cross": {m: {"wins": 12 + i, "draws": j % 3, "losses": 3 + j} for j, m in enumerate(names)
                               if m != n}})
    return rows


def render(rows: list[dict], width: int) -> str:
    buf = io.StringIO()
    con = Console(width=width, file=buf, force_terminal=False, color_system=None)
    for t in standings_tables("arena", rows, width):
        con.print(t)
    return buf.getvalue()


def tokens(line: str) -> list[str]:
    return re.findall(r"[^\s│┃|]+", line)


def expected_numbers(r: dict) -> list[str]:
    out = [str(r["rank"]), str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
           "%g" % r["score"], "%.2f" % r["rating"], "%.2f" % r["mu"], "±", "%.2f" % r["sigma"]]
    if r["elo"] is not None:
        out.append("%.1f" % r["elo"])
    return out + [str(r["errors"] + r["failed"])]


def standings_part(text: str) -> list[str]:
    return text.split("cross table")[0].splitlines()


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("elo", [True, False])
def test_every_standings_number_is_whole_on_its_row(width, elo):
    rows = make_rows(NAMES, elo)
    text = render(rows, width)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    lines = standings_part(text)
    for r in rows:
        want = expected_numbers(r)
        # the row's line: it starts with the rank and carries every number in column order
        found = [ln for ln in lines if tokens(ln)[:1] == [str(r["rank"])]]
        assert len(found) == 1, (r["rank"], text)
        toks = tokens(found[0])
        assert toks[0] == want[0] and toks[-len(want) + 1:] == want[1:], (toks, want)


@pytest.mark.parametrize("width", [80, 120])
def test_names_are_folded_never_cut(width):
    text = render(make_rows(NAMES), width)
    squashed = "".join(ln.strip(" │┃") for ln in standings_part(text))
    for n in NAMES:  # every character of every name is there, in order (folded over lines)
        assert re.search(".*?".join(map(re.escape, n.replace(" ", ""))), squashed.replace(" ", "")), n


@pytest.mark.parametrize("width, agents", [(80, 8), (120, 8), (80, 16), (120, 16)])
def test_every_cross_table_cell_is_shown(width, agents):
    names = (NAMES * 2)[:agents]
    names = [f"{n}#{k}" if k else n for k, n in ((i // len(NAMES), n) for i, n in enumerate(names))]
    rows = make_rows(names)
    text = render(rows, width)
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
    cross = text[text.index("cross table"):]
    cells = re.findall(r"\b\d+-\d+-\d+\b", cross)
    want = sorted("{wins}-{draws}-{losses}".format(**c) for r in rows for c in r["cross"].values())
    assert sorted(cells) == want
    # every column number (rank) heads a column in one of the tables
    heads = set()
    for block in cross.split("cross table")[0:]:
        for ln in block.splitlines()[1:3]:
            heads |= {t for t in tokens(ln) if t.isdigit()}
    assert heads >= {str(r["rank"]) for r in rows}


def test_the_json_rows_are_what_the_tables_show_and_are_not_changed():
    rows = make_rows(NAMES)
    before = repr(rows)
    render(rows, 80)
    assert repr(rows) == before


@pytest.mark.parametrize("width", [80, 120])
def test_the_tournament_command_prints_these_tables_on_a_terminal(monkeypatch, width):
    """``botwars tournament``'s printer (cli._print_standings) on a terminal of ``width``
    columns: every number whole, no line wider than the terminal."""
    from botwars import cli
    buf = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(width=width, file=buf, force_terminal=True, color_system=None))
    rows = make_rows(NAMES)
    cli._print_standings("arena", rows)
    text = buf.getvalue()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
    lines = standings_part(text)
    for r in rows:
        found = [ln for ln in lines if tokens(ln)[:1] == [str(r["rank"])]]
        assert len(found) == 1 and tokens(found[0])[-len(expected_numbers(r)) + 1:] == expected_numbers(r)[1:]
