"""Hypothesis properties of arena resolution and matches on random small maps.

R4/R18: no two robots ever share a square (no robot is lost or duplicated by resolution);
R25: HP stays in 1..initial_hp for robots in play; determinism (same seed and bots, same
record); every record verifies.
"""

import json
import os
import random
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botwars.agents.base import CallableAgent
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.bots import BUILTIN
from botwars.games.arena.protocol import ArenaOrders
from botwars.games.arena.rules import ArenaState
from botwars.games.arena.board import parse_map

rs = get_ruleset("arena")
CHOICES = [("M", d) for d in "NESW"] + [("A", d) for d in "NESW"] + [("D", None), ("S", None), None]


@st.composite
def small_maps(draw):
    w = draw(st.integers(3, 7))
    h = draw(st.integers(3, 7))
    cells = draw(st.lists(st.sampled_from("..#"), min_size=w * h, max_size=w * h))
    s1, s2 = draw(st.lists(st.integers(0, w * h - 1), min_size=2, max_size=2, unique=True))
    cells[s1], cells[s2] = "1", "2"
    return "\n".join("".join(cells[r * w:(r + 1) * w]) for r in range(h)) + "\n"


@st.composite
def positions(draw):
    text = draw(small_maps())
    config = rs.validate_config({
        "map": text,
        "spawn_interval": draw(st.integers(1, 4)),
        "initial_hp": draw(st.integers(1, 40)),
        "attack_damage_enemy": draw(st.integers(0, 15)),
        "attack_damage_friendly": draw(st.integers(0, 15)),
        "self_destruct_damage": draw(st.integers(0, 15)),
        "defend_divisor": draw(st.integers(1, 3)),
        "max_turns": 50,
    })
    amap = parse_map(text)
    open_sq = [(x, y) for x in range(1, amap.width + 1) for y in range(1, amap.height + 1) if amap.is_open((x, y))]
    chosen = draw(st.lists(st.sampled_from(open_sq), unique=True, max_size=len(open_sq)))
    robots = {}
    for i, sq in enumerate(chosen, 1):
        robots[sq] = (i, draw(st.integers(1, 2)), draw(st.integers(1, config["initial_hp"])))
    state = ArenaState(("p1", "p2"), config, amap, draw(st.integers(0, 10)), robots, len(robots) + 1, ("", ""))
    return state, draw(st.integers(0, 2 ** 32 - 1))


def random_orders(state, rng):
    out = {"p1": ArenaOrders(), "p2": ArenaOrders()}
    for sq, (_, p, _) in state.robots.items():
        c = rng.choice(CHOICES)
        if c is not None:
            out[f"p{p}"].orders[sq] = c
    return out


@settings(max_examples=150, deadline=None)
@given(positions())
def test_R4_R18_R25_no_shared_squares_and_hp_in_bounds(case):
    state, seed = case
    rng = random.Random(seed)
    cap = state.config["initial_hp"]
    amap = state.amap
    for _ in range(6):
        before_ids = {r[0] for r in state.robots.values()}
        new, events = rs.resolve(state, random_orders(state, rng))
        ids = [r[0] for r in new.robots.values()]
        assert len(ids) == len(set(ids)), "a robot is in two places"
        gone = {e.data["robot"] for e in events if e.kind in ("removed", "spawn_kill")}
        born = {e.data["robot"] for e in events if e.kind == "spawn"}
        # every robot is accounted for: none vanishes (two robots on one square) or appears
        assert set(ids) == (before_ids | born) - gone
        assert len(gone & before_ids) + len(set(ids) & before_ids) == len(before_ids)
        for sq, (_, p, hp) in new.robots.items():
            assert amap.is_open(sq)
            assert 0 < hp <= cap
            assert p in (1, 2)
        # moves are one orthogonal step at most
        old_pos = {r[0]: sq for sq, r in state.robots.items()}
        for sq, r in new.robots.items():
            if r[0] in old_pos:
                o = old_pos[r[0]]
                assert abs(o[0] - sq[0]) + abs(o[1] - sq[1]) <= 1
        state = new
        if state.over:
            break


class Chaos:
    """A bot that sends random, sometimes malformed, text and JSON responses (seeded)."""

    def start(self, game, seat, config, seed):
        self.rng = random.Random(f"{seed}:{seat}")

    def act(self, view):
        rng = self.rng
        mine = [(r["x"], r["y"]) for r in view["robots"] if r["side"] == "F"]
        k = rng.random()
        if k < 0.1:
            return "garbage-" + str(rng.random())
        toks = []
        for x, y in mine + [(rng.randint(0, 9), rng.randint(0, 9))]:
            c = rng.choice(CHOICES)
            if c:
                toks.append(f"{x}:{y}-{c[0]}" + (f"-{c[1]}" if c[1] else ""))
        if k < 0.55:
            return ",".join(toks) + ("#" + str(rng.randint(0, 99)) if rng.random() < 0.5 else "")
        return {"orders": [{"x": int(t.split(":")[0]), "y": int(t.split(":")[1].split("-")[0]),
                            "action": t.split("-")[1], "dir": (t.split("-") + [None])[2]} for t in toks]}


