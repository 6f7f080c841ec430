"""DADOED SVG drawings (issue 8, item 1): tiles A1..H8, fire, holes, boulders, bots with owner
colour, label and rooted marker, and the last command's highlights."""

import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from botwars.cli import app
from botwars.engine.ruleset import get_ruleset
from botwars.games.dadoed.svg import COLOURS
from botwars.render import render_svg

NS = "{http://www.w3.org/2000/svg}"
RS = get_ruleset("dadoed")
SUPERS = {"blue": {"A": ["dash", "root"], "B": ["stride", "ignite"]},
          "orange": {"C": ["dash", "spread_fire"], "D": ["charge", "douse"]}}


def groups(doc, cls):
    return [g for g in doc.iter(f"{NS}g") if g.get("class") == cls]


def titles(doc):
    return [t.text for t in doc.iter(f"{NS}title")]


def started(**overrides):
    cfg = RS.validate_config({"clock_enabled": "false", **overrides})
    st = RS.setup(cfg, ["blue", "orange"], 0)
    orders = {s: RS.parse_orders(st, s, {"type": "setup", "supers": SUPERS[s]}) for s in ("blue", "orange")}
    return RS.resolve(st, orders)


def order(st, text):
    seat = st.seat_of(st.active)
    return RS.resolve(st, {seat: RS.parse_orders(st, seat, text)})


def test_D_3_2_initial_position_drawn_in_tile_notation():
    st, events = started()
    doc = ET.fromstring(render_svg(RS, st, None, events))
    labels = {t.text for t in doc.iter(f"{NS}text")}
    assert set("ABCDEFGH") <= labels and set("12345678") <= labels  # D-2.1
    bots = {g.get("data-bot"): (g.get("data-owner"), g.get("data-tile")) for g in groups(doc, "bot")}
    assert bots == {"A": ("blue", "A1"), "B": ("blue", "H1"), "C": ("orange", "A8"), "D": ("orange", "H8")}
    for g in groups(doc, "bot"):  # owner colour and label
        assert g.find(f"{NS}circle").get("fill") == COLOURS[g.get("data-owner")]
        assert g.get("data-bot") in {t.text for t in g.iter(f"{NS}text")}
    assert sorted(g.get("data-tile") for g in groups(doc, "boulder")) == ["C3", "C6", "F3", "F6"]
    assert sorted(g.get("data-tile") for g in groups(doc, "fire")) == ["D4", "E5"]
    assert not [r for r in doc.iter(f"{NS}rect") if r.get("class") == "hole"]
    assert "E4" in titles(doc) and "turn 1: Blue to move" in {t.text for t in doc.iter(f"{NS}text")}


def test_D_6_6_walk_leaves_a_hole_and_is_highlighted():
    st, _ = started()
    st, events = order(st, "charge A1 North 4")  # E1
    doc = ET.fromstring(render_svg(RS, st, "orange", events))
    holes = [r.find(f"{NS}title").text for r in doc.iter(f"{NS}rect") if r.get("class") == "hole"]
    assert holes == ["hole A1"]
    assert [g.find(f"{NS}title").text for g in groups(doc, "hl-move")] == ["A moved A1 to A5"]
    assert [r.get("class") for r in doc.iter(f"{NS}rect") if (r.get("class") or "").startswith("hl-")] == ["hl-hole"]
    a = [g for g in groups(doc, "bot") if g.get("data-bot") == "A"][0]
    assert a.get("data-tile") == "A5"
    # the last order names its command as the pool does (issue 23: "Charge", not the id "charge")
    assert "last: Blue Charge A1 North 4" in {t.text for t in doc.iter(f"{NS}text")}


def test_D_6_11_rooted_bot_has_a_marker():
    st, _ = started()
    st, _ = order(st, "root A1")
    doc = ET.fromstring(RS.svg(st, "blue", None))  # events None: the view's last log entry
    a = [g for g in groups(doc, "bot") if g.get("data-bot") == "A"][0]
    assert a.get("data-rooted") == "true" and "rooted" in a.find(f"{NS}title").text
    assert [c for c in a.iter(f"{NS}circle") if c.get("class") == "rooted"]
    b = [g for g in groups(doc, "bot") if g.get("data-bot") == "B"][0]
    assert b.get("data-rooted") == "false" and not [c for c in b.iter(f"{NS}circle") if c.get("class") == "rooted"]


