"""Submarine SVG drawings (issue 8, item 1): the board in its own notation, and no hidden
information in any seat's or spectator's picture (S-8)."""

import random
import re
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from botwars.cli import app
from botwars.engine.errors import InvalidOrders
from botwars.engine.events import Event, filter_events
from botwars.engine.ruleset import get_ruleset
from botwars.games.submarine.board import ALL_SPACES, SUBS_OF, name, other
from botwars.games.submarine.bots import HunterBot, RandomBot
from botwars.games.submarine.state import SPECIALS
from botwars.render import render_svg

NS = "{http://www.w3.org/2000/svg}"
RS = get_ruleset("submarine")
RECIPIENTS = ("p1", "p2", None)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def groups(doc: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in doc.iter(f"{NS}g") if g.get("class") == cls]


def all_text(doc: ET.Element) -> str:
    """Every text and title string of the drawing, one per line."""
    return "\n".join(t.text or "" for t in doc.iter() if t.tag in (f"{NS}text", f"{NS}title"))


def started(seed: int = 1, **overrides):
    """A game right after both setups: p1's subs on row 1, p2's on row 7."""
    cfg = RS.validate_config({"p1_home_row": "1", "first_player": "p1", "clock_enabled": "false", **overrides})
    st = RS.setup(cfg, ["p1", "p2"], seed)
    specials = list(SPECIALS)
    orders = {}
    for seat, row in (("p1", 1), ("p2", 7)):
        payload = {"type": "setup", "placement": {k: f"{'BCDEF'[i]}{row}" for i, k in enumerate(SUBS_OF[seat])},
                   "specials": {k: specials[i] for i, k in enumerate(SUBS_OF[seat])}}
        orders[seat] = RS.parse_orders(st, seat, payload)
    return RS.resolve(st, orders)


def play(st, seat, actions):
    o = RS.parse_orders(st, seat, {"type": "orders", "actions": actions})
    return RS.resolve(st, {seat: o})


def test_S_2_1_board_drawn_in_its_notation_with_scoring_spaces_and_home_rows():
    st, events = started()
    doc = parse(render_svg(RS, st, "p1", events))
    labels = {t.text for t in doc.iter(f"{NS}text")}
    assert set("ABCDEFG") <= labels and set("1234567") <= labels
    scoring = {g.get("data-space"): int(g.get("data-value")) for g in groups(doc, "scoring")}
    assert scoring == {"D4": 4, "D3": 2, "C4": 2, "E4": 2, "D5": 2, "C3": 1, "E3": 1, "C5": 1, "E5": 1}  # S-2.5
    home = [r.find(f"{NS}title").text for r in doc.iter(f"{NS}rect") if r.get("class") == "home"]
    assert len(home) == 14 and "B1, p1 home row" in home and "B7, p2 home row" in home  # S-3.2
    subs = {g.get("data-sub"): g.get("data-space") for g in groups(doc, "sub")}
    # S-3.4 / S-3.5: all ten subs start surfaced, so everyone sees them
    assert subs == {"a": "B1", "b": "C1", "c": "D1", "d": "E1", "e": "F1",
                    "v": "B7", "w": "C7", "x": "D7", "y": "E7", "z": "F7"}


def test_S_8_5_own_submerged_sub_is_drawn_with_hp_and_hidden_from_others():
    st, _ = started()
    st, events = play(st, "p1", [{"sub": "a", "action": "submerge"}, {"sub": "a", "action": "move", "dir": "N"}])
    mine = parse(render_svg(RS, st, "p1", events))
    a = [g for g in groups(mine, "sub") if g.get("data-sub") == "a"]
    assert len(a) == 1 and a[0].get("data-space") == "B2" and a[0].get("data-surfaced") == "false"
    assert "5 HP" in a[0].find(f"{NS}title").text and "special: torpedo" in a[0].find(f"{NS}title").text
    for seat in ("p2", None):
        doc = parse(render_svg(RS, st, seat, events))
        assert "a" not in {g.get("data-sub") for g in groups(doc, "sub")}
        text = all_text(doc)
        assert "B2" not in re.sub(r"^B2$", "", text, flags=re.M)  # only the tile's own label may name B2
        assert "sub a " not in text
        # the other player saw the submerge (S-8.4, visible before it) but not the move
        assert [e.kind for e in filter_events(events, seat) if e.kind in ("submerge", "move")] == ["submerge"]
        assert not [g for g in doc.iter(f"{NS}g") if g.get("class") == "hl-move"]
        # the hook filters the events itself, so a caller passing all of them leaks nothing either
        direct = parse(RS.svg(st, seat, events))
        assert not [g for g in direct.iter(f"{NS}g") if g.get("class") == "hl-move"]
        assert "a" not in {g.get("data-sub") for g in groups(direct, "sub")}
    # the owner sees its move highlighted
    assert [g for g in mine.iter(f"{NS}g") if g.get("class") == "hl-move"]


