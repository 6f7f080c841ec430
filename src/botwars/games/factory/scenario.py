"""Factory scenario files (docs/factory.md, "Scenario files").

A scenario is a YAML mapping: a board (``grid`` rows in the §13 convention, or ``board``: a
shipped board name or full board text), robots by player name in seat order (square, facing,
HP, mode, flags touched, options, registers), and either

* ``play``: the stages to play with the registers given (``[1]``, ``[2, 3]``, or ``turn`` for
  all five stages and the end of turn), with ``expect`` keyed ``stage N`` / ``end``; or
* ``turns``: a list of turns played through the order parser (``orders`` per player, the F-15.1
  payload), each with its own ``expect``; the hands are dealt by the rules (``seed``).

Expectations: ``<player>: "r1c2 E 10 [real|virtual]"`` or ``destroyed`` / ``out``; ``rows``:
``{ROW: {player: cell}}`` of that stage's (or the end) table; ``lines``: the exact report text;
``contains``: lines that must appear; ``players``: ``{player: {next_flag, checkpoint,
robots_left, stations, sets, options}}``; ``devices``; ``hands``; ``invalid``: ``{player:
text}`` (the order must be refused with a message containing it); ``result``.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.referee import Referee
from botwars.engine.scenario import Case, Locator, Played, ScenarioFormat, Start, Step, Submission
from botwars.games.factory.board import DIRS, grid_board, load_board, parse_board, parse_sq, sq_str
from botwars.games.factory.cards import parse_card
from botwars.games.factory.state import Bot

KNOWN = {"game", "name", "rules", "description", "config", "grid", "board", "start", "seed", "turn", "robots",
         "play", "expect", "turns", "devices", "option_deck", "players"}
ROBOT_KEYS = {"at", "facing", "hp", "mode", "flags", "options", "program", "robots_left", "checkpoint", "stations",
              "sets", "sacrifice_at", "wrench2", "standing_facing", "rebooting", "reboot", "reinst", "out",
              "destroyed"}


def _err(source: str, msg: str, *path: Any) -> ConfigError:
    """A :class:`ConfigError` at key ``path`` of the file (FILE:LINE:COLUMN); without a path the
    kernel's runner places it at the entry, or the top-level key, it concerns."""
    return Locator(source).error(msg, *path) if path else ConfigError(msg, source=source)


