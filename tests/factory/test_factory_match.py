"""End-to-end factory matches: CLI, records, replay reports, determinism, end of game (§8)."""

import json

from typer.testing import CliRunner

from botwars.agents.spec import make_agent
from botwars.cli import app
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import digest, get_ruleset
from botwars.games.factory.report import report_html, report_text
from botwars.games.factory.rules import FactoryOrders

RS = get_ruleset("factory")


def play(specs, seed=1, tmp_path=None, **overrides):
    cfg = RS.validate_config(overrides)
    seats = RS.seat_names(len(specs))
    path = str(tmp_path / f"r{seed}.jsonl") if tmp_path else None
    m = Match(RS, cfg, {s: make_agent(a, "factory") for s, a in zip(seats, specs)}, seed, record=path, clock=False)
    return m, m.run()


def test_done_when_match_plays_to_the_end_and_replay_prints_stage_reports(tmp_path):
    runner = CliRunner()
    rec = str(tmp_path / "m.jsonl")
    r = runner.invoke(app, ["match", "factory", "builtin:pathfinder", "builtin:random", "builtin:pathfinder",
                            "--seed", "1", "--replay", rec])
    assert r.exit_code == 0, r.output
    assert "winner" in r.output
    r = runner.invoke(app, ["replay", rec, "--verify"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["replay", rec, "--report"])
    assert r.exit_code == 0, r.output
    assert "TURN 1 STAGE 1" in r.output and "TURN 1 END" in r.output and "RESULT" in r.output
    r = runner.invoke(app, ["replay", rec, "--report", "--turn", "2", "--html", str(tmp_path / "r.html")])
    assert r.exit_code == 0 and "TURN 2 STAGE 3" in r.output and "TURN 1 STAGE" not in r.output
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "TURN 2 STAGE 3" in page


def test_F_1_4_same_seed_same_game(tmp_path):
    a = play(["builtin:random", "builtin:random", "builtin:pathfinder"], seed=7, tmp_path=tmp_path)[1]
    lines_a = [json.loads(x)["digest"] for x in open(a.replay).read().splitlines()[1:-1]]
    b = play(["builtin:random", "builtin:random", "builtin:pathfinder"], seed=7)[0]
    m2 = Match(RS, RS.validate_config({}), {s: make_agent(x, "factory") for s, x in
                                            zip(RS.seat_names(3), ["builtin:random", "builtin:random",
                                                                   "builtin:pathfinder"])}, 7,
               record=str(tmp_path / "again.jsonl"), clock=False)
    m2.run()
    lines_b = [json.loads(x)["digest"] for x in open(tmp_path / "again.jsonl").read().splitlines()[1:-1]]
    assert lines_a == lines_b
    ok, msg = verify_record(read_record(a.replay))
    assert ok, msg


def _f_8_5_key(st, p):
    """F-8.5 worked out from the final state (before winners): flags tagged (more first), not out
    before out, robots remaining (more first), HP of robots in play (more first)."""
    pl = st.players[p]
    hp = sum(b.hp for b in st.bots if b.owner == p and b.alive)
    return (-(pl.next_flag - 1), pl.out, -pl.robots_left, -hp)


def test_F_8_4_turn_limit_with_random_bots(tmp_path):
    # seeds 3, 4 and 24 reach turn 5 with nobody on the last flag and nobody eliminated: a draw,
    # one winner and co-winners respectively (seen from the final states, checked by F-8.4;
    # seeds chosen again when the random bot began to declare reboots, issue 29)
    kinds = set()
    for seed in (3, 4, 24):
        m, res = play(["builtin:random"] * 4, seed=seed, tmp_path=tmp_path, turn_limit=5)
        st = m.state
        # F-8.4: the game ends after E5 of turn turn_limit, not before (no F-8.1 or F-8.3 end here)
        assert res.outcome.reason == "turn_limit" and st.turn == 5 and res.turns == 5
        assert not any(pl.out for pl in st.players)
        # F-8.4: the players ranked 1 by F-8.5 win if they tagged at least one flag, else a draw
        best = min(_f_8_5_key(st, p) for p in range(4))
        top = sorted(st.players[p].seat for p in range(4) if _f_8_5_key(st, p) == best)
        want = top if best[0] < 0 else []
        assert sorted(st.players[p].seat for p in st.winners) == want
        assert res.outcome.winner == (want[0] if len(want) == 1 else None)
        assert sorted(res.outcome.ranking[0]) == top  # F-8.5: equal keys share rank 1
        kinds.add(min(len(want), 2))
    assert kinds == {0, 1, 2}  # a draw, a single winner and co-winners were all checked


def test_F_8_6_H29_resign_leaves_last_player_winner():
    st = RS.setup(RS.validate_config({}), ["p1", "p2"], 1)
    st2, events = RS.resolve(st, {"p1": FactoryOrders("resign"), "p2": RS.default_orders(st, "p2")})
    assert st2.over and st2.result["reason"] == "resign"
    out = RS.outcome(st2)
    assert out.winner == "p2" and st2.players[0].out and st2.players[0].robots_left == 0
    assert st2.turn == 0  # no stage was played
    assert RS.pending(st2) == []


def test_F_8_6_resign_in_three_player_game_continues():
    st = RS.setup(RS.validate_config({}), ["p1", "p2", "p3"], 1)
    orders = {s: RS.default_orders(st, s) for s in ("p2", "p3")}
    orders["p1"] = RS.parse_orders(st, "p1", {"type": "resign"})
    st2, _ = RS.resolve(st, orders)
    assert not st2.over and st2.turn == 1 and RS.pending(st2) == ["p2", "p3"]
    assert "STAGE 1" in st2.reports[0] and "| out" in st2.reports[2]


def test_F_8_3_elimination_last_player_standing():
    st = RS.setup(RS.validate_config({"robots": 1}), ["p1", "p2"], 1)
    st.bots[0].sq = (6, 3)  # p1 on a pit square: the first card into... just destroy directly
    st.bots[0].mode = "real"
    from botwars.games.factory.rules import Ctx
    c = Ctx(st, 1)
    RS.destroy(c, 0)
    RS.end_of_turn(c)
    assert st.result["reason"] == "elimination" and st.winners == [1]
    heads = [ln for ln in c.lines if ln.startswith("===")]
    assert heads == ["=== TURN 1 END ===", "=== RESULT ==="]  # F-9.1: E5 report, then the result


def test_F_8_5_standings_share_ranks():
    st = RS.setup(RS.validate_config({}), ["p1", "p2", "p3"], 1)
    ranks = RS.standings(st, [])
    assert [r for _, r in ranks] == [1, 1, 1]
    st.players[2].next_flag = 2
    assert RS.standings(st, [])[0] == (2, 1)


def test_report_text_and_html(tmp_path):
    st = RS.setup(RS.validate_config({}), ["p1", "p2"], "demo")
    st2, events = RS.resolve(st, {s: RS.default_orders(st, s) for s in ("p1", "p2")})
    text = report_text(events)
    assert text.splitlines()[0] == "=== TURN 1 STAGE 1 ===" and "=== TURN 1 END ===" in text
    assert text.splitlines() == st2.reports
    html = report_html(events)
    assert "<html" in html.lower() and "TURN 1 STAGE 1" in html


def test_state_json_is_deterministic():
    a = RS.setup(RS.validate_config({}), ["p1", "p2"], 5)
    b = RS.setup(RS.validate_config({}), ["p1", "p2"], 5)
    assert digest(RS.state_json(a)) == digest(RS.state_json(b))


def test_board_check_cli(tmp_path):
    runner = CliRunner()
    from botwars.games.factory.board import BOARDS_DIR
    r = runner.invoke(app, ["board", "check", f"{BOARDS_DIR}/assembly-hall.board", "--game", "factory"])
    assert r.exit_code == 0, r.output
    bad = tmp_path / "bad.board"
    bad.write_text("board: t\nrows: 2\ncols: 3\nstart: r1c1 N\ngrid:\nr2 . SR1 .\nr1 . . F2\nend\n")
    r = runner.invoke(app, ["board", "check", str(bad), "--game", "factory"])
    assert r.exit_code == 1
    assert len([ln for ln in r.output.splitlines() if ln.strip()]) >= 2


def test_F_12_1_variant_classic_via_set():
    cfg = RS.validate_config({"variant": "classic"})
    assert (cfg["edge"], cfg["reinstate_hp"], cfg["double_wrench"], cfg["upgrades"], cfg["converge"]) == \
        ("pit", 8, "both", False, "none")
    cfg = RS.validate_config({"variant": "classic", "reinstate_hp": "9"})
    assert cfg["reinstate_hp"] == 9
