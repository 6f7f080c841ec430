"""The seat driver (issue 26 item 1, issue 28 item 2): the one loop around the referee.

- the refusal policy, both ways: a refused payload gives the seat its default orders at once
  (arena P10, R11) unless the rules count refusals, where the seat is asked again at the same
  decision point (submarine S-7.10, its clock running on, S-7.8);
- a failure or a late reply gives the default orders (arena P10, P13) with a ``timeout`` error;
- seats whose agents run outside the process are asked at once: the record is byte for byte
  the sequential one, and two seats that each think 0.3 s overlap in time.
"""

from __future__ import annotations

import threading
import time

from botwars.engine.agent import CallableAgent
from botwars.engine.codes import FailureCode
from botwars.engine.driver import SeatDriver, refusal_counted, resimulate, settle
from botwars.engine.errors import AgentFailure
from botwars.engine.match import Match
from botwars.engine.plugin import get_game
from botwars.engine.record import read_record, verify_record
from botwars.engine.referee import Referee
from botwars.engine.ruleset import get_ruleset

ARENA = get_ruleset("arena")
SUB = get_ruleset("submarine")


class Remote:
    """An agent that is not ``in_process`` (as a program or a sandboxed bot): the driver may ask
    it in a thread. Wraps a built-in bot's ``act(view)``; counts its asks."""

    def __init__(self, bot, sleep_s: float = 0.0, log: list | None = None, name: str = ""):
        self.bot, self.sleep_s, self.log, self.name = bot, sleep_s, log, name
        self.asks = 0

    def start(self, game, seat, config, seed=0):
        if hasattr(self.bot, "start"):
            self.bot.start(game, seat, config, seed)

    def act(self, view, deadline_s):
        self.asks += 1
        t0 = time.monotonic()
        if self.sleep_s:
            time.sleep(self.sleep_s)
        out = self.bot.act(view)
        if self.log is not None:
            self.log.append((self.name, t0, time.monotonic(), threading.get_ident()))
        return out

    def close(self):
        pass


class Garbage:
    def __init__(self):
        self.asks = 0

    def act(self, view):
        self.asks += 1
        return {"not": "orders"}


def _bot(game: str, name: str):
    return get_game(game).builtin_bots()[name]()


def test_P10_arena_refusal_gives_the_default_orders_at_once():
    ref = Referee(ARENA, ARENA.validate_config({"max_turns": 3}), ["p1", "p2"], 5, clock=False)
    garbage = Garbage()
    drv = SeatDriver(ref, {"p1": CallableAgent(garbage), "p2": CallableAgent(_bot("arena", "random"))})
    assert not refusal_counted(ref, "p1")
    assert drv.seats_at_once == frozenset()  # trusted in-process bots are asked in turn
    drv.play_point()
    assert ref.n == 1 and garbage.asks == 1  # asked once, not again
    line = ref.lines[0]
    assert line["orders"]["p1"] is None  # P10/R11: the default orders (every robot defends)
    assert [e["code"] for e in line["errors"]["p1"]] == ["malformed"]
    assert [e["seat"] for e in drv.errors] == ["p1"] and drv.errors[0]["decision"] == 1


def test_settle_function_defaults_a_refusal_that_does_not_count():
    ref = Referee(ARENA, ARENA.validate_config({}), ["p1", "p2"], 5, clock=False)
    tk, dflt = settle(ref, "p1", "this is not an order", 0.25)
    assert tk.receipt == "refused" and dflt is not None and dflt.receipt == "accepted"
    st = ref.settled("p1")
    assert st is not None and st.payload is None and st.time_s == 0.25


def test_S_7_10_submarine_refusal_is_asked_again_until_the_limit():
    class Stubborn:
        def __init__(self):
            self.asks = 0

        def act(self, view):
            if view.get("setup"):
                return _bot("submarine", "hunter").act(view)
            self.asks += 1
            sub = "v" if view["you"] == "p1" else "a"  # a submarine of the other player
            return {"type": "orders", "actions": [{"sub": sub, "action": "move", "dir": "N"}]}

    stubborn = Stubborn()
    cfg = SUB.validate_config({"first_player": "p1"})
    ref = Referee(SUB, cfg, ["p1", "p2"], 1, clock=False)
    drv = SeatDriver(ref, {"p1": CallableAgent(stubborn), "p2": CallableAgent(_bot("submarine", "random"))})
    drv.play_point()  # set-up
    assert ref.n == 1
    assert refusal_counted(ref, "p1")
    drv.play_point()  # p1's turn: refused three times at one decision point (max_rejections 3), then loses
    assert stubborn.asks == 3
    assert ref.outcome is not None and ref.outcome.winner == "p2" and ref.outcome.reason == "refused"
    assert [e["code"] for e in drv.errors] == ["illegal"] * 3
    assert len(ref.lines[-1]["refused"]["p1"]) == 3


