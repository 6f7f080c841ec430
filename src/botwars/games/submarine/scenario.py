"""Submarine scenario files (``botwars scenario run``; format in docs/submarine.md).

A scenario places subs and mines, starts a turn (S-4.2 runs for the player to move, so passives
and AP apply), plays one or more orders and checks the subs, scores, result and — the point of
this game — exactly which events each player and a spectator receive, in which form.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.codes import ClockStatus, OnExpiry
from botwars.engine.errors import ConfigError
from botwars.engine.referee import Referee
from botwars.engine.scenario import Case, Locator, Played, ScenarioFormat, Start, Step, Submission
from botwars.engine.ruleset import get_ruleset
from botwars.games.submarine.board import ALL_SUBS, name, owner_of, parse_space
from botwars.games.submarine.engine import Resolver
from botwars.games.submarine.state import SPECIALS, Sub, SubState
from botwars.games.submarine.view import observation, seat_events

KNOWN = {"game", "name", "rules", "description", "config", "start", "subs", "turns", "clock", "sees", "setups",
         "seed"}
ROUTINE = {"turn_start", "turn_end", "ap", "passive", "score"}
RECIPIENTS = ("p1", "p2", "spectator")


def _err(source: str, msg: str, *path: Any) -> ConfigError:
    """A :class:`ConfigError` at key ``path`` of the file (FILE:LINE:COLUMN); without a path the
    kernel's runner places it at the entry, or the top-level key, it concerns."""
    return Locator(source).error(msg, *path) if path else ConfigError(msg, source=source)


def _space(v: Any, source: str, what: str):
    sp = parse_space(str(v))
    if sp is None:
        raise _err(source, f"{what}: {v!r} is not a space A1..G7")
    return sp


def build_state(doc: dict[str, Any], source: str) -> SubState:
    """The scenario's starting state (its ``config``, ``start`` and ``subs``), with S-4.2 applied
    for the player to move. Raises :class:`ConfigError` for a malformed scenario."""
    rs = get_ruleset("submarine")
    cfg = rs.validate_config({k: (str(v) if k == "p1_home_row" else v) for k, v in (doc.get("config") or {}).items()},
                             source=source)
    start = doc.get("start") or {}
    if not isinstance(start, dict):
        raise _err(source, "'start' must be a mapping", "start")
    home = start.get("home_rows") or {"p1": 1, "p2": 7}
    first = str(start.get("first_player", "p1"))
    turn = int(start.get("turn", 1))
    active = str(start.get("active") or (first if turn % 2 == 1 else ("p2" if first == "p1" else "p1")))
    st = SubState(("p1", "p2"), cfg, "play", {"p1": int(home["p1"]), "p2": int(home["p2"])}, first)
    for letter, spec in (doc.get("subs") or {}).items():
        letter = str(letter)
        if letter not in ALL_SUBS:
            raise _err(source, f"unknown sub {letter!r} (a-e for p1, v-z for p2)", "subs", letter)
        if not isinstance(spec, dict) or "at" not in spec or "special" not in spec:
            raise _err(source, f"sub {letter}: give at least 'at' and 'special'", "subs", letter)
        if spec["special"] not in SPECIALS:
            raise _err(source, f"sub {letter}: unknown special {spec['special']!r}", "subs", letter)
        sp = _space(spec["at"], source, f"sub {letter}")
        if st.sub_at(sp) is not None:
            raise _err(source, f"sub {letter}: {name(sp)} already holds a sub", "subs", letter)
        st.subs[letter] = Sub(letter, owner_of(letter), sp, int(spec.get("hp", cfg["hp_max"])),
                              bool(spec.get("surfaced", True)), str(spec["special"]), bool(spec.get("plate", False)))
    for seat in ("p1", "p2"):
        specials = [s.special for s in st.living(seat)]
        if len(set(specials)) != len(specials):
            raise _err(source, f"{seat}'s subs hold the same special twice (S-6.1)")
        if not st.living(seat):
            raise _err(source, f"{seat} has no sub")
    st.destroyed = {s: sorted(k for k in ALL_SUBS if owner_of(k) == s and k not in st.subs) for s in ("p1", "p2")}
    for sp, owner in (start.get("mines") or {}).items():
        st.mines[_space(sp, source, "mine")] = str(owner)
    st.scores.update({str(k): int(v) for k, v in (start.get("scores") or {}).items()})
    st.announced.update({str(k): bool(v) for k, v in (start.get("announced") or {}).items()})
    st.rings = int(start.get("rings", 0))
    for seat, wins in (start.get("suppressed") or {}).items():
        st.suppressed[str(seat)] = [[str(w[0]), int(w[1])] for w in wins]
    r = Resolver(st)
    r.start_turn(turn, active)
    st.last = tuple(r.evs)
    if "ap" in start:
        st.ap = int(start["ap"])
    return st


