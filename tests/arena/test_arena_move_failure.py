"""A failed move says why (R16a-c, R17), in the event, the text report and the page's words."""

from __future__ import annotations

import re

import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.rules import make_state

RS = get_ruleset("arena")
CFG = RS.validate_config({})


def _failures(robots: dict, p1: str, p2: str) -> dict[str, tuple[str, str]]:
    """Resolve turn 3 from ``robots`` (square → player) with P5 orders; failed movers' origin →
    (target, why)."""
    st = make_state(CFG, {sq: (p, 50) for sq, p in robots.items()}, turn=2)
    orders = {"p1": RS.parse_orders(st, "p1", p1), "p2": RS.parse_orders(st, "p2", p2)}
    _, events = RS.resolve(st, orders)
    return {e.data["at"]: (e.data["to"], e.data["why"]) for e in events if e.kind == "move_failed"}


def test_R16a_a_move_into_a_wall_fails_as_wall():
    assert _failures({(2, 3): 1, (9, 9): 2}, "2:3-M-W", "") == {"2:3": ("1:3", "wall")}


def test_R16b_two_movers_with_one_target_fail_as_contested():  # X1
    assert _failures({(7, 8): 1, (9, 8): 2}, "7:8-M-E", "9:8-M-W") == {
        "7:8": ("8:8", "contested"), "9:8": ("8:8", "contested")}


def test_R16c_a_head_on_swap_fails_as_swap():
    assert _failures({(7, 7): 1, (8, 7): 2}, "7:7-M-E", "8:7-M-W") == {
        "7:7": ("8:7", "swap"), "8:7": ("7:7", "swap")}


def test_R17_a_target_held_by_a_robot_that_stays_fails_as_blocked():  # X3
    assert _failures({(7, 10): 1, (8, 10): 2}, "7:10-M-E", "8:10-D") == {"7:10": ("8:10", "blocked")}


def test_R16_a_failure_is_named_by_the_first_rule_that_fails_it():
    # X5: 1c and 2b both target 7:7 (R16b) while 1a and 2b swap head-on (R16c): 2b is contested
    got = _failures({(7, 7): 1, (8, 7): 2, (6, 7): 1}, "7:7-M-E,6:7-M-E", "8:7-M-W")
    assert got == {"7:7": ("8:7", "swap"), "8:7": ("7:7", "contested"), "6:7": ("7:7", "contested")}


@pytest.mark.parametrize("why, words", [("wall", "R16a"), ("contested", "R16b"), ("swap", "R16c"),
                                        ("blocked", "R17")])
def test_the_text_report_gives_the_reason_and_its_rule(why, words):
    from botwars.games.arena.report import _describe
    line = _describe("move_failed", {"robot": 3, "at": "7:8", "to": "8:8", "why": why})
    assert line.startswith("robot 3 fails to move to 8:8, stays on 7:8 (") and line.endswith(f", {words})")


def test_an_event_recorded_before_the_reason_reads_as_before():
    from botwars.games.arena.report import _describe
    assert _describe("move_failed", {"robot": 3, "at": "7:8"}) == "robot 3 fails to move, stays on 7:8"


def test_the_seat_pages_words_for_a_failed_move_give_the_reason():
    # the arena's page kit (entry.js) run by node with a bare `window`: its describe() words
    import json
    import shutil
    import subprocess
    from importlib.resources import files
    node = shutil.which("node")
    assert node, "node is needed (the JavaScript bot starter is checked with it too)"
    entry = str(files("botwars.games.arena") / "entry.js")
    events = [{"kind": "move_failed", "robot": 3, "at": "7:8", "to": "8:8", "why": w}
              for w in ("wall", "contested", "swap", "blocked")] + [{"kind": "move_failed", "robot": 3, "at": "7:8"}]
    js = (f"global.window = {{}}; require({json.dumps(entry)}); const kit = window.botwarsGames.arena;"
          f"console.log(JSON.stringify({json.dumps(events)}.map(e => kit.describe(e, {{}}))));")
    said = json.loads(subprocess.run([node, "-e", js], capture_output=True, text=True, check=True, timeout=60).stdout)
    # plain words on the play page (issue 23 item 2): the reason of R16a, R16b, R16c, R17 and
    # R18's "it stays, not defending", with no rule id in the sentence (ids go under Details)
    assert [s.split(": ", 1)[1] if ": " in s else s for s in said] == [
        "a wall or the edge is there; it stays, not defending.",
        "another robot moved there too; it stays, not defending.",
        "it tried to swap places head-on; it stays, not defending.",
        "a robot that stays is there; it stays, not defending.",
        "A robot on 7:8 could not move; it stays, not defending."]
    assert said[0].startswith("A robot on 7:8 could not move to 8:8: ")
    assert not any(re.search(r"\bR\d+[a-z]?\b", s) for s in said)
