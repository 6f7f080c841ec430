"""DADOED rule set through the kernel: orders, legality, clock, views, bots, records."""

import json

import pytest
from typer.testing import CliRunner

from botwars.agents.base import CallableAgent
from botwars.agents.spec import make_agent
from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset
from botwars.engine.timecontrol import Clock
from botwars.games.dadoed.board import parse_board, tile_str
from botwars.games.dadoed.bots import GreedyBot, RandomBot, state_from_view
from botwars.games.dadoed.engine import ALL_TILES, Order, iter_legal, order_text
from botwars.games.dadoed.pool import load_pool, parse_pool
from botwars.games.dadoed.scenario import build_state

RS = get_ruleset("dadoed")
SUPERS = {"blue": {"type": "setup", "supers": {"A": ["dash", "root"], "B": ["stride", "ignite"]}},
          "orange": {"type": "setup", "supers": {"C": ["charge", "spread_fire"], "D": ["step", "patch"]}}}


def started(supers=SUPERS, **overrides):
    """A default game after both setup submissions (turn 1, Blue to move)."""
    cfg = RS.validate_config(overrides)
    st = RS.setup(cfg, ["blue", "orange"], 0)
    orders = {s: RS.parse_orders(st, s, supers[s]) for s in ("blue", "orange")}
    st, _ = RS.resolve(st, orders)
    return st


def scen(board, **kw):
    return build_state({"board": board, **kw}, "test")


EMPTY = "\n".join(f"{r} ........" for r in range(8, 0, -1))


def board_with(**placed):
    rows = {r: list("........") for r in range(1, 9)}
    for ch, t in placed.items():
        rows[int(t[1])][ord(t[0]) - 65] = ch
    return "\n".join(f"{r} {''.join(rows[r])}" for r in range(8, 0, -1))


class Clockwork:
    """An injectable time source: each call advances by the next programmed step."""

    def __init__(self, steps):
        self.t = 0.0
        self.steps = list(steps)
        self.flip = False

    def __call__(self):
        # Match reads the time twice per seat decision: before and after act()
        if self.flip:
            self.t += self.steps.pop(0) if self.steps else 0.1
        self.flip = not self.flip
        return self.t


# ---- setup and turns --------------------------------------------------------------------------
def test_D_3_1_D_3_2_initial_board_matches_the_rules_file():
    st = RS.setup(RS.validate_config({}), ["blue", "orange"], 0)
    assert st.board_lines() == ["  ABCDEFGH", "8 c......d", "7 ........", "6 ..O..O..", "5 ....*...",
                                "4 ...*....", "3 ..O..O..", "2 ........", "1 A......B"]
    assert RS.pending(st) == ["blue", "orange"]


def test_D_1_5_D_12_1_after_setup_deterministic_with_perfect_information():
    """D-1.5: after setup the game is deterministic (D-12.1: no randomness after setup), so the
    same setup and orders give the same game whatever the match seed; and every fact is public:
    both seats and a spectator get the same observation but for ``you``."""
    import random as _random
    cfg = RS.validate_config({"max_turns": 40})
    games = []
    for seed in (0, 7, 123456):
        st = RS.setup(cfg, ["blue", "orange"], seed)
        st, _ = RS.resolve(st, {s: RS.parse_orders(st, s, SUPERS[s]) for s in ("blue", "orange")})
        games.append(st)
    pick = _random.Random(5)
    turns = 0
    while RS.outcome(games[0]) is None:
        views = {s: RS.view(games[0], s) for s in ("blue", "orange", None)}
        assert {s: v.pop("you", None) for s, v in views.items()} == {"blue": "blue", "orange": "orange", None: None}
        assert views["blue"] == views["orange"] == views[None]
        seat = RS.pending(games[0])[0]
        legal = RS.legal_orders(games[0], seat)
        payload = pick.choice(legal) if legal else RS.orders_json(RS.default_orders(games[0], seat))
        games = [RS.resolve(g, {seat: RS.parse_orders(g, seat, payload)})[0] for g in games]
        first = json.dumps(RS.state_json(games[0]), sort_keys=True)
        assert all(json.dumps(RS.state_json(g), sort_keys=True) == first for g in games[1:]), turns
        turns += 1
    assert turns >= 10  # a real game was compared, not just the opening


