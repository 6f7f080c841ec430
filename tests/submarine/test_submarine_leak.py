"""S-8 leak test: 2,000 seeded games, checked at every decision point by an independent oracle
(tests/submarine/sub_oracle.py, written from the rules file) and by twin states that differ only in
hidden facts; plus proofs that the checker does catch leaks (each mutation below must be found)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import leakcheck  # noqa: E402
from botwars.games.submarine import engine as sub_engine  # noqa: E402
from botwars.games.submarine import records as sub_records  # noqa: E402
from botwars.games.submarine import rules as sub_rules  # noqa: E402
from botwars.games.submarine import view as sub_view  # noqa: E402

CHUNKS = [(0, 500), (500, 500), (1000, 500), (1500, 500)]


@pytest.mark.parametrize("start,count", CHUNKS, ids=[f"games{a}-{a + n - 1}" for a, n in CHUNKS])
def test_S_8_no_leak_in_2000_seeded_games(start, count, tmp_path):
    problems, stats = leakcheck.run_games(start, count, str(tmp_path))
    assert problems == []
    assert stats["games"] == count
    # the games exercise the hidden-information machinery, not just moves
    for kind in ("collision", "depth_charge", "sonar_result", "mine_placed", "nullify", "replace", "destroyed",
                 "ring_destroyed", "announce_25", "skipped"):
        assert stats.get(kind, 0) > 0, kind


def _problems(n=12):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        problems, _ = leakcheck.run_games(0, n, d)
    return problems


def test_S_8_5_checker_catches_a_submerged_enemy_in_the_view(monkeypatch):
    real = sub_view.observation

    def leaky(state, seat, clock=None):
        v = real(state, seat, clock)
        if seat is not None and "visible_enemy_subs" in v:
            for k, s in state.subs.items():
                if s.owner != seat and not s.surfaced:
                    v["visible_enemy_subs"][k] = "D4" if s.space != (4, 4) else "D4"
        return v
    monkeypatch.setattr(sub_view, "observation", leaky)
    assert any("visible_enemy_subs" in p or "not surfaced" in p for p in _problems())


def test_S_8_5_checker_catches_enemy_hp_in_an_event(monkeypatch):
    real = sub_engine.Resolver.emit

    def leaky(self, full, **kw):
        if full["type"] == "collision":
            full = dict(full, defender=dict(full["defender"], hp=self.st.subs[full["defender"]["sub"]].hp))
        return real(self, full, **kw)
    monkeypatch.setattr(sub_engine.Resolver, "emit", leaky)
    assert any("hp" in p for p in _problems(30))


def test_S_8_4_checker_catches_a_hidden_move_shown_to_the_other_player(monkeypatch):
    real = sub_engine.Resolver.emit

    def leaky(self, full, **kw):
        if full["type"] == "move":
            kw["other_keys"] = True
        return real(self, full, **kw)
    monkeypatch.setattr(sub_engine.Resolver, "emit", leaky)
    assert any("differ" in p for p in _problems())


def test_S_8_6_checker_catches_an_error_message_that_tells_where_the_enemy_is(monkeypatch):
    real = sub_rules.SubmarineRuleset.parse_orders

    def leaky(self, state, seat, payload):
        try:
            return real(self, state, seat, payload)
        except sub_rules.InvalidOrders as exc:
            hidden = sorted(str(s.space) for s in state.subs.values() if s.owner != seat and not s.surfaced)
            raise sub_rules.InvalidOrders(exc.message + f" (enemy at {hidden})", code=exc.code, part=exc.part)
    monkeypatch.setattr(sub_rules.SubmarineRuleset, "parse_orders", leaky)
    assert any("refusal" in p and "depends on hidden state" in p for p in _problems())


def test_S_8_6_checker_catches_enemy_hp_reaching_the_view_through_state(monkeypatch):
    real = sub_view.observation

    def leaky(state, seat, clock=None):
        v = real(state, seat, clock)
        if seat is not None and "own_subs" in v:
            v["enemy_hp_total"] = sum(s.hp for s in state.subs.values() if s.owner != seat)
        return v
    monkeypatch.setattr(sub_view, "observation", leaky)
    assert any("enemy_hp_total" in p or "depends on hidden state" in p for p in _problems())


def test_S_8_1_checker_catches_opponent_orders_in_a_seat_record(monkeypatch):
    real = sub_records.filter_record_for_seat

    def leaky(record, seat):
        lines = real(record, seat)
        rec = sub_records.read_record(record) if isinstance(record, str) else record
        for ln in rec.decisions:
            for s, o in (ln.get("orders") or {}).items():
                if s != seat and o:
                    lines.append({"type": "decision", "turn": ln.get("turn"), "events": [], "orders": o})
        return lines
    monkeypatch.setattr(sub_records, "filter_record_for_seat", leaky)
    monkeypatch.setattr(leakcheck, "filter_record_for_seat", leaky)
    assert any("record of" in p for p in _problems(1))


def test_S_8_6_checker_catches_hidden_events_in_a_seat_record(monkeypatch):
    """A record filter that forgets the visibility filter (every event in full form) is caught."""
    from botwars.engine.record import resimulate

    def leaky(record, seat):
        rec = sub_records.read_record(record) if isinstance(record, str) else record
        lines = [{"type": "header", "you": seat}]
        for step in resimulate(rec):
            lines.append({"type": "decision", "turn": step.before.turn,
                          "events": [dict(e) for e in step.after.history[len(step.before.history):]]})
        return lines
    monkeypatch.setattr(leakcheck, "filter_record_for_seat", leaky)
    assert any("record of" in p and "events differ" in p for p in _problems(1))
