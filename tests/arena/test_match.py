"""End-to-end arena matches through the kernel (R7, R26, R28, record verification)."""

import json

from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset


def play(a, b, seed=1, tmp_path=None, **overrides):
    rs = get_ruleset("arena")
    cfg = rs.validate_config(overrides)
    path = str(tmp_path / "r.jsonl") if tmp_path else None
    m = Match(rs, cfg, {"p1": make_agent(a, "arena"), "p2": make_agent(b, "arena")}, seed, record=path)
    return m, m.run()


def test_R7_R26_full_match_runs_100_turns_and_verifies(tmp_path):
    m, res = play("builtin:hunter", "builtin:swarm", tmp_path=tmp_path)
    assert res.turns == 100
    assert res.outcome.reason == "turn_limit"
    rec = read_record(res.replay)
    assert len(rec.decisions) == 100
    ok, msg = verify_record(rec)
    assert ok, msg


def test_record_tampering_is_detected_at_the_right_decision(tmp_path):
    m, res = play("builtin:hunter", "builtin:hunter", tmp_path=tmp_path)
    lines = open(res.replay).read().splitlines()
    # change turn 7's orders of p1 into all-defend: the replay must diverge at decision 7
    obj = json.loads(lines[7])
    assert obj["n"] == 7
    obj["orders"]["p1"] = {"orders": []}
    lines[7] = json.dumps(obj)
    open(res.replay, "w").write("\n".join(lines) + "\n")
    ok, msg = verify_record(read_record(res.replay))
    assert not ok
    assert "decision point 7" in msg


def test_same_seed_same_record_byte_for_byte(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _, r1 = play("builtin:random", "builtin:hunter", seed=42, tmp_path=tmp_path / "a")
    _, r2 = play("builtin:random", "builtin:hunter", seed=42, tmp_path=tmp_path / "b")

    def strip_times(path):
        out = []
        for line in open(path):
            o = json.loads(line)
            o.pop("time_s", None)
            out.append(json.dumps(o, sort_keys=True))
        return out

    assert strip_times(r1.replay) == strip_times(r2.replay)


def test_R27_wipeout_ends_game_early():
    m, res = play("builtin:swarm", "builtin:random", seed=3, wipeout_ends_game=True, spawn_interval=1000)
    # R27: the game may end before turn 100 only by a wipeout, and a wipeout leaves a player with
    # no robot in play (R19 never adds robots here: spawn_interval 1000 > max_turns)
    players_left = {r[1] for r in m.state.robots.values()}
    assert res.outcome.reason == "wipeout" and res.turns < 100
    assert len(players_left) < 2


def _kill_the_last_enemy(**overrides):
    """Turn 4 (not a spawn turn: 4 mod 10 != 0, R19): p1's robot on 7:7 attacks east (R20,
    12 HP on an enemy, H23) p2's only robot, idle on 8:7 with 1 HP, which is removed at the end
    of step 5 (R25). After step 6 p2 has no robot in play."""
    from botwars.games.arena.rules import make_state
    rs = get_ruleset("arena")
    st = make_state(rs.validate_config(overrides), {(7, 7): (1, 100), (8, 7): (2, 1)}, turn=3)
    after, _ = rs.resolve(st, {"p1": rs.parse_orders(st, "p1", "7:7-A-E"), "p2": rs.parse_orders(st, "p2", "")})
    assert after.turn == 4 and {sq: r[1:] for sq, r in after.robots.items()} == {(7, 7): (1, 100)}
    return rs, after


def test_R27_R28_a_wiped_out_player_ends_the_game_when_wipeout_ends_game_is_true():
    rs, after = _kill_the_last_enemy(wipeout_ends_game=True)
    out = rs.outcome(after)
    # R27: the game ends after step 6 of turn 4; R28: 1 robot against 0, player 1 wins
    assert out is not None and out.reason == "wipeout" and out.winner == "p1"
    assert rs.pending(after) == []


def test_R27_H16_a_wiped_out_player_plays_on_by_default():
    rs, after = _kill_the_last_enemy()
    # R27 / H16: wipeout_ends_game is false by default; the game goes on, both players respond
    assert rs.outcome(after) is None and rs.pending(after) == ["p1", "p2"]
    # R27: "keeps receiving observations (with no F entries)": only the enemy robot, for turn 5
    v = rs.view(after, "p2")
    assert v["turn"] == 5 and v["robots"] == [{"side": "E", "x": 7, "y": 7, "hp": 100}]