def test_S_8_5_enemy_hp_and_specials_never_drawn_while_playing():
    st, events = started()
    doc = parse(render_svg(RS, st, "p1", events))
    for g in groups(doc, "sub"):
        t = g.find(f"{NS}title").text
        if g.get("data-owner") == "p2":
            assert "HP" not in t and "special" not in t
        else:
            assert "HP" in t


def test_S_6_6_own_mine_drawn_for_owner_only():
    st, _ = started()
    st, events = play(st, "p1", [{"sub": "a", "action": "submerge"}, {"sub": "d", "action": "mine", "space": "E2"}])
    # d holds "mine" (fourth special of the catalog) and is surfaced: p2 sees the placement event
    assert [e.kind for e in events if e.kind == "mine_placed"]
    assert {g.get("data-space") for g in groups(parse(render_svg(RS, st, "p1", events)), "mine")} == {"E2"}
    for seat in ("p2", None):
        assert groups(parse(render_svg(RS, st, seat, events)), "mine") == []


def test_S_12_5_finished_game_reveals_everything():
    st, _ = started()
    st, events = RS.resolve(st, {"p1": RS.parse_orders(st, "p1", {"type": "resign"})})
    for seat in RECIPIENTS:
        doc = parse(render_svg(RS, st, seat, events))
        assert len(groups(doc, "sub")) == 10
        assert "Blue wins: Red resigned" in all_text(doc)  # p2 by its colour (render/palette.py), in words
        assert "(resign)" not in all_text(doc)


def test_destroyed_spaces_are_drawn_after_the_ring_falls():
    st, _ = started(ring_interval=1)
    st, _ = play(st, "p1", [])
    st, events = play(st, "p2", [])  # round 1 ends: ring 1 destroyed (S-7.7)
    doc = parse(render_svg(RS, st, None, events))
    destroyed = [r for r in doc.iter(f"{NS}rect") if r.get("class") == "destroyed"]
    assert len(destroyed) == 24


# ---- the leak test: seeded random games ------------------------------------------------------

def twin(st, seat, rng):
    """A copy of ``st`` differing only in what ``seat`` (``None``: a spectator) may not know
    (S-8.1): submerged enemy positions, enemy HP, specials, plates, ramming, mines and score."""
    t = st.clone()
    enemies = ("p1", "p2") if seat is None else (other(seat),)
    free = [sp for sp in ALL_SPACES if all(s.space != sp for s in t.subs.values())]
    rng.shuffle(free)
    for e in enemies:
        for s in t.living(e):
            s.hp, s.special = rng.randint(1, 9), rng.choice(SPECIALS)
            s.plate, s.ramming = rng.random() < 0.5, rng.random() < 0.5
            if not s.surfaced and free:
                s.space, free[-1] = free.pop(), s.space
        t.mines = {sp: o for sp, o in t.mines.items() if o != e}
        for sp in rng.sample(ALL_SPACES, 3):
            t.mines.setdefault(sp, e)
        t.scores[e] = rng.randint(0, 24)
    return t


def hidden_subs(st, seat):
    """Letters of the living subs ``seat`` may not see now (S-8.5)."""
    return {k for k, s in st.subs.items() if not s.surfaced and s.owner != seat}


def seen_by_own_sonar(events, seat):
    return {d["sub"] for e in filter_events(events, seat) if e.kind == "sonar_result" for d in e.data.get("detected", [])}


