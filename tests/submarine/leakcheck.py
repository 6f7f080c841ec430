"""The submarine leak checker: plays seeded games and, at every decision point, checks every
seat's view, events, refusal messages, legal actions and filtered record against the independent
oracle (:mod:`sub_oracle`) and against "twin" states that differ only in what the seat may not know.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

from botwars.engine.errors import InvalidOrders
from botwars.engine.record import RecordWriter
from botwars.engine.referee import Referee
from botwars.engine.ruleset import get_ruleset
from botwars.games.submarine.board import SUBS_OF, other
from botwars.games.submarine.bots import HunterBot, RandomBot
from botwars.games.submarine.records import filter_record_for_seat

from sub_oracle import Oracle, diff, scan_view

RS = get_ruleset("submarine")
RECIPIENTS = ("p1", "p2", None)


def bogus_orders(st: Any, seat: str) -> list[Any]:
    """Orders that must be refused, several of them aimed at enemy subs (S-4.3, S-8.6)."""
    enemy = SUBS_OF[other(seat)]
    own = SUBS_OF[seat]
    out: list[Any] = [{"type": "orders", "actions": [{"sub": k, "action": "move", "dir": "N"}]} for k in enemy]
    out += [{"type": "orders", "actions": [{"sub": k, "action": "sonar"}]} for k in own if k not in st.subs]
    out += [
        {"type": "orders", "actions": [{"sub": own[0], "action": "armor"}]},
        {"type": "orders", "actions": [{"sub": enemy[0], "action": "torpedo", "dir": "S"}]},
        {"type": "orders", "actions": [{"sub": k, "action": "move", "dir": "N"} for k in own] * 3},
        {"type": "orders", "actions": [{"sub": k, "action": "depth_charge", "space": "D4"} for k in own]},
        {"type": "orders", "actions": [{"sub": own[1], "action": "heal", "space": "Z9"}]},
        {"type": "setup", "placement": {}, "specials": {}},
        "x fly",
    ]
    return out


def twin(st: Any, seat: str | None, rng: random.Random) -> Any:
    """A copy of ``st`` that differs from it only in facts hidden from ``seat`` (S-8.1):
    :meth:`SubmarineRuleset.twin_state` (the hook the conformance suite in tests/engine uses)."""
    return RS.twin_state(st, seat, rng)


def refusal(st: Any, seat: str, payload: Any) -> str | None:
    try:
        RS.parse_orders(st, seat, payload)
    except InvalidOrders as exc:
        return f"{exc.code}: {exc.message} [{exc.part!r}]"
    return None


class Game:
    """One checked game; ``problems`` collects every violation found."""

    def __init__(self, seed: int, overrides: dict[str, Any], bots: tuple[type, type], record_path: str | None,
                 inject: float = 0.04):
        self.seed = seed
        self.cfg = RS.validate_config(overrides)
        self.rng = random.Random(f"leak:{seed}")
        self.agents = {}
        for seat, cls in zip(("p1", "p2"), bots):
            b = cls()
            b.start("submarine", seat, self.cfg, seed)
            self.agents[seat] = b
        self.oracle = Oracle()
        self.problems: list[str] = []
        self.record_path = record_path
        # the decision points are played through the one referee (as Match and the server do)
        self.ref = Referee(RS, self.cfg, ["p1", "p2"], seed, clock=False, agents={"p1": "x", "p2": "y"})
        self.writer = RecordWriter(record_path, self.ref.header()) if record_path else None
        self.inject = inject
        self.n = 0
        self.own_orders: dict[str, list[Any]] = {"p1": [], "p2": []}

    @property
    def st(self) -> Any:
        return self.ref.state

    def fail(self, msg: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(f"seed {self.seed} decision {self.n} turn {self.st.turn}: {msg}")

    # ---- the checks at one decision point ------------------------------------------------
    def check_views(self) -> None:
        st = self.st
        views = {r: RS.view(st, r) for r in RECIPIENTS}
        if st.phase == "play":
            for p in self.oracle.check_surfacing(st):
                self.fail(p)
            for r in RECIPIENTS:
                want = self.oracle.expected_view(st, r)
                if views[r] != want:
                    self.fail(f"view of {r} differs from the oracle: {diff(want, views[r])}")
                for p in scan_view(views[r], st, r):
                    self.fail(p)
        elif st.phase == "setup":
            for r in RECIPIENTS:
                got = views[r]
                want_keys = {"ruleset", "you", "setup", "turn", "round", "active", "home_rows", "first_player",
                             "catalog", "clock", "result"}
                if r is not None:
                    want_keys |= {"subs", "home_row", "accepted"}
                    if got.get("accepted") != (r in st.setups):
                        self.fail(f"setup view of {r}: accepted flag wrong")
                if set(got) != want_keys:
                    self.fail(f"setup view keys of {r}: {sorted(got)}")
        # non-interference: facts hidden from a recipient must not change anything it is given
        # (one recipient per decision point, in rotation)
        r = RECIPIENTS[self.n % 3]
        tw = twin(st, r, self.rng)
        if RS.view(tw, r) != views[r]:
            self.fail(f"view of {r} depends on hidden state: {diff(views[r], RS.view(tw, r))}")
        for seat in RS.pending(st):
            tw = twin(st, seat, self.rng) if seat != r else tw
            if self.n % 8 == 1 and (RS.legal_actions(tw, seat) != RS.legal_actions(st, seat) or
                                    RS.legal_actions(tw, seat, useful=True) != RS.legal_actions(st, seat, useful=True)):
                self.fail(f"legal actions of {seat} depend on hidden state")
            bogus = bogus_orders(st, seat)
            for payload in self.rng.sample(bogus, 4):
                a, b = refusal(st, seat, payload), refusal(tw, seat, payload)
                if a != b:
                    self.fail(f"refusal for {seat} depends on hidden state: {a!r} vs {b!r}")
                if a is None:
                    self.fail(f"bogus order accepted for {seat}: {payload}")

    def check_kernel_events(self, events: list[Any]) -> None:
        per = self.oracle.per_resolve[-1]
        for r in RECIPIENTS:
            got = [{"type": e.kind, **e.data} for e in events if e.visible(r)]
            if got != per[r]:
                self.fail(f"kernel events for {r} differ from the oracle: {diff({'e': per[r]}, {'e': got})}")

    def check_record(self) -> None:
        assert self.record_path
        for r in RECIPIENTS:
            lines = filter_record_for_seat(self.record_path, r)
            text = json.dumps(lines, sort_keys=True)
            if '"seed"' in text or '"digest"' in text:
                self.fail(f"record of {r} has a seed or digest")
            evs = []
            mine = []
            for ln in lines[1:]:
                if ln["type"] == "decision":
                    evs += ln["events"]
                    mine += ln.get("refused", [])
                    if ln.get("orders") is not None:
                        mine.append(ln["orders"])
                elif ln["type"] == "outcome" and self.st.result is None:
                    self.fail(f"record of {r} has an outcome line before the end")
            if evs != self.oracle.all[r]:
                self.fail(f"record of {r}: events differ from the oracle: {diff({'e': self.oracle.all[r]}, {'e': evs})}")
            if r is not None and mine != self.own_orders[r]:
                self.fail(f"record of {r}: own orders {len(mine)} differ from the {len(self.own_orders[r])} it sent")
            if r is None and mine:
                self.fail("spectator record holds orders")
            # a player's record never holds the other player's orders (S-8.1)
            if r is not None and self.st.phase != "over":
                for o in self.own_orders[other(r)]:
                    if o and json.dumps(o, sort_keys=True) in text and o not in self.own_orders[r]:
                        self.fail(f"record of {r} holds an order of {other(r)}")

    # ---- play ---------------------------------------------------------------------------------
    def step(self) -> None:
        st = self.st
        self.n += 1
        self.check_views()
        for seat in RS.pending(st):
            # a refused order leaves the seat to move again at the same decision point (S-4.3),
            # up to max_rejections (S-7.10); nothing of it reaches the other seat (S-8.6)
            while seat in self.ref.awaited():
                if self.rng.random() < self.inject:
                    payload = self.rng.choice(bogus_orders(st, seat))
                else:
                    payload = self.agents[seat].act(RS.view(st, seat))
                self.own_orders[seat].append(payload)
                self.ref.submit(seat, payload, 0.0)
        actor = st.active
        before = RS.state_json(st)
        events = self.ref.resolve_point()
        new_st = self.ref.state
        if RS.state_json(st) != before:
            self.fail("resolve changed the state it was given")
        self.oracle.absorb(list(new_st.history[len(st.history):]), actor)
        if new_st.history[len(st.history):]:
            self.check_kernel_events(events)
        elif events:
            self.fail("events without history")
        if self.writer:
            self.writer.line(self.ref.last_line)

    def play(self, record_checks: int = 0) -> list[str]:
        check_at = set()
        if record_checks:
            check_at = {self.rng.randint(1, 40) for _ in range(record_checks)}
        while RS.outcome(self.st) is None and self.n < 2000:
            self.step()
            if self.writer and self.n in check_at:
                self.check_record()
        if RS.outcome(self.st) is None:
            self.fail("game did not end")
        # the end: everyone receives the full final observation (S-12.5, H22)
        for r in RECIPIENTS:
            v = RS.view(self.st, r)
            if set(v) != {"ruleset", "you", "turn", "round", "result", "state", "history"}:
                self.fail(f"final view keys {sorted(v)}")
            elif v["history"] != [json.loads(json.dumps(e)) for e in self.st.history]:
                self.fail("final history incomplete")
        if self.writer:
            self.writer.finish(self.ref.outcome_line())
            self.check_record()
            os.remove(self.record_path)
        return self.problems


def run_games(start: int, count: int, tmpdir: str | None = None) -> tuple[list[str], dict[str, int]]:
    """Play ``count`` checked games with seeds ``start``..; returns (problems, stats)."""
    problems: list[str] = []
    stats: dict[str, int] = {"games": 0, "decisions": 0}
    for seed in range(start, start + count):
        rng = random.Random(seed)
        overrides: dict[str, Any] = {}
        if seed % 20 != 0:  # most games short, with quick edge destruction; every 20th full length
            overrides["max_rounds"] = rng.randint(1, 8)
            overrides["ring_interval"] = rng.choice([1, 2, 3, 10])
            overrides["win_points"] = rng.choice([20, 50])
            overrides["announce_points"] = rng.choice([5, 25])
        bots = rng.choice([(RandomBot, RandomBot)] * 4 + [(HunterBot, RandomBot), (RandomBot, HunterBot),
                                                          (HunterBot, HunterBot)])
        rec = os.path.join(tmpdir, f"leak-{seed}.jsonl") if tmpdir and seed % 25 == 0 else None
        g = Game(seed, overrides, bots, rec)
        problems += g.play(record_checks=3 if rec else 0)
        stats["games"] += 1
        stats["decisions"] += g.n
        for h in g.st.history:
            stats[h["type"]] = stats.get(h["type"], 0) + 1
        if len(problems) > 40:
            break
    return problems, stats
