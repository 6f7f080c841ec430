"""``botwars replay FILE --report --html PAGE`` (issue 14 item 1): one self-contained page with a
board picture (inline SVG) before every stage table, as the game master's site printed it."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.cli.test_malformed_input import botwars


class _Order(HTMLParser):
    """The page's sequence of ``svg`` and ``table`` start tags, with the tables' classes and the
    header cells of each table."""

    def __init__(self) -> None:
        super().__init__()
        self.seq: list[tuple[str, str]] = []
        self.heads: list[list[str]] = []
        self._th = False
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("svg", "table"):
            self.seq.append((tag, a.get("class") or ""))
        if tag == "table":
            self.heads.append([])
        self._th = tag in ("th", "td")
        self.scripts += tag == "script" or ("src" in a and tag in ("img", "link"))

    def handle_data(self, data):
        if self._th and self.heads and data.strip():
            self.heads[-1].append(data.strip())


@pytest.mark.slow
@pytest.mark.parametrize("game", ["factory", "geeko"])
def test_F_9_1_html_report_has_a_board_before_every_stage_table(tmp_path, game):
    rec, page = tmp_path / "m.jsonl", tmp_path / "m.html"
    r = botwars("match", game, "builtin:pathfinder", "builtin:pathfinder", "--seed", "4", "--set", "turn_limit=2",
                "--replay", str(rec))
    assert r.returncode == 0, r.stderr
    r = botwars("replay", str(rec), "--report", "--html", str(page))
    assert r.returncode == 0, r.stderr
    p = _Order()
    p.feed(page.read_text(encoding="utf-8"))
    assert p.scripts == 0  # self-contained: nothing loaded from elsewhere
    stage_tables = [i for i, (tag, cls) in enumerate(p.seq) if tag == "table" and "stage stage" in f"stage {cls}"
                    and cls.split()[-1] == "stage"]
    assert len(stage_tables) >= 5
    for i in stage_tables:  # the element right before every stage table is its board picture
        assert p.seq[i - 1][0] == "svg", p.seq[max(0, i - 2):i + 1]
    cols = [h[0] for h in p.heads if h and h[0] == "NAME"]
    assert cols  # F-9.3 row labels are in the tables
    text = page.read_text(encoding="utf-8")
    for label in ("MODE", "CARDS", "MOVES", "MECH", "COMBAT", "HITS", "HP"):
        assert f'<td class="label">{label}</td>' in text


def test_issue14_html_report_needs_a_writable_path(tmp_path):
    rec = tmp_path / "m.jsonl"
    r = botwars("match", "factory", "builtin:random", "builtin:random", "--seed", "1", "--set", "turn_limit=1",
                "--replay", str(rec))
    assert r.returncode == 0, r.stderr
    r = botwars("replay", str(rec), "--report", "--html", str(tmp_path / "no" / "such" / "dir" / "m.html"))
    assert r.returncode == 2 and "--html" in r.stderr and "Traceback" not in r.stderr
