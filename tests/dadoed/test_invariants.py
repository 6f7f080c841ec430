"""D-2.3 position invariants hold after every decision of seeded random and greedy games."""

import pytest

from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset
from botwars.games.dadoed.board import on_board

RS = get_ruleset("dadoed")


def check_invariants(st):
    on = [b.tile for b in st.bots.values() if b.tile is not None]
    over = st.phase == "over"
    assert len(set(on)) == len(on), "two bots on one tile"
    assert not (set(on) & st.boulders), "a bot and a boulder share a tile"
    assert not (st.boulders & st.fire), "a boulder on fire (D-2.3)"
    assert not (st.holes & (st.fire | st.boulders)), "a hole with fire or a boulder"
    assert all(on_board(t) for t in on + list(st.boulders) + list(st.fire) + list(st.holes))
    if not over:
        assert not (set(on) & st.holes), "a bot on a hole between turns"
        assert not (set(on) & st.fire), "a bot on fire between turns (D-5.6)"
        players = {b.owner for b in st.bots.values() if b.tile is not None}
        assert players == {"blue", "orange"} or st.phase == "setup"
    for cid, left in st.left.items():
        cmd = st.pool.get(cid)
        assert left is None or 0 <= left <= cmd.copies


@pytest.mark.parametrize("a,b", [("random", "random"), ("greedy", "random"), ("greedy", "greedy")])
def test_D_2_3_invariants_hold_in_seeded_games(a, b):
    for seed in range(3 if a == b == "greedy" else 6):
        agents = {"blue": make_agent(f"builtin:{a}", "dadoed"), "orange": make_agent(f"builtin:{b}", "dadoed")}
        m = Match(RS, RS.validate_config({"max_turns": 80}), agents, seed, clock=False)
        m.start_agents()
        while m.outcome() is None:
            m.step()
            check_invariants(m.state)
        assert not m.errors, m.errors