def check_picture(st, seat, events, rng):
    svg = render_svg(RS, st, seat, events)
    doc = parse(svg)
    drawn = {g.get("data-sub"): g for g in groups(doc, "sub")}
    visible = {k for k, s in st.subs.items() if s.surfaced or s.owner == seat}
    assert set(drawn) == visible, (seat, sorted(drawn), sorted(visible))
    sonar = seen_by_own_sonar(events, seat)
    assert {g.get("data-sub") for g in groups(doc, "detected")} <= sonar
    text = all_text(doc)
    for k in hidden_subs(st, seat) - sonar:
        # no title, label or panel line names a hidden sub, in either case
        assert not re.search(rf"\b{k}\b", text) or _named_in_received_events(k, events, seat), (seat, k, text)
    for k, g in drawn.items():
        if st.subs[k].owner != seat:
            assert "HP" not in g.find(f"{NS}title").text
    if seat is not None:
        own_mines = {name(sp) for sp, o in st.mines.items() if o == seat}
        assert {g.get("data-space") for g in groups(doc, "mine") if g.get("data-owner") == seat} == own_mines
    # non-interference: what the recipient may not know changes nothing in its picture
    assert render_svg(RS, twin(st, seat, rng), seat, events) == svg


def _strings(o):
    if isinstance(o, dict):
        for v in o.values():
            yield from _strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from _strings(v)
    elif isinstance(o, str):
        yield o


def _named_in_received_events(k, events, seat):
    """A sub hidden now may be named by an event the recipient was given (it submerged in view,
    S-8.4: visible before the submerge)."""
    return any(k == v for e in filter_events(events, seat) for v in _strings(e.data))


@pytest.mark.parametrize("seed", range(10))
def test_S_8_no_submerged_enemy_in_any_picture_over_seeded_games(seed):
    rng = random.Random(f"svg-leak:{seed}")
    cfg = RS.validate_config({"clock_enabled": "false", "max_rounds": str(rng.randint(8, 14)), "win_points": "150",
                              "ring_interval": rng.choice(["2", "4", "10"])})
    st = RS.setup(cfg, ["p1", "p2"], seed)
    bots = {}
    # random bots submerge, mine and sonar; one game in three has the hunter (torpedoes, depth charges)
    for seat, cls in zip(("p1", "p2"), (RandomBot, HunterBot) if seed % 3 == 2 else (RandomBot, RandomBot)):
        bots[seat] = cls()
        bots[seat].start("submarine", seat, cfg, seed)
    events: list[Event] = []
    hidden_seen = 0
    n = 0
    while RS.outcome(st) is None and n < 400:
        n += 1
        if st.phase == "play":
            for seat in RECIPIENTS:
                hidden_seen += len(hidden_subs(st, seat))
                check_picture(st, seat, events, rng)
        orders = {}
        for seat in RS.pending(st):
            try:
                orders[seat] = RS.parse_orders(st, seat, bots[seat].act(RS.view(st, seat)))
            except InvalidOrders as exc:
                orders[seat] = RS.rejected_orders(st, seat, exc)
        st, events = RS.resolve(st, orders)
    assert RS.outcome(st) is not None
    assert hidden_seen > 0  # the games did hide subs, so the check had something to catch


def test_S_8_leak_check_catches_a_drawing_that_shows_submerged_enemies(monkeypatch):
    """The checker above fails on a drawing that is made from the state rather than the view."""
    import botwars.games.submarine.svg as sub_svg
    real = sub_svg._subs

    def leaky(view):
        out = real(view)
        if view.get("you") == "p1" and "own_subs" in view:
            out["v"] = {"owner": "p2", "space": "A4", "surfaced": False}
        return out

    monkeypatch.setattr(sub_svg, "_subs", leaky)
    st, _ = started()
    st, events = play(st, "p1", [])
    st, events = play(st, "p2", [{"sub": "v", "action": "submerge"}])
    with pytest.raises(AssertionError):
        check_picture(st, "p1", events, random.Random(0))


def test_replay_svg_command_writes_seat_and_spectator_pictures(tmp_path):
    runner = CliRunner()
    rec = tmp_path / "s.jsonl"
    res = runner.invoke(app, ["match", "submarine", "builtin:hunter", "builtin:random", "--seed", "3", "--no-clock",
                              "--set", "max_rounds=6", "--replay", str(rec)])
    assert res.exit_code == 0, res.output
    for extra in ([], ["--seat", "p1"], ["--seat", "p2"]):
        out = tmp_path / f"b{len(extra)}{''.join(extra)}.svg"
        res = runner.invoke(app, ["replay", str(rec), "--turn", "4", "--svg", str(out)] + extra)
        assert res.exit_code == 0, res.output
        doc = ET.parse(out).getroot()
        assert doc.tag == f"{NS}svg" and groups(doc, "scoring")
    res = runner.invoke(app, ["replay", str(rec), "--svg", str(tmp_path / "x.svg"), "--seat", "p9"])
    assert res.exit_code == 2 and "no seat" in res.output
