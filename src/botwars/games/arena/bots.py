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
_DEFEND = ("D", None)
_SELF_DESTRUCT = ("S", None)
_ATTACK = {d: ("A", d) for d in DIRS}
_MOVE = {d: ("M", d) for d in DIRS}
_DIR_OF = {v: d for d, v in DIRS.items()}  # (dx, dy) -> direction letter
_BY_LETTER = sorted(DIRS.items())  # E, N, S, W: ties between directions go to the first letter


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
        return ArenaOrders(self.plan(obs.mine, obs.foes, obs.turn), "", [])


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
        return ArenaOrders(dict.fromkeys(obs.mine, _DEFEND), "", [])  # obs.mine is in square order


def _dist(a, b) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _entry(amap: ArenaMap, sq: Square) -> tuple:
    """``(around, steps, steps_before_spawn)`` of ``sq`` on ``amap``: the 8 squares around it,
    and the open adjacent squares by direction letter (all of them; those that are not spawn
    points)."""
    x, y = sq
    steps = {d: (x + dx, y + dy) for d, (dx, dy) in _BY_LETTER if amap.is_open((x + dx, y + dy))}
    spawn = amap.spawn_owner()
    return tuple((x + dx, y + dy) for dx, dy in N8), steps, {d: n for d, n in steps.items() if n not in spawn}


_TABLES: dict[int, tuple[ArenaMap, dict[Square, tuple]]] = {}


def _neighbours(amap: ArenaMap) -> dict[Square, tuple]:
    """:func:`_entry` of every square of ``amap``, built once per map (``load_map`` keeps one
    object per map text; the table keeps its map alive, so the object's id is a safe key)."""
    got = _TABLES.get(id(amap))
    if got is None or got[0] is not amap:
        got = (amap, {(x, y): _entry(amap, (x, y)) for x in range(1, amap.width + 1)
                      for y in range(1, amap.height + 1)})
        _TABLES[id(amap)] = got
    return got[1]


class HunterBot(ArenaBot):
    """Closes on the nearest enemy, attacks adjacent enemies, self-destructs when that pays.

    Per robot, in square order: with ``n`` adjacent enemies and HP ≤ 12·n, it self-destructs
    when more enemies than friends stand in the 8 squares around it; otherwise it attacks the
    adjacent enemy with the least HP (ties: first direction letter). With no adjacent enemy it
    steps towards the nearest enemy (ties: lowest square) onto a free open square (not one a
    robot stands on or another of its robots already steps to; not a spawn point before a spawn
    turn), the first direction letter among those that bring it closer, or defends when no step
    gets closer or there is no enemy."""

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        """As :meth:`ArenaBot.start`, plus the map's neighbour tables (:func:`_neighbours`)."""
        super().start(game, seat, config, seed)
        self._tables = _neighbours(self.amap)

    def plan(self, mine: dict[Square, int], foes: dict[Square, int], turn: int) -> dict[Square, tuple[str, str | None]]:
        claimed: set = set()
        out: dict[Square, tuple[str, str | None]] = {}
        k = 2 if turn % self.config.get("spawn_interval", 10) == 0 else 1
        tables = self._tables
        enemies = list(foes.items())
        for sq, hp in sorted(mine.items()):
            x, y = sq
            # one pass over the enemies: the adjacent ones (distance 1) and the nearest
            n = 0
            weakest = ad = target = None
            cur = 0
            for f, fhp in enemies:
                fx = f[0] - x
                fy = f[1] - y
                dd = abs(fx) + abs(fy)
                if dd == 1:
                    n += 1
                    d = _DIR_OF[fx, fy]
                    if weakest is None or fhp < weakest or (fhp == weakest and d < ad):
                        weakest, ad = fhp, d
                if target is None or dd < cur or (dd == cur and f < target):
                    target, cur = f, dd
            if ad is not None:
                if hp <= 12 * n:
                    near8 = (tables.get(sq) or _entry(self.amap, sq))[0]
                    if sum(1 for s in near8 if s in foes) > sum(1 for s in near8 if s in mine):
                        out[sq] = _SELF_DESTRUCT
                        continue
                out[sq] = _ATTACK[ad]
                continue
            if target is None:
                out[sq] = _DEFEND
                continue
            # a step gets closer exactly when it goes towards the target along x or y; all such
            # steps are one square closer, so the first letter (E, N, S, W) of the free ones wins
            steps = (tables.get(sq) or _entry(self.amap, sq))[k]
            tx, ty = target
            for d, want in (("E", tx > x), ("N", ty > y), ("S", ty < y), ("W", tx < x)):
                if want:
                    nsq = steps.get(d)
                    if nsq is not None and nsq not in mine and nsq not in foes and nsq not in claimed:
                        claimed.add(nsq)
                        out[sq] = _MOVE[d]
                        break
            else:
                out[sq] = _DEFEND
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