def test_S_7_10_counted_refusals_are_asked_again_in_parallel_too():
    """Remote (threaded) seats: the same asks again at the same point as in turn."""
    class Once:
        def __init__(self):
            self.asks = 0

        def act(self, view):
            if view.get("setup"):
                return _bot("submarine", "hunter").act(view)
            self.asks += 1
            if self.asks == 1:
                return {"type": "orders", "actions": [{"sub": "zz", "action": "move", "dir": "N"}]}
            return _bot("submarine", "random").act(view)

    cfg = SUB.validate_config({"first_player": "p1"})
    a = Remote(Once())
    ref = Referee(SUB, cfg, ["p1", "p2"], 1, clock=False)
    drv = SeatDriver(ref, {"p1": a, "p2": Remote(_bot("submarine", "random"))})
    drv.play_point()
    drv.play_point()
    assert a.bot.asks == 2 and ref.n == 2 and ref.lines[-1]["refused"]["p1"]
    assert ref.lines[-1]["orders"]["p1"] is not None  # accepted on the second ask


def test_P13_failure_and_a_late_reply_give_the_default_orders():
    class Fails:
        def act(self, view, deadline_s):
            raise AgentFailure(FailureCode.TIMEOUT, "no reply within 2 s")

        start = close = lambda *a: None

    now = [0.0]

    class Late:
        """Replies 2.5 s after it is asked: past the arena's 2 s move limit, no bank (P13)."""

        def act(self, view, deadline_s):
            assert deadline_s == 2.0
            now[0] += 2.5
            return ""

        start = close = lambda *a: None

    ref = Referee(ARENA, ARENA.validate_config({"max_turns": 3}), ["p1", "p2"], 5, clock=True)
    drv = SeatDriver(ref, {"p1": Fails(), "p2": Late()}, time_source=lambda: now[0], parallel=False)
    drv.play_point()
    line = ref.lines[0]
    assert line["orders"] == {"p1": None, "p2": None}
    assert [e["code"] for e in line["errors"]["p1"]] == ["timeout"]
    assert [e["code"] for e in line["errors"]["p2"]] == ["timeout"] and line["time_s"]["p2"] == 2.5
    assert [(e["seat"], e["code"]) for e in drv.errors] == [("p1", "timeout"), ("p2", "timeout")]


def _arena_match(tmp_path, name: str, parallel: bool) -> bytes:
    agents = {"p1": Remote(_bot("arena", "hunter")), "p2": Remote(_bot("arena", "random"))}
    path = tmp_path / f"{name}.jsonl"
    m = Match(ARENA, ARENA.validate_config({"max_turns": 30}), agents, 11, record=str(path), clock=False,
              time_source=lambda: 0.0, parallel=parallel)
    m.run()
    return path.read_bytes()


def test_parallel_asking_writes_the_sequential_record_byte_for_byte(tmp_path):
    one = _arena_match(tmp_path, "seq", parallel=False)
    two = _arena_match(tmp_path, "par", parallel=True)
    assert one == two and one.count(b"\n") == 32  # header, 30 decision points, outcome
    ok, msg = verify_record(read_record(str(tmp_path / "par.jsonl")))
    assert ok, msg


def test_two_slow_seats_think_at_once():
    log: list = []
    agents = {"p1": Remote(_bot("arena", "random"), 0.3, log, "p1"),
              "p2": Remote(_bot("arena", "random"), 0.3, log, "p2")}
    ref = Referee(ARENA, ARENA.validate_config({"max_turns": 3}), ["p1", "p2"], 3, clock=False)
    drv = SeatDriver(ref, agents)
    assert drv.seats_at_once == {"p1", "p2"}
    try:
        drv.play_point()
    finally:
        drv.close()
    assert ref.n == 1
    (a, a0, a1, ta), (b, b0, b1, tb) = sorted(log)
    assert (a, b) == ("p1", "p2") and ta != tb
    assert a0 < b1 and b0 < a1  # the two asks overlap in time: a point costs the slowest seat's time


def test_in_turn_when_parallel_is_off():
    log: list = []
    agents = {"p1": Remote(_bot("arena", "random"), 0.05, log, "p1"),
              "p2": Remote(_bot("arena", "random"), 0.05, log, "p2")}
    ref = Referee(ARENA, ARENA.validate_config({"max_turns": 3}), ["p1", "p2"], 3, clock=False)
    SeatDriver(ref, agents, parallel=False).play_point()
    (_, _, a1, _), (_, b0, _, _) = log
    assert [x[0] for x in log] == ["p1", "p2"] and a1 <= b0


def test_resimulate_is_the_replay_loop(tmp_path):
    raw = _arena_match(tmp_path, "r", parallel=True)
    rec = read_record(str(tmp_path / "r.jsonl"))
    ref = Referee(ARENA, rec.header["config"], rec.seats, rec.header["seed"], clock=False)
    seen = []
    points = list(resimulate(ref, rec.decisions, before=lambda r, line: seen.append((r.n, line["n"]))))
    assert [p.line["n"] for p in points] == list(range(1, 31)) and seen == [(k, k + 1) for k in range(30)]
    assert ref.outcome is not None and raw
