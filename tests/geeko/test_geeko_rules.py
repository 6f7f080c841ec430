"""Geeko rules beyond the scenarios: setup, orders (G-16.1), the default program (G-4.6), the
race and standings (G-9), views (G-16.3 to G-16.5), determinism."""

import json

import pytest

from botwars.engine.errors import InvalidOrders
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.cards import card_str
from botwars.engine.plugin import get_game

RS = get_ruleset("geeko")


def new(n=1, seed="demo", **cfg):
    return RS.setup(RS.validate_config(cfg), [f"p{k + 1}" for k in range(n)], seed,
                    ["Alice", "Bob", "Carol"][:n])


def test_G_1_1_registry_and_seats():
    assert RS.id == "geeko" and RS.min_seats == 1 and RS.max_seats == 8
    assert RS.validate_config({})["turn_limit"] == 60
    with pytest.raises(Exception):
        RS.validate_config({"registers": 5})


def test_G_3_1_setup_places_both_robots_in_room_1():
    gs = new()
    run = gs.runs[0]
    assert run.room == 1
    assert [(b.sq, b.facing, b.hp, b.mode) for b in run.bots] == [((1, 3), 0, 10, "real"), ((1, 5), 0, 10, "real")]
    assert len(run.hand) == 18


def test_G_3_3_every_player_gets_the_same_deck_order():
    gs = new(3)
    hands = [[card_str(c) for c in r.hand] for r in gs.runs]
    assert hands[0] == hands[1] == hands[2]


def test_G_16_1_order_with_types_assigns_priorities_first():
    gs = new()
    gs.runs[0].bots[1].sets = ["A"]
    RS.deal(gs.runs[0], 1, [])
    o = RS.parse_orders(gs, "p1", {"type": "program", "length": 4, "A": [590, 780, "RT90", 550],
                                   "B": [490, 760, 120, 30], "reboot": None})
    assert o.progs[0] == (590, 780, 180, 550) and o.progs[1] == (490, 760, 120, 30)


@pytest.mark.parametrize("payload, text", [
    ({"type": "program", "length": 2, "A": [590, 780], "B": [590, 490]}, "used twice"),
    ({"type": "program", "length": 2, "A": [590], "B": [550, 490]}, "exactly 2 cards"),
    ({"type": "program", "length": 10, "A": [], "B": []}, "'length' must be 1 to 9"),
    ({"type": "program", "length": 0}, "'length' must be 1 to 9"),
    ({"type": "program", "length": 1, "A": [999], "B": [490]}, "unknown card"),
    ({"type": "program", "length": 1, "A": [600], "B": [490]}, "not in your hand"),
    ({"type": "program", "length": 1, "A": [590], "B": [490], "standing": {}}, "unknown key 'standing'"),
    ({"type": "program", "length": "x"}, "'length' must be a whole number"),
    ({"type": "dance"}, "type must be"),
    ("nope", "JSON object"),
])
def test_G_16_1_bad_orders_are_refused_naming_the_entry(payload, text):
    gs = new()
    before = json.dumps(RS.state_json(gs), sort_keys=True)
    with pytest.raises(InvalidOrders) as e:
        RS.parse_orders(gs, "p1", payload)
    assert text in str(e.value)
    assert json.dumps(RS.state_json(gs), sort_keys=True) == before


def test_G_4_6_default_program_is_the_largest_greedy_fill():
    gs = new()
    o = RS.default_orders(gs, "p1")
    hand = gs.runs[0].hand
    assert o.length == 9
    assert o.progs[0] == tuple(hand[:9]) and o.progs[1] == tuple(hand[9:18])  # A first, then B


def test_G_4_5_length_zero_when_nobody_needs_cards():
    gs = new()
    run = gs.runs[0]
    for b in run.bots:
        b.rebooting = True
    RS.deal(run, 1, [])
    assert run.hand == []
    assert RS.parse_orders(gs, "p1", {"type": "program", "length": 0, "reboot": None}).length == 0
    assert RS.default_orders(gs, "p1").length == 0


def test_G_9_4_G_9_5_resign_ends_a_solo_game_at_once():
    gs = new()
    gs2, events = RS.resolve(gs, {"p1": RS.parse_orders(gs, "p1", {"type": "resign"})})
    assert gs2.result["reason"] == "resign" and gs2.turn == 0
    assert gs2.result["standings"] == [{"rank": 1, "seat": "p1", "status": "out"}]
    assert RS.outcome(gs2).winner is None


def test_G_9_4_resignation_in_a_race_lets_the_others_race_on():
    gs = new(2)
    gs2, _ = RS.resolve(gs, {"p1": RS.parse_orders(gs, "p1", {"type": "resign"}), "p2": RS.default_orders(gs, "p2")})
    assert gs2.result is None and RS.pending(gs2) == ["p2"] and gs2.turn == 1
    with pytest.raises(InvalidOrders):
        RS.parse_orders(gs2, "p1", {"type": "program", "length": 0})


