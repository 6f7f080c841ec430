"""Built-in factory bots.  Each takes the F-15.3 seat view and returns an F-15.1 order.

- ``random``: a random legal program (seeded from the match seed and the seat); when damaged it
  declares a reboot (F-7.7) one turn in four.
- ``pathfinder``: rebuilds the position from its view and simulates candidate programs with
  the engine itself, stage by stage (a beam search over the hand), keeping the program that
  best advances toward its next flag without dying.  Other robots are assumed to play no
  cards (their programs are secret, F-14.2); their fused registers are public and are used.
- ``planner``: searches over programs with sampled programs for the other robots
  (:mod:`botwars.games.factory.search`), 96 evaluations a turn.
"""

from __future__ import annotations

import random as _random
from collections import deque
from typing import Any

from botwars.games.factory.board import DELTA, DIRS, Board, parse_board, parse_sq
from botwars.games.factory.cards import CARD_TYPE, parse_card
from botwars.games.factory.state import Bot, FactoryState


class FactoryBot:
    """Base class: ``start`` seeds the bot's RNG; ``act(view)`` returns an order dict."""

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        self.rng = _random.Random(f"{seed}:{seat}:{type(self).__name__}")

    def ensure(self) -> None:
        if not hasattr(self, "rng"):
            self.start("factory", "p1", {}, 0)

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


class RandomBot(FactoryBot):
    """A uniformly random program from the hand; while its robot is damaged (HP below
    ``max_hp``) it also declares a reboot (F-7.7: back to full HP after a turn out) with
    probability :attr:`REBOOT_P`."""

    REBOOT_P = 0.25

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.ensure()
        hand = [parse_card(c) for c in view.get("hand", [])]
        k = view.get("free_registers", 0)
        cards = self.rng.sample(hand, k) if k <= len(hand) else hand
        me = next((p for p in view.get("players", []) if p.get("seat") == view.get("you")), {})
        robot = me.get("robot") or {}
        max_hp = (view.get("config") or {}).get("max_hp", 10)
        damaged = bool(robot.get("square")) and not robot.get("rebooting") and robot.get("hp", max_hp) < max_hp
        reboot = damaged and self.rng.random() < self.REBOOT_P
        return {"type": "program", "cards": cards, "reboot": reboot}


_BOARDS: dict[str, Board] = {}


def state_from_view(rs: Any, view: dict[str, Any]) -> tuple[FactoryState, int]:
    """Rebuild a :class:`FactoryState` from a seat view (public data plus the seat's own hand).

    Returns the state (turn = the current turn − 1) and the index of the seat's robot.
    Unknown secrets (others' hands and programs, decks) are left empty.
    """
    text = view["board"]
    cfg = dict(view["config"])
    key = cfg["edge"] + text
    board = _BOARDS.get(key)
    if board is None:
        board = parse_board(text, "<view>", check=False, edge=cfg["edge"])
        _BOARDS[key] = board
    cfg["board"] = board.board_id
    seats = [f"p{p['seat']}" for p in view["players"]]
    names = [p["name"] for p in view["players"]]
    st = rs.empty_state(cfg, seats, "sim", board, names)
    st.started = len(seats)
    st.turn = view["turn"] - 1
    dev = view["devices"]
    for k, v in dev["switches"].items():
        st.switches[parse_sq(k)] = v
    for k, v in dev["trapdoors"].items():
        st.trapdoors[parse_sq(k)] = v
    for k, v in dev["bridges"].items():
        st.bridges[parse_sq(k)] = v == "lowered"
    st.teleporters.update(dev["teleporters"])
    for table, src in ((st.eyes, dev["eyes"]), (st.blasers, dev["blasers"])):
        for k, v in src.items():
            sq = parse_sq(k[:-1])
            table[(sq[0], sq[1], DIRS.index(k[-1]))] = v
    me = -1
    for p, info in enumerate(view["players"]):
        pl = st.players[p]
        pl.next_flag = info["next_flag"]
        pl.robots_left = info["robots_left"]
        pl.out = info["out"]
        pl.checkpoint = parse_sq(info["checkpoint"])
        pl.stations = [parse_sq(s) for s in info["stations"]]
        pl.sets = list(info["sets"])
        r = info["robot"]
        if r is None:
            b = Bot(p, 0, None, 0, 0, "virtual")
        else:
            b = Bot(p, 0, parse_sq(r["square"]), DIRS.index(r["facing"]), r["hp"], r["mode"],
                    view["turn"] - 1 if r["mode"] == "virtual" else 0)
            b.rebooting = r["rebooting"]
            b.options = [{"code": o["code"], "charges": o.get("charges", 0), "armoury": False} for o in r["options"]]
            for reg, card in r["fused"].items():
                b.regs[int(reg) - 1] = parse_card(card)
        st.bots.append(b)
        if view.get("you") == p + 1:
            me = p
            if "standing" in view:
                pl.standing.update(view["standing"])
    return st, me


