"""Built-in geeko bots.  Each takes the G-16.3 seat view and returns a G-16.1 order.

- ``random``: a random valid program (random length, random cards each robot can use).
- ``pathfinder``: rebuilds its room from the view and plans both robots together with the
  engine itself: a beam search over the joint card choices stage by stage, scoring each
  robot by its distance (BFS over the room as the devices now stand) to an open gate, or else
  to what opens one (a switch of a gate or drawbridge channel, a line of sight on a gate eye
  with the ``ML`` laser, the ``ML`` armoury), and rejecting deaths.
- ``planner``: the same beam twice as wide over two program lengths, each candidate played whole
  (:mod:`botwars.games.geeko.search`), 16 candidates a turn.
"""

from __future__ import annotations

import random as _random
from typing import Any

from botwars.games.factory.board import DELTA, DIRS, parse_sq
from botwars.games.factory.cards import CARD_TYPE, parse_card, usable
from botwars.games.factory.rules import Ctx
from botwars.games.geeko.board import GeekoBoard, parse_room
from botwars.games.geeko.program import joint_fill
from botwars.games.geeko.state import LETTERS, GeekoBot, RoomState


class GeekoBotBase:
    """Base class: ``start`` seeds the bot's RNG from the match seed and seat."""

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        self.rng = _random.Random(f"{seed}:{seat}:{type(self).__name__}")

    def ensure(self) -> None:
        if not hasattr(self, "rng"):
            self.start("geeko", "p1", {}, 0)

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


def needs(view: dict[str, Any]) -> list[str]:
    """Letters of the robots that need cards this turn (free ≥ 1, on the board, not rebooting)."""
    return [k for k, r in view["robots"].items() if r.get("free", 0) >= 1]


class RandomBot(GeekoBotBase):
    """A random valid program: a random length, each robot a random set of cards it can use."""

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.ensure()
        need = needs(view)
        if not need:
            return {"type": "program", "length": 0, "reboot": None}
        hand = [parse_card(c) for c in view["hand"]]
        top = min(view["robots"][k]["free"] for k in need)
        for L in sorted(range(1, top + 1), key=lambda x: (self.rng.random(), x)):
            pool = list(hand)
            self.rng.shuffle(pool)
            progs = joint_fill(pool, [view["robots"][k]["sets"] for k in need], L)
            if progs is not None:
                out: dict[str, Any] = {"type": "program", "length": L, "reboot": None}
                out.update(zip(need, progs))
                return out
        return {"type": "program", "length": 0, "reboot": None}  # G-4.5: no program with L >= 1 is valid


_ROOMS: dict[str, GeekoBoard] = {}


def room_from_view(rs: Any, view: dict[str, Any]) -> RoomState:
    """Rebuild the seat's :class:`RoomState` from its view (public data plus its own hand)."""
    text = view["board"]
    board = _ROOMS.get(text)
    if board is None:
        board = _ROOMS[text] = parse_room(text, "<view>")
    cfg = rs.validate_config({k: v for k, v in view["config"].items() if k in rs.param_table()})
    fs = rs.empty_state(cfg, ["me"], "sim", board, ["me"])
    run = RoomState(**{k: getattr(fs, k) for k in fs.__dataclass_fields__})
    run.players[0].standing = {"sacrifice_at": 0, "wrench2": "repair", "facing": "N"}
    run.turn = view["turn"] - 1
    run.room = view["room"]
    dev = view["devices"]
    for k, v in dev["switches"].items():
        run.switches[parse_sq(k)] = v
    for k, v in dev["trapdoors"].items():
        run.trapdoors[parse_sq(k)] = v
    for k, v in dev["bridges"].items():
        run.bridges[parse_sq(k)] = v == "lowered"
    run.teleporters.update(dev["teleporters"])
    for table, src in ((run.eyes, dev["eyes"]), (run.blasers, dev["blasers"])):
        for k, v in src.items():
            sq = parse_sq(k[:-1])
            table[(sq[0], sq[1], DIRS.index(k[-1]))] = v
    run.gates = {parse_sq(k): v for k, v in dev["gates"].items()}
    run.bots = []
    for slot, letter in enumerate(LETTERS):
        r = view["robots"][letter]
        b = GeekoBot(0, slot, None, 0, r["hp"])
        b.place = r["mode"] if r["mode"] != "real" else "board"
        if r["square"] is not None:
            b.sq = parse_sq(r["square"])
            b.facing = DIRS.index(r["facing"])
        b.alive = b.place == "board"
        b.rebooting = r["rebooting"]
        b.options = [{"code": o["code"], "charges": o.get("charges", 0), "armoury": True} for o in r["options"]]
        for reg, card in r["fused"].items():
            b.regs[int(reg) - 1] = parse_card(card)
        b.sets = list(r["sets"])
        b.stations = {int(k): parse_sq(v) for k, v in r["stations"].items()}
        run.bots.append(b)
    run.hand = [parse_card(c) for c in view["hand"]]
    return run