def test_G_15_11_G_9_3_G_9_5_G_10_5_standings_and_result_table():
    gs = new(3)
    a, b, c = gs.runs
    a.finished, a.lost = 23, 1
    b.finished, b.lost = 23, 2
    c.room = 5
    events = []
    RS.end_game(gs, "turn_limit", events, 60)
    assert gs.result["standings"] == [{"rank": 1, "seat": "p1", "status": "winner"},
                                      {"rank": 2, "seat": "p2", "status": "finished"},
                                      {"rank": 3, "seat": "p3", "status": "unfinished"}]
    lines = events[-1].data["lines"]
    assert lines[0] == "=== RESULT ==="
    assert lines[1].split(" | ") == ["RANK", "NAME ", "TURNS", "ROOMS", "LOST", "STATUS"]
    assert [x.strip() for x in lines[4].split("|")] == ["3", "Carol", "-", "4", "0", "unfinished"]
    assert RS.outcome(gs).winner == "p1"


def test_G_9_3_ties_share_a_rank_and_nobody_finished_means_no_winner():
    gs = new(2)
    RS.end_game(gs, "turn_limit", [], 60)
    assert [r["rank"] for r in gs.result["standings"]] == [1, 1]
    assert gs.winners == [] and all(r["status"] == "unfinished" for r in gs.result["standings"])


def play(n, seed, bot="random", limit=8):
    bots = get_game(RS.id).builtin_bots()
    gs = RS.setup(RS.validate_config({"turn_limit": limit}), [f"p{k + 1}" for k in range(n)], seed)
    agents = {}
    for k in range(n):
        agents[f"p{k + 1}"] = bots[bot]()
        agents[f"p{k + 1}"].start("geeko", f"p{k + 1}", {}, seed)
    digests = []
    while not gs.over:
        orders = {s: RS.parse_orders(gs, s, agents[s].act(RS.view(gs, s))) for s in RS.pending(gs)}
        gs, events = RS.resolve(gs, orders)
        digests.append(json.dumps(RS.state_json(gs), sort_keys=True))
    return gs, digests


def test_determinism_same_seed_same_game_byte_for_byte():
    assert play(2, 5)[1] == play(2, 5)[1]


def test_G_9_2_turn_limit_ends_a_random_race():
    gs, _ = play(2, 3, limit=5)
    assert gs.result["reason"] == "turn_limit" and gs.turn == 5


def test_G_16_3_G_16_4_G_16_5_G_10_6_seat_view_shows_only_its_own_copy():
    gs, _ = play(2, 9, limit=3)
    gs = RS.setup(RS.validate_config({}), ["p1", "p2"], 4, ["Alice", "Bob"])
    v = RS.view(gs, "p1")
    assert v["room"] == 1 and v["you"] == 1 and len(v["hand"]) == 18
    assert set(v["robots"]) == {"A", "B"} and v["robots"]["A"]["square"] == "r1c3"
    assert v["devices"]["gates"] == {"r7c4": False}
    assert v["others"] == [{"seat": 2, "room": 1, "finished": False, "out": False}]
    text = json.dumps(v)
    assert "Bob" not in text and "deck" not in text and "seed" not in text
    spec = RS.view(gs, None)
    assert set(spec) == {"ruleset", "turn", "phase", "deadline_s", "others", "result"}


def test_G_10_1_reports_are_private_to_their_player():
    gs = new(2)
    gs2, events = RS.resolve(gs, {s: RS.default_orders(gs, s) for s in RS.pending(gs)})
    stages = [e for e in events if e.kind == "stage"]
    assert stages and all(e.visible_to in (frozenset(["p1"]), frozenset(["p2"])) for e in stages)
    mine = [e for e in stages if e.visible_to == frozenset(["p1"])]
    assert mine[0].data["lines"][0] == "=== TURN 1 STAGE 1 ROOM 1 ==="
    assert mine[0].data["rows"][0] == ["NAME", "Alice-A", "Alice-B"]
    end = next(e for e in events if e.kind == "end" and e.visible_to == frozenset(["p1"]))
    assert [r[0] for r in end.data["rows"]][:3] == ["NAME", "MODE", "ROOM"]
    assert end.data["rows"][-1][0] == "REBOOT" and end.data["rows"][-1][1].endswith("HP, run")


def test_svg_and_text_pictures_show_only_what_the_viewer_may_see():
    gs = new(2)
    seat_svg = RS.svg(gs, "p1")
    spec_svg = RS.svg(gs, None)
    assert seat_svg.startswith("<svg") and "geeko-1" in seat_svg
    assert seat_svg != spec_svg  # the spectator's picture has no robots during the game (G-10.6)
    text = RS.render_text(gs, "p1")
    assert "Alice-A: r1c3 N room 1" in text and "Bob" not in text
    assert RS.render_text(gs, None).splitlines() == ["Alice: room 1", "Bob: room 1"]