def _fmt_sub(st: SubState, letter: str) -> str:
    s = st.subs.get(letter)
    if s is None:
        return "destroyed"
    return f"{name(s.space)} {s.hp} {'surfaced' if s.surfaced else 'submerged'}"


def _check(st: SubState, exp: dict[str, Any], where: str, spent: int | None) -> list[str]:
    out: list[str] = []
    for letter, want in (exp.get("subs") or {}).items():
        got = _fmt_sub(st, str(letter))
        want_s = str(want).strip()
        if want_s != "destroyed" and got != "destroyed" and len(want_s.split()) < 3:
            got = " ".join(got.split()[:len(want_s.split())])
        if got != want_s:
            out.append(f"{where}: sub {letter}: expected {want_s}, got {got}")
    for letter, want in (exp.get("sub_fields") or {}).items():
        s = st.subs.get(str(letter))
        for k, v in (want or {}).items():
            got = getattr(s, k, None) if s else None
            if k == "space" and got is not None:
                got = name(got)
            if got != v:
                out.append(f"{where}: sub {letter} {k}: expected {v!r}, got {got!r}")
    if "mines" in exp:
        got_m = {name(k): v for k, v in sorted(st.mines.items())}
        want_m = {str(k): str(v) for k, v in (exp["mines"] or {}).items()}
        if got_m != want_m:
            out.append(f"{where}: mines: expected {want_m}, got {got_m}")
    if "scores" in exp:
        for s, v in exp["scores"].items():
            if st.scores[s] != v:
                out.append(f"{where}: score of {s}: expected {v}, got {st.scores[s]}")
    if "result" in exp:
        want = exp["result"]
        if want is None and st.result is not None:
            out.append(f"{where}: expected no result, got {st.result}")
        elif want is not None:
            if st.result is None:
                out.append(f"{where}: expected a result {want}, the game goes on")
            else:
                for k, v in want.items():
                    if st.result.get(k) != v:
                        out.append(f"{where}: result {k}: expected {v!r}, got {st.result.get(k)!r}")
    if "ap_spent" in exp and exp["ap_spent"] != spent:
        out.append(f"{where}: AP spent: expected {exp['ap_spent']}, got {spent}")
    for who, want in (exp.get("events") or {}).items():
        if who not in RECIPIENTS:
            raise ConfigError(f"{where}: events for unknown recipient {who!r} ({', '.join(RECIPIENTS)})")
        seat = None if who == "spectator" else who
        got_all = seat_events(st.last, seat)
        got = got_all if exp.get("all_events") else [e for e in got_all if e["type"] not in ROUTINE]
        want_l = list(want or [])
        if got != want_l:
            out.append(f"{where}: events of {who}:\n    expected {want_l}\n    got      {got}")
    for who, want in (exp.get("view") or {}).items():
        seat = None if who == "spectator" else who
        v = observation(st, seat)
        for k, wv in (want or {}).items():
            if v.get(k) != wv:
                out.append(f"{where}: view of {who}, {k}: expected {wv!r}, got {v.get(k)!r}")
    return out


def _ap_spent(st: SubState, orders: Any) -> int | None:
    """AP the order's actions spend (S-4.5), by running them on a scratch copy."""
    from botwars.games.submarine.engine import GameEnded
    from botwars.games.submarine.state import TurnOrders
    if not isinstance(orders, TurnOrders) or orders.resign:
        return None
    scratch = st.clone()
    try:
        Resolver(scratch).run_actions(orders.actions)
    except GameEnded:
        pass
    return st.ap - scratch.ap if scratch.phase != "over" else None


def _run_clock(doc: dict[str, Any], source: str) -> list[str]:
    """``clock`` scenarios (S-7.8): ``clock: {turns_s: [...], expect: [{status, p1_reserve_s}]}``
    charged to p1 with the rule set's time control."""
    from botwars.engine.timecontrol import Clock
    rs = get_ruleset("submarine")
    cfg = rs.validate_config(doc.get("config") or {}, source=source)
    spec = doc["clock"] or {}
    clock = Clock.start(rs.time_control(cfg), ["p1", "p2"])
    out = []
    for i, (t, want) in enumerate(zip(spec.get("turns_s") or [], spec.get("expect") or []), 1):
        status = clock.spend("p1", float(t))
        if status != want.get("status", ClockStatus.OK):
            out.append(f"clock step {i}: status expected {want.get('status', ClockStatus.OK)}, got {status}")
        if "p1_reserve_s" in want and abs(clock.bank_left["p1"] - float(want["p1_reserve_s"])) > 1e-6:
            out.append(f"clock step {i}: reserve expected {want['p1_reserve_s']}, got {clock.bank_left['p1']}")
        if status == ClockStatus.EXPIRED and rs.time_control(cfg).on_expiry != OnExpiry.LOSS:
            out.append(f"clock step {i}: expiry must lose the game (S-7.8)")
    return out


