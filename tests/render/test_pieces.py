"""Pieces you can read (issue 23 item 3, issue 24's palette): factory and geeko elements drawn
as symbols (F-3.3, F-3.4, F-6.*, G-2.1), one legend from the same symbols, robots whose HP is
clear of their facing pointer, next-flag pennants, and one palette of seat colours that the
text report, the pages and the drawings share (F-2.9)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import pytest

from botwars.engine.plugin import get_game
from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.board import grid_board
from botwars.render import render_legend, render_svg
from botwars.render.palette import PALETTE, SEAT_WORDS, colour_named, seat_colours

NS = "{http://www.w3.org/2000/svg}"
RS = get_ruleset("factory")
GK = get_ruleset("geeko")

# every element of F-3.3 / F-3.4 on one small board (channels paired as F-3.7 wants)
ALL = """\
r5 F1 F2 CYE CYN GL GR
r4 GU PT TD1- SG1 DBN2 SG2
r3 TPA TPB SR3 TD3+ CR24 BZ
r2 W1 W2 UP ARRL CBN ./wN
r1 ./fE ./pS13 ./lW2 ./bE4+ ./eN4 ."""
#: element name -> the square it is on in ALL (rRcC)
WHERE = {"flag": "r5c1", "conveyor": "r5c3", "gear-left": "r5c5", "gear-right": "r5c6", "gear-around": "r4c1",
         "pit": "r4c2", "trapdoor": "r4c3", "switch-green": "r4c4", "drawbridge": "r4c5", "teleporter": "r3c1",
         "switch-red": "r3c3", "crusher": "r3c5", "buzzsaw": "r3c6", "wrench": "r2c1", "upgrade": "r2c3",
         "armoury": "r2c4", "express": "r2c5", "wall": "r2c6", "fence": "r1c1", "pusher": "r1c2", "laser": "r1c3",
         "blaser": "r1c4", "eye": "r1c5"}
# text codes of the board format that must never be a square's only mark
CODE = re.compile(r"^(TD[+-]?|DB[NESWv]?|CR\d*|S[GR]\+?|W+|BZ|UP|F\d|TP[A-Z]|C[YB][NESW]?|G[LRU]|PT|AR[A-Z]{2})$")


def _state(rows: str = ALL, seats=("p1",)):
    board = grid_board(rows)
    return RS.empty_state(RS.validate_config({}), list(seats), "s", board, list(seats))


def _els(doc, name):
    return [g for g in doc.iter(f"{NS}g") if g.get("class") == "el" and g.get("data-el") == name]


def _square(g) -> str:
    return g.find(f"{NS}title").text.split(":")[0]


@pytest.mark.parametrize("name", sorted(WHERE))
def test_each_board_element_is_drawn_as_its_symbol_on_its_square(name):
    """F-3.3 / F-3.4: each element is a tagged symbol group with a shape, on its own square."""
    doc = ET.fromstring(RS.svg(_state()))
    groups = _els(doc, name)
    assert groups, f"no {name} symbol drawn"
    assert WHERE[name] in {_square(g) for g in groups}
    for g in groups:  # a picture, not only a code: every symbol holds a shape besides any text
        shapes = [e for e in g.iter() if e.tag.split("}")[1] in ("path", "polygon", "polyline", "circle", "ellipse",
                                                                "line", "rect")]
        assert shapes, f"{name} on {_square(g)} is text only"


def test_no_square_carries_a_board_code_as_text():
    """Issue 23: no `TD-`, `CR24`, `DBS`, `SG`, `WW` text codes on the board."""
    for bid in ("tiny-yard", "assembly-hall", "gauntlet"):
        st = RS.setup(RS.validate_config({"board": bid}), ["p1", "p2"], 1)
        texts = [t.text or "" for t in ET.fromstring(RS.svg(st)).iter(f"{NS}text")]
        assert not [t for t in texts if CODE.match(t)], bid
    texts = [t.text or "" for t in ET.fromstring(RS.svg(_state())).iter(f"{NS}text")]
    assert not [t for t in texts if CODE.match(t)]


def test_element_states_are_drawn():
    """Trap door open/closed (F-6.16), drawbridge raised (F-6.17), teleporters named by their
    letter (F-6.18, not "armoury options"), switches off at start (F-6.11), gear turn ways
    (F-6.23), the registers of crushers and pushers (F-6.22, F-6.24), laser strength (F-6.26)."""
    doc = ET.fromstring(RS.svg(_state()))
    td = {_square(g): g.get("data-state") for g in _els(doc, "trapdoor")}
    assert td == {"r4c3": "closed", "r3c4": "open"}
    assert [g.get("data-state") for g in _els(doc, "drawbridge")] == ["raised"]
    tps = {g.get("data-teleporter"): g for g in _els(doc, "teleporter")}
    assert sorted(tps) == ["A", "B"] and "teleporter A" in tps["A"].find(f"{NS}title").text
    assert {g.get("data-state") for g in _els(doc, "switch-green") + _els(doc, "switch-red")} == {"off"}
    assert [g.get("data-registers") for g in _els(doc, "crusher")] == ["24"]
    assert [g.get("data-registers") for g in _els(doc, "pusher")] == ["13"]
    assert [g.get("data-strength") for g in _els(doc, "laser")] == ["2"]
    assert {g.get("data-way") for g in doc.iter(f"{NS}g") if g.get("data-el", "").startswith("gear")} == {"L", "R", "U"}
    # the turret's beam: 2 parallel lines (strength), the blaser's (on) dashed
    beams = [g for g in doc.iter(f"{NS}g") if g.get("class") == "beam"]
    assert sorted((b.get("data-kind"), len(b.findall(f"{NS}line"))) for b in beams) == [("blaser", 1), ("laser", 2)]
    armoury = _els(doc, "armoury")[0].find(f"{NS}title").text
    assert "Rear Laser" in armoury


def test_conveyor_bend_is_drawn_as_a_turn():
    """F-6.21: CYE at r5c3 carries robots onto CYN at r5c4 from its west side: that belt bends
    (a curved path, "turning robots left"); the straight belt has no turn."""
    doc = ET.fromstring(RS.svg(_state()))
    belts = {_square(g): g for g in _els(doc, "conveyor")}
    bend = belts["r5c4"]
    assert bend.find(f"{NS}path[@class='turn']") is not None
    assert "turning robots left" in bend.find(f"{NS}title").text
    assert belts["r5c3"].find(f"{NS}path[@class='turn']") is None
    assert belts["r5c4"].get("data-towards") == "N"


def test_the_laser_beam_stops_at_a_wall():
    """F-6.25, F-3.9: a turret on the east wall of r1c3 fires west across r1c3..r1c1; a wall
    on r1c2's west side stops it at r1c2."""
    st = _state("r2 . . .\nr1 . ./wW ./lE")
    doc = ET.fromstring(RS.svg(st))
    beam = next(g for g in doc.iter(f"{NS}g") if g.get("class") == "beam")
    xs = sorted(float(v) for ln in beam.findall(f"{NS}line") for v in (ln.get("x1"), ln.get("x2")))
    cell, margin = 32, 22
    assert xs[0] == pytest.approx(margin + 1.5 * cell)  # the centre of r1c2, not r1c1
    assert xs[-1] == pytest.approx(margin + 2.5 * cell)