def test_D_3_5_D_12_1_opponent_supers_hidden_until_both_accepted():
    st = RS.setup(RS.validate_config({}), ["blue", "orange"], 0)
    st, ev = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", SUPERS["blue"]),
                             "orange": RS.default_orders(st, "orange")})
    assert RS.pending(st) == ["orange"]
    assert RS.view(st, "blue")["bots"]["A"]["super"] == ["dash", "root"]
    assert RS.view(st, "orange")["bots"]["A"]["super"] is None
    assert RS.view(st, None)["bots"]["A"]["super"] is None
    st, ev = RS.resolve(st, {"orange": RS.parse_orders(st, "orange", SUPERS["orange"])})
    assert [e.kind for e in ev] == ["supers"]
    assert RS.view(st, "orange")["bots"]["A"]["super"] == ["dash", "root"]
    assert RS.pending(st) == ["blue"]


def test_D_5_1_alternating_turns_pending_only_the_active_seat():
    st = started()
    assert RS.pending(st) == ["blue"]
    with pytest.raises(InvalidOrders) as exc:
        RS.parse_orders(st, "orange", "step A8 South 1")
    assert exc.value.code == "turn"
    st, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", "step A1 North 1")})
    assert RS.pending(st) == ["orange"]
    assert RS.view(st, "orange")["turn"] == 2


def test_D_5_8_three_rejections_lose_as_refused_and_state_is_untouched():
    st = started()
    before = RS.state_json(st)
    for bad in ("teleport A1 North", {"type": "command", "command": "step", "tile": "H8", "direction": "S"}, 42):
        with pytest.raises(InvalidOrders):
            RS.parse_orders(st, "blue", bad)
    assert RS.state_json(st) == before
    for i in range(3):
        st, ev = RS.resolve(st, {"blue": RS.default_orders(st, "blue")})
    assert RS.outcome(st).winner == "orange" and RS.outcome(st).reason == "refused"


def test_D_5_8_rejection_count_resets_after_an_accepted_order():
    st = started()
    st, _ = RS.resolve(st, {"blue": RS.default_orders(st, "blue")})
    st, _ = RS.resolve(st, {"blue": RS.default_orders(st, "blue")})
    assert st.rejections == 2
    st, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", "step A1 North 1")})
    assert st.rejections == 0 and RS.pending(st) == ["orange"]


# ---- legality (D-5.3) ---------------------------------------------------------------------------
def _all_command_payloads(st):
    dirs = [None, "N", "E", "S", "W"]
    for c in st.pool.commands:
        for t in ALL_TILES:
            for d in dirs:
                for bot in ([None] if c.id != "drop_bot" else ["A", "B", "C", "D"]):
                    p = {"type": "command", "command": c.id, "tile": tile_str(t)}
                    if d:
                        p["direction"] = d
                    if bot:
                        p["bot"] = bot
                    yield p


def _positions(seed=11):
    """Positions from a seeded random game (every 4th turn)."""
    agents = {s: make_agent("builtin:random", "dadoed") for s in ("blue", "orange")}
    m = Match(RS, RS.validate_config({}), agents, seed, clock=False)
    m.start_agents()
    out = []
    while m.outcome() is None and len(out) < 5:
        m.step()
        if m.state.phase == "play" and m.state.turn % 4 == 1:
            out.append(m.state)
    return out


def test_D_5_3_legal_orders_are_exactly_the_accepted_commands():
    for st in _positions()[:3]:
        seat = st.seat_of(st.active)
        legal = RS.legal_orders(st, seat)
        assert legal[-1] == {"type": "resign"}
        legal_set = {json.dumps(p, sort_keys=True) for p in legal if p["type"] == "command"}
        accepted = set()
        for p in _all_command_payloads(st):
            try:
                o = RS.parse_orders(st, seat, p)
            except InvalidOrders:
                continue
            accepted.add(json.dumps(o.payload(), sort_keys=True))
        assert accepted == legal_set


