"""Scenario files of flag race: a position, steps, the expected square and winner.

```yaml
game: flagrace
config: {length: 6}      # parameters (optional)
square: 2                # the counter's square at the start (default 0)
steps: [3]               # one step per turn, the seat to move giving it
expect: {square: 5, winner: p1}
refused: "passes the flag"   # optional: the text the refusal of the last step must contain
```
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from botwars.engine.scenario import Case, Locator, ScenarioFormat, Start, Step, Submission

KEYS = {"game", "name", "description", "rules", "config", "square", "steps", "expect", "refused",
        "caption", "seat", "start_only"}


class RaceScenario(ScenarioFormat):
    """The hooks the kernel's scenario runner calls."""

    stop_on_surprise = True

    def check_shape(self, doc: dict[str, Any], source: str) -> None:
        """Unknown keys are refused (at the key: file, line, column)."""
        unknown = sorted(map(str, set(doc) - KEYS))
        if unknown:
            raise Locator(source).error(f"unknown keys: {', '.join(unknown)}", unknown[0])

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """The configured track with the counter on ``square``."""
        doc = case.doc
        config = rules.validate_config(doc.get("config") or {}, source=loc.source)
        st = rules.setup(config, ["p1", "p2"], 0)
        square = doc.get("square", 0)
        if not isinstance(square, int) or not 0 <= square < st.flag:
            raise loc.error(f"'square' must be a square before the flag (0 to {st.flag - 1})", "square")
        steps = doc.get("steps") or []
        return Start(config, list(st.seats), replace(st, square=square),
                     ctx={"last": len(steps) - 1 if isinstance(steps, list) else -1, "refused": doc.get("refused")})

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The ``steps``, one per turn."""
        steps = case.doc.get("steps") or []
        if not isinstance(steps, list):
            raise loc.error("'steps' must be a list of steps", "steps")
        return [(("steps", k), s) for k, s in enumerate(steps)]

    def step(self, rules: Any, ref: Any, entry: Any, path: tuple[Any, ...], start: Start, loc: Locator) -> Step:
        """The step of the seat to move; the last one may be expected refused (``refused``: the
        point is then left open, so ``expect`` sees the position the refusal left unchanged)."""
        expected = start.ctx["refused"] if path[-1] == start.ctx["last"] else None
        subs = [Submission(s, payload={"step": entry}, refusal=expected) for s in ref.pending()]
        return Step(subs, where=f"step {path[-1] + 1}", resolve=expected is None)

    def finish(self, rules: Any, ref: Any, case: Case, start: Start, loc: Locator) -> list[str]:
        """``expect``: ``square`` and ``winner`` after the last step."""
        want = case.doc.get("expect") or {}
        if not isinstance(want, dict):
            raise loc.error("'expect' must be a mapping", "expect")
        got = {"square": ref.state.square, "winner": ref.state.winner}
        return [f"{key}: expected {want[key]}, got {got[key]}" for key in ("square", "winner")
                if key in want and want[key] != got[key]]


SCENARIO = RaceScenario()
