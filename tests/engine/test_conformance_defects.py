"""The five defects that opened issue 11, each through the command line and/or the HTTP API,
for every game where the defect is not game-specific; and what the conformance suite found
(a point that awaits nobody hung a server match for ever)."""

from __future__ import annotations

import json
import random
import re
import sys

import pytest
from typer.testing import CliRunner

from conformance import (GAMES, GARBAGE, FakeClock, api_client, bearer, canon, make_bots, mutants, read_lines,
                         seats_for, short_config, short_overrides, strings_in, verify_file)

from botwars.engine.plugin import get_game
from botwars.agents.base import Agent, AgentFailure
from botwars.cli import app as cli_app
from botwars.engine.codes import Receipt
from botwars.engine.match import Match
from botwars.engine.referee import Referee
from botwars.engine.ruleset import get_ruleset

GARBAGE_BOT = """import sys
for line in sys.stdin:  # a view per decision: answer with something that is not JSON
    sys.stdout.write("garbage, not orders\\n")
    sys.stdout.flush()
"""


def cli(*args):
    return CliRunner().invoke(cli_app, [str(a) for a in args])


def set_options(rs, turns=4):
    return [x for k, v in short_overrides(rs, turns).items() for x in ("--set", f"{k}={v}")]


def builtin_spec(rs):
    bots = get_game(rs.id).builtin_bots()
    return f"builtin:{'random' if 'random' in bots else sorted(bots)[0]}" if bots else None


