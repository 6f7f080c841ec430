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
    assert res.outcome.reason in ("wipeout", "turn_limit")
    if res.outcome.reason == "wipeout":
        assert res.turns < 100
