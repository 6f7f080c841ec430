"""Seats asked at once without a thread per seat (issue 28 items 2 and 3):
:meth:`JsonLinesAgent.act_together` writes every view first, then takes the replies through one
``poll`` over all the programs' pipes. The programs here meet at a rendezvous (each waits for a
file the other writes when it gets its view), so they can only answer when both were asked
before either reply was read; the sandbox's Landlock and bubblewrap layers are set aside so
that both see the test's folder."""

from __future__ import annotations

import dataclasses

import pytest

from botwars.agents import sandbox
from botwars.agents.subprocess_agent import JsonLinesAgent
from botwars.engine.driver import SeatDriver
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset

from agent_helpers import PY, bot, example

VIEW = {"turn": 1, "robots": []}


@pytest.fixture
def shared_files(monkeypatch):
    """Bots that see the engine's files (rlimits and own process only), for the rendezvous."""
    real = sandbox.probe()
    monkeypatch.setattr(sandbox, "_probe_cache", dataclasses.replace(real, bwrap=None, seccomp=None, landlock=False))


def pair(tmp_path, mode_a: str = "", mode_b: str = ""):
    a = JsonLinesAgent([PY, bot("rendezvous_jsonl.py"), str(tmp_path / "a"), str(tmp_path / "b"), mode_a])
    b = JsonLinesAgent([PY, bot("rendezvous_jsonl.py"), str(tmp_path / "b"), str(tmp_path / "a"), mode_b])
    for seat, agent in (("p1", a), ("p2", b)):
        agent.start("arena", seat, {}, 1)
    return a, b


def test_both_programs_are_asked_before_either_reply_is_read(tmp_path, shared_files):
    a, b = pair(tmp_path)
    try:
        out = JsonLinesAgent.act_together([(a, VIEW, 30.0), (b, VIEW, 30.0)])
        assert [(payload, failure) for payload, failure, _ in out] == [({"orders": []}, None)] * 2
        assert all(spent >= 0 for _, _, spent in out)
        out = JsonLinesAgent.act_together([(b, VIEW, 30.0), (a, VIEW, 30.0)])  # the same programs again
        assert [payload for payload, _, _ in out] == [{"orders": []}] * 2
    finally:
        a.close()
        b.close()


def test_one_program_crashing_leaves_the_others_reply(tmp_path, shared_files):
    (tmp_path / "a").write_text("x")  # b need not wait for a, which exits at its view
    a, b = pair(tmp_path, mode_a="exit")
    try:
        (pa, fa, _), (pb, fb, _) = JsonLinesAgent.act_together([(a, VIEW, 30.0), (b, VIEW, 30.0)])
        assert pa is None and fa is not None and fa.code == "crash" and "exit" in fa.detail
        assert pb == {"orders": []} and fb is None
        assert a.proc is None and b.proc is not None  # the crashed one is gone, started afresh next time
    finally:
        a.close()
        b.close()


def test_a_silent_program_times_out_alone(tmp_path, shared_files):
    (tmp_path / "a").write_text("x")
    a, b = pair(tmp_path, mode_a="mute")
    try:
        (pa, fa, _), (pb, fb, _) = JsonLinesAgent.act_together([(a, VIEW, 0.5), (b, VIEW, 30.0)])
        assert fa is not None and fa.code == "timeout" and pa is None
        assert pb == {"orders": []} and fb is None
    finally:
        a.close()
        b.close()


def test_the_driver_asks_programs_together_and_the_record_is_the_sequential_one(tmp_path):
    """Two JSON-lines programs in a match: the driver uses act_together (no thread pool), and
    the record is byte for byte the one of asking in turn."""
    rs = get_ruleset("arena")
    cfg = rs.validate_config({"max_turns": 8})
    raw = {}
    for parallel in (False, True):
        path = tmp_path / f"{parallel}.jsonl"
        agents = {"p1": JsonLinesAgent([PY, example("jsonl_bot.py")]), "p2": JsonLinesAgent([PY, example("jsonl_bot.py")])}
        m = Match(rs, cfg, agents, 5, record=str(path), clock=False, time_source=lambda: 0.0, parallel=parallel)
        if parallel:
            assert m.driver._together(["p1", "p2"]) is not None
        m.run()
        assert m.driver._pool is None  # no thread was started for the seats
        raw[parallel] = path.read_bytes()
    assert raw[False] == raw[True] and raw[True].count(b"\n") == 10
    assert b'"errors":{}' in raw[True] and b'"action":"M"' in raw[True]  # the programs' own orders
    ok, msg = verify_record(read_record(str(tmp_path / "True.jsonl")))
    assert ok, msg


def test_agents_of_other_kinds_are_asked_in_threads():
    class Other:
        def act(self, view, deadline_s):
            return {"orders": []}

    ref = type("R", (), {"ruleset": type("S", (), {"native_observations": False})()})()
    drv = SeatDriver(ref, {"p1": Other(), "p2": JsonLinesAgent([PY, "-c", "pass"])})
    assert drv._together(["p1", "p2"]) is None and drv._together(["p2"]) is not None
