"""The rule set is a base for variants (geeko): a subclass with two robots per player and a
smaller hand resolves turns with no change to the stage code."""

from botwars.games.factory.rules import FactoryRuleset


class TwoRobots(FactoryRuleset):
    id = "factory-two-robots-test"

    def robots_per_player(self, config):
        return 2

    def hand_size(self, st, i):
        return min(5, super().hand_size(st, i))


def test_subclass_with_two_robots_per_player_resolves_turns():
    rs = TwoRobots()
    cfg = rs.validate_config({"turn_limit": 3})
    st = rs.setup(cfg, ["p1", "p2"], 11)
    assert [(b.owner, b.slot) for b in st.bots] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all(len(h) == 5 for h in st.hands.values()) and len(st.hands) == 4
    while not st.over:
        st, events = rs.resolve(st, {s: rs.default_orders(st, s) for s in rs.pending(st)})
        stage = next(e for e in events if e.kind == "stage")
        assert len(stage.data["rows"][0]) == 5  # label + one column per robot
    assert st.result["reason"] in ("turn_limit", "flags", "elimination")
