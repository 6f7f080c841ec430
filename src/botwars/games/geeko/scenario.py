"""Geeko scenario files (docs/geeko.md, "Scenario files").

A scenario is a YAML mapping with a room (``room: k`` of the standard set, or ``grid`` row
lines with a two-square ``start``), robots ``A`` and ``B`` and either

* ``play``: stages to play with the registers given (``[1, 2]`` or ``turn`` for the stages
  1..N and the end of turn), ``length`` L (default: the longest program), ``expect`` keyed
  ``stage N`` / ``end`` / ``stages_played``; or
* ``turns``: turns played through the order parser from a dealt hand (``seed``), each with
  ``orders`` (the G-16.1 payload, or ``default``), optional ``hand`` (the hand before the
  orders), ``invalid`` (a payload and the text its refusal must contain) and ``expect``.

Robot keys: ``at``, ``facing``, ``hp``, ``place`` (``board``, ``parked``, ``exited``,
``transit``), ``transit``, ``program`` (registers 1.., ``FWD1 500`` or ``null``),
``fused`` (register → card), ``options``, ``stations`` (room → square), ``sets``,
``rebooting``.  Robot expectations: ``"r1c2 E 10 real"`` (any prefix of square, facing, HP,
MODE) or a mode word (``parked``, ``exited``, ``transit``, ``destroyed``); ``rows``:
``{ROW: {A|B: cell}}``; ``contains``: lines of that report; ``room``; ``gates``
``{rRcC: open}``; ``registers`` ``{A: {9: LF90 290}}``; ``hand_size``; ``finished``.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.referee import Referee
from botwars.engine.scenario import Case, Locator, Played, ScenarioFormat, Start, Step, Submission
from botwars.games.factory.board import DIRS, parse_sq, sq_str
from botwars.games.factory.cards import card_str, parse_card
from botwars.games.factory.rules import Ctx
from botwars.games.geeko.board import parse_room
from botwars.games.geeko.state import LETTERS

KNOWN = {"game", "name", "rules", "description", "config", "room", "grid", "start", "seed", "turn", "robots",
         "devices", "length", "play", "expect", "turns", "player"}
ROBOT_KEYS = {"at", "facing", "hp", "place", "transit", "program", "fused", "options", "stations", "sets",
              "rebooting"}


def _err(source: str, msg: str, *path: Any) -> ConfigError:
    """A :class:`ConfigError` at key ``path`` of the file (FILE:LINE:COLUMN); without a path the
    kernel's runner places it at the entry, or the top-level key, it concerns."""
    return Locator(source).error(msg, *path) if path else ConfigError(msg, source=source)


def build(rs: Any, doc: dict[str, Any], source: str):
    """The scenario's game state (one player) with the room and robots set up."""
    unknown = set(doc) - KNOWN
    if unknown:
        raise _err(source, f"unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(KNOWN))})")
    cfg = rs.validate_config(dict(doc.get("config") or {}), source=source, allow_paths=False)  # no file (issue 25)
    name = str(doc.get("player", "Alice"))
    gs = rs.setup(cfg, ["p1"], doc.get("seed", "scenario"), [name])
    run = gs.runs[0]
    if "grid" in doc:
        rows = str(doc["grid"]).strip("\n").split("\n")
        text = (f"board: scenario\nrows: {len(rows)}\ncols: {len(rows[0].split()) - 1}\n"
                f"start: {doc.get('start', 'r1c3 N, r1c5 N')}\ngrid:\n" + "\n".join(rows) + "\nend\n")
        board = parse_room(text, source, check=False)
        real = [p for p in board.problems if not p[0].startswith(("G-2.1: a room", "G-2.2"))]
        if real:
            raise _err(source, real[0][0])
        k = int(doc.get("room", 1))  # the room number the grid stands for (reports, stations)
        run.board = board
        run.room = k
        fresh = rs.empty_state(cfg, ["p1"], run.seed, board, [name])
        for attr in ("switches", "trapdoors", "bridges", "teleporters", "eyes", "blasers"):
            setattr(run, attr, getattr(fresh, attr))
        run.gates = {sq: board.kind[sq][2] for sq in board.gates()}
        for b in run.bots:
            sq, f = board.starts[b.slot]
            b.sq, b.facing = sq, f
    elif "room" in doc:
        k = doc["room"]
        if not isinstance(k, int) or not 1 <= k <= 5:
            raise _err(source, f"room must be 1 to 5, got {k!r}", "room")
        rs.enter_room(run, k)
    turn = int(doc.get("turn", 1 if "turns" in doc else 2))
    gs.turn = run.turn = turn - 1
    for letter, spec in (doc.get("robots") or {}).items():
        if letter not in LETTERS:
            raise _err(source, f"robots are A and B, got {letter!r}", "robots", letter)
        bad = set(spec or {}) - ROBOT_KEYS
        if bad:
            raise _err(source, f"robot {letter}: unknown key(s) {', '.join(sorted(bad))}", "robots", letter)
        set_robot(run, LETTERS.index(letter), spec or {}, source)
    for b in run.bots:
        if b.place in ("board", "parked") and (b.sq is None or not run.board.on_board(b.sq)):
            raise _err(source, f"robot {b.letter}: {sq_str(b.sq) if b.sq else 'no square'} is not a square of "
                               f"the room ({run.board.rows} rows, {run.board.cols} columns)")
    dev = doc.get("devices") or {}
    for kind, one, table in (("switches", "switch", run.switches), ("trapdoors", "trap door", run.trapdoors),
                             ("bridges", "drawbridge", run.bridges), ("teleporters", "teleporter", run.teleporters)):
        for k, v in (dev.get(kind) or {}).items():
            key = k if kind == "teleporters" else parse_sq(k)
            if key not in table:
                raise _err(source, f"devices: the room has no {one} {k}", "devices", kind)
            table[key] = (v in (True, "lowered")) if kind == "bridges" else bool(v)
    for k, v in (dev.get("gates") or {}).items():
        if parse_sq(k) not in run.gates:
            raise _err(source, f"{k} is not a gate of the room")
        run.gates[parse_sq(k)] = bool(v)
    return gs


