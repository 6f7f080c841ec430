"""Submarine through the kernel: CLI match, records, determinism, time control, rejections,
per-seat records and the god view (S-3, S-4.3, S-7.8, S-7.10, S-8.6, S-12.5)."""

import json
import os

import pytest
from typer.testing import CliRunner

from botwars.agents.base import CallableAgent
from botwars.agents.spec import make_agent
from botwars.cli import app
from botwars.engine.errors import RecordError
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset
from botwars.engine.scenario import collect, run_file
from botwars.games.submarine.records import filter_record_for_seat, god_record
from botwars.games.submarine.view import god_view
from botwars.engine.plugin import get_game

SCENARIOS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scenarios")

RS = get_ruleset("submarine")


def play(a, b, seed=1, tmp_path=None, clock=False, **overrides):
    cfg = RS.validate_config(overrides)
    path = str(tmp_path / f"r{seed}.jsonl") if tmp_path else None
    m = Match(RS, cfg, {"p1": make_agent(a, "submarine"), "p2": make_agent(b, "submarine")}, seed,
              record=path, clock=clock)
    return m, m.run()


def test_done_when_cli_match_hunter_random_seed_5_plays_to_the_end(tmp_path):
    rec = tmp_path / "m.jsonl"
    res = CliRunner().invoke(app, ["match", "submarine", "builtin:hunter", "builtin:random", "--seed", "5",
                                   "--replay", str(rec), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output.strip().splitlines()[-1])
    assert out["winner"] == "p1" and out["reason"] == "points"
    res = CliRunner().invoke(app, ["replay", str(rec), "--verify"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["replay", str(rec), "--report"])
    assert res.exit_code == 0 and "game_start" in res.output


def test_scenario_files_all_pass():
    paths = collect([os.path.join(SCENARIOS, "submarine")])
    assert len(paths) >= 25
    failures = {p: run_file(p) for p in paths}
    assert {p: f for p, f in failures.items() if f} == {}


def test_scenario_files_state_what_each_player_sees():
    import yaml
    for p in collect([os.path.join(SCENARIOS, "submarine")]):
        text = open(p).read()
        doc = yaml.safe_load(text)
        assert doc.get("rules"), p
        if "clock" in doc:
            continue
        assert "p1:" in text or "p2:" in text, f"{p}: no per-player expectation"


def test_records_verify_and_are_deterministic(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _, r1 = play("builtin:random", "builtin:random", seed=42, tmp_path=tmp_path / "a")
    _, r2 = play("builtin:random", "builtin:random", seed=42, tmp_path=tmp_path / "b")

    def strip(path):
        return [json.dumps({k: v for k, v in json.loads(x).items() if k != "time_s"}, sort_keys=True)
                for x in open(path)]
    assert strip(r1.replay) == strip(r2.replay)
    ok, msg = verify_record(read_record(r1.replay))
    assert ok, msg


def test_record_tampering_is_detected(tmp_path):
    _, res = play("builtin:hunter", "builtin:random", seed=3, tmp_path=tmp_path)
    lines = open(res.replay).read().splitlines()
    obj = json.loads(lines[3])
    seat = next(iter(obj["orders"]))
    obj["orders"][seat] = {"type": "orders", "actions": []}
    lines[3] = json.dumps(obj)
    open(res.replay, "w").write("\n".join(lines) + "\n")
    ok, msg = verify_record(read_record(res.replay))
    assert not ok and "decision point 3" in msg


def test_S_3_2_H1_home_rows_and_first_player_are_seeded_coin_flips():
    seen = set()
    for seed in range(40):
        st = RS.setup(RS.validate_config({}), ["p1", "p2"], seed)
        assert st.home_rows["p1"] + st.home_rows["p2"] == 8
        seen.add((st.home_rows["p1"], st.first_player))
        assert RS.setup(RS.validate_config({}), ["p1", "p2"], seed).home_rows == st.home_rows
    assert seen == {(1, "p1"), (1, "p2"), (7, "p1"), (7, "p2")}
    st = RS.setup(RS.validate_config({"p1_home_row": "7", "first_player": "p2"}), ["p1", "p2"], 0)
    assert st.home_rows == {"p1": 7, "p2": 1} and st.first_player == "p2"


class FakeTime:
    """An injectable clock (S-7.8: clocks must be injectable): each act() advances it."""

    def __init__(self):
        self.t = 0.0
        self.step = {}

    def __call__(self):
        return self.t


def test_S_7_8_running_out_of_time_loses_and_setup_is_not_charged():
    ft = FakeTime()

    class Slow:
        def __init__(self, inner, seat, secs):
            self.inner, self.seat, self.secs = inner, seat, secs

        def start(self, *a):
            self.inner.start(*a)

        def act(self, view):
            if not view.get("setup"):
                ft.t += self.secs
            else:
                ft.t += 200  # setup is not charged (its own deadline is setup_time_s, 300 s)
            return self.inner.act(view)

    bots = get_game(RS.id).builtin_bots()
    agents = {"p1": CallableAgent(Slow(bots["random"](), "p1", 100.0)),
              "p2": CallableAgent(Slow(bots["random"](), "p2", 1.0))}
    m = Match(RS, RS.validate_config({"first_player": "p1"}), agents, 7, clock=True, time_source=ft)
    m.start_agents()
    m.step()  # setup
    assert m.clock.bank_left == {"p1": 300.0, "p2": 300.0}
    m.step()  # p1's turn 1: 100 s -> reserve 290 (SE16)
    assert m.clock.bank_left["p1"] == pytest.approx(290.0)
    view = RS.clock_view(RS.view(m.state, "p2"), dict(m.clock.bank_left))
    assert view["clock"]["p1_reserve_s"] == pytest.approx(290.0)  # both clocks are public
    agents["p1"].bot.secs = 380.1  # more than 90 + 290
    m.step()  # p2
    m.step()  # p1 runs out
    out = m.outcome()
    assert out.winner == "p2" and out.reason == "time"


def test_S_7_10_rejected_orders_through_the_match_count_and_refuse(tmp_path):
    class Stubborn:
        def act(self, view):
            if view.get("setup"):
                return get_game(RS.id).builtin_bots()["hunter"]().act(view)
            return {"type": "orders", "actions": [{"sub": "v" if view["you"] == "p1" else "a",
                                                   "action": "move", "dir": "N"}]}
    agents = {"p1": CallableAgent(Stubborn()), "p2": make_agent("builtin:random", "submarine")}
    m = Match(RS, RS.validate_config({"first_player": "p1"}), agents, 1, clock=False,
              record=str(tmp_path / "r.jsonl"))
    res = m.run()
    assert res.outcome.winner == "p2" and res.outcome.reason == "refused"
    assert [e["code"] for e in res.errors] == ["illegal"] * 3
    assert all("not one of your living submarines" in e["detail"] for e in res.errors)
    ok, msg = verify_record(read_record(res.replay))
    assert ok, msg
    # p2's record never shows p1's refused orders, nor how many refusals came before the end:
    # header, its own setup, the decision that ended the game (the result event), the outcome
    p2 = filter_record_for_seat(res.replay, "p2")
    assert [ln["type"] for ln in p2] == ["header", "decision", "decision", "outcome"]
    assert "orders" in p2[1] and "orders" not in p2[2]
    assert [e["type"] for e in p2[2]["events"]] == ["result"]
    assert p2[-1]["reason"] == "refused"
    p1 = filter_record_for_seat(res.replay, "p1")
    # the three refusals belong to one decision point (S-4.3: same turn), told to p1 alone
    mine = [ln for ln in p1 if ln.get("errors")]
    assert len(mine) == 1 and len(mine[0]["errors"]) == 3 and len(mine[0]["refused"]) == 3


def test_S_8_6_god_view_only_for_finished_games(tmp_path):
    m, res = play("builtin:hunter", "builtin:random", seed=2, tmp_path=tmp_path)
    g = god_record(res.replay)
    assert g["history"][0]["type"] == "game_start" and "specials" in g["history"][0]
    assert god_view(m.state)["result"]["winner"] == "p1"
    # an unfinished record (outcome line cut off) has no god view
    lines = open(res.replay).read().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:4]) + "\n")
    with pytest.raises(RecordError):
        god_record(str(cut))
    st = RS.setup(RS.validate_config({}), ["p1", "p2"], 0)
    with pytest.raises(ValueError):
        god_view(st)
    # the filtered record of the unfinished game has no seed, digests or outcome
    for seat in ("p1", "p2", None):
        lines = filter_record_for_seat(str(cut), seat)
        text = json.dumps(lines)
        assert '"seed"' not in text and '"digest"' not in text
        assert lines[-1]["type"] == "decision"


