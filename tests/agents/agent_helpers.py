"""Shared helpers for the agent tests: play a short arena match and inspect its record."""

import os
import sys

from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.record import read_record, resimulate, verify_record
from botwars.engine.ruleset import get_ruleset

HERE = os.path.dirname(os.path.abspath(__file__))
BOTS = os.path.join(HERE, "bots")
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "examples")
PY = sys.executable


def bot(name):
    return os.path.join(BOTS, name)


def example(name):
    return os.path.join(EXAMPLES, name)


def play(tmp_path, a, b, seed=1, **overrides):
    """Play ``a`` (p1) against ``b`` (p2); check the record verifies; return (result, record)."""
    rs = get_ruleset("arena")
    cfg = rs.validate_config({"max_turns": 4, **overrides})
    path = str(tmp_path / f"match-{seed}.jsonl")
    m = Match(rs, cfg, {"p1": make_agent(a, "arena"), "p2": make_agent(b, "arena")}, seed, record=path)
    res = m.run()
    rec = read_record(path)
    ok, msg = verify_record(rec)
    assert ok, msg
    return res, rec


def accepted(rec, n, seat):
    """The accepted orders (P5 text) of ``seat`` at decision ``n``, from the re-simulation."""
    for step in resimulate(rec):
        if step.n == n:
            for e in step.events:
                if e.kind == "orders" and e.data["seat"] == seat:
                    return e.data["orders"]
    raise AssertionError(f"no decision {n}")


def all_defend(text):
    return bool(text) and all(tok.endswith("-D") for tok in text.split(","))


def errors_of(res, seat):
    return [(e["decision"], e["code"]) for e in res.errors if e["seat"] == seat]