def set_robot(run: Any, slot: int, spec: dict[str, Any], source: str) -> None:
    b = run.bots[slot]
    try:
        if "at" in spec:
            b.sq = parse_sq(spec["at"])
        if "facing" in spec:
            b.facing = DIRS.index(spec["facing"])
        if "hp" in spec:
            b.hp = int(spec["hp"])
        for r, card in enumerate(spec.get("program") or []):
            b.regs[r] = None if card is None else parse_card(str(card))
        for r, card in (spec.get("fused") or {}).items():
            b.regs[int(r) - 1] = parse_card(str(card))
    except ValueError as exc:
        raise _err(source, f"robot {LETTERS[slot]}: {exc}", "robots", LETTERS[slot]) from None
    b.options = [{"code": o, "charges": 3 if o == "AA" else 0, "armoury": True} for o in spec.get("options", [])]
    b.stations = {int(k): parse_sq(v) for k, v in (spec.get("stations") or {}).items()}
    b.sets = list(spec.get("sets") or [])
    b.rebooting = bool(spec.get("rebooting", False))
    place = spec.get("place", "board")
    b.place = place
    b.alive = place == "board"
    if place == "transit":
        b.sq = None
        b.transit = int(spec.get("transit", 1))
    if place == "exited":
        b.sq = None


def bot_text(rs: Any, run: Any, i: int) -> str:
    b = run.bots[i]
    mode = rs.mode_text(run, i)
    if b.alive or b.place == "parked":
        return f"{sq_str(b.sq)} {DIRS[b.facing]} {b.hp} {mode}"
    return mode