def build(rs: Any, doc: dict[str, Any], source: str) -> tuple[Any, dict[str, int]]:
    """The scenario's starting state (turn ``turn`` about to be played) and player indexes."""
    unknown = set(doc) - KNOWN
    if unknown:
        raise _err(source, f"unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(KNOWN))})")
    overrides = dict(doc.get("config") or {})
    if "grid" in doc:
        overrides.setdefault("robot_lasers", False)  # the §13 convention: lasers off unless stated
    # a scenario file names no file: a shipped board or the board text itself (issue 25)
    config = rs.validate_config(overrides, source=source, allow_paths=False)
    if "grid" in doc:
        board = grid_board(str(doc["grid"]), source, doc.get("start"), edge=config["edge"])
    elif "board" in doc:
        text = str(doc["board"])
        rs.refuse_paths({"board": text}, source=source)
        board = parse_board(text, source, edge=config["edge"]) if "\n" in text else load_board(text, config["edge"])
    else:
        raise _err(source, "a scenario needs 'grid' (row lines) or 'board' (a board name or text)")
    robots = doc.get("robots")
    turn = int(doc.get("turn", 2 if robots else 1))
    seed = str(doc.get("seed", "scenario"))
    if not robots:
        names = [str(n) for n in (doc.get("players") or ["Alice", "Bob"])]
        if not 1 <= len(names) <= 8:
            raise _err(source, "players: 1 to 8 names", "players")
        st = rs.setup(config, [f"p{k + 1}" for k in range(len(names))], seed, board=board, names=names)
        st.dealt = True
        return st, {n: p for p, n in enumerate(names)}
    names = [str(n) for n in robots]
    seats = [f"p{k + 1}" for k in range(len(names))]
    st = rs.empty_state(config, seats, seed, board, names)
    st.started = len(names)
    st.turn = turn - 1
    if "option_deck" in doc:
        st.option_deck = [str(x) for x in doc["option_deck"]]
    for p, name in enumerate(names):
        spec = robots[name] or {}
        if not isinstance(spec, dict):
            raise _err(source, f"robot {name}: expected a mapping", "robots", name)
        bad = set(spec) - ROBOT_KEYS
        if bad:
            raise _err(source, f"robot {name}: unknown key(s) {', '.join(sorted(bad))}", "robots", name)
        pl = st.players[p]
        try:
            sq = parse_sq(spec.get("at", sq_str(board.start)))
        except ValueError as exc:
            raise _err(source, f"robot {name}: {exc}", "robots", name) from None
        if not board.on_board(sq):
            raise _err(source, f"robot {name}: {sq_str(sq)} is off the board", "robots", name)
        facing = str(spec.get("facing", DIRS[board.start_facing]))
        if facing not in ("N", "E", "S", "W"):
            raise _err(source, f"robot {name}: facing must be N, E, S or W", "robots", name)
        mode = str(spec.get("mode", "real"))
        if mode not in ("real", "virtual"):
            raise _err(source, f"robot {name}: mode must be real or virtual", "robots", name)
        b = Bot(p, 0, sq, DIRS.index(facing), int(spec.get("hp", config["max_hp"])), mode,
                int(spec.get("reinst", turn - 1 if mode == "virtual" else 0)))
        b.rebooting = bool(spec.get("rebooting", False))
        b.declared = bool(spec.get("reboot", False))
        prog = spec.get("program") or []
        if len(prog) > 5:
            raise _err(source, f"robot {name}: at most 5 registers", "robots", name)
        for r, card in enumerate(prog):
            if card is None or card == "-":
                continue
            try:
                b.regs[r] = parse_card(str(card))
            except ValueError as exc:
                raise _err(source, f"robot {name} register {r + 1}: {exc}", "robots", name) from None
        for o in spec.get("options") or []:
            code, _, ch = str(o).partition(":")
            b.options.append({"code": code, "charges": int(ch) if ch else (3 if code == "AA" else 0),
                              "armoury": False})
        if spec.get("destroyed") or spec.get("out"):
            b.alive = False
            b.sq = None
        st.bots.append(b)
        pl.next_flag = int(spec.get("flags", 0)) + 1
        pl.robots_left = int(spec.get("robots_left", config["robots"]))
        pl.out = bool(spec.get("out", False))
        if "checkpoint" in spec:
            pl.checkpoint = parse_sq(spec["checkpoint"])
        pl.stations = [parse_sq(x) for x in spec.get("stations") or []]
        for where_sq in [pl.checkpoint] + pl.stations:
            if not board.on_board(where_sq):
                raise _err(source, f"robot {name}: {sq_str(where_sq)} is off the board", "robots", name)
        pl.sets = [str(x) for x in spec.get("sets") or []]
        if "sacrifice_at" in spec:
            pl.standing["sacrifice_at"] = int(spec["sacrifice_at"])
        if "wrench2" in spec:
            pl.standing["wrench2"] = str(spec["wrench2"])
        if "standing_facing" in spec:
            pl.standing["facing"] = str(spec["standing_facing"])
    for kind, vals in (doc.get("devices") or {}).items():
        table = {"switches": st.switches, "trapdoors": st.trapdoors, "bridges": st.bridges,
                 "teleporters": st.teleporters}.get(kind)
        if table is None:
            raise _err(source, f"devices: unknown kind {kind!r}", "devices", kind)
        for k, v in vals.items():
            try:
                key = k if kind == "teleporters" else parse_sq(k)
            except ValueError as exc:
                raise _err(source, f"devices: {exc}", "devices", kind) from None
            if key not in table:
                raise _err(source, f"devices: no {kind[:-1]} at {k}", "devices", kind)
            table[key] = bool(v)
    return st, {n: p for p, n in enumerate(names)}