def test_G_1_4_robots_are_real_and_there_are_no_flags_or_standing_orders():
    gs = new()
    assert all(b.mode == "real" for b in gs.runs[0].bots)
    with pytest.raises(InvalidOrders, match="unknown key 'standing'"):
        RS.parse_orders(gs, "p1", {"type": "program", "length": 1, "A": [590], "B": [780], "standing": {}})


def test_G_16_2_G_3_4_a_missing_order_plays_the_default_program():
    gs = new()
    a, _ = RS.resolve(gs, {})
    b, _ = RS.resolve(gs, {"p1": RS.default_orders(gs, "p1")})
    assert json.dumps(RS.state_json(a), sort_keys=True) == json.dumps(RS.state_json(b), sort_keys=True)
    assert a.turn == 1 and len(a.runs[0].hand) == 18


def no_fit_state():
    """Issue 11 (audit): A at HP 1 with all nine registers fused and set A, B at HP 2 with one
    free register; the only card dealt is RVS3 795, which B cannot use (G-4.4, G-4.5)."""
    from botwars.games.factory.cards import parse_card
    gs = new(seed="rvs3-82")
    run = gs.runs[0]
    a, b = run.bots
    a.hp, a.sets = 1, ["A"]
    a.regs = [parse_card(c) for c in ("70", "90", "110", "130", "80", "100", "120", "140", "10")]
    b.hp = 2
    b.regs = [None] + [parse_card(c) for c in ("150", "170", "190", "210", "160", "200", "220", "240")]
    RS.deal(run, 1, [])
    assert [card_str(c) for c in run.hand] == ["RVS3 795"]
    return gs


@pytest.mark.parametrize("payload", [
    {"type": "program", "length": 0, "reboot": None},
    {"type": "program", "length": 0, "reboot": None, "B": []},  # what the web page's entry sends
    {"type": "program", "length": 0, "reboot": "B"},
])
def test_G_4_5_length_zero_is_accepted_when_no_program_with_L_1_is_valid(payload):
    gs = no_fit_state()
    assert RS.longest_program(gs.runs[0]) == 0
    o = RS.parse_orders(gs, "p1", payload)
    assert o.length == 0 and o.progs == {}
    assert RS.default_orders(gs, "p1").to_json() == {"type": "program", "length": 0, "reboot": None}
    gs2, events = RS.resolve(gs, {"p1": o})
    assert len([e for e in events if e.kind == "stage"]) == 9  # A runs its nine fused registers (G-4.7)


@pytest.mark.parametrize("payload, text", [
    ({"type": "program", "length": 1, "B": [795], "reboot": None}, "'length' must be 0"),
    ({"type": "program", "length": 0, "B": [795], "reboot": None}, "omit 'B'"),
])
def test_G_4_5_with_no_valid_program_other_orders_are_refused(payload, text):
    with pytest.raises(InvalidOrders) as e:
        RS.parse_orders(no_fit_state(), "p1", payload)
    assert text in str(e.value)


def test_G_4_5_length_zero_is_refused_while_a_program_with_L_1_exists():
    gs = new()
    with pytest.raises(InvalidOrders) as e:
        RS.parse_orders(gs, "p1", {"type": "program", "length": 0, "reboot": None})
    assert "'length' must be 1 to 9" in str(e.value)


@pytest.mark.parametrize("bot", ["random", "pathfinder"])
def test_G_4_5_builtin_bots_send_length_zero_when_no_program_fits(bot):
    gs = no_fit_state()
    agent = get_game("geeko").builtin_bots()[bot]()
    agent.start("geeko", "p1", {}, 7)
    payload = agent.act(RS.view(gs, "p1"))
    assert payload == {"type": "program", "length": 0, "reboot": None}
    assert RS.parse_orders(gs, "p1", payload).length == 0


def test_G_4_5_joint_fill_finds_a_program_a_greedy_fill_would_miss():
    """Hand FWD1 490, RVS3 795; A holds set A, B does not.  Handing cards out in hand order, A
    first, gives 490 to A and leaves B nothing; the exact fill gives A the RVS3 and B the FWD1."""
    from botwars.games.geeko.program import joint_fill
    assert joint_fill([490, 795], [["A"], []], 1) == [[795], [490]]
    assert joint_fill([490, 500], [["A"], ["A"]], 1) == [[490], [500]]
    assert joint_fill([490, 500, 510], [[], []], 1) == [[490], [500]]
    assert joint_fill([795], [["A"], []], 1) is None
    assert joint_fill([490, 795], [["A"], []], 2) is None
    assert joint_fill([490, 795], [["A"]], 2) == [[490, 795]]
