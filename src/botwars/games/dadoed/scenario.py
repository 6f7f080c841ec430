"""DADOED scenario files (``botwars scenario run``; format in docs/dadoed.md).

A scenario gives a position (a D-2.6 text board plus rooted bots, supers, reserves, extra fire
under bots, pool counts, the turn) and a list of orders, each with what must happen: the
position after it, the exact events, the result, or that the order is refused (and the state
left untouched).
"""

from __future__ import annotations

from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.referee import Referee
from botwars.engine.ruleset import get_ruleset
from botwars.engine.scenario import Case, Locator, Played, ScenarioFormat, Start, Step, Submission
from botwars.games.dadoed.board import LABELS, parse_board, parse_tile, tile_str, tiles_sorted
from botwars.games.dadoed.engine import PLAYERS, Bot, State, iter_legal, order_text
from botwars.games.dadoed.pool import load_pool

KNOWN = {"game", "name", "description", "rules", "config", "board", "turn", "rooted", "supers", "reserves", "fire",
         "holes", "boulders", "pool", "gold_refreshes", "orders", "phase"}
ENTRY = {"order", "expect", "reject", "note", "setup"}
EXPECT = {"board", "bots", "holes", "fire", "boulders", "pool", "gold_refreshes", "events", "events_include",
          "result", "rooted", "active", "turn", "legal", "not_legal", "reserves", "log_order"}


def _err(source: str, msg: str, *path: Any) -> ConfigError:
    """A :class:`ConfigError` at key ``path`` of the file (FILE:LINE:COLUMN); without a path the
    kernel's runner places it at the entry, or the top-level key, it concerns."""
    return Locator(source).error(msg, *path) if path else ConfigError(msg, source=source)


def _tiles(v: Any, source: str, what: str) -> set:
    if v is None:
        return set()
    if isinstance(v, str):
        v = [x for x in v.replace(",", " ").split() if x]
    try:
        return {parse_tile(x) for x in v}
    except (ValueError, TypeError) as exc:
        raise _err(source, f"{what}: {exc}") from None


def _block_place(source: str, key: str) -> dict[str, int]:
    """Where the text of top-level ``key`` starts in the YAML file ``source``: ``first_line``
    (1-based) and ``indent`` for :func:`~botwars.games.dadoed.board.parse_board`, so that its
    errors name the file's line and column; ``{}`` when unknown."""
    import yaml

    from botwars.engine.safeload import compose_yaml, read_text
    try:
        text = read_text(source)
        root = compose_yaml(text, source)
    except ConfigError:
        return {}
    if not isinstance(root, yaml.MappingNode):
        return {}
    node = next((v for k, v in root.value if k.value == key), None)
    if not isinstance(node, yaml.ScalarNode):
        return {}
    if node.style in ("|", ">"):  # block scalar: the text starts on the next line, indented
        lines = text.splitlines()
        first = node.start_mark.line + 1
        while first < len(lines) and not lines[first].strip():
            first += 1
        indent = len(lines[first]) - len(lines[first].lstrip()) if first < len(lines) else 0
        return {"first_line": node.start_mark.line + 2, "indent": indent}
    return {"first_line": node.start_mark.line + 1, "indent": node.start_mark.column}


