"""The kernel's one scenario runner (issue 11, item 6), with a tiny rule set of its own.

``tally``: two seats each add 1..3 to their own total at every (simultaneous) decision point;
the first total to reach ``target`` ends the game. Its scenario format: ``turns`` of
``{p1: n, p2: n}`` (a seat left out gets its default, 1), ``refused: {seat: text}`` (that
seat's submission must be refused with a message containing the text; it then plays its
default) and ``expect: {totals: [a, b]}``; a top-level ``expect`` is checked after the last
turn. Every decision point must go through one :class:`Referee`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.plugin import Capabilities, Game, Turns
from botwars.engine.referee import Referee
from botwars.engine.ruleset import Param, Ruleset
from botwars.engine.scenario import Case, Locator, Played, ScenarioFormat, Start, Step, Submission


@dataclass(frozen=True)
class Tally:
    seats: tuple[str, ...]
    config: dict
    turn: int
    totals: tuple[int, int]


class TallyRules(Ruleset):
    id = "tally-scenario-test"
    name = "tally (scenario runner test)"
    params = (Param("target", int, 10, minimum=1),)

    def setup(self, config, seats, seed):
        return Tally(tuple(seats), config, 0, (0, 0))

    def pending(self, state):
        return [] if self.outcome(state) else list(state.seats)

    def parse_orders(self, state, seat, payload):
        if isinstance(payload, bool) or not isinstance(payload, int) or not 1 <= payload <= 3:
            raise InvalidOrders(f"add 1, 2 or 3, got {payload!r}", code="illegal")
        return payload

    def default_orders(self, state, seat):
        return 1

    def resolve(self, state, orders):
        totals = tuple(t + orders[s] for s, t in zip(state.seats, state.totals))
        return Tally(state.seats, state.config, state.turn + 1, totals), [Event("added", {"totals": list(totals)})]

    def view(self, state, seat):
        return {"totals": list(state.totals)}

    def outcome(self, state):
        best = max(state.totals)
        if best < state.config["target"]:
            return None
        winners = [s for s, t in zip(state.seats, state.totals) if t == best]
        return Outcome(winners[0] if len(winners) == 1 else None, {s: float(s in winners) for s in state.seats},
                       "target", [winners])

    def state_json(self, state):
        return {"turn": state.turn, "totals": list(state.totals)}

    def orders_json(self, orders):
        return orders

    def turn_number(self, state):
        return state.turn


class TallyFormat(ScenarioFormat):
    stop_on_surprise = True
    known_keys = frozenset({"game", "config", "totals", "turns", "expect"})

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        config = rules.validate_config(case.doc.get("config") or {}, source=loc.source)
        totals = case.doc.get("totals", [0, 0])
        return Start(config, ["p1", "p2"], Tally(("p1", "p2"), config, 0, tuple(totals)))

    def entries(self, case: Case, loc: Locator) -> list:
        return [(("turns", i), t) for i, t in enumerate(case.doc.get("turns") or [])]

    def step(self, rules: Any, ref: Referee, entry: Any, path: tuple, start: Start, loc: Locator) -> Step:
        if not isinstance(entry, dict):
            raise ConfigError("a turn must be a mapping")  # no place: the kernel adds the entry's
        refused = entry.get("refused") or {}
        subs = [Submission(s, payload=entry[s], refusal=refused.get(s), on_refusal="default")
                for s in ("p1", "p2") if s in entry]
        return Step(subs, where=f"turn {ref.state.turn + 1}")

    def check(self, rules: Any, ref: Referee, entry: Any, path: tuple, played: Played, start: Start,
              loc: Locator, where: str) -> list[str]:
        want = (entry.get("expect") or {}).get("totals")
        got = list(ref.state.totals)
        return [] if want is None or want == got else [f"{where}: totals: expected {want}, got {got}"]

    def finish(self, rules: Any, ref: Referee, case: Case, start: Start, loc: Locator) -> list[str]:
        want = (case.doc.get("expect") or {}).get("winner")
        got = ref.outcome.winner if ref.outcome else None
        return [] if want is None or want == got else [f"winner: expected {want}, got {got}"]


GAME = Game.from_ruleset(TallyRules, Capabilities(turns=Turns.SIMULTANEOUS, hidden_information=False),
                         scenario=TallyFormat())


def run(tmp_path, text: str) -> list[str]:
    import yaml
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return GAME.run_scenario(yaml.safe_load(text), str(path))


def test_entries_play_through_one_referee_and_pass(tmp_path, monkeypatch):
    resolved = []
    real = Referee.resolve_point

    def counting(self):
        resolved.append(id(self))
        return real(self)
    monkeypatch.setattr(Referee, "resolve_point", counting)
    out = run(tmp_path, "game: tally-scenario-test\nturns:\n  - {p1: 3, p2: 2, expect: {totals: [3, 2]}}\n"
                        "  - {p1: 1, expect: {totals: [4, 3]}}\n  - {p1: 3, p2: 3, expect: {totals: [7, 6]}}\n")
    assert out == []
    assert len(resolved) == 3 and len(set(resolved)) == 1  # three decision points, one referee


def test_a_wrong_expectation_is_a_failure_line(tmp_path):
    out = run(tmp_path, "game: tally-scenario-test\nturns:\n  - {p1: 3, p2: 2, expect: {totals: [3, 3]}}\n")
    assert out == ["turn 1: totals: expected [3, 3], got [3, 2]"]


def test_an_expected_refusal_is_checked_and_the_seat_then_plays_its_default(tmp_path):
    out = run(tmp_path, "game: tally-scenario-test\nturns:\n"
                        "  - {p1: 7, p2: 2, refused: {p1: 'got 7'}, expect: {totals: [1, 2]}}\n")
    assert out == []
    out = run(tmp_path, "game: tally-scenario-test\nturns:\n"
                        "  - {p1: 7, p2: 2, refused: {p1: 'got 8'}, expect: {totals: [1, 2]}}\n")
    assert out == ["turn 1: orders of p1: expected a refusal containing 'got 8', got 'add 1, 2 or 3, got 7' (illegal)"]


def test_a_surprise_refusal_or_acceptance_fails_and_stops_the_scenario(tmp_path):
    out = run(tmp_path, "game: tally-scenario-test\nturns:\n  - {p1: 0, p2: 2}\n"
                        "  - {p1: 1, expect: {totals: [99, 99]}}\n")
    assert out == ["turn 1: orders of p1 refused: add 1, 2 or 3, got 0"]
    out = run(tmp_path, "game: tally-scenario-test\nturns:\n  - {p1: 2, refused: {p1: illegal}}\n"
                        "  - {p1: 1, expect: {totals: [99, 99]}}\n")
    assert out == ["turn 1: orders of p1 accepted, expected a refusal containing 'illegal'"]


def test_finish_checks_the_outcome_after_the_last_entry(tmp_path):
    text = "game: tally-scenario-test\nconfig: {target: 5}\ntotals: [3, 0]\nturns:\n  - {p1: 2, p2: 3}\n"
    assert run(tmp_path, text + "expect: {winner: p1}\n") == []
    assert run(tmp_path, text + "expect: {winner: p2}\n") == ["winner: expected p2, got p1"]


def test_a_malformed_entry_is_placed_at_its_line_and_column(tmp_path):
    with pytest.raises(ConfigError) as err:
        run(tmp_path, "game: tally-scenario-test\nturns:\n  - {p1: 1}\n  - just text\n")
    assert err.value.one_line() == f"{tmp_path / 's.yaml'}:4:5: a turn must be a mapping"


def test_an_unknown_top_level_key_is_placed_at_the_key(tmp_path):
    with pytest.raises(ConfigError) as err:
        run(tmp_path, "game: tally-scenario-test\nturns: []\n  \nexpekt: {}\n")
    assert err.value.one_line().startswith(f"{tmp_path / 's.yaml'}:4:1: unknown key(s) expekt")


def test_orders_for_a_finished_game_are_a_placed_error(tmp_path):
    with pytest.raises(ConfigError) as err:
        run(tmp_path, "game: tally-scenario-test\nconfig: {target: 2}\nturns:\n  - {p1: 3}\n  - {p1: 1}\n")
    assert err.value.line == 5 and err.value.column == 5 and "the match has ended" in err.value.message
