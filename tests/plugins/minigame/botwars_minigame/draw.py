"""SVG drawing and turn report of the coins game."""

from __future__ import annotations

from typing import Any

from botwars.render.svg import PLAYER_COLOURS, Svg


def svg(rules: Any, st: Any, seat: str | None, events: list[Any]) -> str:
    """The board as ``seat`` sees it: grid, the coins it sees (M5), both robots, last moves."""
    view = rules.view(st, seat)
    n = view["size"]
    pic = Svg(n, n, cell=32, title=f"coins turn {view['turn']}")
    for y in range(n):
        for x in range(n):
            pic.rect(x, n - 1 - y, "#fbfbfb")
    pic.labels([str(x) for x in range(n)], [str(y) for y in range(n - 1, -1, -1)])
    for x, y in view["coins"]:
        pic.circle(x, n - 1 - y, "#f2c200", 0.2, stroke="#a07f00", title=f"coin at {x},{y}")
    for e in events:
        if e.kind == "move":
            (a, b), (c, d) = e.data["from"], e.data["to"]
            pic.line(a, n - 1 - b, c, n - 1 - d, "#888", 2, "3 2")
    for k, (s, (x, y)) in enumerate(sorted(view["robots"].items())):
        pic.circle(x, n - 1 - y, PLAYER_COLOURS[k], 0.38, title=f"robot of {s}, {view['scores'][s]} points")
    return pic.to_string()


def report(rules: Any, before: Any, after: Any, events: list[Any]) -> str:
    """One line per event of the turn, then the points."""
    lines = [f"turn {after.turn}"] + [f"  {e.kind} {e.data}" for e in events]
    return "\n".join(lines + [f"  points {after.score}"])