def build_state(doc: dict[str, Any], source: str) -> State:
    """The scenario's starting position; raises :class:`ConfigError` for a malformed one."""
    rs = get_ruleset("dadoed")
    overrides = dict(doc.get("config") or {})
    # a scenario file names no file: the shipped pool or the pool text itself (issue 25)
    config = rs.validate_config(overrides, source=source, allow_paths=False)
    pool = load_pool(config["pool"])
    if "board" not in doc:
        raise _err(source, "missing key 'board' (a D-2.6 text board)")
    bt = parse_board(doc["board"], source, **_block_place(source, "board"))
    holes = bt.holes | _tiles(doc.get("holes"), source, "holes")
    fire = bt.fire | _tiles(doc.get("fire"), source, "fire")
    boulders = bt.boulders | _tiles(doc.get("boulders"), source, "boulders")
    if fire & (boulders | holes):
        raise _err(source, "fire on a boulder or a hole (D-2.3)")
    rooted = [str(x).upper() for x in (doc.get("rooted") or [])]
    supers = {str(k).upper(): v for k, v in (doc.get("supers") or {}).items()}
    bots: dict[str, Bot] = {}
    for lb, (owner, t) in bt.bots.items():
        bots[lb] = Bot(owner, t)
    for player, labels in (doc.get("reserves") or {}).items():
        if player not in PLAYERS:
            raise _err(source, f"reserves: unknown player {player!r} (blue or orange)", "reserves")
        for lb in labels or []:
            lb = str(lb).upper()
            if lb not in LABELS or lb in bots:
                raise _err(source, f"reserves: {lb} is not a free bot label", "reserves")
            bots[lb] = Bot(player, None)
    for lb in rooted:
        if lb not in bots or bots[lb].tile is None:
            raise _err(source, f"rooted: no bot {lb} on the board", "rooted")
        bots[lb] = Bot(bots[lb].owner, bots[lb].tile, True)
    for lb, pair in supers.items():
        if lb not in bots:
            raise _err(source, f"supers: no bot {lb}", "supers")
        if not isinstance(pair, list) or len(pair) != 2 or any(pool.get(x) is None for x in pair):
            raise _err(source, f"supers: {lb} needs [first, second] command ids of the pool", "supers")
        bots[lb] = Bot(bots[lb].owner, bots[lb].tile, bots[lb].rooted, (pair[0], pair[1]))
    left = pool.initial_left()
    for cid, n in (doc.get("pool") or {}).items():
        if cid not in left:
            raise _err(source, f"pool: unknown command {cid!r}", "pool")
        left[cid] = n
    turn = int(doc.get("turn", 1))
    if turn < 1:
        raise _err(source, "turn must be 1 or more")
    phase = doc.get("phase", "play")
    if phase not in ("play", "setup"):
        raise _err(source, "phase must be play or setup")
    return State(("blue", "orange"), config, pool, phase, turn - 1 if phase == "play" else 0, holes, fire, boulders,
                 bots, left, int(doc.get("gold_refreshes", 0)))


def _bot_desc(st: State, lb: str) -> str:
    b = st.bots.get(lb)
    if b is None:
        return "absent"
    return f"reserve {b.owner}" if b.tile is None else f"{tile_str(b.tile)} {b.owner}"


def _check(rs, st: State, events, exp: dict[str, Any], where: str, source: str) -> list[str]:
    fails: list[str] = []
    unknown = set(exp) - EXPECT
    if unknown:
        raise _err(source, f"{where}: unknown expectation(s) {', '.join(sorted(unknown))} "
                           f"(known: {', '.join(sorted(EXPECT))})")
    if "board" in exp:
        want = [ln.rstrip() for ln in str(exp["board"]).splitlines() if ln.strip()]
        got = st.board_lines()
        if want and want[0].strip() != "ABCDEFGH":
            got = got[1:]
        if want != got:
            fails.append(f"{where}: board differs:\n    expected:\n      " + "\n      ".join(want)
                         + "\n    got:\n      " + "\n      ".join(got))
    for lb, want in (exp.get("bots") or {}).items():
        lb = str(lb).upper()
        got = _bot_desc(st, lb)
        w = str(want).strip()
        if w.startswith("reserve") or len(w.split()) > 1 or w == "absent":
            ok = got == w
        else:
            ok = got.split()[0] == w.upper()
        if not ok:
            fails.append(f"{where}: bot {lb}: expected {w}, got {got}")
    for key, have in (("holes", st.holes), ("fire", st.fire), ("boulders", st.boulders)):
        if key in exp:
            want = tiles_sorted(_tiles(exp[key], source, key))
            if tiles_sorted(have) != want:
                fails.append(f"{where}: {key}: expected {want}, got {tiles_sorted(have)}")
    for cid, want in (exp.get("pool") or {}).items():
        if st.left.get(cid) != want:
            fails.append(f"{where}: pool {cid}: expected {want} left, got {st.left.get(cid)}")
    if "gold_refreshes" in exp and st.gold_refreshes != exp["gold_refreshes"]:
        fails.append(f"{where}: gold_refreshes: expected {exp['gold_refreshes']}, got {st.gold_refreshes}")
    if "rooted" in exp:
        got = sorted(lb for lb, b in st.bots.items() if b.rooted)
        want = sorted(str(x).upper() for x in exp["rooted"] or [])
        if got != want:
            fails.append(f"{where}: rooted: expected {want}, got {got}")
    if "reserves" in exp:
        for p, want in (exp["reserves"] or {}).items():
            got = st.reserve(p)
            if got != sorted(str(x).upper() for x in want or []):
                fails.append(f"{where}: {p} reserve: expected {want}, got {got}")
    evs = [{"type": e.kind, **e.data} for e in events]
    if "events" in exp:
        want = exp["events"] or []
        if evs != want:
            fails.append(f"{where}: events differ:\n    expected: {want}\n    got:      {evs}")
    for w in exp.get("events_include") or []:
        if w not in evs:
            fails.append(f"{where}: expected event {w} among {evs}")
    if "result" in exp:
        want = exp["result"]
        got = {"winner": st.result[0], "reason": st.result[1]} if st.result else None
        if want != got:
            fails.append(f"{where}: result: expected {want}, got {got}")
    if "active" in exp:
        got = st.active if st.phase == "play" else None
        if got != exp["active"]:
            fails.append(f"{where}: active: expected {exp['active']}, got {got}")
    if "turn" in exp and st.turn + 1 != exp["turn"]:
        fails.append(f"{where}: turn to play: expected {exp['turn']}, got {st.turn + 1}")
    if "legal" in exp or "not_legal" in exp:
        texts = {order_text(st, o) for o in iter_legal(st, st.active)}
        for t in exp.get("legal") or []:
            if t not in texts:
                fails.append(f"{where}: expected {t!r} to be legal for {st.active}")
        for t in exp.get("not_legal") or []:
            if t in texts:
                fails.append(f"{where}: expected {t!r} not to be legal for {st.active}")
    if "log_order" in exp:
        got = st.log[-1]["order"] if st.log else None
        if got != exp["log_order"]:
            fails.append(f"{where}: logged order: expected {exp['log_order']!r}, got {got!r}")
    return fails


