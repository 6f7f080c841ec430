"""Built-in arena bots. Each takes the P11 view dict and returns a P12 response dict.

- ``random``: a random order (or idle) for every robot, seeded from the match seed.
- ``defender``: every robot defends (the engine-floor benchmark opponent).
- ``hunter``: closes on the nearest enemy, attacks adjacent enemies, self-destructs when that pays.
- ``swarm``: stronger than ``hunter``: ambushes the square an approaching enemy must enter,
  focuses fire on the weakest adjacent enemy, keeps off spawn points on spawn turns, and never
  sends two robots into one square.
"""

from __future__ import annotations

import random as _random
from typing import Any

from botwars.games.arena.board import ArenaMap, Square, load_map
from botwars.games.arena.protocol import ArenaOrders
from botwars.games.arena.rules import ArenaObservation

DIRS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
N8 = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


class ArenaBot:
    """Base class for in-process arena bots: ``start`` loads the map; ``act(view)`` → P12 dict."""

    amap: ArenaMap
    config: dict[str, Any]

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        """Called once before the first turn: keeps a copy of the config, loads the map, seeds the RNG."""
        self.config = dict(config)  # a copy: nothing a bot does may reach the engine's settings
        self.amap = load_map(config["map"])
        self.spawn_squares = set(self.amap.spawn_owner())
        self.rng = _random.Random(f"{seed}:{seat}:{type(self).__name__}")

    def ensure(self) -> None:
        if not hasattr(self, "amap"):
            self.start("arena", "p1", {"map": "default", "spawn_interval": 10, "max_turns": 100,
                                       "self_destruct_damage": 6, "attack_damage_enemy": 12}, 0)

    def plan(self, mine: dict[Square, int], foes: dict[Square, int], turn: int) -> dict[Square, tuple[str, str | None]]:
        """The bot's orders: square → ``(action, direction)`` for its own robots, from ``mine``
        and ``foes`` (square → HP, in square order) on ``turn`` (the turn being ordered).
        Every bot decides here once; :meth:`act` and :meth:`act_native` only translate."""
        raise NotImplementedError

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        """P11 view dict → P12 response dict (any agent kind: the server's bot pool, ``cmd:``)."""
        self.ensure()
        mine = {(r["x"], r["y"]): r["hp"] for r in view["robots"] if r["side"] == "F"}
        foes = {(r["x"], r["y"]): r["hp"] for r in view["robots"] if r["side"] == "E"}
        return {"orders": [_order(sq, a, d) for sq, (a, d) in self.plan(mine, foes, view["turn"]).items()]}

    def act_native(self, obs: ArenaObservation) -> ArenaOrders:
        """:class:`ArenaObservation` → :class:`ArenaOrders` (a local match's in-process bots:
        the same orders as :meth:`act`, without the P11 dict and the P12 parsing). The user
        data is set to the empty string, as a P12 response without ``user_data`` does (H19)."""
        self.ensure()
        p = obs.player
        mine: dict[Square, int] = {}
        foes: dict[Square, int] = {}
        for sq, (q, hp) in sorted(obs.robots.items()):
            if q == p:
                mine[sq] = hp
            else:
                foes[sq] = hp
        return ArenaOrders(self.plan(mine, foes, obs.turn), "", [])


def _order(sq, action, d=None) -> dict[str, Any]:
    o = {"x": sq[0], "y": sq[1], "action": action}
    if d:
        o["dir"] = d
    return o


class RandomBot(ArenaBot):
    """Each robot: one of the 10 orders or idle, uniformly (seeded)."""

    CHOICES = [("M", d) for d in "NESW"] + [("A", d) for d in "NESW"] + [("D", None), ("S", None), None]

    def plan(self, mine: dict[Square, int], foes: dict[Square, int], turn: int) -> dict[Square, tuple[str, str | None]]:
        out: dict[Square, tuple[str, str | None]] = {}
        for sq in mine:
            c = self.rng.choice(self.CHOICES)
            if c is not None:
                out[sq] = c
        return out


class DefenderBot(ArenaBot):
    """Every robot defends, every turn."""

    def plan(self, mine: dict[Square, int], foes: dict[Square, int], turn: int) -> dict[Square, tuple[str, str | None]]:
        return {sq: ("D", None) for sq in mine}

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        return {"orders": [{"x": r["x"], "y": r["y"], "action": "D"} for r in view["robots"] if r["side"] == "F"]}

    def act_native(self, obs: ArenaObservation) -> ArenaOrders:
        p = obs.player
        return ArenaOrders({sq: ("D", None) for sq, (q, _) in sorted(obs.robots.items()) if q == p}, "", [])


def _dist(a, b) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


