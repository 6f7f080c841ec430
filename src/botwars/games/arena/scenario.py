"""Arena scenario files: write a ruling down as YAML and check it (docs/scenarios-arena.md).

A scenario places labelled robots (the label's first character is the owner: ``1a``, ``2s``)
on a map, plays one or more turns from given orders, and states what must hold after each
turn. Each turn gives orders per label (``M-E``, ``A-N``, ``D``, ``S``; unlisted robots are
idle, R11), or raw ``responses`` per seat (P5 text or P12 JSON, through the engine's
parser), or ``failures`` per seat (``timeout``, ``crash``, ``memory``: P3, P10). ``expect``
states positions and HP of labelled robots (``"7:8 100"``, ``"7:8"`` or ``removed``), the
robots that appeared (``new``), accepted orders, user data, errors, malformed seats, whether
the game is over and its result. ``cases`` runs several variants that share the top-level
keys, each from the same starting position.

Every problem with the file itself raises :class:`ConfigError` naming the file and, where the
YAML says, the line; a rule that does not hold is returned as a failure line (a diff).
"""

from __future__ import annotations

import os
from typing import Any

from botwars.engine.codes import FailureCode, RefusalCode
from botwars.engine.referee import resolve_parsed
from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.board import load_map, shipped_maps, sq_str
from botwars.games.arena.protocol import ArenaOrders, text_orders

TOP_KEYS = {"game", "rules", "description", "config", "map", "turn", "robots", "turns", "user_data", "name",
            "cases"}
TURN_KEYS = {"orders", "responses", "failures", "expect", "note"}
EXPECT_KEYS = {"robots", "new", "user_data", "errors", "accepted", "malformed", "over", "result", "events",
               "count"}
SEATS = ("p1", "p2")
FAILURE_CODES = (FailureCode.TIMEOUT, FailureCode.CRASH, FailureCode.MEMORY)
"""Failures a scenario turn may give a seat (``failures:``); a malformed reply is a ``responses:`` entry."""


class _Locator:
    """Finds the line and column of a key path in the scenario file, for error messages."""

    def __init__(self, source: str):
        self.source = source

    def line(self, *path: Any) -> int | None:
        """1-based line of the deepest node of ``path`` that exists (``None`` if unknown)."""
        return self.place(*path)[0]

    def place(self, *path: Any) -> tuple[int | None, int | None]:
        """1-based ``(line, column)`` of the deepest node of ``path`` that exists (a mapping key
        is placed at the key); ``(None, None)`` if unknown."""
        from botwars.engine.yamlschema import locate
        return locate(self.source, tuple(path), at_key=True)

    def error(self, msg: str, *path: Any) -> ConfigError:
        line, column = self.place(*path)
        return ConfigError(msg, source=self.source, line=line, column=column)


