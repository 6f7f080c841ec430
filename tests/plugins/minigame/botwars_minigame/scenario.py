"""Scenario files of the coins game: a position, turns of orders, the expected result.

```yaml
game: minigame
config: {size: 3}            # parameters (optional)
robots: {p1: [0, 0], p2: [2, 2]}
coins: [[1, 0]]
turns: [{p1: E, p2: stay}]   # one mapping of seat: move per turn
expect: {scores: {p1: 1, p2: 0}, robots: {p1: [1, 0], p2: [2, 2]}}
```
"""

from __future__ import annotations

from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.scenario import Case, Locator, ScenarioFormat, Start, Step, Submission

KEYS = {"game", "name", "description", "config", "robots", "coins", "turns", "expect"}


class CoinsScenario(ScenarioFormat):
    """The hooks the kernel's scenario runner calls: the position, each turn's moves, the
    expected scores and squares after the last turn."""

    stop_on_surprise = True  # a refused move: the later turns mean nothing

    def check_shape(self, doc: dict[str, Any], source: str) -> None:
        """Unknown keys are refused (at the key: file, line, column)."""
        unknown = sorted(map(str, set(doc) - KEYS))
        if unknown:
            raise Locator(source).error(f"unknown keys: {', '.join(unknown)}", unknown[0])

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """``robots`` (p1 and p2 as ``[x, y]``) and ``coins`` on the configured board."""
        doc = case.doc
        config = rules.validate_config(doc.get("config") or {}, source=loc.source)
        st = rules.setup(config, ["p1", "p2"], 0)
        try:
            pos = {s: (int(doc["robots"][s][0]), int(doc["robots"][s][1])) for s in ("p1", "p2")}
            coins = frozenset((int(c[0]), int(c[1])) for c in doc.get("coins") or [])
        except (KeyError, TypeError, ValueError, IndexError):
            raise loc.error("'robots' needs p1 and p2 as [x, y]; 'coins' is a list of [x, y]", "robots") from None
        return Start(config, list(st.seats), type(st)(st.seats, st.config, pos, coins, dict(st.score)))

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The ``turns``, each a mapping seat: move."""
        turns = case.doc.get("turns") or []
        if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
            raise loc.error("'turns' must be a list of mappings seat: move", "turns")
        return [(("turns", k), t) for k, t in enumerate(turns)]

    def step(self, rules: Any, ref: Any, entry: Any, path: tuple[Any, ...], start: Start, loc: Locator) -> Step:
        """Each seat's move (``stay`` when left out)."""
        subs = [Submission(s, payload={"move": entry.get(s, "stay")}) for s in ref.pending()]
        return Step(subs, where=f"turn {path[-1] + 1}")

    def finish(self, rules: Any, ref: Any, case: Case, start: Start, loc: Locator) -> list[str]:
        """``expect``: ``scores`` and ``robots`` after the last turn."""
        want = case.doc.get("expect") or {}
        if not isinstance(want, dict):
            raise loc.error("'expect' must be a mapping", "expect")
        st = ref.state
        got = {"scores": dict(st.score), "robots": {s: list(p) for s, p in st.pos.items()}}
        return [f"{key}: expected {want[key]}, got {got[key]}" for key in ("scores", "robots")
                if key in want and want[key] != got[key]]


SCENARIO = CoinsScenario()
