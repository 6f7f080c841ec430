"""Conformance through the HTTP API, for every registered game: a match played by remote seats
in which another seat's refused submission, and facts hidden from a seat (a twin state put in
the server's referee), change nothing that seat reads from ``GET .../view``, ``GET .../record``
and ``GET /api/matches/{id}``; the refusal answers are the same in the twin; corrections are
answered ``replaced`` where the rules allow them; the full record verifies."""

from __future__ import annotations

import dataclasses
import random

import pytest

from conformance import (GAMES, GARBAGE, FakeClock, api_client, bearer, make_bots, seats_for, short_overrides,
                         verify_file)

from botwars.agents.base import AgentFailure
from botwars.engine.ruleset import get_ruleset


def observe(api, mid, tokens, who):
    """Everything ``who`` (a seat, or None for a spectator) can read about the match now."""
    tok = tokens.get(who)
    v = api.get(f"/api/matches/{mid}/view", headers=bearer(tok), params={"since": 0})
    assert v.status_code == 200, v.text
    out = {"view": v.json(), "summary": api.get(f"/api/matches/{mid}").json()}
    if tok:
        r = api.get(f"/api/matches/{mid}/record", headers=bearer(tok))
        assert r.status_code == 200, r.text
        out["record"] = r.text
    return out


def put_state(sess, state):
    """Put ``state`` into the server's referee, keeping all else it holds (refusals included)."""
    with sess.lock:
        cp = sess.ref.checkpoint()
        sess.ref.rollback(dataclasses.replace(cp, state=state))


def post(api, mid, token, decision, orders, failure=None):
    body = {"decision": decision, "orders": orders}
    if failure:
        body["failure"] = failure
    return api.post(f"/api/matches/{mid}/orders", headers=bearer(token), json=body)


def proposal(rs, sess, seat, snapshot, bots, rng):
    legal = rs.legal_orders(sess.ref.state, seat)
    if legal:
        return rng.choice(legal)
    if seat in bots:
        try:
            return bots[seat].act(snapshot["view"], None)
        except AgentFailure:
            return None
    return None


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_http_another_seats_refusals_and_hidden_facts_change_nothing_a_seat_reads(game, tmp_path):
    rs = get_ruleset(game)
    seats = seats_for(rs)
    over = short_overrides(rs, 6)
    seed = 7
    rng = random.Random(f"http:{game}")
    counts = {"garbage": 0, "pairs": 0, "twins": 0, "replaced": 0}
    with api_client(str(tmp_path / "bw.db"), FakeClock()) as api:
        r = api.post("/api/matches", json={"game": game, "seats": ["remote"] * len(seats), "config": over,
                                           "seed": seed})
        assert r.status_code == 201, r.text
        made = r.json()
        mid = made["match"]
        tokens = {s["seat"]: s["token"] for s in made["seats"]}
        assert list(tokens) == seats
        mgr = api.app.state.manager
        sess = mgr.get(mid)
        bots = make_bots(rs, sess.config, seats, seed)
        viewers = [*seats, None]
        for _ in range(400):
            if sess.ended:
                break
            n = sess.ref.decision
            # facts hidden from a viewer (a twin state) change nothing it reads
            for who in viewers:
                tw = rs.twin_state(sess.ref.state, who, rng)
                if tw is None:
                    continue
                real = sess.ref.state
                seen = observe(api, mid, tokens, who)
                put_state(sess, tw)
                try:
                    assert observe(api, mid, tokens, who) == seen, f"{who} at decision {n}"
                finally:
                    put_state(sess, real)
                counts["twins"] += 1
            for seat in list(sess.ref.pending()):
                if sess.ended or sess.ref.decision != n or seat not in sess.ref.awaited():
                    continue
                g = GARBAGE[(n + seats.index(seat)) % len(GARBAGE)]
                limit = rs.refusal_limit(sess.ref.state, seat)
                tw = rs.twin_state(sess.ref.state, seat, rng)
                if n % 2 == 0 and tw is not None and (limit is None or sess.ref.refusals(seat) + 2 < limit):
                    # the answer to a refused submission is the same in the twin
                    real = sess.ref.state
                    a = post(api, mid, tokens[seat], n, g)
                    put_state(sess, tw)
                    try:
                        b = post(api, mid, tokens[seat], n, g)
                    finally:
                        put_state(sess, real)
                    assert a.status_code == b.status_code == 422 and a.json() == b.json(), (a.text, b.text)
                    counts["pairs"] += 1
                elif limit is None or sess.ref.refusals(seat) + 1 < limit:
                    # another seat's refused submission changes nothing anyone else reads
                    others = {w: observe(api, mid, tokens, w) for w in viewers if w != seat}
                    a = post(api, mid, tokens[seat], n, g)
                    assert a.status_code == 422, a.text
                    assert a.json()["error"] == "invalid_orders" and a.json()["message"]
                    assert {w: observe(api, mid, tokens, w) for w in others} == others, f"{seat}'s refusal at {n}"
                    counts["garbage"] += 1
                snap = observe(api, mid, tokens, seat)["view"]
                payload = proposal(rs, sess, seat, snap, bots, rng)
                if payload is None:
                    a = post(api, mid, tokens[seat], n, None, {"code": "crash", "detail": "no bot"})
                else:
                    a = post(api, mid, tokens[seat], n, payload)
                assert a.status_code == 200, a.text
                ack = a.json()
                assert ack["accepted"] and ack["decision"] == n and "replaced" not in ack
                if rs.replaces_submissions and payload is not None and not ack["resolved"] and not sess.ended:
                    again = proposal(rs, sess, seat, snap, bots, rng)
                    for _ in range(8):  # the same orders again are a duplicate, not a replacement
                        if again is None or again != payload:
                            break
                        again = proposal(rs, sess, seat, snap, bots, rng)
                    if again is not None and again != payload:
                        a = post(api, mid, tokens[seat], n, again)
                        assert a.status_code == 200 and a.json()["replaced"] is True, a.text
                        counts["replaced"] += 1
        assert sess.ended, "no outcome within 400 decision points"
        rec = api.get(f"/api/matches/{mid}/record")
        assert rec.status_code == 200
        path = tmp_path / "rec.jsonl"
        path.write_text(rec.text)
        ok, msg = verify_file(str(path))
        assert ok, msg
    assert counts["garbage"] + counts["pairs"] > 0
    if any(rs.twin_state(sess.ref.state, w, rng) is not None for w in viewers):
        assert counts["twins"] > 0 and counts["pairs"] > 0
    if rs.replaces_submissions:
        assert counts["replaced"] > 0