def check(rs: Any, gs: Any, exp: dict[str, Any], ev: Any, where: str) -> list[str]:
    """Compare expectations with the run and a report event (or ``None``)."""
    run = gs.runs[0]
    fails = []
    for key, want in exp.items():
        if key in LETTERS:
            got = bot_text(rs, run, LETTERS.index(key))
            if not got.startswith(str(want)):
                fails.append(f"{where}: robot {key} is {got!r}, expected {want!r}")
        elif key == "rows":
            if ev is None:
                fails.append(f"{where}: no report table")
                continue
            rows = {r[0]: r[1:] for r in ev.data["rows"]}
            for label, cells in want.items():
                if label not in rows:
                    fails.append(f"{where}: no row {label}")
                    continue
                for letter, cell in cells.items():
                    if letter not in LETTERS:
                        raise ConfigError(f"{where}: row {label}: robots are A and B, got {letter!r}")
                    got = rows[label][LETTERS.index(letter)]
                    if got != str(cell):
                        fails.append(f"{where}: {label} {letter} is {got!r}, expected {cell!r}")
        elif key == "contains":
            lines = ev.data["lines"] if ev is not None else []
            for line in want:
                if line not in lines:
                    fails.append(f"{where}: line {line!r} not in the report:\n  " + "\n  ".join(lines))
        elif key == "room":
            if run.room != want:
                fails.append(f"{where}: room is {run.room}, expected {want}")
        elif key == "gates":
            for sq, v in want.items():
                if run.gates.get(parse_sq(sq)) != v:
                    fails.append(f"{where}: gate {sq} open is {run.gates.get(parse_sq(sq))}, expected {v}")
        elif key == "devices":
            for sq, v in want.items():
                s = parse_sq(sq)
                got = run.switches.get(s, run.trapdoors.get(s, run.bridges.get(s)))
                if got != v:
                    fails.append(f"{where}: device {sq} is {got}, expected {v}")
        elif key == "registers":
            for letter, regs in want.items():
                b = run.bots[LETTERS.index(letter)]
                for r, card in regs.items():
                    got = None if b.regs[int(r) - 1] is None else card_str(b.regs[int(r) - 1])
                    if got != card:
                        fails.append(f"{where}: {letter} register {r} holds {got}, expected {card}")
        elif key == "hand_size":
            if len(run.hand) != want:
                fails.append(f"{where}: hand has {len(run.hand)} cards, expected {want}")
        elif key == "hand":
            got = [card_str(c) for c in run.hand]
            if got != list(want):
                fails.append(f"{where}: hand is {got}, expected {want}")
        elif key == "hand_message":
            got = run.hand_msgs.get("p1", [])
            for line in want:
                if line not in got:
                    fails.append(f"{where}: hand message line {line!r} not in {got}")
        elif key == "finished":
            if run.finished != want:
                fails.append(f"{where}: finished is {run.finished}, expected {want}")
        elif key == "lost":
            if run.lost != want:
                fails.append(f"{where}: lost is {run.lost}, expected {want}")
        elif key == "hp":
            for letter, hp in want.items():
                got = run.bots[LETTERS.index(letter)].hp
                if got != hp:
                    fails.append(f"{where}: {letter} HP is {got}, expected {hp}")
        elif key == "sets":
            for letter, sets in want.items():
                got = run.bots[LETTERS.index(letter)].sets
                if got != list(sets):
                    fails.append(f"{where}: {letter} sets are {got}, expected {sets}")
        elif key == "stages_played":
            pass
        else:
            raise ConfigError(f"{where}: unknown expectation {key!r}")
    return fails