def square(value: Any) -> tuple[int, int] | None:
    """A scenario square (``"X:Y"``) as ``(x, y)``, or ``None`` if it is not one.

    YAML 1.1 (PyYAML) reads an unquoted ``7:8`` as the base-60 integer 428; since its second
    part is always 0..59 the square is recovered exactly, so players may leave squares unquoted.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (value // 60, value % 60) if value >= 60 else None
    if not isinstance(value, str):
        return None
    a, sep, b = value.strip().partition(":")
    if not sep or not a.isdigit() or not b.isdigit() or not a.isascii() or not b.isascii():
        return None
    return int(a), int(b)


def parse_order(text: Any) -> tuple[str, str | None] | None:
    """A scenario order (``M-E``, ``A-n``, ``D``, ``S``) as ``(action, dir)``, or ``None``."""
    if not isinstance(text, str):
        return None
    parts = text.strip().upper().split("-")
    a = parts[0]
    if a in ("M", "A") and len(parts) == 2 and parts[1] in ("N", "E", "S", "W"):
        return a, parts[1]
    if a in ("D", "S") and len(parts) == 1:
        return a, None
    return None


def _resolve_map(spec: Any, source: str) -> Any:
    """A ``map`` value: shipped name, inline text, or a file path relative to the scenario file."""
    if not isinstance(spec, str) or "\n" in spec or spec in shipped_maps() or os.path.isabs(spec):
        return spec
    candidate = os.path.join(os.path.dirname(os.path.abspath(source)), spec)
    return candidate if os.path.isfile(candidate) else spec


def run_scenario(rules: Any, doc: dict[str, Any], source: str) -> list[str]:
    """Run one arena scenario document (the plug-in's ``scenario`` hook; ``rules`` is the arena
    rule set); returns failure lines (empty list = pass).

    Raises :class:`ConfigError` (file, line, problem) when the document itself is malformed.
    """
    loc = _Locator(source)
    if not isinstance(doc, dict):
        raise loc.error("a scenario must be a YAML mapping")
    unknown = sorted(str(k) for k in doc if k not in TOP_KEYS)
    if unknown:
        raise loc.error(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(TOP_KEYS))})", unknown[0])
    rules = doc.get("rules", [])
    if not isinstance(rules, list):
        raise loc.error("'rules' must be a list of rule ids such as [R16, H8]", "rules")
    cases = doc.get("cases")
    if cases is None:
        return _run_case(doc, source, loc, (), set())
    if not isinstance(cases, list) or not cases:
        raise loc.error("'cases' must be a non-empty list of scenario variants", "cases")
    failures: list[str] = []
    base = {k: v for k, v in doc.items() if k != "cases"}
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            raise loc.error(f"case {i + 1} must be a mapping", "cases", i)
        bad = sorted(str(k) for k in case if k not in TOP_KEYS - {"game", "cases"})
        if bad:
            raise loc.error(f"case {i + 1}: unknown key(s) {', '.join(bad)}", "cases", i, bad[0])
        name = str(case.get("name", f"case {i + 1}"))
        merged = {**base, **case}
        failures += [f"[{name}] {line}" for line in _run_case(merged, source, loc, ("cases", i), set(case))]
    return failures


def _run_case(doc: dict[str, Any], source: str, loc: _Locator, at: tuple, case_keys: set) -> list[str]:
    """Run one scenario (or one case of it).

    ``at`` is the key path of the case (``("cases", i)``) and ``case_keys`` the keys it sets,
    so that error lines point into the case where it set the key, else at the top level.
    """
    from botwars.games.arena.rules import ArenaState

    def where(*path: Any) -> tuple:
        return at + path if path and path[0] in case_keys else path

    rs = get_ruleset("arena")
    overrides = doc.get("config") or {}
    if not isinstance(overrides, dict):
        raise loc.error("'config' must be a mapping of parameter: value", *where("config"))
    overrides = dict(overrides)
    if "map" in doc:
        overrides["map"] = _resolve_map(doc["map"], source)
    try:
        config = rs.validate_config(overrides, source=source)
    except ConfigError as exc:
        key = next((k for k in overrides if f"parameter {k}:" in exc.message or repr(k) in exc.message), None)
        path = where("map") if key == "map" and "map" in doc else where("config", key) if key else where("config")
        raise ConfigError(exc.message, source=source, line=loc.line(*path)) from None
    amap = load_map(config["map"])
    seats = SEATS

    start_turn = doc.get("turn", 0)
    if type(start_turn) is not int or not 0 <= start_turn < config["max_turns"]:
        raise loc.error(f"'turn' (the last turn already played) must be an integer 0..{config['max_turns'] - 1}, "
                        f"got {start_turn!r}", *where("turn"))
    labels: dict[str, int] = {}
    robots: dict[tuple[int, int], tuple[int, int, int]] = {}
    raw_robots = doc.get("robots") or {}
    if not isinstance(raw_robots, dict):
        raise loc.error("'robots' must be a mapping of label: square", *where("robots"))
    nid = 1
    for label, spec in raw_robots.items():
        label = str(label)
        path = where("robots", label)
        if label[:1] not in ("1", "2"):
            raise loc.error(f"robot label {label!r} must start with its owner, 1 or 2", *path)
        if not isinstance(spec, dict):
            spec = {"at": spec}
        bad = sorted(str(k) for k in spec if k not in ("at", "hp"))
        if bad:
            raise loc.error(f"robot {label}: unknown key(s) {', '.join(bad)} (use at, hp)", *path)
        sq = square(spec.get("at"))
        if sq is None:
            raise loc.error(f"robot {label}: 'at' must be a square X:Y, got {spec.get('at')!r}", *path)
        if not amap.is_open(sq):
            raise loc.error(f"robot {label}: {sq_str(sq)} is a wall or off the map", *path)
        if sq in robots:
            raise loc.error(f"robot {label}: {sq_str(sq)} already holds a robot", *path)
        hp = spec.get("hp", config["initial_hp"])
        if type(hp) is not int or hp < 1:
            raise loc.error(f"robot {label}: hp must be a positive integer, got {hp!r}", *path)
        robots[sq] = (nid, int(label[0]), hp)
        labels[label] = nid
        nid += 1
    ud = doc.get("user_data") or {}
    if not isinstance(ud, dict) or any(k not in seats or not isinstance(v, str) for k, v in ud.items()):
        raise loc.error("'user_data' must map p1/p2 to text", *where("user_data"))
    state = ArenaState(seats, config, amap, start_turn, robots, nid, (ud.get("p1", ""), ud.get("p2", "")))

    turns = doc.get("turns")
    if not isinstance(turns, list) or not turns:
        raise loc.error("'turns' must be a non-empty list of turns", *where("turns"))
    failures: list[str] = []
    for ti, turn in enumerate(turns):
        tpath = where("turns", ti)
        if not isinstance(turn, dict):
            raise loc.error(f"turn entry {ti + 1} must be a mapping", *tpath)
        bad = sorted(str(k) for k in turn if k not in TURN_KEYS)
        if bad:
            raise loc.error(f"unknown key(s) {', '.join(bad)} in a turn (known: {', '.join(sorted(TURN_KEYS))})",
                            *tpath, bad[0])
        if state.over:
            raise loc.error("the game is already over: no more turns can be played", *tpath)
        t = state.turn + 1
        here = f"turn {t}"
        orders: dict[str, ArenaOrders] = {s: ArenaOrders() for s in seats}
        given: set[str] = set()
        by_id = {r[0]: sq for sq, r in state.robots.items()}
        raw_orders = turn.get("orders") or {}
        if not isinstance(raw_orders, dict):
            raise loc.error("'orders' must map robot labels to orders", *tpath, "orders")
        for label, text in raw_orders.items():
            label = str(label)
            opath = tpath + ("orders", label)
            if label not in labels:
                raise loc.error(f"orders for unknown robot {label}", *opath)
            if labels[label] not in by_id:
                raise loc.error(f"robot {label} is no longer in play on {here}", *opath)
            od = parse_order(text)
            if od is None:
                raise loc.error(f"bad order {text!r} for robot {label} (use M-d, A-d, D or S; d = N, E, S, W)",
                                *opath)
            seat = seats[int(label[0]) - 1]
            orders[seat].orders[by_id[labels[label]]] = od
            given.add(seat)
        # label orders leave a seat's user data unchanged (ArenaOrders.user_data None)
        seen_errors: dict[str, list[str]] = {}
        malformed: list[str] = []
        for key in ("responses", "failures"):
            block = turn.get(key) or {}
            if not isinstance(block, dict):
                raise loc.error(f"'{key}' must map p1/p2 to a value", *tpath, key)
            for seat, payload in block.items():
                if seat not in seats:
                    raise loc.error(f"unknown seat {seat!r} (p1 or p2)", *tpath, key, seat)
                if seat in given:
                    raise loc.error(f"{seat} has both label orders and a response or failure", *tpath, key, seat)
                given.add(seat)
                if key == "failures":
                    if payload not in FAILURE_CODES:
                        raise loc.error(f"failure of {seat} must be one of {', '.join(FAILURE_CODES)}, "
                                        f"got {payload!r}", *tpath, key, seat)
                    orders[seat] = rs.default_orders(state, seat)  # P3, P10
                    seen_errors[seat] = [payload]
                    continue
                if not isinstance(payload, (str, dict, list)) and payload is not None:
                    payload = str(payload)
                try:
                    orders[seat] = rs.parse_orders(state, seat, "" if payload is None else payload)
                    seen_errors[seat] = [e["code"] for e in orders[seat].errors]
                except InvalidOrders:
                    malformed.append(seat)
                    seen_errors[seat] = [RefusalCode.MALFORMED]
                    orders[seat] = rs.default_orders(state, seat)  # P10
        accepted = {s: text_orders(o) for s, o in orders.items()}
        state, events = resolve_parsed(rs, state, orders)
        exp = turn.get("expect")
        if exp is None:
            continue
        epath = tpath + ("expect",)
        if not isinstance(exp, dict):
            raise loc.error("'expect' must be a mapping", *epath)
        bad = sorted(str(k) for k in exp if k not in EXPECT_KEYS)
        if bad:
            raise loc.error(f"unknown key(s) {', '.join(bad)} in expect (known: {', '.join(sorted(EXPECT_KEYS))})",
                            *epath, bad[0])
        failures += _check(exp, state, events, labels, seen_errors, malformed, accepted, here, loc, epath, rs)
    return failures


def _fmt_robot(sq: tuple[int, int], hp: int) -> str:
    return f"{sq_str(sq)} {hp}"


def _check(exp: dict[str, Any], state: Any, events: list, labels: dict[str, int], seen_errors: dict[str, list[str]],
           malformed: list[str], accepted: dict[str, str], here: str, loc: _Locator, epath: tuple,
           rs: Any) -> list[str]:
    """Compare one turn's ``expect`` block with the state; returns diff lines."""
    out: list[str] = []
    by_id = {r[0]: (sq, r) for sq, r in state.robots.items()}
    want_robots = exp.get("robots") or {}
    if not isinstance(want_robots, dict):
        raise loc.error("expect.robots must map labels to \"X:Y HP\", \"X:Y\" or removed", *epath, "robots")
    for label, want in want_robots.items():
        label = str(label)
        if label not in labels:
            raise loc.error(f"expectation for unknown robot {label}", *epath, "robots", label)
        got = by_id.get(labels[label])
        if want == "removed":
            if got is not None:
                out.append(f"{here}: robot {label}: expected removed, got {_fmt_robot(got[0], got[1][2])}")
            continue
        if isinstance(want, int) and not isinstance(want, bool):
            want = f"{want // 60}:{want % 60}" if want >= 60 else str(want)  # YAML base-60, see square()
        parts = str(want).split()
        sq = square(parts[0]) if parts else None
        if sq is None or len(parts) > 2 or (len(parts) == 2 and not parts[1].lstrip("-").isdigit()):
            raise loc.error(f"expectation for {label} must be \"X:Y HP\", \"X:Y\" or removed, got {want!r}",
                            *epath, "robots", label)
        want_s = _fmt_robot(sq, int(parts[1])) if len(parts) == 2 else sq_str(sq)
        if got is None:
            got_s = "removed"
        else:
            got_s = _fmt_robot(got[0], got[1][2]) if len(parts) == 2 else sq_str(got[0])
        if got_s != want_s:
            out.append(f"{here}: robot {label}: expected {want_s}, got {got_s}")
    if "new" in exp:
        known = set(labels.values())
        got_new = sorted(f"{r[1]} {sq_str(sq)} {r[2]}" for sq, r in state.robots.items() if r[0] not in known)
        want_new = exp["new"] or []
        if not isinstance(want_new, list):
            raise loc.error("expect.new must be a list of \"PLAYER X:Y HP\"", *epath, "new")
        want_new = sorted(" ".join(str(x).split()) for x in want_new)
        if got_new != want_new:
            out.append(f"{here}: robots not in the scenario's list: expected {want_new}, got {got_new}")
    if "count" in exp:
        want = exp["count"] or {}
        if not isinstance(want, dict) or any(type(n) is not int for n in want.values()):
            raise loc.error("expect.count must map p1/p2 to a number of robots", *epath, "count")
        for seat, n in want.items():
            if seat not in SEATS:
                raise loc.error(f"unknown seat {seat!r} in expect.count", *epath, "count")
            got = sum(1 for r in state.robots.values() if r[1] == SEATS.index(seat) + 1)
            if got != n:
                out.append(f"{here}: robots of {seat}: expected {n}, got {got}")
    for key, got_map in (("user_data", {s: state.user_data[i] for i, s in enumerate(SEATS)}),
                         ("accepted", accepted)):
        block = exp.get(key) or {}
        if not isinstance(block, dict) or any(s not in SEATS for s in block):
            raise loc.error(f"expect.{key} must map p1/p2 to text", *epath, key)
        for seat, want in block.items():
            want = "" if want is None else str(want)
            if got_map[seat] != want:
                out.append(f"{here}: {key.replace('_', ' ')} of {seat}: expected {want!r}, got {got_map[seat]!r}")
    block = exp.get("errors") or {}
    if not isinstance(block, dict) or any(s not in SEATS for s in block):
        raise loc.error("expect.errors must map p1/p2 to a list of error codes", *epath, "errors")
    for seat, want in block.items():
        if want is not None and not isinstance(want, list):
            raise loc.error(f"expect.errors.{seat} must be a list of error codes", *epath, "errors", seat)
        want = list(want or [])
        got = seen_errors.get(seat, [])
        if got != want:
            out.append(f"{here}: errors of {seat}: expected {want}, got {got}")
    if "malformed" in exp:
        if exp["malformed"] is not None and (not isinstance(exp["malformed"], list)
                                             or any(s not in SEATS for s in exp["malformed"])):
            raise loc.error("expect.malformed must be a list of seats (p1, p2)", *epath, "malformed")
        want = sorted(exp["malformed"] or [])
        if sorted(malformed) != want:
            out.append(f"{here}: malformed responses: expected {want}, got {sorted(malformed)}")
    if "over" in exp and bool(exp["over"]) != state.over:
        out.append(f"{here}: game over: expected {bool(exp['over'])}, got {state.over}")
    if "result" in exp:
        want = exp["result"] or {}
        if not isinstance(want, dict):
            raise loc.error("expect.result must be a mapping (winner, robots, hp)", *epath, "result")
        res = rs.outcome(state)
        if res is None:
            out.append(f"{here}: expected a result, but the game is not over")
        else:
            w = str(want.get("winner", "draw"))
            got_w = res.winner or "draw"
            if w != got_w:
                out.append(f"{here}: winner: expected {w}, got {got_w}")
            for k in ("robots", "hp"):
                if k in want:
                    if not isinstance(want[k], dict) or any(s not in SEATS for s in want[k]):
                        raise loc.error(f"expect.result.{k} must map p1/p2 to a number", *epath, "result", k)
                    got = res.details[k]
                    if {s: got[s] for s in want[k]} != want[k]:
                        out.append(f"{here}: result {k}: expected {want[k]}, got {got}")
    if "events" in exp:
        if exp["events"] is not None and not isinstance(exp["events"], list):
            raise loc.error("expect.events must be a list of event kinds", *epath, "events")
        kinds = [e.kind for e in events if e.kind != "orders"]
        for k in exp["events"] or []:
            if k not in kinds:
                out.append(f"{here}: expected an event {k!r}, got {sorted(set(kinds))}")
    return out


__all__ = ["run_scenario", "square", "parse_order"]