def test_legend_lists_exactly_the_elements_on_the_board():
    """One legend from the same symbols: a row per element the board shows, no more, each with
    its name in words and the symbol drawn by the board's own function."""
    doc = ET.fromstring(RS.legend(_state()))
    rows = [g for g in doc.iter(f"{NS}g") if g.get("class") == "legend-row"]
    names = [g.get("data-el") for g in rows]
    # p1 aims at flag 1; the switches and the devices of their channels carry its number (F-3.7)
    assert set(names) == set(WHERE) | {"next-flag", "channel"} and len(names) == len(set(names))
    for g in rows:  # the row's symbol is the board's symbol (same data-el), then its words
        assert g.find(f".//{NS}g[@data-el='{g.get('data-el')}']") is not None or g.get("data-el") in ("robot", "next-flag")
        assert "".join(t.text for t in g.iter(f"{NS}text") if t.get("font-size") == "11")
    teleporter = next(g for g in rows if g.get("data-el") == "teleporter")
    assert "Teleporter" in " ".join(t.text for t in teleporter.iter(f"{NS}text"))
    # a shipped board: the legend's rows are exactly the symbols in its drawing
    st = RS.setup(RS.validate_config({"board": "tiny-yard"}), ["p1", "p2"], 1)
    board = ET.fromstring(RS.svg(st))
    drawn = {g.get("data-el") for g in board.iter(f"{NS}g") if g.get("class") == "el"}
    drawn |= {"robot"} if any(g.get("class") == "robot" for g in board.iter(f"{NS}g")) else set()
    drawn |= {"next-flag"} if any(g.get("class") == "next-flag" for g in board.iter(f"{NS}g")) else set()
    legend = {g.get("data-el") for g in ET.fromstring(render_legend(RS, st)).iter(f"{NS}g")
              if g.get("class") == "legend-row"}
    assert legend == drawn
    assert "teleporter" not in legend and "pit" in legend  # tiny-yard has pits, no teleporters