def distance_map(board: Board, goal: tuple[int, int]) -> dict[tuple[int, int], int]:
    """Steps from every square to ``goal`` over open edges, avoiding pits, crushers and drawbridges
    (a BFS from the goal; conveyors and teleporters are left to the simulation)."""
    dist = {goal: 0}
    todo = deque([goal])
    while todo:
        sq = todo.popleft()
        for d in range(4):
            if board.edges[(sq[0], sq[1], d)] != "open":
                continue
            nb = (sq[0] + DELTA[d][0], sq[1] + DELTA[d][1])
            if nb in dist:
                continue
            if board.kind[nb][0] in ("PT", "CR", "DB"):  # pits, crushers and (maybe raised) bridges: avoid
                continue
            dist[nb] = dist[sq] + 1
            todo.append(nb)
    return dist


class PathfinderBot(FactoryBot):
    """Beam search over programs, simulated with the engine (see the module docstring)."""

    width = 6

    def __init__(self) -> None:
        self._dist: dict[tuple[str, tuple[int, int]], dict] = {}

    def score(self, st: FactoryState, me: int, flags0: int) -> float:
        b = st.bots[me]
        pl = st.players[me]
        if st.over and me in st.winners:
            return 1e6
        if not b.alive:
            return -1e5
        s = (pl.next_flag - flags0) * 1000.0
        flags = st.board.flags()
        goal = flags.get(pl.next_flag)
        if goal is not None:
            key = (st.board.board_id + str(st.board.rows) + st.board.edge_mode, goal)
            dm = self._dist.get(key)
            if dm is None:
                dm = distance_map(st.board, goal)
                self._dist[key] = dm
            s -= 10.0 * dm.get(b.sq, 60)
        s += 3.0 * b.hp
        return s

    def position(self, view: dict[str, Any]) -> tuple[Any, FactoryState, int, list[int], int, bool]:
        """What a decision starts from: ``(rule set, the position rebuilt from the view, own
        robot's index, hand cards, free registers k, reboot)`` where ``reboot`` declares one for
        a robot alive, not rebooting and at HP 3 or less."""
        self.ensure()
        from botwars.engine.ruleset import get_ruleset
        rs = get_ruleset("factory")
        k = view.get("free_registers", 0)
        hand = [parse_card(c) for c in view.get("hand", [])]
        st, me = state_from_view(rs, view)
        b = st.bots[me]
        return rs, st, me, hand, k, bool(b.alive and not b.rebooting and b.hp <= 3)

    @staticmethod
    def program(prog: list[int], hand: list[int], k: int) -> list[int]:
        """A beam program as ``k`` cards: the cards it plays, then unused hand cards for the
        registers a dead end left empty."""
        cards = [c for c in prog if c is not None and c != -1]
        return (cards + [c for c in hand if c not in cards])[:k]

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        rs, st, me, hand, k, reboot = self.position(view)
        if k == 0 or not hand:
            return {"type": "program", "cards": [], "reboot": reboot}
        best = self.beam(rs, st, me, hand, k, self.width)[0][2]
        return {"type": "program", "cards": self.program(best, hand, k), "reboot": reboot}

    def beam(self, rs: Any, st: FactoryState, me: int, hand: list[int], k: int,
             width: int) -> list[tuple[float, FactoryState, list[int]]]:
        """The beam search: ``width`` best (score, state after stage 5, program) found, best first.
        A program lists the cards for registers 1..k (``-1`` marks a stage after the robot's end,
        ``None`` entries are never included); other robots play no cards."""
        from botwars.games.factory.rules import Ctx
        flags0 = st.players[me].next_flag
        t = st.turn + 1
        beam: list[tuple[float, FactoryState, list[int]]] = [(0.0, st, [])]
        for s in range(1, 6):
            cand: list[tuple[float, FactoryState, list[int]]] = []
            for _, cur, prog in beam:
                if cur.over or not cur.bots[me].alive:
                    cand.append((self.score(cur, me, flags0) - s, cur, prog + ([] if s > k else [-1])))
                    continue
                if s <= k:
                    seen = set()
                    options = []
                    for c in hand:
                        if c in prog or CARD_TYPE[c] in seen:
                            continue
                        seen.add(CARD_TYPE[c])
                        options.append(c)
                else:
                    options = [None]
                for c in options:
                    nxt = cur.copy()
                    if c is not None:
                        nxt.bots[me].regs[s - 1] = c
                    ctx = Ctx(nxt, t, log=False)
                    rs.stage(ctx, s)
                    cand.append((self.score(nxt, me, flags0) + self.rng.random() * 0.01, nxt, prog + [c] if c else prog))
            cand.sort(key=lambda x: -x[0])
            beam = cand[:width]
        return beam



BUILTIN = {"random": RandomBot, "pathfinder": PathfinderBot}