class FactoryScenario(ScenarioFormat):
    """The factory scenario format's hooks for the kernel runner
    (:func:`botwars.engine.scenario.run_scenario`): ``turns`` are decision points played through
    the referee; ``play`` (stages played directly, with the registers given) is :meth:`special`."""

    schema = "botwars.games.factory.scenario_schema:Scenario"

    def special(self, rules: Any, doc: dict[str, Any], loc: Locator) -> list[str] | None:
        """A ``play`` scenario (no ``turns``): the stages played with the registers given."""
        if "turns" in doc:
            return None
        return _play_stages(rules, doc, loc.source)

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """The position of :func:`build`, its hands dealt (``ctx``: player name → index and the
        last decision point's events)."""
        st, idx = build(rules, case.doc, loc.source)
        events: list[Any] = []
        if not getattr(st, "dealt", False):
            rules.start_of_turn(st, st.turn + 1, events)
        return Start(st.config, list(st.seats), st, ctx={"idx": idx, "events": events})

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The ``turns`` list."""
        if not isinstance(case.doc["turns"], list):
            raise loc.error("turns must be a list", "turns")
        return [(("turns", n), e) for n, e in enumerate(case.doc["turns"] or [])]

    def step(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], start: Start,
             loc: Locator) -> Step:
        """Each player's ``orders`` (the F-15.1 payload; ``cards: hand`` is the hand as dealt),
        refused where ``expect.invalid`` says; the other seats get their default orders."""
        entry = entry or {}
        if not isinstance(entry, dict):
            raise loc.error(f"turns entry {path[-1] + 1} must be a mapping", *path)
        st, idx = ref.state, start.ctx["idx"]
        where = f"turn {st.turn + 1}"
        failures: list[str] = []
        if "hands_before" in entry:
            _check(rules, st, {"hands": entry["hands_before"]}, [], idx, where + " (deal)", failures, loc.source)
        invalid = (entry.get("expect") or {}).get("invalid") or {}
        subs = []
        for name, payload in (entry.get("orders") or {}).items():
            if name not in idx:
                raise loc.error(f"{where}: orders for unknown player {name}", *path, "orders", name)
            seat = st.seats[idx[name]]
            if isinstance(payload, dict) and payload.get("cards") == "hand":
                payload = dict(payload, cards=list(rules.default_orders(st, seat).cards))
            subs.append(Submission(seat, payload=payload, label=f"orders of {name}",
                                   refusal=str(invalid[name]) if name in invalid else None))
        for name in invalid:
            if name not in (entry.get("orders") or {}):
                raise loc.error(f"{where}: 'invalid' for {name}, who sent no orders", *path, "expect", "invalid", name)
        return Step(subs, where=where, resolve=bool(entry.get("resolve", True)) and not st.over, failures=failures)

    def check(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], played: Played,
              start: Start, loc: Locator, where: str) -> list[str]:
        """The entry's ``expect`` block (``invalid`` is the kernel's)."""
        if played.resolved:
            start.ctx["events"] = played.events
        exp = {k: v for k, v in ((entry or {}).get("expect") or {}).items() if k != "invalid"}
        failures: list[str] = []
        _check(rules, ref.state, exp, start.ctx["events"], start.ctx["idx"], where, failures, loc.source)
        return failures


def _play_stages(rs: Any, doc: dict[str, Any], source: str) -> list[str]:
    """A ``play`` scenario: the stages (or the whole turn) played with the registers given;
    returns failure lines."""
    from botwars.games.factory.rules import Ctx
    st, idx = build(rs, doc, source)
    failures: list[str] = []
    play = doc.get("play", "turn")
    expect = doc.get("expect") or {}
    if not isinstance(expect, dict) or not all(isinstance(v, dict) or k == "stages_played" for k, v in expect.items()):
        raise _err(source, "expect must map 'stage N' / 'end' / 'deal' to expectations")
    c = Ctx(st, st.turn + 1)
    if play == "turn":
        rs.play_turn(c)
        st.turn = c.t
        if "deal" in expect and not st.over:
            rs.start_of_turn(st, c.t + 1, c.events)
    else:
        if not isinstance(play, list) or not all(isinstance(s, int) and 1 <= s <= 5 for s in play):
            raise _err(source, "play must be 'turn' or a list of stage numbers 1-5")
        for s in play:
            n0 = len(c.events)
            rs.stage(c, s)
            key = f"stage {s}"
            if key in expect:
                _check(rs, st, expect[key], c.events[n0:], idx, key, failures, source)
            if st.over:
                break
        for key in expect:
            if key not in [f"stage {s}" for s in play]:
                raise _err(source, f"expect: {key!r} is not a played stage")
        return failures
    for key, exp in expect.items():
        if key == "deal":
            _check(rs, st, exp, [], idx, key, failures, source)
            continue
        if key == "stages_played":
            got = sorted({e.data["stage"] for e in c.events if e.kind == "stage"})
            if got != list(exp):
                failures.append(f"stages played: expected {exp}, got {got}")
            continue
        if key == "end":
            evs = [e for e in c.events if e.kind in ("end", "fused", "result")]
        elif key.startswith("stage ") and key.split()[1].isdigit():
            s = int(key.split()[1])
            evs = [e for e in c.events if e.kind == "stage" and e.data["stage"] == s]
            if not evs:
                failures.append(f"{key}: the stage was not played")
                continue
            k = c.events.index(evs[0])
            evs = [evs[0]] + [e for e in c.events[k + 1:k + 2] if e.kind == "result"]
        else:
            raise _err(source, f"expect: unknown key {key!r} (stage N or end)")
        _check(rs, st, exp, evs, idx, key, failures, source, final=(key == "end" or (st.over and key == f"stage {c.s}")))
    return failures




SCENARIO = FactoryScenario()
"""The plug-in's ``scenario`` hook."""


def _robot_text(st: Any, p: int) -> str:
    pl = st.players[p]
    b = st.bots[st.bots_of(p)[0]]
    if pl.out:
        return "out"
    if not b.alive:
        return "destroyed"
    return f"{sq_str(b.sq)} {DIRS[b.facing]} {b.hp} {b.mode}"


