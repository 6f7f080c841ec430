"""Kept hosts (issue 15 item 5, docs/sandbox.md "Kept hosts"): sandboxed Python hosts reused
across matches by ``botwars.agents.reuse_hosts``, never leaking a match's state into the next."""

import json
import os

import pytest

from botwars.agents import reuse_hosts
from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset

from agent_helpers import bot

RGKIT_BOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers", "rgkit", "rgkit", "bots")


def play(tmp_path, a, b, seed, name, **overrides):
    rs = get_ruleset("arena")
    cfg = rs.validate_config({"max_turns": 6, **overrides})
    path = str(tmp_path / f"{name}.jsonl")
    m = Match(rs, cfg, {"p1": make_agent(a, "arena"), "p2": make_agent(b, "arena")}, seed, record=path)
    res = m.run()
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(t) for t in f]
    # what the bots answered and what followed (time_s differs from run to run)
    return m, res, [{k: v for k, v in ln.items() if k != "time_s"} for ln in lines if ln.get("type") == "decision"]


def user_data(records_line_list, seat):
    """The user data the bot stored at its last decision (P7), from the record's orders."""
    last = [ln for ln in records_line_list if ln["orders"].get(seat)][-1]
    return last["orders"][seat]["user_data"]


@pytest.mark.slow
def test_kept_hosts_give_the_same_records_as_fresh_hosts(tmp_path):
    spec = f"rgkit:{RGKIT_BOTS}/team_15.py"
    other = f"rgkit:{RGKIT_BOTS}/team_2.py"
    fresh = [play(tmp_path, spec, other, s, f"fresh{s}")[2] for s in (1, 2)]
    with reuse_hosts() as pool:
        kept = [play(tmp_path, spec, other, s, f"kept{s}") for s in (1, 2)]
    assert [k[2] for k in kept] == fresh                 # byte-for-byte the same decisions and results
    assert [ag.kept for ag in kept[0][0].agents.values()] == [False, False]
    assert [ag.kept for ag in kept[1][0].agents.values()] == [True, True]
    assert (pool.started, pool.reused) == (2, 2)


@pytest.mark.slow
def test_no_state_of_one_match_reaches_the_next(tmp_path):
    """Module globals and files in the working folder start afresh each match (forked child)."""
    with reuse_hosts() as pool:
        first = play(tmp_path, bot("leaky.py"), "builtin:defender", 1, "a")
        second = play(tmp_path, bot("leaky.py"), "builtin:defender", 2, "b")
    assert second[0].agents["p1"].kept and pool.reused == 1
    for m, res, lines in (first, second):
        assert res.errors == []
        assert user_data(lines, "p1").startswith("calls=6 file=1")  # its own 6 calls; file from turn 1 on
    turn1 = [ln for ln in second[2] if ln["orders"].get("p1")][0]
    assert turn1["orders"]["p1"]["user_data"].startswith("calls=1 file=0")


@pytest.mark.slow
def test_a_host_that_failed_is_never_kept(tmp_path):
    """A crash or a timeout in a match: the host is killed at its end, the next match starts a new one."""
    with reuse_hosts() as pool:
        m1, res1, _ = play(tmp_path, f"rgkit:{bot('rg_slow.py')}", "builtin:defender", 1, "a",
                           turn_time_limit_s=0.5, max_turns=2)
        assert [e["code"] for e in res1.errors] and res1.errors[0]["code"] == "timeout"
        m2, res2, _ = play(tmp_path, f"rgkit:{bot('rg_slow.py')}", "builtin:defender", 2, "b", max_turns=2)
    assert not m2.agents["p1"].kept
    assert pool.reused == 0


def test_the_template_preloads_only_standard_library_imports_of_the_bot():
    """Issue 15 item 5: a kept host's template imports the standard-library modules the bot
    file names (parsed, never run), so a match's child does not import them again; the bot's
    own modules, relative imports and modules with import-time side effects are left out."""
    from botwars.agents.pyhost import stdlib_imports
    source = ("import heapq, mybot_helpers\nfrom collections.abc import Mapping\nfrom . import sibling\n"
              "import this\ndef f():\n    import math as m\n    from numpy import array\n")
    assert stdlib_imports(source) == ["collections", "collections.abc", "heapq", "math"]
    assert stdlib_imports("def broken(:\n") == []


@pytest.mark.slow
def test_a_preloaded_module_changed_by_one_match_is_fresh_in_the_next(tmp_path):
    """The template imported ``collections`` and ``fractions`` before forking (the bot finds
    ``fractions`` loaded before its own import, which a fresh host never has); the first
    match's bot marks ``collections``; the second match's bot (a new child of the same template)
    finds no mark."""
    fresh = play(tmp_path, bot("stdlib_marker.py"), "builtin:defender", 0, "fresh")
    assert user_data(fresh[2], "p1") == "earlier=None preloaded=False"
    with reuse_hosts() as pool:
        runs = [play(tmp_path, bot("stdlib_marker.py"), "builtin:defender", s, f"m{s}") for s in (1, 2)]
    assert runs[1][0].agents["p1"].kept and pool.reused == 1
    for m, res, lines in runs:
        assert res.errors == []
        assert user_data(lines, "p1") == "earlier=None preloaded=True"