class SubmarineScenario(ScenarioFormat):
    """The submarine scenario format's hooks for the kernel runner
    (:func:`botwars.engine.scenario.run_scenario`): ``setups`` (set-up decision points from the
    rule set's own start) and ``turns`` (one submission each: a refused one leaves the same
    player to move at the same decision point, S-4.3, up to ``max_rejections``, S-7.10) are
    played through one referee; ``clock`` (S-7.8) is :meth:`special`."""

    known_keys = frozenset(KNOWN)
    schema = "botwars.games.submarine.scenario_schema:Scenario"

    def special(self, rules: Any, doc: dict[str, Any], loc: Locator) -> list[str] | None:
        """A ``clock`` scenario (S-7.8)."""
        return _run_clock(doc, loc.source) if "clock" in doc else None

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """With ``setups``: the rule set's own start (``seed``); else the position of
        :func:`build_state`."""
        doc = case.doc
        if "setups" in doc:
            cfg = rules.validate_config({k: (str(v) if k == "p1_home_row" else v)
                                         for k, v in (doc.get("config") or {}).items()}, source=loc.source)
            return Start(cfg, ["p1", "p2"], None, int(doc.get("seed", 0)), ctx={"setups": True})
        st = build_state(doc, loc.source)
        return Start(st.config, ["p1", "p2"], st, ctx={"setups": False})

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The ``setups``, then the ``turns``."""
        doc = case.doc
        setups = doc.get("setups") or [] if "setups" in doc else []
        if not isinstance(setups, list):
            raise loc.error("'setups' must be a list of decision entries", "setups")
        turns = doc.get("turns") or []
        if not turns and "setups" not in doc:
            raise loc.error("no turns given", "turns")
        return [(("setups", i), e) for i, e in enumerate(setups)] + [(("turns", i), e) for i, e in enumerate(turns)]

    def step(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], start: Start,
             loc: Locator) -> Step:
        """A set-up entry: each awaited seat's set-up (``timeout: [seat]``: its default, the
        forfeit); a turn entry: the orders of the player to move."""
        kind, i = path[0], path[1] + 1
        where = f"setup decision {i}" if kind == "setups" else f"turn entry {i}"
        if not isinstance(entry, dict):
            raise loc.error(f"{where} must be a mapping", *path)
        exp = entry.get("expect") or {}
        if not isinstance(exp, dict):
            raise loc.error(f"{where}: 'expect' must be a mapping", *path, "expect")
        st = ref.state
        if kind == "setups":
            if ref.over:
                raise loc.error(f"{where}: the game is already over", *path)
            subs = []
            for seat in ref.awaited():
                if seat in (entry.get("timeout") or []):
                    subs.append(Submission(seat, failure="timeout"))
                    continue
                if seat not in entry:
                    raise loc.error(f"{where}: no setup for pending seat {seat}", *path)
                want = (exp.get("rejected") or {}).get(seat)
                subs.append(Submission(seat, payload=entry[seat], refusal=None if want is None else str(want),
                                       label=f"{seat}'s setup"))
            return Step(subs, where=where, fill_defaults=False)
        if path[1] == 0 and start.ctx["setups"] and st.phase != "play":
            return Step(stop=True)  # the set-up ended the game
        where = f"turn {st.turn} (entry {i})"
        seat = st.active
        if seat is None or ref.over:
            raise loc.error(f"{where}: the game is already over", *path)
        fails = []
        if "player" in entry and entry["player"] != seat:
            fails.append(f"{where}: expected {entry['player']} to move, got {seat}")
        want = str(exp["rejected"]) if "rejected" in exp else None
        return Step([Submission(seat, payload=entry.get("orders", ""), refusal=want, label="order")],
                    where=where, fill_defaults=False, failures=fails)

    def check(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], played: Played,
              start: Start, loc: Locator, where: str) -> list[str]:
        """The entry's ``expect`` (set-up: also ``pending``); a turn's ``ap_spent`` counts the AP
        of the orders as accepted (S-4.5)."""
        exp = entry.get("expect") or {}
        if path[0] == "setups":
            out = []
            awaited = ref.awaited()
            if "pending" in exp and awaited != list(exp["pending"] or []):
                out.append(f"{where}: pending: expected {exp['pending']}, got {awaited}")
            return out + _check(ref.state, {k: v for k, v in exp.items() if k not in ("rejected", "pending")},
                                where, None)
        seat = played.before.active
        settled = played.settled.get(seat) or ref.settled(seat)
        spent = _ap_spent(played.before, settled.orders) if settled is not None else None
        return _check(ref.state, exp, where, spent)


SCENARIO = SubmarineScenario()
"""The plug-in's ``scenario`` hook."""
