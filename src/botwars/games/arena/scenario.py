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

from typing import Any

from botwars.engine.codes import FailureCode
from botwars.engine.errors import ConfigError
from botwars.engine.referee import Referee
from botwars.engine.scenario import (UNCHECKED, Case, Locator, Played, ScenarioFormat, Start, Step,
                                     Submission)
from botwars.games.arena.board import load_map, sq_str
from botwars.games.arena.protocol import ArenaOrders, text_orders

TOP_KEYS = {"game", "rules", "description", "config", "map", "turn", "robots", "turns", "user_data", "name",
            "cases"}
TURN_KEYS = {"orders", "responses", "failures", "expect", "note"}
EXPECT_KEYS = {"robots", "new", "user_data", "errors", "accepted", "malformed", "over", "result", "events",
               "count"}
SEATS = ("p1", "p2")
FAILURE_CODES = (FailureCode.TIMEOUT, FailureCode.CRASH, FailureCode.MEMORY)
"""Failures a scenario turn may give a seat (``failures:``); a malformed reply is a ``responses:`` entry."""


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


class ArenaScenario(ScenarioFormat):
    """The arena scenario format's hooks for the kernel runner (:func:`botwars.engine.scenario.run_scenario`)."""

    def cases(self, doc: dict[str, Any], loc: Locator) -> list[Case]:
        """The document, or each of its ``cases`` merged over the shared top-level keys."""
        unknown = sorted(str(k) for k in doc if k not in TOP_KEYS)
        if unknown:
            raise loc.error(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(TOP_KEYS))})", unknown[0])
        if not isinstance(doc.get("rules", []), list):
            raise loc.error("'rules' must be a list of rule ids such as [R16, H8]", "rules")
        cases = doc.get("cases")
        if cases is None:
            return [Case(None, doc)]
        if not isinstance(cases, list) or not cases:
            raise loc.error("'cases' must be a non-empty list of scenario variants", "cases")
        out = []
        base = {k: v for k, v in doc.items() if k != "cases"}
        for i, case in enumerate(cases):
            if not isinstance(case, dict):
                raise loc.error(f"case {i + 1} must be a mapping", "cases", i)
            bad = sorted(str(k) for k in case if k not in TOP_KEYS - {"game", "cases"})
            if bad:
                raise loc.error(f"case {i + 1}: unknown key(s) {', '.join(bad)}", "cases", i, bad[0])
            keys = set(case)

            def where(*path: Any, _i: int = i, _keys: set = keys) -> tuple:
                return ("cases", _i) + path if path and path[0] in _keys else path
            out.append(Case(str(case.get("name", f"case {i + 1}")), {**base, **case}, where))
        return out

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """The position: map, config, labelled robots (``ctx``: label → robot id), user data."""
        from botwars.games.arena.rules import ArenaState
        doc, where, source = case.doc, case.at, loc.source
        overrides = doc.get("config") or {}
        if not isinstance(overrides, dict):
            raise loc.error("'config' must be a mapping of parameter: value", *where("config"))
        overrides = dict(overrides)
        if "map" in doc:
            overrides["map"] = doc["map"]
        try:  # a scenario file names no file: a shipped map or the map text (issue 25)
            config = rules.validate_config(overrides, source=source, allow_paths=False)
        except ConfigError as exc:
            key = next((k for k in overrides if f"parameter {k}:" in exc.message or repr(k) in exc.message), None)
            path = where("map") if key == "map" and "map" in doc else where("config", key) if key else where("config")
            raise loc.error(exc.message, *path) from None
        amap = load_map(config["map"])
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
        if not isinstance(ud, dict) or any(k not in SEATS or not isinstance(v, str) for k, v in ud.items()):
            raise loc.error("'user_data' must map p1/p2 to text", *where("user_data"))
        state = ArenaState(SEATS, config, amap, start_turn, robots, nid, (ud.get("p1", ""), ud.get("p2", "")))
        return Start(config, list(SEATS), state, 0, ctx=labels)

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The ``turns`` list."""
        turns = case.doc.get("turns")
        if not isinstance(turns, list) or not turns:
            raise loc.error("'turns' must be a non-empty list of turns", *case.at("turns"))
        return [(case.at("turns", ti), turn) for ti, turn in enumerate(turns)]

    def step(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], start: Start,
             loc: Locator) -> Step:
        """Label orders (built here, R11: unlisted robots idle), raw ``responses`` (P5/P12, through
        the referee; a malformed one gets the default orders, P10) and ``failures`` (P3, P10)."""
        labels: dict[str, int] = start.ctx
        if not isinstance(entry, dict):
            raise loc.error(f"turn entry {path[-1] + 1} must be a mapping", *path)
        bad = sorted(str(k) for k in entry if k not in TURN_KEYS)
        if bad:
            raise loc.error(f"unknown key(s) {', '.join(bad)} in a turn (known: {', '.join(sorted(TURN_KEYS))})",
                            *path, bad[0])
        state = ref.state
        if ref.over:
            raise loc.error("the game is already over: no more turns can be played", *path)
        here = f"turn {state.turn + 1}"
        orders: dict[str, ArenaOrders] = {}
        by_id = {r[0]: sq for sq, r in state.robots.items()}
        raw_orders = entry.get("orders") or {}
        if not isinstance(raw_orders, dict):
            raise loc.error("'orders' must map robot labels to orders", *path, "orders")
        for label, text in raw_orders.items():
            label = str(label)
            opath = path + ("orders", label)
            if label not in labels:
                raise loc.error(f"orders for unknown robot {label}", *opath)
            if labels[label] not in by_id:
                raise loc.error(f"robot {label} is no longer in play on {here}", *opath)
            od = parse_order(text)
            if od is None:
                raise loc.error(f"bad order {text!r} for robot {label} (use M-d, A-d, D or S; d = N, E, S, W)",
                                *opath)
            # label orders leave a seat's user data unchanged (ArenaOrders.user_data None)
            orders.setdefault(SEATS[int(label[0]) - 1], ArenaOrders()).orders[by_id[labels[label]]] = od
        subs = [Submission(seat, parsed=o) for seat, o in orders.items()]
        given = set(orders)
        for key in ("responses", "failures"):
            block = entry.get(key) or {}
            if not isinstance(block, dict):
                raise loc.error(f"'{key}' must map p1/p2 to a value", *path, key)
            for seat, payload in block.items():
                if seat not in SEATS:
                    raise loc.error(f"unknown seat {seat!r} (p1 or p2)", *path, key, seat)
                if seat in given:
                    raise loc.error(f"{seat} has both label orders and a response or failure", *path, key, seat)
                given.add(seat)
                if key == "failures":
                    if payload not in FAILURE_CODES:
                        raise loc.error(f"failure of {seat} must be one of {', '.join(FAILURE_CODES)}, "
                                        f"got {payload!r}", *path, key, seat)
                    subs.append(Submission(seat, failure=payload))  # P3, P10
                    continue
                if not isinstance(payload, (str, dict, list)) and payload is not None:
                    payload = str(payload)
                subs.append(Submission(seat, payload="" if payload is None else payload, refusal=UNCHECKED,
                                       on_refusal="default"))  # P10: a malformed response defends
        subs += [Submission(seat, parsed=ArenaOrders()) for seat in SEATS if seat not in given]  # R11: idle
        return Step(subs, where=here)

    def check(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], played: Played,
              start: Start, loc: Locator, where: str) -> list[str]:
        """The turn's ``expect`` block against the position after it."""
        exp = entry.get("expect")
        if exp is None:
            return []
        epath = path + ("expect",)
        if not isinstance(exp, dict):
            raise loc.error("'expect' must be a mapping", *epath)
        bad = sorted(str(k) for k in exp if k not in EXPECT_KEYS)
        if bad:
            raise loc.error(f"unknown key(s) {', '.join(bad)} in expect (known: {', '.join(sorted(EXPECT_KEYS))})",
                            *epath, bad[0])
        seen_errors: dict[str, list[str]] = {}
        for seat in SEATS:
            if seat in played.failed:
                seen_errors[seat] = [played.failed[seat]]
            elif seat in played.refused:
                seen_errors[seat] = ["malformed"]
            elif seat in played.warnings:
                seen_errors[seat] = [e["code"] for e in played.warnings[seat]]
        accepted = {s: text_orders(x.orders) for s, x in played.settled.items()}
        return _check(exp, ref.state, played.events, start.ctx, seen_errors, sorted(played.refused), accepted,
                      where, loc, epath, rules)


SCENARIO = ArenaScenario()
"""The plug-in's ``scenario`` hook."""


def _fmt_robot(sq: tuple[int, int], hp: int) -> str:
    return f"{sq_str(sq)} {hp}"


def _check(exp: dict[str, Any], state: Any, events: list, labels: dict[str, int], seen_errors: dict[str, list[str]],
           malformed: list[str], accepted: dict[str, str], here: str, loc: Locator, epath: tuple,
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


__all__ = ["SCENARIO", "ArenaScenario", "square", "parse_order"]
