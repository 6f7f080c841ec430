"""Arena scenario files (see README, "Scenario files").

Robots are named by labels whose first character is the owner (``1a``, ``2s``). Each turn
gives orders per label (``M-E``, ``A-N``, ``D``, ``S``; unlisted robots are idle) or raw
``responses`` per seat (text or JSON, through the P5/P12 parser), and ``expect`` states the
positions and HP of labelled robots (``"7:8 100"`` or ``removed``), the robots that appeared
(``new``), user data, errors and the result.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.board import parse_sq, sq_str
from botwars.games.arena.protocol import ArenaOrders

KNOWN = {"game", "rules", "description", "config", "map", "turn", "robots", "turns", "user_data", "name"}


def _err(source: str, msg: str) -> ConfigError:
    return ConfigError(msg, source=source)


def _parse_order(text: str, source: str, label: str) -> tuple[str, str | None]:
    parts = str(text).strip().upper().split("-")
    a = parts[0]
    if a in ("M", "A") and len(parts) == 2 and parts[1] in ("N", "E", "S", "W"):
        return a, parts[1]
    if a in ("D", "S") and len(parts) == 1:
        return a, None
    raise _err(source, f"bad order {text!r} for robot {label} (use M-d, A-d, D or S)")


def run_scenario(doc: dict[str, Any], source: str) -> list[str]:
    """Run one arena scenario document; returns failure lines (a readable diff)."""
    from botwars.games.arena.rules import ArenaState

    rs = get_ruleset("arena")
    unknown = set(doc) - KNOWN
    if unknown:
        raise _err(source, f"unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(KNOWN))})")
    overrides = dict(doc.get("config") or {})
    if "map" in doc:
        overrides["map"] = doc["map"]
    config = rs.validate_config(overrides, source=source)
    from botwars.games.arena.board import load_map
    amap = load_map(config["map"])
    seats = ("p1", "p2")
    labels: dict[str, int] = {}
    robots = {}
    nid = 1
    for label, spec in (doc.get("robots") or {}).items():
        label = str(label)
        if label[:1] not in ("1", "2"):
            raise _err(source, f"robot label {label!r} must start with its owner, 1 or 2")
        spec = spec if isinstance(spec, dict) else {"at": spec}
        try:
            sq = parse_sq(str(spec["at"]))
        except (KeyError, ValueError):
            raise _err(source, f"robot {label}: 'at' must be a square X:Y") from None
        if not amap.is_open(sq):
            raise _err(source, f"robot {label}: {sq_str(sq)} is a wall or off the map")
        if sq in robots:
            raise _err(source, f"robot {label}: {sq_str(sq)} already holds a robot")
        robots[sq] = (nid, int(label[0]), int(spec.get("hp", config["initial_hp"])))
        labels[label] = nid
        nid += 1
    ud = doc.get("user_data") or {}
    state = ArenaState(seats, config, amap, int(doc.get("turn", 0)), robots, nid,
                       (str(ud.get("p1", "")), str(ud.get("p2", ""))))
    failures: list[str] = []
    turns = doc.get("turns") or []
    if not turns:
        raise _err(source, "no turns given")
    for ti, turn in enumerate(turns, 1):
        where = f"turn {state.turn + 1} (entry {ti})"
        orders: dict[str, ArenaOrders] = {s: ArenaOrders() for s in seats}
        by_id = {r[0]: sq for sq, r in state.robots.items()}
        for label, text in (turn.get("orders") or {}).items():
            label = str(label)
            if label not in labels:
                raise _err(source, f"{where}: orders for unknown robot {label}")
            rid = labels[label]
            if rid not in by_id:
                raise _err(source, f"{where}: robot {label} is no longer in play")
            seat = seats[int(label[0]) - 1]
            orders[seat].orders[by_id[rid]] = _parse_order(text, source, label)
        seen_errors: dict[str, list[str]] = {}
        malformed: list[str] = []
        for seat, payload in (turn.get("responses") or {}).items():
            if seat not in seats:
                raise _err(source, f"{where}: unknown seat {seat!r} (p1 or p2)")
            try:
                orders[seat] = rs.parse_orders(state, seat, payload)
                seen_errors[seat] = [e["code"] for e in orders[seat].errors]
            except InvalidOrders:
                malformed.append(seat)
                orders[seat] = rs.default_orders(state, seat)
        state, events = rs.resolve(state, orders)
        exp = turn.get("expect") or {}
        by_id = {r[0]: (sq, r) for sq, r in state.robots.items()}
        for label, want in (exp.get("robots") or {}).items():
            label = str(label)
            if label not in labels:
                raise _err(source, f"{where}: expectation for unknown robot {label}")
            got = by_id.get(labels[label])
            got_s = "removed" if got is None else f"{sq_str(got[0])} {got[1][2]}"
            want_s = str(want).strip()
            if want_s != "removed" and len(want_s.split()) == 1 and got is not None:
                got_s = sq_str(got[0])  # position only
            if got_s != want_s:
                failures.append(f"{where}: robot {label}: expected {want_s}, got {got_s}")
        if "new" in exp:
            known = set(labels.values())
            got_new = sorted(f"{r[1]} {sq_str(sq)} {r[2]}" for sq, r in state.robots.items() if r[0] not in known)
            want_new = sorted(str(x) for x in exp["new"] or [])
            if got_new != want_new:
                failures.append(f"{where}: new robots: expected {want_new}, got {got_new}")
        for seat, want in (exp.get("user_data") or {}).items():
            got = state.user_data[seats.index(seat)]
            if got != str(want):
                failures.append(f"{where}: user data of {seat}: expected {want!r}, got {got!r}")
        for seat, want in (exp.get("errors") or {}).items():
            got = seen_errors.get(seat, [])
            if got != list(want or []):
                failures.append(f"{where}: errors of {seat}: expected {want}, got {got}")
        if "malformed" in exp:
            if sorted(malformed) != sorted(exp["malformed"] or []):
                failures.append(f"{where}: malformed responses: expected {exp['malformed']}, got {malformed}")
        if "over" in exp and bool(exp["over"]) != state.over:
            failures.append(f"{where}: game over: expected {exp['over']}, got {state.over}")
        if "result" in exp:
            out = rs.outcome(state)
            want = exp["result"] or {}
            if out is None:
                failures.append(f"{where}: expected a result {want}, but the game is not over")
            else:
                w = want.get("winner", "draw")
                got_w = out.winner or "draw"
                if str(w) != got_w:
                    failures.append(f"{where}: winner: expected {w}, got {got_w}")
        if "events" in exp:
            kinds = [e.kind for e in events if e.kind != "orders"]
            for k in exp["events"]:
                if k not in kinds:
                    failures.append(f"{where}: expected an event {k!r}, got {sorted(set(kinds))}")
    return failures
