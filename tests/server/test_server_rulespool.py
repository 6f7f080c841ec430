"""Heavy matches are resolved in the rules pool (issue 12, item 6), with exactly the result the
referee computes in-process: the same record (byte for byte, digests included), the same
per-seat events, and a record that verifies."""

from __future__ import annotations

import json

import pytest

from botwars.engine.events import SPECTATOR, Event, filter_events
from botwars.engine.record import read_record, verify_record
from botwars.engine.referee import PackedEvents
from botwars.server import rulespool
from botwars.server.rulespool import RulesPool

from conftest import FakeClock, make_client


def H(tok):
    return {"Authorization": f"Bearer {tok}"}


def test_packed_events_keep_kind_data_and_visibility_and_unpack_only_when_read():
    events = [Event("move", {"from": "1,1", "to": "1,2"}),
              Event("sonar", {"seat": "p1", "n": 3}, frozenset({"p1"})),
              Event("torpedo", {"at": "4,4"}, frozenset({"p2", SPECTATOR}))]
    packed = PackedEvents(PackedEvents.pack(events))
    assert packed._items is None  # nothing unpacked yet
    assert list(packed) == events and len(packed) == 3 and packed[1] == events[1] and packed[-1] == events[2]
    assert [e.kind for e in filter_events(packed, "p1")] == ["move", "sonar"]
    assert [e.kind for e in filter_events(packed, None)] == ["move", "torpedo"]
    assert [e.to_json() for e in packed] == [e.to_json() for e in events]


def _timeless(text):
    """Record lines without ``time_s`` (a built-in bot's thinking time is measured, so it
    differs from run to run; everything else, digests included, must not)."""
    return [{k: v for k, v in json.loads(x).items() if k != "time_s"} for x in text.splitlines()]


def _play(url, pool: RulesPool | None, tmp_path, name):
    """One arena match (remote p1 against builtin:swarm, 6 decision points) on a fresh app;
    returns the full record's text, p1's record text, the spectator's event feed and the app's
    session of the match."""
    with make_client(url, FakeClock()) as api:
        m = api.app.state.manager
        if pool is not None:
            m.rules_pool = pool
        r = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "builtin:swarm"],
                                           "config": {"max_turns": 6}, "seed": 5})
        assert r.status_code == 201, r.text
        mid, tok = r.json()["match"], r.json()["seats"][0]["token"]
        feed = []
        for n in range(1, 7):
            a = api.post(f"/api/matches/{mid}/orders", headers=H(tok),
                         json={"decision": n, "orders": "5:5-A-N,5:12-M-E"})
            assert a.status_code == 200 and a.json()["resolved"], a.text
            feed.append(api.get(f"/api/matches/{mid}/view").json()["events"])
        full = api.get(f"/api/matches/{mid}/record").text
        own = api.get(f"/api/matches/{mid}/record", headers=H(tok)).text
        p = tmp_path / f"{name}.jsonl"
        p.write_text(full)
        assert verify_record(read_record(str(p)))[0]
        return full, own, feed, m.sessions[mid]


@pytest.mark.slow
def test_a_heavy_match_resolved_in_the_pool_plays_exactly_as_in_process(sqlite_url, tmp_path, monkeypatch):
    base = _play(sqlite_url, None, tmp_path, "local")
    assert not base[3].heavy
    monkeypatch.setattr(rulespool, "HEAVY_S", -1.0)  # every match is heavy after its first point
    pool = RulesPool(1)
    pool.start()
    try:
        heavy = _play(f"sqlite:///{tmp_path}/heavy.db", pool, tmp_path, "pool")
    finally:
        pool.stop()
    sess = heavy[3]
    assert sess.heavy and pool.remote == 5  # the first point in-process (it made the match heavy)
    assert any(isinstance(ev, PackedEvents) for ev in sess.ref.events)
    assert _timeless(heavy[0]) == _timeless(base[0])  # the full record, digests included
    assert _timeless(heavy[1]) == _timeless(base[1])  # p1's own record (its events)
    assert heavy[2] == base[2]  # what a spectator saw after each point
    assert json.loads(heavy[0].splitlines()[-1])["type"] == "outcome"


@pytest.mark.slow
def test_a_point_the_pool_cannot_resolve_is_resolved_in_process(sqlite_url, toy, monkeypatch):
    """The test-only toy game is not registered in the worker processes: the worker fails, the
    server resolves the point itself, and the match goes on (hidden events still hidden)."""
    monkeypatch.setattr(rulespool, "HEAVY_S", -1.0)
    pool = RulesPool(1)
    pool.start()
    try:
        with make_client(sqlite_url, FakeClock()) as api:
            api.app.state.manager.rules_pool = pool
            d = api.post("/api/matches", json={"game": "servertoy"}).json()
            mid, toks = d["match"], [s["token"] for s in d["seats"]]
            for n, tok in ((1, toks[0]), (2, toks[1]), (3, toks[0])):
                r = api.post(f"/api/matches/{mid}/orders", headers=H(tok), json={"decision": n, "orders": {"add": n}})
                assert r.status_code == 200 and r.json()["resolved"], r.text
            sess = api.app.state.manager.sessions[mid]
            assert sess.heavy and sess.n == 3 and pool.remote == 0
            v1 = api.get(f"/api/matches/{mid}/view", headers=H(toks[0]), params={"since": 0}).json()
            vs = api.get(f"/api/matches/{mid}/view", params={"since": 0}).json()
            assert {e["kind"] for e in v1["events"]} == {"turn", "add"}
            assert {e["kind"] for e in vs["events"]} == {"turn"}
    finally:
        pool.stop()