# ---- a bot that prints garbage: its record verifies (CLI), and a server reloads after it (HTTP) ----
@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_cli_match_with_a_garbage_bot_writes_a_record_that_verifies(game, tmp_path, monkeypatch):
    rs = get_ruleset(game)
    seats = seats_for(rs)
    (tmp_path / "garbage_bot.py").write_text(GARBAGE_BOT)
    monkeypatch.chdir(tmp_path)
    other = builtin_spec(rs) or "cmd:python3 garbage_bot.py"
    r = cli("match", game, "cmd:python3 garbage_bot.py", *[other] * (len(seats) - 1), "--seed", 1,
            "--replay", "r.jsonl", *set_options(rs), "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["errors"] and all(e["code"] == "malformed" for e in res["errors"] if e["seat"] == seats[0])
    first = read_lines("r.jsonl")[1]
    assert first["orders"][seats[0]] is None and first["errors"][seats[0]][-1]["code"] == "malformed"
    v = cli("replay", "r.jsonl", "--verify")
    assert v.exit_code == 0, v.output
    assert v.output.startswith("ok: r.jsonl:")


def play_http(api, mid, tokens, sess, bots, rng, until=None):
    """Every awaited seat gives orders (a legal one, its bot's, or reports a failure) until the
    match ends or decision point ``until`` opens."""
    rs = sess.rs
    for _ in range(400):
        if sess.ended or (until is not None and sess.ref.decision >= until):
            return
        seat = sess.ref.awaited()[0]
        n = sess.ref.decision
        snap = api.get(f"/api/matches/{mid}/view", headers=bearer(tokens[seat])).json()
        legal = rs.legal_orders(sess.ref.state, seat)
        body = {"decision": n, "orders": rng.choice(legal) if legal else None}
        if not legal:
            try:
                body["orders"] = bots[seat].act(snap["view"], None)
            except (AgentFailure, KeyError):
                body["failure"] = {"code": "crash", "detail": "no bot"}
        r = api.post(f"/api/matches/{mid}/orders", headers=bearer(tokens[seat]), json=body)
        assert r.status_code == 200, r.text
    raise AssertionError("the match did not end")


def observe_all(api, mid, tokens):
    out = {}
    for who, tok in [*tokens.items(), (None, None)]:
        v = api.get(f"/api/matches/{mid}/view", headers=bearer(tok), params={"since": 0})
        assert v.status_code == 200, v.text
        out[who] = v.json()
        if tok:
            r = api.get(f"/api/matches/{mid}/record", headers=bearer(tok))
            assert r.status_code == 200, r.text
            out[(who, "record")] = r.text
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_http_failure_reports_then_restarts_reload_the_match_and_it_plays_on(game, tmp_path):
    rs = get_ruleset(game)
    seats = seats_for(rs)
    db, clock, rng = str(tmp_path / "bw.db"), FakeClock(), random.Random(5)
    with api_client(db, clock) as api:
        made = api.post("/api/matches", json={"game": game, "seats": ["remote"] * len(seats),
                                              "config": short_overrides(rs, 5), "seed": 2}).json()
        mid = made["match"]
        tokens = {s["seat"]: s["token"] for s in made["seats"]}
        sess = api.app.state.manager.get(mid)
        bots = make_bots(rs, sess.config, seats, 2)
        play_http(api, mid, tokens, sess, bots, rng, until=2)
        assert not sess.ended
        n = sess.ref.decision
        first, *rest = sess.ref.awaited()
        # what `botwars connect` sends when its bot prints garbage: a failure, no orders
        r = api.post(f"/api/matches/{mid}/orders", headers=bearer(tokens[first]),
                     json={"decision": n, "orders": None, "failure": {"code": "malformed", "detail": "not JSON"}})
        assert r.status_code == 200, r.text
        # ... and when its bot's orders are refused: those orders again, with a malformed failure
        for seat in rest:
            bad = {"decision": n, "orders": GARBAGE[1]}
            assert api.post(f"/api/matches/{mid}/orders", headers=bearer(tokens[seat]), json=bad).status_code == 422
            bad["failure"] = {"code": "malformed", "detail": "refused"}
            assert api.post(f"/api/matches/{mid}/orders", headers=bearer(tokens[seat]), json=bad).status_code == 200
        seen = observe_all(api, mid, tokens)
    with api_client(db, clock) as api:  # restart: the match loads (no 500) exactly as it was
        assert observe_all(api, mid, tokens) == seen
        sess = api.app.state.manager.get(mid)
        play_http(api, mid, tokens, sess, bots, rng, until=sess.ref.decision + 1)
        seen = observe_all(api, mid, tokens)
    with api_client(db, clock) as api:  # again, with the failures in resolved decision points
        assert observe_all(api, mid, tokens) == seen
        sess = api.app.state.manager.get(mid)
        play_http(api, mid, tokens, sess, bots, rng)
        lines = [json.loads(x) for x in api.get(f"/api/matches/{mid}/record").text.splitlines()]
    line = lines[n]
    assert line["n"] == n and line["orders"][first] is None
    assert line["errors"][first][-1] == {"code": "malformed", "detail": "not JSON"}
    path = tmp_path / "rec.jsonl"
    path.write_text("".join(canon(x) + "\n" for x in lines))
    ok, msg = verify_file(str(path))
    assert ok, msg


# ---- a refusal is told to the refused seat only (S-8.6) ------------------------------------------
def test_http_submarine_refusal_does_not_move_the_other_seats_decision_or_record(tmp_path):
    rs = get_ruleset("submarine")
    with api_client(str(tmp_path / "bw.db"), FakeClock()) as api:
        made = api.post("/api/matches", json={"game": "submarine", "config": {"max_rounds": 3}, "seed": 1}).json()
        mid = made["match"]
        tokens = {s["seat"]: s["token"] for s in made["seats"]}
        sess = api.app.state.manager.get(mid)
        play_http(api, mid, tokens, sess, make_bots(rs, sess.config, ["p1", "p2"], 1), random.Random(1), until=2)
        assert sess.ref.decision == 2 and len(sess.ref.pending()) == 1
        active = sess.ref.pending()[0]
        idle = "p2" if active == "p1" else "p1"

        def seen(seat):
            v = api.get(f"/api/matches/{mid}/view", headers=bearer(tokens[seat])).json()
            rec = [json.loads(x) for x in api.get(f"/api/matches/{mid}/record", headers=bearer(tokens[seat])).text
                   .splitlines()]
            return v, rec
        before = seen(idle)
        assert before[0]["decision"] == 2 and [x["n"] for x in before[1][1:]] == [1]
        for k in range(2):  # S-7.10 allows three; two refusals keep the point open
            r = api.post(f"/api/matches/{mid}/orders", headers=bearer(tokens[active]), json={
                "decision": 2, "orders": {"type": "orders", "actions": [{"sub": "zz", "action": "move", "dir": "N"}]}})
            assert r.status_code == 422 and r.json()["error"] == "invalid_orders" and r.json()["counted"] is True
            after = seen(idle)
            assert after == before  # decision still 2, no line (2, {}, []) in the idle seat's record
        mine = seen(active)
        assert mine[0]["decision"] == 2 and mine[0]["your_turn"] is True


# ---- corrections replace earlier orders (F-5.5, F-15.1, G-16.1) ----------------------------------
@pytest.mark.parametrize("game", ["factory", "geeko"])
def test_http_a_second_valid_program_replaces_the_first_and_is_the_one_resolved(game, tmp_path):
    rs = get_ruleset(game)
    seed, seats = 3, ["p1", "p2"]
    cfg = short_config(rs, 4)
    bots = make_bots(rs, cfg, seats, seed)
    local = Referee(rs, cfg, seats, seed, clock=False)
    first = bots["p1"].act(local.view("p1"), None)
    theirs = bots["p2"].act(local.view("p2"), None)

    def resolved_with(payload):
        cp = local.checkpoint()
        assert local.submit("p1", payload, 0.0).receipt == Receipt.ACCEPTED
        assert local.submit("p2", theirs, 0.0).receipt == Receipt.ACCEPTED
        local.resolve_point()
        out = canon(rs.state_json(local.state))
        local.rollback(cp)
        return out
    def accepted(payload):
        cp = local.checkpoint()
        ok = local.submit("p1", payload, 0.0).receipt == Receipt.ACCEPTED
        local.rollback(cp)
        return ok
    # a second valid program that plays differently from the first
    vocab = strings_in([local.view("p1"), first])
    second = next(m for m in mutants(first, random.Random(0), vocab, 60)
                  if accepted(m) and resolved_with(m) != resolved_with(first))
    with api_client(str(tmp_path / "bw.db"), FakeClock()) as api:
        made = api.post("/api/matches", json={"game": game, "seats": ["remote", "remote"],
                                              "config": short_overrides(rs, 4), "seed": seed}).json()
        mid = made["match"]
        tok = {s["seat"]: s["token"] for s in made["seats"]}
        url = f"/api/matches/{mid}/orders"
        r1 = api.post(url, headers=bearer(tok["p1"]), json={"decision": 1, "orders": first})
        assert r1.status_code == 200 and "replaced" not in r1.json() and not r1.json()["resolved"]
        r2 = api.post(url, headers=bearer(tok["p1"]), json={"decision": 1, "orders": second})
        assert r2.status_code == 200, r2.text
        assert r2.json()["replaced"] is True and r2.json()["duplicate"] is False
        r3 = api.post(url, headers=bearer(tok["p2"]), json={"decision": 1, "orders": theirs})
        assert r3.status_code == 200 and r3.json()["resolved"] is True
        sess = api.app.state.manager.get(mid)
        assert canon(rs.state_json(sess.state)) == resolved_with(second) != resolved_with(first)
        own = [json.loads(x) for x in api.get(f"/api/matches/{mid}/record", headers=bearer(tok["p1"])).text.splitlines()]
        assert own[1]["orders"] == {"p1": second}
    with api_client(str(tmp_path / "bw.db"), FakeClock()) as api:  # and so it stays after a restart
        sess = api.app.state.manager.get(mid)
        assert canon(rs.state_json(sess.state)) == resolved_with(second)


# ---- agents never receive the match seed ----------------------------------------------------------
class Recording(Agent):
    """Records the seed it is started with; plays the game's built-in bot (or fails)."""

    def __init__(self, inner):
        self.inner = inner
        self.seeds = []

    def start(self, game, seat, config, seed=0):
        self.seeds.append(seed)
        if self.inner is not None:
            self.inner.start(game, seat, config, seed)

    def act(self, view, deadline_s):
        if self.inner is None:
            raise AgentFailure("crash", "no built-in bot")
        return self.inner.act(view, deadline_s)


@pytest.mark.parametrize("seed", [0, 1, 7, 2**31 - 1, 123456789012])
@pytest.mark.parametrize("game", GAMES)
def test_match_starts_every_agent_with_a_seed_that_is_not_the_match_seed(game, seed):
    from botwars.agents.spec import make_agent
    rs = get_ruleset(game)
    seats = seats_for(rs)
    spec = builtin_spec(rs)
    agents = {s: Recording(make_agent(spec, game) if spec else None) for s in seats}
    Match(rs, short_config(rs, 2), agents, seed, clock=False).run()
    got = {s: a.seeds for s, a in agents.items()}
    assert all(len(v) == 1 and v[0] != seed for v in got.values()), got
    assert got == {s: [rs.agent_seed(seed, s)] for s in seats}
    assert len({v[0] for v in got.values()}) == len(seats)  # one per seat


SEED_CLASS_BOT = """class Bot:
    def start(self, game, seat, config, seed):
        self.seed = seed

    def act(self, view):
        raise RuntimeError(f"seed={self.seed}")
"""

SEED_CMD_BOT = """import os, sys
sys.stderr.write("seed=" + os.environ.get("BOTWARS_SEED", "none") + "\\n")
sys.stderr.flush()
sys.exit(3)
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["class", "cmd"])
@pytest.mark.parametrize("game", GAMES)
def test_cli_bots_are_started_with_a_one_way_seed_not_the_match_seed(game, kind, tmp_path):
    rs = get_ruleset(game)
    seats = seats_for(rs)
    if kind == "class":
        (tmp_path / "seed_bot.py").write_text(SEED_CLASS_BOT)
        spec = str(tmp_path / "seed_bot.py")
    else:
        (tmp_path / "seed_cmd.py").write_text(SEED_CMD_BOT)
        spec = f"cmd:{sys.executable} {tmp_path / 'seed_cmd.py'}"
    seed = 424242
    other = builtin_spec(rs) or spec
    r = cli("match", game, spec, *[other] * (len(seats) - 1), "--seed", seed, "--replay", tmp_path / "r.jsonl",
            *set_options(rs, 1), "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout.strip().splitlines()[-1])
    told = {int(x) for e in res["errors"] if e["seat"] == seats[0] for x in re.findall(r"seed=(\d+)", e["detail"])}
    assert told == {rs.agent_seed(seed, seats[0])} and seed not in told, res["errors"]


@pytest.mark.parametrize("game", GAMES)
def test_http_seat_info_gives_a_one_way_seed_not_the_match_seed(game, tmp_path):
    rs = get_ruleset(game)
    seats = seats_for(rs)
    with api_client(str(tmp_path / "bw.db"), FakeClock()) as api:
        made = api.post("/api/matches", json={"game": game, "seats": ["remote"] * len(seats), "seed": 99}).json()
        for s in made["seats"]:
            info = api.get("/api/seat", headers=bearer(s["token"])).json()
            assert info["agent_seed"] == rs.agent_seed(99, s["seat"]) != 99


# ---- found by the conformance suite ---------------------------------------------------------------
def test_http_a_decision_point_that_awaits_nobody_is_resolved_and_the_match_ends(tmp_path):
    """DADOED D-8.4: the turn limit makes an ``ending`` point that awaits no seat; the server must
    resolve it at once (it used to leave the match running for ever, nobody awaited)."""
    rs = get_ruleset("dadoed")
    with api_client(str(tmp_path / "bw.db"), FakeClock()) as api:
        made = api.post("/api/matches", json={"game": "dadoed", "config": {"max_turns": 1}, "seed": 1}).json()
        mid = made["match"]
        tokens = {s["seat"]: s["token"] for s in made["seats"]}
        sess = api.app.state.manager.get(mid)
        play_http(api, mid, tokens, sess, make_bots(rs, sess.config, sess.seats, 1), random.Random(3))
        v = api.get(f"/api/matches/{mid}/view").json()
        assert v["status"] == "ended" and v["pending"] == [] and v["outcome"]["reason"] == "turn_limit"
