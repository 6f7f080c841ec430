"""Built-in bots: legal programs, seeded, and pathfinder reaches flag 1 (issue item 5)."""

from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.bots import PathfinderBot, RandomBot, state_from_view

RS = get_ruleset("factory")


def test_random_bot_programs_are_legal_and_seeded():
    cfg = RS.validate_config({})
    st = RS.setup(cfg, ["p1", "p2"], 3)
    a, b = RandomBot(), RandomBot()
    a.start("factory", "p1", cfg, 9)
    b.start("factory", "p1", cfg, 9)
    va = a.act(RS.view(st, "p1"))
    assert va == b.act(RS.view(st, "p1"))
    RS.parse_orders(st, "p1", va)


def test_state_from_view_rebuilds_public_position():
    cfg = RS.validate_config({})
    st = RS.setup(cfg, ["p1", "p2"], 3)
    st, _ = RS.resolve(st, {s: RS.default_orders(st, s) for s in ("p1", "p2")})
    sim, me = state_from_view(RS, RS.view(st, "p2"))
    assert me == 1
    assert [(b.sq, b.facing, b.hp, b.mode) for b in sim.bots] == [(b.sq, b.facing, b.hp, b.mode) for b in st.bots]
    assert sim.switches == st.switches and sim.eyes == st.eyes and sim.teleporters == st.teleporters


def test_pathfinder_tags_flag_1_within_10_turns_in_most_seeds():
    from botwars.agents.spec import make_agent
    from botwars.engine.match import Match
    cfg = RS.validate_config({"turn_limit": 10})
    hits = 0
    for seed in range(8):
        m = Match(RS, cfg, {"p1": make_agent("builtin:pathfinder", "factory"),
                            "p2": make_agent("builtin:random", "factory")}, seed, clock=False)
        m.run()
        hits += m.state.players[0].next_flag > 1
    assert hits >= 6


def test_pathfinder_program_is_legal():
    cfg = RS.validate_config({})
    st = RS.setup(cfg, ["p1", "p2"], 4)
    bot = PathfinderBot()
    bot.start("factory", "p2", cfg, 4)
    RS.parse_orders(st, "p2", bot.act(RS.view(st, "p2")))


def test_simulate_runs_stages_without_touching_the_state():
    cfg = RS.validate_config({})
    st = RS.setup(cfg, ["p1"], "demo")
    before = RS.state_json(st)
    sim = RS.simulate(st, {0: [590, 780]}, stages=2)  # FWD1 590, FWD2 780 from r1c6 facing N
    assert RS.state_json(st) == before
    assert sim.bots[0].sq == (4, 6) and sim.turn == st.turn
