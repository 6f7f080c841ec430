"""Every game's declared capabilities agree with what its rule set does (issue 11: a game is a
declared plug-in; the referee acts on the rule set's hooks, the platform reads the flags)."""

import pytest

from botwars.engine.plugin import game_ids, get_game


@pytest.mark.parametrize("game_id", game_ids())
def test_declared_capabilities_match_the_rule_set(game_id):
    game = get_game(game_id)
    rs = game.ruleset()
    caps = game.capabilities
    # F-5.5 / G-16.1: replacing a submission until resolution is declared and enacted alike
    assert caps.replace_until_resolved == rs.replaces_submissions
    seats = rs.seat_names(rs.min_seats)
    state = rs.setup(rs.validate_config({}), seats, 3)
    counted = any(rs.refusal_limit(state, s) is not None for s in rs.pending(state))
    # S-7.10: refusals count where, and only where, the game says so
    assert caps.counts_refusals == counted