class GeekoScenario(ScenarioFormat):
    """The geeko scenario format's hooks for the kernel runner
    (:func:`botwars.engine.scenario.run_scenario`): ``turns`` are decision points played through
    the referee; ``play`` (stages played directly, with the registers given) is :meth:`special`."""

    stop_on_surprise = True  # an order refused against the file: the later turns mean nothing
    schema = "botwars.games.geeko.scenario_schema:Scenario"

    def check_shape(self, doc: dict[str, Any], source: str) -> None:
        """Keys, types and formats (scenario_schema), with file:line:column (issue 11); exactly
        one of ``play`` and ``turns``."""
        super().check_shape(doc, source)
        if ("play" in doc) == ("turns" in doc):
            raise Locator(source).error("give exactly one of 'play' and 'turns'", "play" if "play" in doc else "turns")

    def special(self, rules: Any, doc: dict[str, Any], loc: Locator) -> list[str] | None:
        """A ``play`` scenario: the stages played with the registers given."""
        if "play" not in doc:
            return None
        return play_stages(rules, build(rules, doc, loc.source), doc, loc.source)

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """The position of :func:`build`, the first hand dealt (G-5)."""
        gs = build(rules, case.doc, loc.source)
        rules.deal(gs.runs[0], gs.turn + 1, [])
        return Start(gs.config, list(rules.seats_of(gs)), gs)

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The ``turns`` list."""
        return [(("turns", n), e) for n, e in enumerate(case.doc["turns"])]

    def step(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], start: Start,
             loc: Locator) -> Step:
        """The ``invalid`` payloads (each must be refused with its ``error``), then ``orders``
        (the G-16.1 payload, or ``default``); ``hand``, ``hand_size`` and ``hand_message`` are
        checked before."""
        gs = ref.state
        where = f"{loc.source}: turn {gs.turn + 1}"
        fails: list[str] = []
        if "hand" in entry:
            got = [card_str(c) for c in gs.runs[0].hand]
            if got != list(entry["hand"]):
                fails.append(f"{where}: hand is {got}, expected {entry['hand']}")
        for k in ("hand_size", "hand_message"):
            if k in entry:
                fails += check(rules, gs, {k: entry[k]}, None, where)
        subs = [Submission("p1", payload=bad["orders"], refusal=str(bad["error"]), label=f"order {bad['orders']}")
                for bad in entry.get("invalid") or []]
        raw = entry.get("orders", "default")
        subs.append(Submission("p1", failure="default") if raw == "default" else Submission("p1", payload=raw))
        return Step(subs, where=where, failures=fails)

    def check(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], played: Played,
              start: Start, loc: Locator, where: str) -> list[str]:
        """``program`` (the orders as accepted) and ``expect`` (``stage N``, ``end``,
        ``stages_played`` or any robot/room expectation)."""
        gs = ref.state
        fails: list[str] = []
        if "program" in entry and "p1" in played.settled:
            got = played.settled["p1"].orders.to_json()
            for k, v in entry["program"].items():
                if got.get(k) != v:
                    fails.append(f"{where}: program {k} is {got.get(k)}, expected {v}")
        stages = {e.data["stage"]: e for e in played.events if e.kind == "stage"}
        end = next((e for e in played.events if e.kind == "end"), None)
        for key, want in (entry.get("expect") or {}).items():
            if key.startswith("stage "):
                k = int(key.split()[1])
                if k not in stages:
                    fails.append(f"{where}: stage {k} was not played")
                    continue
                fails += check(rules, gs, want, stages[k], f"{where} {key}")
            elif key == "end":
                fails += check(rules, gs, want, end, f"{where} end")
            elif key == "stages_played":
                if len(stages) != want:
                    fails.append(f"{where}: {len(stages)} stages played, expected {want}")
            else:
                fails += check(rules, gs, {key: want}, None, where)
        return fails


def play_stages(rs: Any, gs: Any, doc: dict[str, Any], source: str) -> list[str]:
    run = gs.runs[0]
    t = gs.turn + 1
    progs = {i: len([c for c in ((doc.get("robots") or {}).get(b.letter) or {}).get("program") or []])
             for i, b in enumerate(run.bots)}
    L = int(doc.get("length", max(progs.values() or [0])))
    for i, b in enumerate(run.bots):
        if not b.alive or b.rebooting:
            b.run_len = 0
        else:
            free = rs.free_registers(run, i)
            b.run_len = 9 if (free == 0 or L == free) else L
    run.length = L
    c = Ctx(run, t)
    play = doc["play"]
    exp = doc.get("expect") or {}
    bad = [k for k in exp if not (k.startswith("stage ") or k in ("end", "stages_played"))]
    if bad:
        raise _err(source, f"unknown expectation key {bad[0]!r} (stage N, end, stages_played)")
    fails: list[str] = []
    played: list[int] = []

    def one(s: int) -> None:
        rs.stage(c, s)
        played.append(s)
        want = exp.get(f"stage {s}")
        if want is not None:
            ev = next(e for e in reversed(c.events) if e.kind == "stage")
            fails.extend(check(rs, gs, want, ev, f"{source}: stage {s}"))

    if play == "turn":  # as GeekoRuleset.play_turn, checking each stage as it ends
        n = max([b.run_len for b in run.bots if b.alive] or [0])
        for s in range(1, n + 1):
            if not rs.on_board(run):
                break
            one(s)
        rs.end_of_turn(c)
    elif isinstance(play, list) and all(isinstance(s, int) and 1 <= s <= 9 for s in play):
        for s in play:
            one(s)
    else:
        raise _err(source, f"play must be 'turn' or a list of stages 1-9, got {play!r}")
    for key in exp:
        if key.startswith("stage ") and int(key.split()[1]) not in played:
            fails.append(f"{source}: {key} was not played")
    if "end" in exp:
        end = next((e for e in c.events if e.kind == "end"), None)
        fails += check(rs, gs, exp["end"], end, f"{source}: end")
    if "stages_played" in exp and len(played) != exp["stages_played"]:
        fails.append(f"{source}: {len(played)} stages played, expected {exp['stages_played']}")
    return fails



SCENARIO = GeekoScenario()
"""The plug-in's ``scenario`` hook."""
