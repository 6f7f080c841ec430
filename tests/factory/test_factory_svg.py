"""SVG drawing of factory states (render hook) and `botwars replay --svg`."""

import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from botwars.cli import app
from botwars.engine.ruleset import get_ruleset
from botwars.render import render_svg

NS = "{http://www.w3.org/2000/svg}"
RS = get_ruleset("factory")


def test_svg_draws_every_square_and_robot():
    st = RS.setup(RS.validate_config({}), ["p1", "p2", "p3"], 1)
    st, events = RS.resolve(st, {s: RS.default_orders(st, s) for s in RS.pending(st)})
    doc = ET.fromstring(render_svg(RS, st, None, events))
    rects = doc.findall(f".//{NS}rect")
    assert len(rects) >= 144
    robots = [g for g in doc.findall(f".//{NS}g") if g.get("class") == "robot"
              and " HP" in g.find(f"{NS}title").text]
    assert len(robots) == 3
    assert all(g.find(f"{NS}circle") is not None for g in robots)
    # every seat sees the same public picture
    assert render_svg(RS, st, "p1", events) == render_svg(RS, st, "p2", events)


def test_replay_svg_writes_a_file(tmp_path):
    runner = CliRunner()
    rec = tmp_path / "r.jsonl"
    res = runner.invoke(app, ["match", "factory", "builtin:random", "builtin:random", "--seed", "3",
                              "--set", "turn_limit=2", "--replay", str(rec)])
    assert res.exit_code == 0, res.output
    out = tmp_path / "b.svg"
    res = runner.invoke(app, ["replay", str(rec), "--turn", "1", "--svg", str(out)])
    assert res.exit_code == 0, res.output
    ET.fromstring(out.read_text())


def test_F_6_24a_svg_shows_the_switch_under_a_crusher_and_its_state():
    from botwars.games.factory.board import grid_board
    from botwars.games.factory.rules import Ctx
    board = grid_board("r2 . CR24SG3 TD3-\nr1 . . .")
    cfg = RS.validate_config({"robot_lasers": False})
    st = RS.empty_state(cfg, ["p1"], "s", board, ["Alice"])
    doc = ET.fromstring(RS.svg(st))

    def on_r2c2(el):
        return [g for g in doc.iter(f"{NS}g") if g.get("data-el") == el
                and g.find(f"{NS}title").text.startswith("r2c2: ")]
    assert [g.get("data-registers") for g in on_r2c2("crusher")] == ["24"]
    assert [g.get("data-state") for g in on_r2c2("switch-green")] == ["off"]
    c = Ctx(st, 1)
    RS.stage(c, 2)  # S7 of stage 2: the crusher presses the switch (F-6.24a)
    doc = ET.fromstring(RS.svg(st))
    assert [g.get("data-state") for g in on_r2c2("switch-green")] == ["on"]
    assert "r2c2: green pressure switch, now on" in [t.text for t in doc.iter(f"{NS}title")]


def test_F_6_33_the_legend_says_what_each_armoury_code_on_the_board_is():
    """An armoury's shield shows its option's code (FI, HC): the legend of a board with armouries
    names each code on it and what it does, so a newcomer never meets a bare code (issue 23)."""
    import re

    from botwars.engine.ruleset import get_ruleset
    from botwars.games.factory.svg import legend_svg
    rs = get_ruleset("factory")
    st = rs.setup(rs.validate_config({"board": "tiny-yard"}), ["p1", "p2"], 1)
    svg = legend_svg(st)
    row = svg[svg.index('class="legend-row" data-el="armoury"'):]
    row = row[:row.find('class="legend-row"', 10)]  # up to the next row (or the end)
    words = " ".join(re.findall(r">([^<>]+)</text>", row)[1:])  # [0] is the sample shield's own code
    assert "FI = Fence Insulation (touching a fence costs no damage)" in words
    assert "HC = Heavy Chassis (cannot be pushed)" in words
    hall = rs.setup(rs.validate_config({"board": "assembly-hall"}), ["p1", "p2"], 1)
    assert "on this board" not in legend_svg(hall)  # no armoury there: no list