def test_geeko_legend_follows_the_seats_room_and_shows_gates():
    """G-2.1: gates drawn as symbols (closed: bars) and in the legend of the room drawn."""
    gs = GK.setup(GK.validate_config({}), ["p1", "p2"], 1)
    doc = ET.fromstring(GK.svg(gs, "p1"))
    assert _els(doc, "gate-closed")
    legend = {g.get("data-el") for g in ET.fromstring(GK.legend(gs, "p1")).iter(f"{NS}g")
              if g.get("class") == "legend-row"}
    assert "gate-closed" in legend and "robot" in legend
    assert "robot" not in {g.get("data-el") for g in ET.fromstring(GK.legend(gs, None)).iter(f"{NS}g")
                           if g.get("class") == "legend-row"}  # G-10.6: the spectator's room has no robots
    # each seat's robots in its own palette colour, though every run holds one player (F-2.9)
    gs = GK.setup(GK.validate_config({}), ["p1", "p2", "p3", "p4"], 1)
    for k, seat in enumerate(gs.seats):
        robots = [g for g in ET.fromstring(GK.svg(gs, seat)).iter(f"{NS}g") if g.get("class") == "robot"]
        assert len(robots) == 2 and {g.get("data-colour") for g in robots} == {PALETTE[k].word}
        assert {g.find(f"{NS}circle").get("fill") for g in robots} == {PALETTE[k].fill}


def _distance_to_segment(p, a, b) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def test_hp_number_is_not_covered_by_the_facing_pointer():
    """Issue 23: the HP number stays legible. For every robot (alone and sharing a square, F-6.5)
    and every facing, the pointer triangle stays outside the HP text's box."""
    for seats in (["p1"], ["p1", "p2"]):
        for facing in "NESW":
            board = grid_board("r3 . . .\nr2 . . .\nr1 . . .", start=f"r2c2 {facing}")
            st = RS.setup(RS.validate_config({"board": "tiny-yard"}), seats, 1)
            st.board = board
            for bot in st.bots:
                bot.sq, bot.facing, bot.hp, bot.alive = (2, 2), "NESW".index(facing), 10, True
            doc = ET.fromstring(RS.svg(st))
            robots = [g for g in doc.iter(f"{NS}g") if g.get("class") == "robot"]
            assert len(robots) == len(seats)
            for g in robots:
                text = g.find(f"{NS}text[@class='hp']")
                assert text.text == "10"
                cx, cy, size = float(text.get("x")), float(text.get("y")), float(text.get("font-size"))
                half_w, half_h = len(text.text) * 0.62 * size / 2, size / 2
                tri = [tuple(map(float, p.split(","))) for p in g.find(f"{NS}polygon").get("points").split()]
                corners = [(cx + sx * half_w, cy + sy * half_h) for sx in (-1, 1) for sy in (-1, 1)]
                # the triangle's nearest approach to the text's centre is beyond the box's corners
                nearest = min(_distance_to_segment((cx, cy), tri[i], tri[(i + 1) % 3]) for i in range(3))
                assert nearest > max(math.hypot(x - cx, y - cy) for x, y in corners), (seats, facing)


def test_next_flag_markers_are_pennants_not_discs():
    """Issue 23: a next-flag marker cannot be mistaken for a robot: no circle, a flag shape."""
    st = RS.setup(RS.validate_config({"board": "tiny-yard"}), ["p1", "p2", "p3"], 1)
    doc = ET.fromstring(RS.svg(st))
    marks = [g for g in doc.iter(f"{NS}g") if g.get("class") == "next-flag"]
    assert len(marks) == 3
    for g in marks:
        assert g.find(f"{NS}circle") is None and g.find(f"{NS}polygon") is not None