def _passable(run: RoomState, sq) -> bool:
    k = run.board.kind[sq]
    if k[0] == "PT" or (k[0] == "TD" and run.trapdoors[sq]) or (k[0] == "DB" and not run.bridges[sq]):
        return False
    if k[0] == "CR":
        return True
    if k[0] == "GT":
        return run.gates[sq] and not any(b.place == "parked" and b.sq == sq for b in run.bots)
    return True


def _teleport(run: RoomState, colour: str):
    tps = run.board.teleporters()
    order = sorted(tps)
    k = order.index(colour)
    for n in range(1, len(order)):
        col = order[(k + n) % len(order)]
        if run.teleporters[col]:
            return tps[col]
    return None


def dist_to(run: RoomState, start, targets: list) -> float | None:
    """Steps (Dijkstra) from ``start`` to the nearest of ``targets``: a step costs 1, entering a
    conveyor against its arrow 4 more and across it 1 more; entering an active teleporter
    lands on its destination (F-6.18).  A target the robot stands on costs 2 (it must leave
    and re-enter it).  ``None`` if unreachable."""
    import heapq
    tset = set(targets)
    board = run.board
    best = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d0, sq = heapq.heappop(heap)
        if d0 > best.get(sq, 1e9):
            continue
        if sq in tset and sq != start:
            return d0
        for d in range(4):
            if board.edge(sq, d) != "open":
                continue
            nb = (sq[0] + DELTA[d][0], sq[1] + DELTA[d][1])
            if not _passable(run, nb):
                continue
            k = board.kind[nb]
            if k[0] == "GT" and nb not in tset:
                continue
            cost = 1.0
            if k[0] in ("CY", "CB"):
                if k[1] == (d + 2) % 4:
                    cost += 4 if k[0] == "CB" else 2
                elif k[1] != d:
                    cost += 1
            land = nb
            if k[0] == "TP" and run.teleporters[k[1]] and nb not in tset:
                dest = _teleport(run, k[1])
                if dest is not None:
                    land = dest
            nd = d0 + cost
            if nd < best.get(land, 1e9):
                best[land] = nd
                heapq.heappush(heap, (nd, land))
            if land != nb and nb in tset:
                return nd
    if start in tset:
        return 2.0
    return None


def potential(run: RoomState, i: int) -> float:
    """How far robot ``i`` is from leaving (lower is better)."""
    b = run.bots[i]
    if b.place in ("exited", "done"):
        return -100.0
    if b.place == "parked":
        return -60.0
    if b.place in ("destroyed", "transit"):
        return 1000.0
    board = run.board
    gates = [g for g in board.gates() if _passable(run, g)]
    if gates:
        d = dist_to(run, b.sq, gates)
        if d is not None:
            return float(d)
    subs = []
    chans: dict[int, list] = board.channel_devices()
    useful = set()
    for ch, devs in chans.items():
        if any(kind == "GT" and not run.gates[key] for kind, key in devs) or any(
                kind == "DB" and not run.bridges[key] for kind, key in devs):
            useful.add(ch)
    for sq, kind, ch in board.switch_squares():  # SG, SR and crushers over switches (F-6.24a)
        if kind == "SG" and ch in useful and not run.switches[sq]:
            subs.append(sq)
        elif kind == "SR" and ch in useful:
            subs.append(sq)
    eye_sq = []
    for (r, c, side), ch in board.eyes.items():
        if ch in useful and any(kind == "GT" for kind, _ in chans.get(ch, [])):
            d = (side + 2) % 4
            sq = (r, c)
            line = [sq]
            while board.edge(sq, d) == "open":
                sq = (sq[0] + DELTA[d][0], sq[1] + DELTA[d][1])
                line.append(sq)
            eye_sq += [(x, side) for x in line]
    best = 60.0
    if subs:
        # standing on a switch does nothing: it must be entered, so a neighbour counts as 1
        dd = dist_to(run, b.sq, subs)
        if dd is not None:
            best = min(best, 30 + dd)
    if eye_sq:
        if b.has("ML"):
            sights = [x for x, _ in eye_sq]
            dd = 0.0 if b.sq in sights else dist_to(run, b.sq, sights)
            if dd is not None:
                facing_ok = any(x == b.sq and side == b.facing for x, side in eye_sq)
                best = min(best, 30 + dd + (0 if facing_ok else 1))
        else:
            ars = [sq for sq, k in board.kind.items() if k[0] == "AR" and k[1] == "ML"]
            dd = dist_to(run, b.sq, ars) if ars else None
            if dd is not None:
                best = min(best, 45 + dd)
    return best


def score(run: RoomState) -> float:
    s = 0.0
    for i, b in enumerate(run.bots):
        s -= potential(run, i) * 10
        if b.alive:
            s += b.hp
    s += 40 * sum(1 for v in run.gates.values() if v)
    return s


