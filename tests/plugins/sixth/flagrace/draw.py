"""The drawing, legend and turn report of flag race."""

from __future__ import annotations

from typing import Any

from botwars.render.svg import Svg

TRACK, FLAG, COUNTER, TRAIL = "#f7f7f2", "#d62828", "#1d3557", "#888"


def svg(rules: Any, st: Any, seat: str | None, events: list[Any]) -> str:
    """The track in one row (square 0 on the left), the flag, the counter and its last step."""
    n = st.flag + 1
    pic = Svg(n, 1, cell=36, title=f"flag race, turn {st.turn}")
    for i in range(n):
        pic.rect(i, 0, FLAG if i == st.flag else TRACK)
    pic.labels([str(i) for i in range(n)], [""])
    for e in events:
        if e.kind == "step":
            pic.line(e.data["from"], 0, e.data["to"], 0, TRAIL, 2, "3 2")
    pic.circle(st.square, 0, COUNTER, 0.3, title=f"the counter on square {st.square}")
    return pic.to_string()


def legend(rules: Any, st: Any, seat: str | None) -> str:
    """The board's elements, each drawn by its own symbol, in words."""
    pic = Svg(1, 3, cell=28, title="legend")
    pic.rect(0, 0, TRACK)
    pic.text(*pic.centre(1.2, 0), "a square of the track", anchor="start")
    pic.rect(0, 1, FLAG)
    pic.text(*pic.centre(1.2, 1), "the flag: the last square", anchor="start")
    pic.circle(0, 2, COUNTER, 0.3)
    pic.text(*pic.centre(1.2, 2), "the counter", anchor="start")
    return pic.to_string()


def report(rules: Any, before: Any, after: Any, events: list[Any]) -> str:
    """One line per event of the turn."""
    lines = [f"turn {after.turn}"]
    for e in events:
        if e.kind == "step":
            lines.append(f"  {e.data['seat']} steps {e.data['to'] - e.data['from']}: "
                         f"square {e.data['from']} to {e.data['to']}")
        elif e.kind == "flag":
            lines.append(f"  {e.data['seat']} reaches the flag")
    return "\n".join(lines)
