"""The machinery of the conformance suite: seeded random playthroughs of any registered game,
driven through the one :class:`~botwars.engine.referee.Referee` (never ``Ruleset.resolve``),
with the API checks made at every decision point (in the manner of OpenSpiel's
``random_sim_test`` and PettingZoo's ``api_test``).

Nothing here names a game: a game is known only through the registry and its ``Ruleset``
(parameters, seats, built-in bots, ``legal_orders``, ``orders_json``, ``twin_state``).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from dataclasses import dataclass, field
from typing import Any

from botwars.engine.plugin import get_game
from botwars.agents.base import AgentFailure, CallableAgent
from botwars.engine.codes import Receipt
from botwars.engine.record import RecordWriter, read_record, verify_record
from botwars.engine.referee import Referee
from botwars.engine.ruleset import Ruleset, canonical_json, get_ruleset, ruleset_ids

GAMES = ruleset_ids()
"""Every registered game, at collection time (a game registered by a plug-in is included)."""

TURN_LIMIT_PARAMS = ("max_turns", "turn_limit", "max_rounds")
"""Parameter names by which a game bounds its length; a playthrough lowers whichever it has."""

GARBAGE: tuple[Any, ...] = ("\x00 not orders at all \x00", {"conformance": "garbage"}, 3.25, [[["?"]]])
"""Payloads no game accepts: each must be refused (never accepted, never a crash)."""

SAMPLE_LEGAL = 50
"""At most this many legal orders are tried per seat and decision point."""


def short_overrides(rs: Ruleset, turns: int = 10) -> dict[str, Any]:
    """Parameter overrides that lower the game's turn limit to ``turns`` (where it has one)."""
    table = rs.param_table()
    over: dict[str, Any] = {}
    for name in TURN_LIMIT_PARAMS:
        p = table.get(name)
        if p is not None and p.type is int:
            over[name] = max(int(p.minimum or 1), min(turns, int(p.default)))
    return over


def short_config(rs: Ruleset, turns: int = 10) -> dict[str, Any]:
    """The game's validated default config with its turn limit lowered to ``turns``."""
    return rs.validate_config(short_overrides(rs, turns))


def seats_for(rs: Ruleset) -> list[str]:
    """Two seats where the game allows it (so that one seat can interfere with another)."""
    return rs.seat_names(min(max(2, rs.min_seats), rs.max_seats))


def canon(x: Any) -> str:
    return canonical_json(x)