def test_D_5_4_every_enumerated_super_parses_and_its_text_round_trips():
    for st in _positions():
        seat = st.seat_of(st.active)
        for o in iter_legal(st, st.active):
            parsed = RS.parse_orders(st, seat, o.payload())
            assert parsed.payload() == o.payload()
            text = order_text(st, o)
            assert RS.parse_orders(st, seat, text).payload() == o.payload(), text


def test_D_5_4_every_accepted_super_is_enumerated():
    seen = 0
    positions = [st for seed in (11, 12, 13, 14) for st in _positions(seed)[1:]]
    positions = [st for st in positions
                 if any(p["type"] == "super" for p in RS.legal_orders(st, st.seat_of(st.active)))][:2]
    for st in positions:
        seat = st.seat_of(st.active)
        legal = {json.dumps(p, sort_keys=True) for p in RS.legal_orders(st, seat) if p["type"] == "super"}
        accepted = set()
        for label in st.own_bots(st.active):
            for d1 in (None, "N", "E", "S", "W"):
                for t in [None] + [tile_str(x) for x in ALL_TILES]:
                    for d2 in (None, "N", "E", "S", "W"):
                        for b in [None] + st.reserve(st.active):
                            second = {k: v for k, v in (("tile", t), ("direction", d2), ("bot", b)) if v}
                            p = {"type": "super", "bot": label, "first": {"direction": d1} if d1 else {},
                                 "second": second}
                            try:
                                o = RS.parse_orders(st, seat, p)
                            except InvalidOrders:
                                continue
                            accepted.add(json.dumps(o.payload(), sort_keys=True))
        assert accepted == legal
        seen += len(legal)
    assert seen > 0


def test_D_2_5_text_and_json_orders_agree():
    st = scen(board_with(A="F1", d="H8"))
    a = RS.parse_orders(st, "blue", "east_3 F1 East 3")
    b = RS.parse_orders(st, "blue", {"type": "command", "command": "east_3", "tile": "F1"})
    c = RS.parse_orders(st, "blue", json.dumps({"type": "command", "command": "east_3", "tile": "F1", "direction": "E"}))
    assert a == b == c


def test_legal_orders_empty_for_the_waiting_seat_and_none_during_setup():
    st = started()
    assert RS.legal_orders(st, "orange") == []
    st0 = RS.setup(RS.validate_config({}), ["blue", "orange"], 0)
    assert RS.legal_orders(st0, "blue") is None


def test_parse_orders_never_changes_the_state_property():
    from hypothesis import given, settings, strategies as s

    st = started()
    before = RS.state_json(st)
    words = s.sampled_from(["step", "dash", "super", "A:", "A1", "B2", "North", "East", "3", "+", "C", "drop_bot",
                            "resign", "zz", "F1"])

    @settings(max_examples=80, deadline=None)
    @given(s.one_of(s.lists(words, max_size=7).map(" ".join),
                    s.dictionaries(s.sampled_from(["type", "command", "tile", "direction", "bot", "first", "second"]),
                                   s.one_of(s.text(max_size=5), s.integers(), s.none(), words), max_size=5)))
    def check(payload):
        try:
            RS.parse_orders(st, "blue", payload)
        except InvalidOrders:
            pass
        assert RS.state_json(st) == before

    check()


# ---- time banks (D-8.3) ---------------------------------------------------------------------------
def test_D_8_3_E20_charges_in_30_second_increments():
    tc = RS.time_control(RS.validate_config({}))
    assert (tc.move_limit_s, tc.bank_s, tc.increment_s, tc.on_expiry) == (0, 1800, 30, "loss")
    assert tc.charge(31) == 60
    assert tc.charge(0.4) == 30
    assert tc.charge(30.0) == 30
    clock = Clock.start(tc, ["blue", "orange"])
    assert clock.spend("blue", 31) == "ok" and clock.bank_left["blue"] == 1740
    clock.bank_left["blue"] = 30
    assert clock.spend("blue", 12) == "depleted" and clock.bank_left["blue"] == 0
    clock.bank_left["orange"] = 30
    assert clock.spend("orange", 30) == "expired"


