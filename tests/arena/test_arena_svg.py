"""SVG rendering of arena states (issue 8, item 1) and `botwars replay --svg`."""

import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from botwars.cli import app
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.protocol import ArenaOrders
from botwars.render import render_svg

NS = "{http://www.w3.org/2000/svg}"


def test_svg_draws_every_robot_with_its_hp_and_walls():
    rs = get_ruleset("arena")
    cfg = rs.validate_config({})
    st = rs.setup(cfg, ["p1", "p2"], 0)
    st, events = rs.resolve(st, {"p1": ArenaOrders({(5, 5): ("M", "E")}, ""), "p2": ArenaOrders({}, "")})
    doc = ET.fromstring(render_svg(rs, st, None, events))
    robots = [g for g in doc.findall(f".//{NS}g") if g.get("class") == "robot"]
    assert len(robots) == 4
    titles = sorted(g.find(f"{NS}title").text for g in robots)
    assert any("6:5" in t and t.startswith("Red's robot") for t in titles)  # player 1 is Red (render/palette.py)
    # issue 13: shapes as well as colours, player 1 discs and player 2 squares
    assert sorted(len(g.findall(f"{NS}circle")) for g in robots) == [0, 0, 1, 1]
    assert {g.get("data-square") for g in robots} >= {"6:5"}
    # walls: the default map has 256 - 192 = 64 wall squares drawn dark
    walls = [r for r in doc.findall(f".//{NS}rect") if r.get("fill") == "#444"]
    assert len(walls) == 64
    # the move of this turn is highlighted as a dashed line
    assert any(l.get("stroke-dasharray") for l in doc.findall(f".//{NS}line"))


def test_replay_svg_command_writes_a_file(tmp_path):
    runner = CliRunner()
    rec = tmp_path / "r.jsonl"
    res = runner.invoke(app, ["match", "arena", "builtin:hunter", "builtin:defender", "--seed", "2",
                              "--set", "max_turns=12", "--replay", str(rec)])
    assert res.exit_code == 0, res.output
    out = tmp_path / "b.svg"
    res = runner.invoke(app, ["replay", str(rec), "--turn", "10", "--svg", str(out)])
    assert res.exit_code == 0, res.output
    assert ET.parse(out).getroot().tag == f"{NS}svg"
    res = runner.invoke(app, ["replay", str(rec), "--turn", "99", "--svg", str(out)])
    assert res.exit_code == 2
    assert "no turn 99" in res.output


def test_spawn_points_name_their_owner_by_number_not_colour_alone():
    """Issue 13 item 8 (letters or shapes as well as colours): every spawn point (R19) carries
    its player's number."""
    rs = get_ruleset("arena")
    st = rs.setup(rs.validate_config({}), ["p1", "p2"], 1)
    root = ET.fromstring(render_svg(rs, st, None))
    ns = "{http://www.w3.org/2000/svg}"
    owners = [t.text for t in root.iter(f"{ns}text") if t.get("class") == "spawn-owner"]
    expected = st.amap.spawn_owner()
    assert len(owners) == len(expected) > 0
    assert sorted(owners) == sorted(str(p) for p in expected.values())