def strip_times(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Record lines without their measured times."""
    return [{k: v for k, v in line.items() if k != "time_s"} for line in lines]


def make_bots(rs: Ruleset, config: dict[str, Any], seats: list[str], seed: int) -> dict[str, CallableAgent]:
    """One built-in bot per seat (``random`` where the game has it), started with the seat's
    one-way seed; empty when the game has no built-in bot."""
    bots = get_game(rs.id).builtin_bots()
    if not bots:
        return {}
    name = "random" if "random" in bots else sorted(bots)[0]
    out = {}
    for s in seats:
        a = CallableAgent(bots[name](), f"builtin:{name}")
        try:
            a.start(rs.id, s, copy.deepcopy(config), rs.agent_seed(seed, s))
        except AgentFailure:
            pass
        out[s] = a
    return out


# ---- what one seat can observe ----------------------------------------------------------------
def facts(ref: Referee, seat: str | None) -> str:
    """Everything the referee gives ``seat`` (``None``: a spectator) as one canonical text: its
    view, the events it has been shown, its own record, the decision counter, whether it is
    awaited. Another seat's refusal or hidden facts must not change it."""
    return canon({"view": ref.view(seat), "events": ref.seat_events(seat), "record": ref.record(seat),
                  "decision": ref.decision, "turn": ref.turn(),
                  "awaited": seat in ref.awaited() if seat is not None else None})


def mutants(payload: Any, rng: random.Random, strings: list[str], k: int = 6) -> list[Any]:
    """``k`` small mutations of a JSON payload (a value nudged or replaced by a string the seat
    has seen, two elements swapped, a key or element dropped or repeated, a key added): most
    are invalid, some valid."""
    out: list[Any] = []
    for _ in range(k * 4):
        if len(out) >= k:
            break
        m = _mutate(copy.deepcopy(payload), rng, strings)
        if m is not _SAME and canon(m) != canon(payload):
            out.append(m)
    return out


_SAME = object()


def _mutate(x: Any, rng: random.Random, strings: list[str]) -> Any:
    if isinstance(x, bool):
        return not x
    if isinstance(x, int):
        return x + rng.choice([-7, -1, 1, 2, 13])
    if isinstance(x, float):
        return x * 2 + 1
    if isinstance(x, str):
        if strings and rng.random() < 0.7:
            return rng.choice(strings)
        return x[::-1] if len(x) > 1 else x + "?"
    if x is None:
        return rng.choice([0, "", [], *strings[:20]])
    if isinstance(x, list):
        if not x:
            return [rng.choice(strings) if strings else 0]
        i = rng.randrange(len(x))
        r = rng.random()
        if r < 0.25:
            return x[:i] + x[i + 1:]
        if r < 0.4:
            return x + [x[i]]
        if r < 0.6 and len(x) > 1:  # two elements swapped (e.g. a program in another order)
            j = rng.randrange(len(x) - 1)
            j += j >= i
            y = list(x)
            y[i], y[j] = y[j], y[i]
            return y
        m = _mutate(x[i], rng, strings)
        return _SAME if m is _SAME else x[:i] + [m] + x[i + 1:]
    if isinstance(x, dict):
        if not x:
            return {"unknown": 1}
        key = rng.choice(sorted(x))
        r = rng.random()
        if r < 0.2:
            return {k: v for k, v in x.items() if k != key}
        if r < 0.3:
            return {**x, "conformance_unknown_key": 1}
        if r < 0.4 and strings:  # a key the seat has seen (in its view), with a value it has seen
            return {**x, rng.choice(strings): rng.choice(strings)}
        m = _mutate(x[key], rng, strings)
        return _SAME if m is _SAME else {**x, key: m}
    return _SAME


def echoes(payload: Any, view: Any, rng: random.Random, strings: list[str]) -> list[Any]:
    """A dict payload with one top-level key of the seat's view added (a field a bot might
    echo back, e.g. memory it keeps between turns), valued with a non-empty string it has seen."""
    if not isinstance(payload, dict) or not isinstance(view, dict):
        return []
    words = [w for w in strings if w] or ["x"]
    return [{**payload, k: rng.choice(words)} for k in sorted(view) if k not in payload]


def strings_in(obj: Any, limit: int = 200) -> list[str]:
    """Short strings occurring in a JSON value (views, payloads): the vocabulary of mutations."""
    out: set[str] = set()

    def walk(v: Any) -> None:
        if len(out) >= limit:
            return
        if isinstance(v, str) and len(v) <= 12:
            out.add(v)
        elif isinstance(v, dict):
            for k, w in v.items():
                if len(k) <= 12:
                    out.add(k)
                walk(w)
        elif isinstance(v, list):
            for w in v:
                walk(w)
    walk(obj)
    return sorted(out)


def answer(ref: Referee, seat: str, payload: Any) -> str:
    """How the open decision point answers ``payload`` from ``seat`` (the referee is rolled back
    afterwards): accepted with the orders it became (``orders_json``), or refused with the
    refusal's code, message and part."""
    cp = ref.checkpoint()
    try:
        tk = ref.submit(seat, payload, 0.0)
        if tk.receipt in (Receipt.ACCEPTED, Receipt.REPLACED):
            st = ref.settled(seat)
            assert st is not None
            try:
                return canon(["accepted", ref.ruleset.orders_json(st.orders), tk.warnings])
            except (TypeError, ValueError):  # reported by the round trip
                return canon(["accepted", repr(st.orders), tk.warnings])
        err = tk.error
        return canon(["refused", tk.receipt.value, err.code if err else None, err.message if err else None,
                      repr(err.part) if err else None])
    finally:
        ref.rollback(cp)


# ---- one playthrough ----------------------------------------------------------------------------
@dataclass
class Action:
    """What one seat did at one decision point: ``submit`` a payload, or take its ``default``."""

    seat: str
    kind: str
    payload: Any
    elapsed_s: float


@dataclass
class Playthrough:
    """A finished playthrough: the referee, the actions of every decision point, and what the
    checks saw (``twins_differed``: a twin state differed from the real one somewhere;
    ``hidden``: the game has a twin hook; counts of legal orders, mutants and refusals tried)."""

    game: str
    seed: int
    config: dict[str, Any]
    seats: list[str]
    ref: Referee
    script: list[list[Action]] = field(default_factory=list)
    hidden: bool = False
    twins_differed: int = 0
    legal_tried: int = 0
    mutants_tried: int = 0
    refusals: int = 0
    replaced: int = 0
    problems: list[str] = field(default_factory=list)

    def fail(self, msg: str) -> None:
        if len(self.problems) < 30:
            self.problems.append(f"{self.game} seed {self.seed} decision {self.ref.decision}: {msg}")


def run(ref: Referee, actions: list[Action], payload_of: dict[int, Any] | None = None) -> None:
    """Apply ``actions`` to the open decision point (``payload_of``: replacement payloads by
    action index) and resolve it when it is complete."""
    for i, a in enumerate(actions):
        if ref.over:
            break
        if a.kind == "default":
            ref.default(a.seat, {"code": "crash", "detail": "conformance: agent failed"}, a.elapsed_s)
        else:
            ref.submit(a.seat, a.payload if payload_of is None or i not in payload_of else payload_of[i],
                       a.elapsed_s)
    if ref.ready():
        ref.resolve_point()


class Player:
    """Plays a seeded random game through a referee and checks every decision point."""

    def __init__(self, game: str, seed: int, *, turns: int = 10, checks: bool = True):
        self.rs = get_ruleset(game)
        self.rng = random.Random(f"conformance:{game}:{seed}")
        self.config = short_config(self.rs, turns)
        self.seats = seats_for(self.rs)
        ref = Referee(self.rs, self.config, self.seats, seed, clock=False,
                      agents={s: "conformance" for s in self.seats})
        self.p = Playthrough(game, seed, self.config, self.seats, ref)
        self.bots = make_bots(self.rs, self.config, self.seats, seed)
        self.checks = checks

    @property
    def ref(self) -> Referee:
        return self.p.ref

    # -- choosing orders
    def proposal(self, seat: str) -> Any:
        """A payload for ``seat``: a uniformly drawn legal order where the game lists them, else
        its built-in bot's answer, else ``None`` (take the default)."""
        legal = self.rs.legal_orders(self.ref.state, seat)
        if legal:
            return copy.deepcopy(self.rng.choice(legal))
        bot = self.bots.get(seat)
        if bot is None:
            return None
        try:
            return bot.act(self.ref.view(seat), None)
        except AgentFailure:
            return None

    def play_seat(self, seat: str, actions: list[Action]) -> None:
        ref = self.ref
        rng = self.rng
        limit = self.rs.refusal_limit(ref.state, seat)
        t = rng.random()
        if ref.n == 0 and seat == self.seats[0] and self.p.seed % 3 == 1:
            # (one seed in three) the first seat's agent fails at the first decision point: the
            # other seats' orders are then hidden facts of the next one (e.g. secret set-ups)
            actions.append(Action(seat, "default", None, t))
            ref.default(seat, {"code": "crash", "detail": "conformance: agent failed"}, t)
            return
        if rng.random() < 0.15 and (limit is None or limit > 1):
            g = rng.choice(GARBAGE)
            actions.append(Action(seat, "submit", g, t))
            tk = ref.submit(seat, g, t)
            if tk.receipt != Receipt.REFUSED:
                self.p.fail(f"garbage {g!r} from {seat} was not refused ({tk.receipt})")
            self.p.refusals += 1
            if seat not in ref.awaited():
                return
        if rng.random() < 0.1:
            actions.append(Action(seat, "default", None, t + 0.5))
            ref.default(seat, {"code": "crash", "detail": "conformance: agent failed"}, t + 0.5)
            return
        payload = self.proposal(seat)
        if payload is None:
            actions.append(Action(seat, "default", None, t + 0.5))
            ref.default(seat, {"code": "timeout", "detail": "conformance: no orders"}, t + 0.5)
            return
        actions.append(Action(seat, "submit", payload, t + 0.5))
        tk = ref.submit(seat, payload, t + 0.5)
        if tk.receipt == Receipt.REFUSED:
            # a built-in bot's orders must be valid; say so and go on with the default
            self.p.fail(f"{seat}'s built-in bot orders {payload!r} were refused: {tk.error}")
            if seat in ref.awaited():
                actions.append(Action(seat, "default", None, t + 0.6))
                ref.default(seat, {"code": "malformed", "detail": "refused"}, t + 0.6)
            return
        if self.rs.replaces_submissions and rng.random() < 0.2 and not ref.over:
            # a correction: a later valid submission replaces the earlier one (F-5.5, G-16.1)
            again = self.proposal(seat)
            if again is not None:
                actions.append(Action(seat, "submit", again, t + 0.7))
                tk = ref.submit(seat, again, t + 0.7)
                if tk.receipt != Receipt.REPLACED:
                    self.p.fail(f"a second valid submission of {seat} was {tk.receipt.value}, not replaced")
                self.p.replaced += 1

    # -- the checks at one open decision point
    def check_point(self) -> None:
        ref, rs, rng, p = self.ref, self.rs, self.rng, self.p
        pending = ref.pending()
        if len(set(pending)) != len(pending) or not set(pending) <= set(self.seats):
            p.fail(f"pending {pending} is not a list of distinct seats")
        if ref.awaited() != pending:
            p.fail(f"awaited {ref.awaited()} != pending {pending} at the opening of the point")
        if ref.decision != ref.n + 1:
            p.fail(f"decision counter {ref.decision} at an open point after {ref.n} resolved")
        viewers: list[str | None] = [*self.seats, None]
        before = {s: facts(ref, s) for s in viewers}
        state_before = canon(rs.state_json(ref.state))
        cp = ref.checkpoint()
        for seat in pending:
            # every legal order (a sample of at most 50) is accepted, and round-trips
            legal = rs.legal_orders(ref.state, seat)
            if legal is not None:
                sample = legal if len(legal) <= SAMPLE_LEGAL else rng.sample(legal, SAMPLE_LEGAL)
                for payload in sample:
                    p.legal_tried += 1
                    tk = ref.submit(seat, payload, 0.0)
                    if tk.receipt != Receipt.ACCEPTED:
                        p.fail(f"legal order {payload!r} of {seat} was {tk.receipt.value}: {tk.error}")
                    else:
                        self.round_trip(seat, payload, cp)
                    ref.rollback(cp)
            # the seat's own orders and mutations of them: whatever is accepted round-trips
            mine = self.proposal(seat)
            if mine is not None:
                vocab = strings_in([ref.view(seat), mine])
                for payload in [mine] + mutants(mine, rng, vocab, 8) + echoes(mine, ref.view(seat), rng, vocab):
                    tk = ref.submit(seat, payload, 0.0)
                    if tk.receipt == Receipt.ACCEPTED:
                        self.round_trip(seat, payload, cp)
                    ref.rollback(cp)
            # the default order is accepted, as no payload
            tk = ref.default(seat, {"code": "timeout", "detail": "conformance"}, 0.0)
            st = ref.settled(seat)
            if tk.receipt != Receipt.ACCEPTED or st is None or st.payload is not None:
                p.fail(f"default orders of {seat}: {tk.receipt.value}, settled {st}")
            ref.rollback(cp)
            # garbage is refused, and the refusal is told to that seat only (S-8.6)
            g = GARBAGE[(ref.n + self.seats.index(seat)) % len(GARBAGE)]
            tk = ref.submit(seat, g, 0.0)
            if tk.receipt != Receipt.REFUSED or tk.error is None or not tk.error.message:
                p.fail(f"garbage {g!r} from {seat}: {tk.receipt.value} without a message")
            for other in viewers:
                if other != seat and facts(ref, other) != before[other]:
                    p.fail(f"{seat}'s refused submission changed what {other} is shown")
            ref.rollback(cp)
        self.check_twins(pending, cp, before)
        if canon(rs.state_json(ref.state)) != state_before or any(facts(ref, s) != before[s] for s in viewers):
            p.fail("checks on a checkpointed referee left a trace after rollback")

    def round_trip(self, seat: str, payload: Any, cp: Any) -> None:
        """payload -> orders -> payload -> orders: the second payload is the first again
        (``orders_json`` is stable), and both orders resolve the point to the same state (the
        other seats taking their default orders), so nothing of the orders is lost. (Events may
        differ: a game may report the parts of a payload it ignored, arena P8.)"""
        ref, rs, p = self.ref, self.rs, self.p
        st = ref.settled(seat)
        assert st is not None
        try:
            p1 = rs.orders_json(st.orders)
            text = json.dumps(p1)
        except (TypeError, ValueError) as exc:
            p.fail(f"orders_json of {seat}'s orders from {payload!r} is not JSON: {exc}")
            return
        if json.loads(text) != p1:
            p.fail(f"orders_json gives a value that JSON does not keep: {p1!r}")
        d0 = self.digest_with(seat, payload, cp)
        tk = ref.submit(seat, p1, 0.0)
        if tk.receipt != Receipt.ACCEPTED:
            p.fail(f"orders_json payload {p1!r} (from {payload!r}) is {tk.receipt.value}: {tk.error}")
            ref.rollback(cp)
            return
        st2 = ref.settled(seat)
        assert st2 is not None
        p2 = rs.orders_json(st2.orders)
        if canon(p2) != canon(p1):
            p.fail(f"orders do not round-trip: {payload!r} -> {p1!r} -> {p2!r}")
        d1 = self.digest_with(seat, p1, cp)
        if d0 != d1:
            p.fail(f"orders lose something in orders_json: {payload!r} and {p1!r} resolve differently")

    def digest_with(self, seat: str, payload: Any, cp: Any) -> str | None:
        """The state (canonical JSON) after the point resolved with ``payload`` for ``seat`` and
        the default orders for every other awaited seat (rolled back to ``cp`` before and after)."""
        ref = self.ref
        ref.rollback(cp)
        ref.submit(seat, payload, 0.0)
        for other in ref.awaited():
            ref.default(other, {"code": "timeout", "detail": "conformance"}, 0.0)
        dig = None
        if ref.ready():
            ref.resolve_point()
            dig = canon(ref.ruleset.state_json(ref.state))
        ref.rollback(cp)
        return dig

    def check_twins(self, pending: list[str], cp: Any, before: dict[str | None, str]) -> None:
        """Non-interference: a twin state that differs only in facts hidden from a seat changes
        nothing that seat is shown or told (its view, events, record, decision counter, the
        answers to its submissions)."""
        ref, rs, rng, p = self.ref, self.rs, self.rng, self.p
        for seat in [*self.seats, None]:
            tw = rs.twin_state(ref.state, seat, rng)
            if tw is None:
                continue
            p.hidden = True
            if canon(rs.state_json(tw)) != canon(rs.state_json(ref.state)):
                p.twins_differed += 1
            probes: list[Any] = []
            if seat in pending:
                assert seat is not None
                legal = rs.legal_orders(ref.state, seat) or []
                base = [self.proposal(seat)] + (rng.sample(legal, min(3, len(legal))) if legal else [])
                vocab = strings_in([ref.view(seat), base])
                probes = list(GARBAGE)
                for b in base:
                    if b is not None:
                        probes += [b] + mutants(b, rng, vocab)
                p.mutants_tried += len(probes)
            real = [answer(ref, seat, x) for x in probes] if seat is not None else []
            ref.rollback(dataclasses.replace(cp, state=tw))
            try:
                if facts(ref, seat) != before[seat]:
                    p.fail(f"what {seat} is shown depends on facts hidden from it: "
                           f"{_diff(before[seat], facts(ref, seat))}")
                twin = [answer(ref, seat, x) for x in probes] if seat is not None else []
                for x, a, b in zip(probes, real, twin):
                    if a != b:
                        p.fail(f"the answer to {seat}'s {x!r} depends on facts hidden from it: {a} vs {b}")
            finally:
                ref.rollback(cp)

    # -- the round trip and resolution of one decision point
    def resolve_point(self, actions: list[Action], cp0: Any) -> None:
        """Resolve the settled point; the same point played with every accepted payload replaced
        by its ``orders_json`` form must resolve to the same state."""
        ref, rs, p = self.ref, self.rs, self.p
        if not ref.ready():
            return
        n = ref.n
        cp_ready = ref.checkpoint()
        ref.resolve_point()
        line = ref.last_line
        after = canon(rs.state_json(ref.state))
        if ref.n != n + 1 or line.get("n") != n + 1:
            p.fail(f"resolution moved the counter from {n} to {ref.n} (line {line.get('n')})")
        if not self.checks:
            return
        # the same orders in their orders_json form give the same resolution
        replaced: dict[int, Any] = {}
        ref.rollback(cp0)
        for i, a in enumerate(actions):
            if a.kind == "submit":
                tk = ref.submit(a.seat, a.payload, a.elapsed_s)
                st = ref.settled(a.seat)
                if tk.receipt in (Receipt.ACCEPTED, Receipt.REPLACED) and st is not None:
                    replaced[i] = rs.orders_json(st.orders)
            else:
                ref.default(a.seat, {"code": "crash", "detail": "conformance: agent failed"}, a.elapsed_s)
        ref.rollback(cp0)
        run(ref, actions, replaced)
        if canon(rs.state_json(ref.state)) != after:
            p.fail(f"orders in their orders_json form resolve differently: {replaced}")
        ref.rollback(cp_ready)
        ref.resolve_point()
        if canon(ref.last_line) != canon(line):
            p.fail("resolving the same settled point twice gave different lines")

    def play(self, max_decisions: int = 400) -> Playthrough:
        ref = self.ref
        while not ref.over:
            if ref.n >= max_decisions:
                self.p.fail(f"no outcome after {max_decisions} decision points")
                break
            if self.checks:
                self.check_point()
            cp0 = ref.checkpoint()
            actions: list[Action] = []
            for seat in list(ref.pending()):
                if ref.over:
                    break
                self.play_seat(seat, actions)
            self.p.script.append(actions)
            self.resolve_point(actions, cp0)
        return self.p


def _diff(a: str, b: str) -> str:
    x, y = json.loads(a), json.loads(b)
    keys = [k for k in x if x.get(k) != y.get(k)]
    return ", ".join(f"{k}: {json.dumps(x[k])[:300]} != {json.dumps(y.get(k))[:300]}" for k in keys)


def replay_script(p: Playthrough, time_scale: float = 1.0) -> Referee:
    """The same seed and the same actions on a fresh referee (times scaled by ``time_scale``)."""
    rs = get_ruleset(p.game)
    ref = Referee(rs, p.config, p.seats, p.seed, clock=False, agents={s: "conformance" for s in p.seats})
    for actions in p.script:
        run(ref, [dataclasses.replace(a, elapsed_s=a.elapsed_s * time_scale) for a in actions])
    return ref


def write_record(ref: Referee, path: str) -> str:
    """Write the referee's full record to ``path`` (header, decision lines, outcome line)."""
    lines = ref.record(None)
    w = RecordWriter(path, lines[0])
    for line in lines[1:-1] if ref.over else lines[1:]:
        w.line(line)
    if ref.over:
        w.finish(lines[-1])
    else:
        w.f.close()
    return path


def verify_file(path: str) -> tuple[bool, str]:
    return verify_record(read_record(path))


def read_lines(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def write_lines(path: str, lines: list[dict[str, Any]]) -> str:
    with open(path, "w", encoding="utf-8") as f:
        for x in lines:
            f.write(canonical_json(x) + "\n")
    return path


# ---- the HTTP API ---------------------------------------------------------------------------------
class FakeClock:
    """The server clock in tests: moves only when told (epoch seconds)."""

    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def api_client(db_path: str, clock: FakeClock) -> Any:
    """A FastAPI test client of a server on the SQLite file ``db_path`` (bots inline, clock
    ``clock``); use it as a context manager (start-up and shut-down run the manager)."""
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    return TestClient(create_app(f"sqlite:///{db_path}", background=False, now=clock))


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}

