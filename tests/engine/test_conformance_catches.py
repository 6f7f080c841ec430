"""The conformance checks do catch what they look for: each test plants one defect (a leak, a
lossy ``orders_json``, a refused legal order, a refusal seen by another seat) and the seeded
playthrough must report it."""

from __future__ import annotations

from conformance import Player

from botwars.engine.errors import InvalidOrders
from botwars.engine.referee import Referee
from botwars.games.arena import rules as arena_rules
from botwars.games.arena.protocol import text_orders
from botwars.games.dadoed import rules as dadoed_rules
from botwars.games.factory import rules as factory_rules
from botwars.games.geeko import rules as geeko_rules


def problems(game, seeds=(0, 1), turns=4):
    out = []
    for seed in seeds:
        out += Player(game, seed, turns=turns).play().problems
    return out


def test_a_lossy_orders_json_is_caught(monkeypatch):
    # the arena text form without the user data it carried (P7)
    monkeypatch.setattr(arena_rules.ArenaRuleset, "orders_json", lambda self, orders: text_orders(orders))
    assert any("lose something in orders_json" in p for p in problems("arena"))


def test_orders_json_that_is_not_a_payload_is_caught(monkeypatch):
    monkeypatch.setattr(geeko_rules.GeekoRuleset, "orders_json", lambda self, orders: orders)
    assert any("is not JSON" in p for p in problems("geeko", seeds=(0,), turns=2))


def test_a_view_showing_another_players_hand_is_caught(monkeypatch):
    real = factory_rules.FactoryRuleset.view

    def leaky(self, st, seat):
        v = real(self, st, seat)
        v["all_hands"] = {str(i): list(h) for i, h in sorted(st.hands.items())}
        return v
    monkeypatch.setattr(factory_rules.FactoryRuleset, "view", leaky)
    assert any("depends on facts hidden from it" in p and "view" in p for p in problems("factory"))


def test_a_refusal_message_naming_a_hidden_fact_is_caught(monkeypatch):
    real = factory_rules.FactoryRuleset.parse_orders

    def leaky(self, st, seat, payload):
        try:
            return real(self, st, seat, payload)
        except InvalidOrders as exc:
            others = sorted(c for i, h in st.hands.items() if st.bots[i].owner != st.player_of(seat) for c in h)
            raise InvalidOrders(f"{exc.message} (the others hold {others})", code=exc.code, part=exc.part) from None
    monkeypatch.setattr(factory_rules.FactoryRuleset, "parse_orders", leaky)
    assert any("the answer to" in p and "depends on facts hidden" in p for p in problems("factory"))


def test_a_refused_legal_order_is_caught(monkeypatch):
    real = dadoed_rules.DadoedRuleset.legal_orders

    def padded(self, state, seat):
        legal = real(self, state, seat)
        return None if legal is None else legal[:20] + [{"type": "command", "id": "no-such-command"}]
    monkeypatch.setattr(dadoed_rules.DadoedRuleset, "legal_orders", padded)
    assert any("legal order" in p and "no-such-command" in p for p in problems("dadoed", seeds=(0,)))


def test_a_refusal_that_moves_the_decision_counter_is_caught(monkeypatch):
    # the old server's defect: another seat's refusal moved a seat's decision counter
    monkeypatch.setattr(Referee, "decision", property(
        lambda self: self.n if self.over else self.n + 1 + sum(len(v) for v in self._refused.values())))
    assert any("refused submission changed what" in p for p in problems("submarine"))