def test_D_8_3_E20_depleted_bank_loses_after_the_turn_resolves():
    agents = {s: make_agent("builtin:random", "dadoed") for s in ("blue", "orange")}
    # setup decision (both seats, not charged), then Blue 12 s with a bank of 30
    ticks = Clockwork([100.0, 100.0, 12.0])
    m = Match(RS, RS.validate_config({"time_bank_s": 30}), agents, 1, time_source=ticks)
    res = m.run()
    assert m.clock.bank_left["blue"] == 0
    assert res.outcome.winner == "orange" and res.outcome.reason == "time"
    assert m.state.turn == 1  # the order stood: turn 1 was played


def test_D_5_7_clock_is_charged_before_the_turn_limit(tmp_path):
    agents = {s: make_agent("builtin:random", "dadoed") for s in ("blue", "orange")}
    ticks = Clockwork([1.0, 1.0, 12.0])
    m = Match(RS, RS.validate_config({"time_bank_s": 30, "max_turns": 1}), agents, 1, time_source=ticks,
              record=str(tmp_path / "r.jsonl"))
    res = m.run()
    assert res.outcome.winner == "orange" and res.outcome.reason == "time"  # not a turn_limit draw
    ok, msg = verify_record(read_record(res.replay))
    assert ok, msg


def test_D_8_4_turn_limit_draw_through_match_and_record(tmp_path):
    agents = {s: make_agent("builtin:random", "dadoed") for s in ("blue", "orange")}
    m = Match(RS, RS.validate_config({"max_turns": 4}), agents, 2, clock=False, record=str(tmp_path / "r.jsonl"))
    res = m.run()
    assert res.outcome.winner is None and res.outcome.reason == "turn_limit" and res.turns == 4
    assert m.state.log[-1]["events"][-1] == {"type": "result", "winner": "draw", "reason": "turn_limit"}
    ok, msg = verify_record(read_record(res.replay))
    assert ok, msg


def test_D_8_3_running_past_the_bank_loses_at_once():
    agents = {s: make_agent("builtin:random", "dadoed") for s in ("blue", "orange")}
    ticks = Clockwork([1.0, 1.0, 0.5, 1800.0])
    m = Match(RS, RS.validate_config({}), agents, 1, time_source=ticks)
    res = m.run()
    assert res.outcome.winner == "blue" and res.outcome.reason == "time"
    assert m.clock.bank_left["blue"] == 1770


def test_D_8_3_setup_is_not_charged_and_both_banks_are_shown():
    seen = []

    class Spy(RandomBot):
        def act(self, view):
            seen.append(view["clock"])
            return super().act(view)

    agents = {"blue": CallableAgent(Spy()), "orange": CallableAgent(RandomBot())}
    m = Match(RS, RS.validate_config({}), agents, 2, time_source=Clockwork([5.0] * 10), max_decisions=4)
    m.start_agents()
    for _ in range(4):
        m.step()
    assert seen[0] == {"enabled": True, "blue": 1800.0, "orange": 1800.0}  # setup view
    assert seen[1] == {"enabled": True, "blue": 1800.0, "orange": 1800.0}  # setup was free
    assert seen[2]["blue"] == 1770.0 and seen[2]["orange"] == 1770.0


def test_D_8_3_clock_disabled_means_no_time_control():
    tc = RS.time_control(RS.validate_config({"clock_enabled": "false"}))
    assert tc.move_limit_s is None