def test_D_7_4_blast_highlighted_and_destroyed_bot_shown_in_reserve():
    st, _ = started(initial_bots="A:D5,B:A1,C:E6,D:H8", initial_boulders="D4", initial_fire="E5")
    st, events = order(st, "self_destruct D5")  # E16
    doc = ET.fromstring(render_svg(RS, st, None, events))
    assert len([r for r in doc.iter(f"{NS}rect") if r.get("class") == "hl-blast"]) == 1
    holes = sorted(r.find(f"{NS}title").text[5:] for r in doc.iter(f"{NS}rect") if r.get("class") == "hole")
    assert holes == ["C4", "C5", "C6", "D4", "D5", "D6", "E4", "E5", "E6"]
    assert {g.get("data-bot") for g in groups(doc, "bot")} == {"B", "D"}
    assert sorted(g.get("data-tile") for g in groups(doc, "hl-blasted")) == ["D5", "E6"]
    texts = {t.text for t in doc.iter(f"{NS}text")}
    assert "Blue reserve: C" in texts and "Orange reserve: A" in texts
    assert not groups(doc, "boulder") and not groups(doc, "fire")


def test_D_12_1_opponent_supers_hidden_during_setup():
    cfg = RS.validate_config({"clock_enabled": "false"})
    st = RS.setup(cfg, ["blue", "orange"], 0)
    st, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", {"type": "setup", "supers": SUPERS["blue"]})})
    assert st.phase == "setup"
    mine = RS.svg(st, "blue", [])
    assert "Dash + Root" in mine and "Stride + Ignite" in mine  # the supers by their command names
    for seat in ("orange", None):
        other = RS.svg(st, seat, [])
        assert "Dash + Root" not in other and "Stride + Ignite" not in other
        assert "ignite" not in other.split("pool")[0].lower()
    # once both are in, every seat sees all four supers
    st, _ = RS.resolve(st, {"orange": RS.parse_orders(st, "orange", {"type": "setup", "supers": SUPERS["orange"]})})
    assert "Dash + Root" in RS.svg(st, "orange", [])


def test_D_4_3_pool_panel_shows_copies_left():
    st, _ = started()
    st, events = order(st, "charge A1 North 4")
    texts = {t.text for t in ET.fromstring(RS.svg(st, None, events)).iter(f"{NS}text")}
    assert "Charge 0/1" in texts and "Dash 2/2" in texts and "Drop Bot ∞/∞" in texts


def test_replay_svg_command_for_dadoed(tmp_path):
    runner = CliRunner()
    rec = tmp_path / "d.jsonl"
    res = runner.invoke(app, ["match", "dadoed", "builtin:greedy", "builtin:greedy", "--seed", "2", "--no-clock",
                              "--set", "max_turns=12", "--replay", str(rec)])
    assert res.exit_code == 0, res.output
    out = tmp_path / "d.svg"
    res = runner.invoke(app, ["replay", str(rec), "--turn", "5", "--svg", str(out), "--seat", "orange"])
    assert res.exit_code == 0, res.output
    doc = ET.parse(out).getroot()
    assert doc.tag == f"{NS}svg" and groups(doc, "bot")
    # the final position states the record's own outcome line (the renderer must not make up
    # its own): here a draw at the turn limit (D-8.4), then a game orange wins (D-8.1)
    import json
    won = tmp_path / "w.jsonl"
    res = runner.invoke(app, ["match", "dadoed", "builtin:random", "builtin:greedy", "--seed", "3", "--no-clock",
                              "--set", "max_turns=30", "--replay", str(won)])
    assert res.exit_code == 0, res.output
    told = []
    for record in (rec, won):
        res = runner.invoke(app, ["replay", str(record), "--svg", str(out)])  # the final position
        assert res.exit_code == 0, res.output
        outcome = json.loads(record.read_text().splitlines()[-1])
        assert outcome["type"] == "outcome"
        # in words, never the engine's reason (issue 23); the seat's colour word as a name (render/palette.py)
        said = {(None, "turn_limit"): "Draw: the turn limit was reached",
                ("orange", "elimination"): "Orange wins: Blue has no bot left",
                ("orange", "no_legal_order"): "Orange wins: Blue had no legal order"}[(outcome["winner"], outcome["reason"])]
        texts = [t.text or "" for t in ET.parse(out).getroot().iter(f"{NS}text")]
        assert [t for t in texts if " wins" in t or t.startswith("Draw")] == [said], texts
        assert f"({outcome['reason']})" not in " ".join(texts)
        told.append(said)
    assert told[0].startswith("Draw: ") and told[1].startswith("Orange wins: ")
