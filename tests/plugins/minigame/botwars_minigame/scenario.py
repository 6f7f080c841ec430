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

from botwars.engine.errors import ConfigError, InvalidOrders


def run_scenario(rules: Any, doc: dict[str, Any], source: str) -> list[str]:
    """Play the scenario; the differences from ``expect`` (``[]``: pass). Raises
    :class:`ConfigError` (naming the key) for a malformed document."""
    def bad(msg: str) -> ConfigError:
        return ConfigError(msg, source=source)

    unknown = set(doc) - {"game", "name", "description", "config", "robots", "coins", "turns", "expect"}
    if unknown:
        raise bad(f"unknown keys: {', '.join(sorted(map(str, unknown)))}")
    config = rules.validate_config(doc.get("config") or {}, source=source)
    st = rules.setup(config, ["p1", "p2"], 0)
    try:
        pos = {s: (int(doc["robots"][s][0]), int(doc["robots"][s][1])) for s in ("p1", "p2")}
        coins = frozenset((int(c[0]), int(c[1])) for c in doc.get("coins") or [])
    except (KeyError, TypeError, ValueError, IndexError):
        raise bad("'robots' needs p1 and p2 as [x, y]; 'coins' is a list of [x, y]") from None
    st = type(st)(st.seats, st.config, pos, coins, dict(st.score))
    turns = doc.get("turns") or []
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise bad("'turns' must be a list of mappings seat: move")
    for k, t in enumerate(turns, 1):
        try:
            orders = {s: rules.parse_orders(st, s, {"move": t.get(s, "stay")}) for s in st.seats}
        except InvalidOrders as exc:
            return [f"turn {k}: refused: {exc.message}"]
        st, _ = rules.resolve(st, orders)
    want = doc.get("expect") or {}
    if not isinstance(want, dict):
        raise bad("'expect' must be a mapping")
    got = {"scores": dict(st.score), "robots": {s: list(p) for s, p in st.pos.items()}}
    return [f"{key}: expected {want[key]}, got {got[key]}" for key in ("scores", "robots")
            if key in want and want[key] != got[key]]