# ---- views, rendering, records ----------------------------------------------------------------------
def test_D_12_2_view_fields_and_json():
    st = started()
    st, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", "charge A1 North 4")})
    v = RS.view(st, "orange")
    json.dumps(v)
    assert v["you"] == "orange" and v["turn"] == 2 and v["active"] == "orange"
    assert v["holes"] == ["A1"] and v["fire"] == ["D4", "E5"] and v["boulders"] == ["C3", "C6", "F3", "F6"]
    assert v["bots"]["A"] == {"owner": "blue", "tile": "A5", "rooted": False, "super": ["dash", "root"]}
    assert v["pool"]["charge"] == {"copies": 1, "left": 0}
    assert v["pool"]["drop_bot"] == {"copies": None, "left": None}
    assert v["super_allowed"] is True
    assert v["log"] == [{"turn": 1, "player": "blue", "order": "charge A1 North 4",
                         "events": [{"type": "move", "object": "A", "from": "A1", "to": "A5"},
                                    {"type": "hole", "tile": "A1"}]}]
    assert v["board"][4] == "5 A...*..."
    assert RS.view(st, "blue")["you"] == "blue"
    assert {k: x for k, x in RS.view(st, "blue").items() if k != "you"} == \
           {k: x for k, x in v.items() if k != "you"}


def test_render_text_shows_board_bots_reserves_and_pool():
    st = started()
    text = RS.render_text(st)
    assert "8 c......d" in text and "1 A......B" in text
    assert "pool: step 2/2" in text and "drop_bot inf/inf" in text
    assert "super dash + root" in text and "reserves:" in text


def test_state_from_view_rebuilds_the_position():
    st = started()
    st, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", "dash A1 North 3")})
    rebuilt = state_from_view(RS.view(st, "orange"), st.config)
    a = RS.state_json(st)
    b = RS.state_json(rebuilt)
    for k in ("holes", "fire", "boulders", "bots", "left", "turn", "phase"):
        assert a[k] == b[k], k


def _play(a, b, seed, tmp_path=None):
    agents = {"blue": make_agent(a, "dadoed"), "orange": make_agent(b, "dadoed")}
    path = str(tmp_path / f"r{seed}.jsonl") if tmp_path else None
    m = Match(RS, RS.validate_config({}), agents, seed, record=path, clock=False)
    return m, m.run()


def test_match_seed_3_plays_to_the_end_and_verifies(tmp_path):
    m, res = _play("builtin:greedy", "builtin:random", 3, tmp_path)
    ok, msg = verify_record(read_record(res.replay))
    assert ok, msg
    # D-8.1, D-8.5: this seeded game ends by elimination; the winner is the one player with a bot on
    # the board (reserves do not count) in the final position
    assert res.outcome.reason == "elimination"
    final = RS.view(m.state, "blue")
    on_board = {b["owner"] for b in final["bots"].values() if b["tile"]}
    assert on_board == {res.outcome.winner}
    assert final["result"] == {"winner": res.outcome.winner, "reason": "elimination"}