class HunterBot(ArenaBot):
    """Closes on the nearest enemy, attacks adjacent enemies, self-destructs when that pays."""

    def plan(self, mine: dict[Square, int], foes: dict[Square, int], turn: int) -> dict[Square, tuple[str, str | None]]:
        claimed: set = set()
        out: dict[Square, tuple[str, str | None]] = {}
        spawn_next = turn % self.config.get("spawn_interval", 10) == 0
        is_open = self.amap.is_open
        for sq, hp in sorted(mine.items()):
            x, y = sq
            adj = [(foes[n], d) for d, n in (("N", (x, y + 1)), ("E", (x + 1, y)), ("S", (x, y - 1)),
                                             ("W", (x - 1, y))) if n in foes]
            if adj and hp <= 12 * len(adj):
                near8 = [(x + dx, y + dy) for dx, dy in N8]
                if sum(1 for s in near8 if s in foes) > sum(1 for s in near8 if s in mine):
                    out[sq] = ("S", None)
                    continue
            if adj:
                adj.sort()
                out[sq] = ("A", adj[0][1])
                continue
            if not foes:
                out[sq] = ("D", None)
                continue
            target = min(foes, key=lambda f: (abs(f[0] - x) + abs(f[1] - y), f))
            tx, ty = target
            best = None
            for d, (dx, dy) in DIRS.items():
                nsq = (x + dx, y + dy)
                if nsq in mine or nsq in claimed or nsq in foes or not is_open(nsq):
                    continue
                if spawn_next and nsq in self.spawn_squares:
                    continue
                key = (abs(tx - nsq[0]) + abs(ty - nsq[1]), d)
                if best is None or key < best[0]:
                    best = (key, d, nsq)
            if best is None or best[0][0] >= _dist(sq, target):
                out[sq] = ("D", None)
            else:
                claimed.add(best[2])
                out[sq] = ("M", best[1])
        return out


class SwarmBot(ArenaBot):
    """Stronger than hunter: ambush, focus fire, spawn safety, no self-contention."""

    def plan(self, mine: dict[Square, int], foes: dict[Square, int], turn: int) -> dict[Square, tuple[str, str | None]]:
        interval = self.config.get("spawn_interval", 10)
        spawn_next = turn % interval == 0
        amap = self.amap
        orders: dict = {}
        claimed: set = set()
        staying: set = set()

        # 1. robots that must leave a spawn point before a spawn event
        # 2. adjacent enemies: focus fire on the weakest, self-destruct when about to die
        focus: dict = {}
        for sq, hp in sorted(mine.items()):
            adj = [(sq[0] + dx, sq[1] + dy, d) for d, (dx, dy) in DIRS.items() if (sq[0] + dx, sq[1] + dy) in foes]
            if spawn_next and sq in self.spawn_squares:
                continue  # handled with the movers
            if adj:
                threat = 12 * len(adj)
                near8 = [(sq[0] + dx, sq[1] + dy) for dx, dy in N8]
                foes8 = [s for s in near8 if s in foes]
                friends8 = sum(1 for s in near8 if s in mine)
                if hp <= threat and len(foes8) >= 2 and len(foes8) > friends8:
                    orders[sq] = ("S", None)
                else:
                    x, y, d = min(adj, key=lambda a: (foes[(a[0], a[1])] - 12 * focus.get((a[0], a[1]), 0), a[2]))
                    focus[(x, y)] = focus.get((x, y), 0) + 1
                    orders[sq] = ("A", d)
                staying.add(sq)
        # ambush: an enemy two squares away in a straight line will likely step in between
        for sq, hp in sorted(mine.items()):
            if sq in orders or (spawn_next and sq in self.spawn_squares):
                continue
            for d, (dx, dy) in DIRS.items():
                mid = (sq[0] + dx, sq[1] + dy)
                far = (sq[0] + 2 * dx, sq[1] + 2 * dy)
                if far in foes and amap.is_open(mid) and mid not in mine and mid not in foes:
                    orders[sq] = ("A", d)
                    staying.add(sq)
                    break
            else:
                # diagonal enemy: it must step onto one of two squares next to us
                for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                    if (sq[0] + dx, sq[1] + dy) in foes:
                        for d in ("E" if dx > 0 else "W", "N" if dy > 0 else "S"):
                            ddx, ddy = DIRS[d]
                            mid = (sq[0] + ddx, sq[1] + ddy)
                            if amap.is_open(mid) and mid not in mine and mid not in foes:
                                orders[sq] = ("A", d)
                                staying.add(sq)
                                break
                        if sq in orders:
                            break
        # movers: towards the nearest enemy, or to the centre when none
        cx, cy = (amap.width + 1) / 2, (amap.height + 1) / 2
        for sq, hp in sorted(mine.items(), key=lambda kv: (-kv[1], kv[0])):
            if sq in orders:
                continue
            if foes:
                target = min(foes, key=lambda f: (_dist(sq, f), f))
            else:
                target = (round(cx), round(cy))
            cur = _dist(sq, target)
            must_leave = spawn_next and sq in self.spawn_squares
            best = None
            for d, (dx, dy) in DIRS.items():
                nsq = (sq[0] + dx, sq[1] + dy)
                if not amap.is_open(nsq) or nsq in claimed or nsq in foes:
                    continue
                if nsq in mine:
                    continue
                if spawn_next and nsq in self.spawn_squares:
                    continue
                # do not step next to more than one enemy at once unless strong
                exposure = sum(1 for ddx, ddy in DIRS.values() if (nsq[0] + ddx, nsq[1] + ddy) in foes)
                # landing adjacent to an enemy lets it strike first: prefer distance 2
                dist = _dist(nsq, target)
                penalty = 0 if exposure == 0 else (3 * exposure if hp < 60 else exposure)
                key = (dist + penalty, d)
                if best is None or key < best[0]:
                    best = (key, d, nsq)
            if best is not None and (must_leave or best[0][0] < cur):
                claimed.add(best[2])
                orders[sq] = ("M", best[1])
            else:
                orders[sq] = ("D", None)
                staying.add(sq)
        return dict(sorted(orders.items()))


BUILTIN = {
    "random": RandomBot,
    "defender": DefenderBot,
    "hunter": HunterBot,
    "swarm": SwarmBot,
}