def _check(rs: Any, st: Any, exp: dict[str, Any], events: list[Any], idx: dict[str, int], where: str,
           failures: list[str], source: str, final: bool = True) -> None:
    names = list(idx)
    report_lines = [ln for e in events if e.kind in ("stage", "end", "fused", "result", "hand")
                    for ln in e.data["lines"]]
    tables = [e for e in events if e.kind in ("stage", "end")]
    for key, want in exp.items():
        if key in idx:
            if not final:
                continue
            got = _robot_text(st, idx[key])
            w = str(want).strip()
            g = got if len(w.split()) >= 4 or got in ("out", "destroyed") else " ".join(got.split()[:len(w.split())])
            if g != w:
                failures.append(f"{where}: {key}: expected {w}, got {got}")
        elif key == "rows":
            if not tables:
                failures.append(f"{where}: no report table")
                continue
            rows = {r[0]: r[1:] for r in tables[0].data["rows"]}
            for row, cells in want.items():
                for name, cell in cells.items():
                    if name not in idx:
                        raise _err(source, f"{where}: rows: unknown player {name}")
                    got = rows.get(row, ["-"] * len(names))[st.bots_of(idx[name])[0]]
                    if got != str(cell):
                        failures.append(f"{where}: {row} of {name}: expected {cell!r}, got {got!r}")
        elif key == "lines":
            w = [ln.rstrip() for ln in str(want).strip("\n").split("\n")]
            if report_lines != w:
                failures.append(f"{where}: report differs:\n  expected:\n    " + "\n    ".join(w)
                                + "\n  got:\n    " + "\n    ".join(report_lines))
        elif key == "contains":
            for ln in want:
                if str(ln) not in report_lines:
                    failures.append(f"{where}: report lacks line {ln!r}")
        elif key == "players":
            for name, fields in want.items():
                pl = st.players[idx[name]]
                b = st.bots[st.bots_of(idx[name])[0]]
                got_all = {"next_flag": pl.next_flag, "checkpoint": sq_str(pl.checkpoint),
                           "robots_left": pl.robots_left, "stations": [sq_str(x) for x in pl.stations],
                           "sets": list(pl.sets), "out": pl.out,
                           "options": [o["code"] + (f":{o['charges']}" if o["code"] == "AA" else "") for o in b.options],
                           "registers": [None if r is None else rs_card(r) for r in b.regs],
                           "rebooting": b.rebooting, "hand_size": len(st.hands.get(st.bots_of(idx[name])[0], [])),
                           "filled": [r is not None for r in b.regs], "hp": b.hp,
                           "standing": dict(pl.standing)}
                for f, v in fields.items():
                    if f not in got_all:
                        raise _err(source, f"{where}: players: unknown field {f!r}")
                    if got_all[f] != v:
                        failures.append(f"{where}: {name} {f}: expected {v!r}, got {got_all[f]!r}")
        elif key == "devices":
            for k, v in want.items():
                try:
                    got = _device(st, k)
                except ValueError as exc:
                    raise _err(source, f"{where}: devices: {exc}") from None
                if got != v:
                    failures.append(f"{where}: device {k}: expected {v!r}, got {got!r}")
        elif key == "hands":
            from botwars.games.factory.cards import card_str
            for name, cards in want.items():
                got = [card_str(x) for x in st.hands.get(st.bots_of(idx[name])[0], [])]
                if got != list(cards):
                    failures.append(f"{where}: hand of {name}: expected {cards}, got {got}")
        elif key == "result":
            if st.result is None:
                failures.append(f"{where}: expected a result, the game is not over")
                continue
            if "reason" in want and want["reason"] != st.result["reason"]:
                failures.append(f"{where}: result reason: expected {want['reason']}, got {st.result['reason']}")
            if "winners" in want:
                got = [names[p] for p in st.winners]
                if got != list(want["winners"]):
                    failures.append(f"{where}: winners: expected {want['winners']}, got {got}")
        elif key == "over":
            if bool(want) != st.over:
                failures.append(f"{where}: over: expected {want}, got {st.over}")
        elif key == "option_deck":
            if list(st.option_deck) != list(want):
                failures.append(f"{where}: option deck: expected {want}, got {st.option_deck}")
        else:
            raise _err(source, f"{where}: unknown expectation {key!r}")


def rs_card(p: int) -> str:
    from botwars.games.factory.cards import card_str
    return card_str(p)


def _device(st: Any, key: str) -> Any:
    if key in st.teleporters:
        return st.teleporters[key]
    if key[-1] in "NESW" and key[:-1].startswith("r"):
        sq = parse_sq(key[:-1])
        k3 = (sq[0], sq[1], DIRS.index(key[-1]))
        if k3 in st.eyes:
            return st.eyes[k3]
        if k3 in st.blasers:
            return st.blasers[k3]
    sq = parse_sq(key)
    for table in (st.switches, st.trapdoors):
        if sq in table:
            return table[sq]
    if sq in st.bridges:
        return "lowered" if st.bridges[sq] else "raised"
    return None