class PathfinderBot(GeekoBotBase):
    """Plans both robots together (see the module docstring); declares a reboot for a robot at
    HP 3 or less when its partner can still move."""

    width = 4

    #: the answer when there is nothing to program: no robot awaits cards, or G-4.5 allows no length
    NOTHING: dict[str, Any] = {"type": "program", "length": 0, "reboot": None}

    def position(self, view: dict[str, Any]) -> tuple[Any, RoomState, list[int], int] | None:
        """What a decision starts from: ``(rule set, the room rebuilt from the view, indexes of
        the robots awaiting cards, longest valid program length L)``; ``None`` when there is
        nothing to program (no robot awaits cards, or G-4.5: no program with L >= 1 is valid)."""
        self.ensure()
        from botwars.engine.ruleset import get_ruleset
        rs = get_ruleset("geeko")
        need = needs(view)
        if not need:
            return None
        run = room_from_view(rs, view)
        L = rs.longest_program(run)
        return (rs, run, [LETTERS.index(k) for k in need], L) if L else None

    @staticmethod
    def answer(run: RoomState, slots: list[int], L: int, progs: dict[int, list[int]]) -> dict[str, Any]:
        """The orders for ``progs`` (cards by robot index) of length ``L``, declaring a reboot for
        the first robot at HP 3 or less whose partner is alive above HP 3."""
        reboot = None
        for i in slots:
            other = run.bots[1 - i]
            if run.bots[i].hp <= 3 and other.alive and other.hp > 3:
                reboot = LETTERS[i]
                break
        out: dict[str, Any] = {"type": "program", "length": L, "reboot": reboot}
        for i, p in progs.items():
            out[LETTERS[i]] = list(p)
        return out

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        pos = self.position(view)
        if pos is None:
            return dict(self.NOTHING)
        rs, run, slots, L = pos
        hand = run.hand
        beam = self.beam(rs, run, slots, L, self.width)
        best = None
        for _, progs, _st in beam:
            if any(len(p) < L for p in progs.values()):
                progs = self.pad(run, progs, L)
                if progs is None:
                    continue
            final = rs.simulate_run(run, progs, L)
            sc = score(final)
            if best is None or sc > best[0]:
                best = (sc, progs)
        if best is None:
            fill = joint_fill(hand, [run.bots[i].sets for i in slots], L)
            assert fill is not None  # longest_program found one
            best = (0.0, dict(zip(slots, fill)))
        return self.answer(run, slots, L, best[1])

    @staticmethod
    def beam(rs: Any, run: RoomState, slots: list[int], L: int, width: int
             ) -> list[tuple[float, dict[int, list[int]], RoomState]]:
        """The beam search over joint card choices, stage by stage (see the module docstring):
        the ``width`` best (score, programs by robot index, state after the stages), best first.
        Programs may be shorter than ``L`` where every robot left the board (see :meth:`pad`)."""
        hand = run.hand
        # beam: (score, progs, state after the stages so far)
        beam: list[tuple[float, dict[int, list[int]], RoomState]] = [(0.0, {i: [] for i in slots}, run)]
        for s in range(1, L + 1):
            cand: list[tuple[float, int, dict[int, list[int]], RoomState]] = []
            n = 0
            for _, progs, st in beam:
                used = {c for p in progs.values() for c in p}
                options: list[list[int]] = []
                for i in slots:
                    seen: set[str] = set()
                    opts = []
                    for c in hand:
                        if c in used or not usable(c, run.bots[i].sets):
                            continue
                        if CARD_TYPE[c] in seen:
                            continue
                        seen.add(CARD_TYPE[c])
                        opts.append(c)
                    options.append(opts)
                combos: list[list[int]] = [[]]
                for opts in options:
                    combos = [cmb + [c] for cmb in combos for c in opts if c not in cmb]
                for cmb in combos:
                    sim = st.copy()
                    for i, c in zip(slots, cmb):
                        sim.bots[i].regs[s - 1] = c
                    for b in sim.bots:
                        b.run_len = 9 if b.alive else 0
                    ctx = Ctx(sim, run.turn + 1, log=False)
                    if rs.on_board(sim):
                        rs.stage(ctx, s)
                    np = {i: progs[i] + [c] for i, c in zip(slots, cmb)}
                    n += 1
                    cand.append((score(sim), -n, np, sim))
            if not cand:
                break
            cand.sort(key=lambda x: (-x[0], -x[1]))
            beam = [(sc, p, st) for sc, _, p, st in cand[:width]]
            if all(b.place != "board" for b in beam[0][2].bots):
                break
        return beam

    @staticmethod
    def pad(run: RoomState, progs: dict[int, list[int]], L: int) -> dict[int, list[int]] | None:
        used = {c for p in progs.values() for c in p}
        out = {i: list(p) for i, p in progs.items()}
        for i in out:
            for c in run.hand:
                if len(out[i]) >= L:
                    break
                if c not in used and usable(c, run.bots[i].sets):
                    out[i].append(c)
                    used.add(c)
            if len(out[i]) < L:
                return None
        return out



BUILTIN = {"random": RandomBot, "pathfinder": PathfinderBot}