def test_same_seed_same_record(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _, r1 = _play("builtin:random", "builtin:greedy", 5, tmp_path / "a")
    _, r2 = _play("builtin:random", "builtin:greedy", 5, tmp_path / "b")

    def strip(path):
        return [json.dumps({k: v for k, v in json.loads(ln).items() if k != "time_s"}, sort_keys=True)
                for ln in open(path)]

    assert strip(r1.replay) == strip(r2.replay)


def test_record_tampering_detected(tmp_path):
    _, res = _play("builtin:greedy", "builtin:random", 4, tmp_path)
    lines = open(res.replay).read().splitlines()
    obj = json.loads(lines[2])  # decision 2 = turn 1
    obj["orders"]["blue"] = "step A1 North 1" if obj["orders"]["blue"] != "step A1 North 1" else "step H1 North 1"
    lines[2] = json.dumps(obj)
    open(res.replay, "w").write("\n".join(lines) + "\n")
    ok, msg = verify_record(read_record(res.replay))
    assert not ok and "decision point 2" in msg


def test_greedy_beats_random_in_seeded_games():
    wins = 0
    for seed in range(10):
        g, r = ("blue", "orange") if seed % 2 == 0 else ("orange", "blue")
        agents = {g: make_agent("builtin:greedy", "dadoed"), r: make_agent("builtin:random", "dadoed")}
        agents = {s: agents[s] for s in ("blue", "orange")}
        res = Match(RS, RS.validate_config({}), agents, seed, clock=False).run()
        wins += res.outcome.winner == g
    assert wins >= 8


def test_greedy_takes_a_winning_push():
    st = scen(board_with(A="G1", c="H1", B="A5"), turn=3)
    bot = GreedyBot()
    bot.start("dadoed", "blue", st.config, 0)
    order = bot.act(RS.view(st, "blue"))
    after, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", order)})
    assert RS.outcome(after).winner == "blue"


def test_cli_match_and_replay_verify(tmp_path):
    from botwars.cli import app
    runner = CliRunner()
    path = str(tmp_path / "m.jsonl")
    r = runner.invoke(app, ["match", "dadoed", "builtin:greedy", "builtin:random", "--seed", "3", "--replay", path,
                            "--json"])
    assert r.exit_code == 0, r.output
    last = json.loads(r.output.strip().splitlines()[-1])
    rec = read_record(path)
    assert last["winner"] == rec.outcome["winner"] and rec.outcome["reason"] == "elimination"  # as above, D-8.1
    r = runner.invoke(app, ["replay", path, "--verify"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["replay", path, "--report"])
    assert r.exit_code == 0 and "ABCDEFGH" in r.output


# ---- pool files and boards ----------------------------------------------------------------------------
def test_D_4_7_match_with_another_pool_file(tmp_path):
    p = tmp_path / "pool.json"
    p.write_text(json.dumps({"commands": [
        {"id": "step", "name": "Step", "colour": "blue", "copies": 5},
        {"id": "leap", "name": "Leap", "colour": "blue", "copies": 1, "distance": 5},
        {"id": "spread_fire", "name": "Spread Fire", "colour": "gold", "copies": 1},
        {"id": "drop_bot", "name": "Drop Bot", "colour": "green", "copies": "inf"}]}))
    cfg = RS.validate_config({"pool": str(p)})
    sup = {"blue": {"type": "setup", "supers": {"A": ["step", "spread_fire"], "B": ["leap", "drop_bot"]}},
           "orange": {"type": "setup", "supers": {"C": ["leap", "step"], "D": ["step", "leap"]}}}
    with pytest.raises(InvalidOrders):
        started(supers=sup, pool=str(p))  # Orange repeats ids (D-3.4c)
    sup["orange"] = sup["blue"] | {"supers": {"C": ["step", "spread_fire"], "D": ["leap", "drop_bot"]}}
    st = started(supers=sup, pool=str(p))
    assert st.left == {"step": 5, "leap": 1, "spread_fire": 1, "drop_bot": None}
    st2, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", "leap A1 North 5")})
    assert tile_str(st2.bots["A"].tile) == "A6"
    with pytest.raises(InvalidOrders) as exc:
        RS.parse_orders(st, "blue", "dash A1 North 3")
    assert exc.value.code == "unknown"
    res = Match(RS, cfg, {s: make_agent("builtin:greedy", "dadoed") for s in ("blue", "orange")}, 1,
                clock=False).run()
    assert res.outcome.reason != "setup_forfeit" and not res.errors


@pytest.mark.parametrize("doc,msg", [
    ({"commands": [{"id": "step", "colour": "red", "copies": 1}]}, "colour must be blue"),
    ({"commands": [{"id": "step", "colour": "blue", "copies": -1}]}, "'copies' must be"),
    ({"commands": [{"id": "fly", "colour": "red", "copies": 1}]}, "unknown id with no behaviour"),
    ({"commands": [{"id": "step", "colour": "blue", "copies": 1}, {"id": "step", "colour": "blue", "copies": 1}]},
     "duplicate id"),
    ({"commands": [{"id": "step", "colour": "blue", "copies": 1, "speed": 3}]}, "unknown field"),
    ({"commands": [{"id": "root", "colour": "red", "copies": "inf"}]}, "only green commands"),
    ({"cmds": []}, "unknown top-level key"),
    ([], "non-empty list"),
])
def test_malformed_pool_is_refused_with_a_message_naming_it(doc, msg):
    with pytest.raises(ConfigError) as exc:
        parse_pool(doc, "my-pool.yaml")
    assert msg in str(exc.value) and "my-pool.yaml" in str(exc.value)


def test_pool_parameter_names_a_missing_or_broken_file(tmp_path):
    with pytest.raises(ConfigError) as exc:
        RS.validate_config({"pool": str(tmp_path / "nope.yaml")})
    assert "parameter pool" in str(exc.value) and "cannot read" in str(exc.value)
    bad = tmp_path / "bad.yaml"
    bad.write_text("commands: [ {id: step\n")
    with pytest.raises(ConfigError) as exc:
        RS.validate_config({"pool": str(bad)})
    assert "not valid YAML" in str(exc.value)


def test_default_pool_matches_D_4_2():
    pool = load_pool()
    assert [(c.id, c.colour, c.copies) for c in pool.commands] == [
        ("step", "blue", 2), ("stride", "blue", 2), ("dash", "blue", 2), ("charge", "blue", 1),
        ("north_3", "blue", 1), ("south_3", "blue", 1), ("east_3", "blue", 1), ("west_3", "blue", 1),
        ("spread_fire", "gold", 2), ("nudge_boulder", "gold", 2), ("root", "red", 2), ("self_destruct", "red", 1),
        ("ignite", "red", 2), ("place_boulder", "red", 2), ("douse", "red", 1), ("patch", "red", 1),
        ("drop_bot", "green", None)]


def test_D_2_6_board_check():
    assert RS.check_board("  ABCDEFGH\n" + EMPTY, "b.txt") == []
    # every D-2.6 problem is one of form: the board is malformed (ConfigError with line and column)
    with pytest.raises(ConfigError) as e:
        RS.check_board(EMPTY.replace("5 ........", "5 ...Q...."), "b.txt")
    assert "unknown tile character 'Q' at D5" in str(e.value) and (e.value.line, e.value.column) == (4, 6)
    with pytest.raises(ConfigError, match="appears twice"):
        RS.check_board(EMPTY.replace("5 ........", "5 A..A...."[:10]), "b")
    with pytest.raises(ConfigError) as e:
        RS.check_board("\n" + EMPTY.replace("2 ........\n", ""), "b")
    assert "a board has 8 rows (8 down to 1), got 7" in str(e.value) and e.value.line == 8
    assert parse_board(board_with(A="A1", c="H8")).bots == {"A": ("blue", (0, 0)), "C": ("orange", (7, 7))}


def test_config_rejects_overlapping_layout():
    with pytest.raises(ConfigError):
        RS.validate_config({"initial_fire": "C3"})
    with pytest.raises(ConfigError):
        RS.validate_config({"initial_bots": "A:A1"})


def test_mutating_a_view_never_changes_the_state():
    st = started()
    st, _ = RS.resolve(st, {"blue": RS.parse_orders(st, "blue", "charge A1 North 4")})
    before = RS.state_json(st)
    v = RS.view(st, "orange")
    v["log"][0]["events"].clear()
    v["bots"]["A"]["tile"] = "H8"
    v["pool"]["step"]["left"] = 0
    assert RS.state_json(st) == before


def test_D_12_1_report_tells_events_in_words_not_json(tmp_path):
    """Issue 14: readable reports for every game — a dadoed replay report has no raw JSON."""
    from botwars.cli import app
    runner = CliRunner()
    path = str(tmp_path / "m.jsonl")
    assert runner.invoke(app, ["match", "dadoed", "builtin:greedy", "builtin:random", "--seed", "3",
                               "--replay", path]).exit_code == 0
    r = runner.invoke(app, ["replay", path, "--report"])
    assert r.exit_code == 0, r.output
    assert '{"type"' not in r.output and '"tile"' not in r.output
    assert " moves from " in r.output and "supers revealed: " in r.output


def test_report_event_line_words():
    from botwars.games.dadoed.report import event_line
    assert event_line("move", {"object": "A", "from": "C3", "to": "C5"}) == "A moves from C3 to C5"
    assert event_line("fall", {"object": "b", "tile": "off", "reserve": "blue"}) == "b falls (off the board)"
    assert event_line("result", {"winner": None, "reason": "turn_limit"}) == "result: a draw (turn_limit)"
    assert event_line("newkind", {"x": 1}) == "newkind: x 1"