def test_robots_carry_their_colour_and_an_optional_escaped_name():
    st = RS.setup(RS.validate_config({"board": "tiny-yard"}), ["p1", "p2"], 1)
    svg = render_svg(RS, st, None, [], names={"p1": "Ada <b>&", "p2": "Grace Hopper the Admiral"})
    doc = ET.fromstring(svg)
    robots = {g.get("data-owner"): g for g in doc.iter(f"{NS}g") if g.get("class") == "robot"}
    assert robots["p1"].find(f"{NS}text[@class='name']").text == "Ada <b>&"  # escaped in the SVG, parsed back
    assert robots["p2"].find(f"{NS}text[@class='name']").text == "Grace Ho…"  # 8 characters and an ellipsis
    assert "<b>" not in svg
    assert robots["p1"].get("data-colour") == "red" and robots["p2"].get("data-colour") == "blue"
    plain = ET.fromstring(render_svg(RS, st, None, []))
    assert not list(plain.iter(f"{NS}text[@class='name']"))


def test_palette_follows_F_2_9_and_dadoed_seats_keep_their_colours():
    assert SEAT_WORDS == ("red", "blue", "green", "yellow", "orange", "purple", "white", "black")
    assert len({c.fill for c in PALETTE}) == 8
    assert {s: c.word for s, c in seat_colours(["blue", "orange"]).items()} == {"blue": "blue", "orange": "orange"}
    assert seat_colours(["p1", "p2", "p3", "p4"])["p4"].word == "yellow"
    with pytest.raises(KeyError, match="not a seat colour"):
        colour_named("teal")


def test_dadoed_commands_are_icons_in_their_colours_on_the_board_and_in_the_page_helpers():
    """D-4.1, D-4.2: every pool command has one icon, in its command colour, with its name; the
    board's panel and the order controls' data (page helpers) carry the same icon."""
    from botwars.games.dadoed.icons import COMMAND_COLOURS
    dd = get_ruleset("dadoed")
    st = dd.setup(dd.validate_config({"clock_enabled": "false"}), ["blue", "orange"], 0)
    doc = ET.fromstring(dd.svg(st, "blue", []))
    icons = {g.get("data-icon"): g for g in doc.iter(f"{NS}g") if g.get("class") == "cmd-icon"}
    pool = {c.id: c for c in st.pool.commands}
    assert set(icons) == set(pool)
    for cid, g in icons.items():
        assert g.get("data-colour") == pool[cid].colour
        assert g.find(f"{NS}rect").get("fill") == COMMAND_COLOURS[pool[cid].colour]
        assert len(list(g)) > 2, f"{cid}: no pictogram"  # title, the tile, then the picture
        assert g.find(f"{NS}title").text.startswith(pool[cid].name)
    # the same pictures reach the page's controls
    facts = get_game("dadoed").page_facts(st, "blue")
    assert set(facts["commands"]) == set(pool)
    step = ET.fromstring(facts["commands"]["step"]["icon"])
    assert step.find(f"{NS}g").get("data-icon") == "step" and facts["commands"]["step"]["colour"] == "blue"
    # the pictures tell commands apart: no two draw the same shapes
    bodies = {cid: c["icon"].split("</title>", 1)[1] for cid, c in facts["commands"].items()}  # all drawn at 0,0
    assert len(set(bodies.values())) == len(bodies)


def test_dadoed_submarine_and_arena_pieces_use_the_palette():
    dd = get_ruleset("dadoed")
    st = dd.setup(dd.validate_config({"clock_enabled": "false"}), ["blue", "orange"], 0)
    doc = ET.fromstring(dd.svg(st, None, []))
    fills = {g.get("data-owner"): g.find(f"{NS}circle").get("fill") for g in doc.iter(f"{NS}g") if g.get("class") == "bot"}
    assert fills == {"blue": colour_named("blue").fill, "orange": colour_named("orange").fill}
    ar = get_ruleset("arena")
    st = ar.setup(ar.validate_config({}), ["p1", "p2"], 1)
    st, _ = ar.resolve(st, {s: ar.default_orders(st, s) for s in ar.pending(st)})
    robots = [g for g in ET.fromstring(ar.svg(st, None, [], names={"p2": "Zed"})).iter(f"{NS}g")
              if g.get("class") == "robot"]
    assert robots
    for g in robots:
        k = int(g.get("data-player")) - 1
        assert g.get("data-colour") == PALETTE[k].word
        assert [e for e in g if e.tag in (f"{NS}circle", f"{NS}rect")][0].get("fill") == PALETTE[k].fill
        assert ("Zed" in g.find(f"{NS}title").text) == (k == 1)