class DadoedScenario(ScenarioFormat):
    """The DADOED scenario format's hooks for the kernel runner (:func:`botwars.engine.scenario.run_scenario`)."""

    stop_on_surprise = True  # an order refused (or accepted) against the file: later entries mean nothing

    known_keys = frozenset(KNOWN)
    schema = "botwars.games.dadoed.scenario_schema:Scenario"

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """The position of :func:`build_state`."""
        st = build_state(case.doc, loc.source)
        return Start(st.config, list(rules.seats_of(st)), st)

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The ``orders`` list."""
        entries = case.doc.get("orders")
        if not isinstance(entries, list) or not entries:
            raise loc.error("'orders' must be a non-empty list", "orders")
        return [(("orders", i), e) for i, e in enumerate(entries)]

    def step(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], start: Start,
             loc: Locator) -> Step:
        """``setup``: each seat's set-up (D-3), the missing ones by default; ``order``: the
        player to move's order, refused where ``reject`` says (the state stays as it was)."""
        i = path[-1] + 1
        if not isinstance(entry, dict) or not (set(entry) & {"order", "setup"}):
            raise loc.error(f"order entry {i}: needs 'order' (or 'setup')", *path)
        extra = sorted(set(entry) - ENTRY)
        if extra:
            raise loc.error(f"order entry {i}: unknown key(s) {', '.join(extra)}", *path, extra[0])
        st = ref.state
        where = f"entry {i} (turn {st.turn + 1}, {entry.get('order', 'setup')!r})"
        if "setup" in entry:
            reject = entry.get("reject") if isinstance(entry.get("reject"), dict) else {}
            subs = [Submission(seat, payload=payload, refusal=reject.get(seat), on_refusal="default",
                               label=f"setup of {seat}") for seat, payload in (entry["setup"] or {}).items()]
            return Step(subs, where=where)
        if st.phase != "play":
            return Step(where=where, failures=[f"{where}: the game is over ({st.result}); no more orders"], stop=True)
        want = str(entry["reject"]) if "reject" in entry else None
        return Step([Submission(st.seat_of(st.active), payload=entry["order"], refusal=want, label="order")],
                    where=where, fill_defaults=False)

    def follow(self, rules: Any, ref: Referee) -> bool:
        """The decision point that applies D-8.4 / D-5.2 after the clock needs no orders."""
        return bool(ref.state.phase == "ending")

    def check(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], played: Played,
              start: Start, loc: Locator, where: str) -> list[str]:
        """The entry's ``expect`` block."""
        return _check(rules, ref.state, played.events, entry.get("expect") or {}, where, loc.source)


SCENARIO = DadoedScenario()
"""The plug-in's ``scenario`` hook."""