BOTS = {**BUILTIN, "chaos": Chaos}


def play(config, seed, a, b, path):
    agents = {"p1": CallableAgent(BOTS[a]()), "p2": CallableAgent(BOTS[b]())}
    m = Match(rs, config, agents, seed, record=path, clock=False)
    return m.run()


def strip_times(path):
    out = []
    for line in open(path, encoding="utf-8"):
        o = json.loads(line)
        o.pop("time_s", None)
        out.append(json.dumps(o, sort_keys=True))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_maps(), st.integers(0, 10 ** 6), st.sampled_from(sorted(BOTS)), st.sampled_from(sorted(BOTS)),
       st.integers(1, 5), st.booleans())
def test_same_seed_same_record_and_every_record_verifies(text, seed, a, b, interval, wipeout):
    config = rs.validate_config({"map": text, "max_turns": 25, "spawn_interval": interval,
                                 "wipeout_ends_game": wipeout})
    with tempfile.TemporaryDirectory() as d:
        p1, p2 = os.path.join(d, "1.jsonl"), os.path.join(d, "2.jsonl")
        r1 = play(config, seed, a, b, p1)
        r2 = play(config, seed, a, b, p2)
        assert strip_times(p1) == strip_times(p2)
        assert r1.outcome == r2.outcome
        ok, msg = verify_record(read_record(p1))
        assert ok, msg


json_values = st.recursive(st.none() | st.booleans() | st.integers(-2, 1001) | st.floats(allow_nan=False)
                           | st.sampled_from(["M", "a", "d", "S", "N", "e", "s", "W", "X", "", "ſ", "n\n"]),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["x", "y", "q"]), c,
                                                                              max_size=2), max_leaves=4)
order_objs = st.fixed_dictionaries({}, optional={
    "x": st.integers(0, 12) | json_values, "y": st.integers(0, 12) | json_values,
    "action": st.sampled_from(["M", "A", "D", "S", "m", "d", "x"]) | json_values,
    "dir": st.sampled_from(["N", "E", "S", "W", "w", "Q"]) | st.none() | json_values,
    "extra": json_values})
valid_orders = st.fixed_dictionaries(
    {"x": st.integers(1, 3), "y": st.integers(1, 3), "action": st.sampled_from(["M", "a", "D", "s"])},
    optional={"dir": st.sampled_from(["N", "e", "S", "w"]) | st.none()})
responses = st.fixed_dictionaries({}, optional={
    "orders": st.lists(valid_orders | order_objs | json_values, max_size=5) | json_values,
    "user_data": st.none() | st.text(max_size=10) | json_values,
    "other": json_values})


@settings(max_examples=400, deadline=None)
@given(responses, st.integers(20, 400))
def test_P12_fast_json_path_agrees_with_the_full_validator(obj, max_chars):
    """The hot-path JSON parser accepts exactly what the full P12 validator accepts, identically."""
    from botwars.engine.errors import InvalidOrders
    from botwars.games.arena.protocol import _fast_json, _full_json
    try:
        fast = _fast_json(obj, max_chars)
    except TypeError:
        fast = None
    try:
        full = _full_json(obj, max_chars)
    except InvalidOrders:
        full = None
    if fast is not None:
        assert fast == full


@settings(max_examples=400, deadline=None)
@given(responses, st.integers(20, 400), st.integers(0, 12))
def test_P8_P12_fused_json_fast_path_agrees_with_parse_and_accept(obj, max_chars, user_max):
    """parse_orders' one-pass JSON path gives the same accepted orders, errors and user data."""
    from botwars.engine.errors import InvalidOrders
    from botwars.games.arena.protocol import _full_json, accept, fast_accept_json
    robots = {(1, 1): (1, 1, 5), (2, 2): (2, 1, 5), (3, 3): (3, 2, 5), (5, 5): (4, 1, 9)}
    try:
        fast = fast_accept_json(obj, robots, 1, max_chars, user_max)
    except TypeError:
        fast = None
    if fast is None:
        return
    tokens, user = _full_json(obj, max_chars)  # must not raise: the fast path accepted it
    own = {sq for sq, r in robots.items() if r[1] == 1}
    assert fast == accept(tokens, user, own, user_max)