def test_S_12_5_final_observation_reveals_everything_to_all(tmp_path):
    m, _ = play("builtin:hunter", "builtin:random", seed=4)
    for seat in ("p1", "p2", None):
        v = RS.view(m.state, seat)
        assert set(v) == {"ruleset", "you", "turn", "round", "result", "state", "history"}
        assert v["you"] == seat
        assert v["history"][0]["type"] == "game_start" and len(v["history"][0]["specials"]) == 10
        assert v["history"][-1]["type"] == "result"
        assert set(v["state"]["mines"]) == {"p1", "p2"}


def test_no_clock_option_and_games_listing():
    res = CliRunner().invoke(app, ["games", "submarine"])
    assert res.exit_code == 0 and "max_rejections" in res.output and "builtin:hunter" in res.output
    assert RS.time_control(RS.validate_config({"clock_enabled": "false"})).move_limit_s is None
    tc = RS.time_control(RS.validate_config({}))
    assert (tc.move_limit_s, tc.bank_s, tc.on_expiry) == (90.0, 300.0, "loss")


def test_S_7_8_refusals_do_not_stop_the_clock():
    """50 s refused, then 50 s accepted: one turn of 100 s, 10 s from the reserve (S-7.8, S-4.3)."""
    ft = FakeTime()

    class Slow:
        def __init__(self):
            self.calls = 0

        def act(self, view):
            if view.get("setup"):
                return get_game(RS.id).builtin_bots()["hunter"]().act(view)
            self.calls += 1
            ft.t += 50.0
            if self.calls == 1:
                return "v move N" if view["you"] == "p1" else "a move N"
            return ""
    agents = {"p1": CallableAgent(Slow()), "p2": CallableAgent(Slow())}
    m = Match(RS, RS.validate_config({"first_player": "p1"}), agents, 7, clock=True, time_source=ft)
    m.start_agents()
    m.step()  # setup
    m.step()  # p1 refused after 50 s (asked again at the same decision point), accepted after 50 s more
    assert m.decisions == 2 and m.state.turn == 2
    assert m.clock.bank_left["p1"] == pytest.approx(290.0)
    assert [e["code"] for e in m.errors if e["seat"] == "p1"] == ["illegal"]


def test_S_3_3_no_setup_by_setup_time_s_forfeits():
    ft = FakeTime()

    class Late:
        def act(self, view):
            ft.t += 301.0
            return get_game(RS.id).builtin_bots()["hunter"]().act(view)
    agents = {"p1": CallableAgent(Late()), "p2": make_agent("builtin:random", "submarine")}
    m = Match(RS, RS.validate_config({}), agents, 7, clock=True, time_source=ft)
    res = m.run()
    assert res.outcome.winner == "p2" and res.outcome.reason == "setup_forfeit"
    assert [e["code"] for e in res.errors] == ["timeout"]


def test_S_8_1_agents_never_receive_the_match_seed():
    got = {}

    class Spy:
        def start(self, game, seat, config, seed):
            got[seat] = seed

        def act(self, view):
            return get_game(RS.id).builtin_bots()["random"]().act(view)
    m = Match(RS, RS.validate_config({"max_rounds": 1}), {"p1": CallableAgent(Spy()), "p2": CallableAgent(Spy())},
              12345, clock=False)
    m.run()
    assert 12345 not in got.values() and got["p1"] != got["p2"]
    assert got == {s: RS.agent_seed(12345, s) for s in ("p1", "p2")}
