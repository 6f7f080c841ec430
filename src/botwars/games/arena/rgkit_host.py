"""Host adapter for unmodified RobotGame (rgkit) bots: the arena's agent kind ``rgkit:``.

For the agent spec ``rgkit:path/to/robot.py`` the platform's Python host runs
``python -m botwars.agents.pyhost --adapter botwars.games.arena.rgkit_host:load_bot robot.py``
as a JSON-lines program (sandboxed), so the bot lives in its own process; :func:`load_bot`
builds an :class:`RgkitHost` there. Per decision it reads the arena P11 view and answers the
P12 object:

- Before loading the bot it installs :mod:`botwars.games.arena.rgcompat` as the modules ``rg``
  and ``rgkit.rg`` (and ``rgkit.settings``), configured for the match's map and parameters.
- One instance of the file's ``Robot`` class is made per match. For every robot of the player,
  in ascending rgkit location order, the instance's ``location``, ``hp``, ``player_id`` and
  ``robot_id`` are set and ``act(game)`` is called, exactly as rgkit does.
- ``game`` has ``game.robots`` (also ``game['robots']``): a dict keyed by rgkit location of
  robot records with ``location``, ``hp``, ``player_id`` (0 for arena player 1, 1 for player 2)
  and ``robot_id``, for both players; and ``game.turn``: the arena turn being decided (1..
  ``max_turns``; like rgkit, spawning happens in turns where ``turn % spawn_every == 0``).
- Actions: ``['move', loc]`` → ``M d`` and ``['attack', loc]`` → ``A d`` where ``loc`` is the
  orthogonally adjacent location in direction d; ``['guard']`` → ``D``; ``['suicide']`` → ``S``.
  A move into an obstacle or off the board is accepted and fails (arena H7), where rgkit would
  have rejected it. Anything else (a diagonal or distant location, an unknown action) makes
  the whole response ``malformed``; an exception in ``act`` makes it a ``crash`` (P10: all
  the player's robots defend that turn; the error is recorded), where rgkit would have made
  only that robot guard.
- ``random`` is re-seeded before each ``act`` from the match seed, seat, turn and robot id.

Robot ids: the arena observation names robots by square only (R4), so the host keeps ids
itself. It remembers last turn's robots and the orders it sent and works out which of its
movers succeeded: R16a-c failures are certain; the other movers form chains (each entering the
square the next one leaves) in which, by R17, success runs from the front, so the host picks
for each chain the number of successful movers whose resulting squares and HP best explain the
robots it sees now (more moves on a tie); a chain whose front target held an enemy before and
after the turn failed. Robots on the player's spawn points after a spawn turn, and robots that
cannot be matched, get new ids. (Over 1000 seeded random games against the built-in bots this
kept every own robot's id; a test replays 60 turns.) Enemy ids are best effort: an enemy keeps
its id if it stayed or is the only candidate that moved one square. After a timeout the host is
restarted and ids start afresh.
"""

from __future__ import annotations

import random
import sys
import traceback
import types
from typing import Any

from botwars.engine.agent import BotHost
from botwars.engine.codes import FailureCode
from botwars.games.arena import rgcompat
from botwars.games.arena.rgcompat import AttrDict

DIRS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
# rgkit step (dx, dy) in y-down coordinates → arena direction
RG_STEP_DIR = {(0, -1): "N", (1, 0): "E", (0, 1): "S", (-1, 0): "W"}


class InvalidAction(Exception):
    """An rgkit action we cannot turn into an arena order."""


def install_rg_modules() -> None:
    """Make ``import rg``, ``import rgkit.rg``, ``from rgkit import rg`` and
    ``from rgkit.settings import settings`` give the compat helpers."""
    pkg = types.ModuleType("rgkit")
    pkg.__path__ = []  # a package, so ``import rgkit.rg`` resolves through sys.modules
    pkg.rg = rgcompat
    settings_mod = types.ModuleType("rgkit.settings")
    settings_mod.settings = rgcompat.settings
    settings_mod.AttrDict = AttrDict
    pkg.settings = settings_mod
    sys.modules["rgkit"] = pkg
    sys.modules["rgkit.rg"] = rgcompat
    sys.modules["rgkit.settings"] = settings_mod
    sys.modules["rg"] = rgcompat


class IdTracker:
    """Stable robot ids across turns from square-only observations (see the module docstring)."""

    def __init__(self, amap, spawn_interval: int, player: int):
        self.amap = amap
        self.spawn_interval = spawn_interval
        self.player = player
        self.next_id = 1
        self.turn: int | None = None
        self.own: dict[tuple[int, int], tuple[int, int]] = {}    # square → (id, hp)
        self.enemy: dict[tuple[int, int], tuple[int, int]] = {}
        self.orders: dict[tuple[int, int], tuple[str, str | None]] = {}

    def _new(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def update(self, turn: int, own_now: dict, enemy_now: dict) -> tuple[dict, dict]:
        """Ids for this turn's robots: ``(own square → id, enemy square → id)``."""
        fresh = self.turn is None or turn != self.turn + 1
        spawned_turn = (not fresh) and (turn - 1) % self.spawn_interval == 0
        own_spawns = set(self.amap.spawns.get(self.player, ())) if spawned_turn else set()
        enemy_spawns = set(self.amap.spawns.get(3 - self.player, ())) if spawned_turn else set()
        own_ids: dict = {}
        enemy_ids: dict = {}
        if not fresh:
            own_ids = self._match_own(own_now, own_spawns, enemy_now)
            enemy_ids = self._match_enemy(enemy_now, enemy_spawns)
        for sq in sorted(own_now):
            if sq not in own_ids:
                own_ids[sq] = self._new()
        for sq in sorted(enemy_now):
            if sq not in enemy_ids:
                enemy_ids[sq] = self._new()
        self.turn = turn
        self.own = {sq: (own_ids[sq], hp) for sq, hp in own_now.items()}
        self.enemy = {sq: (enemy_ids[sq], hp) for sq, hp in enemy_now.items()}
        self.orders = {}
        return own_ids, enemy_ids

    def _match_own(self, now: dict, spawned: set, enemy_now: dict) -> dict:
        """Own ids: decide which of last turn's own movers succeeded, then place every robot.

        Movers that R16a-c make fail are fixed. The others form chains (each mover's target is
        the next one's origin) and closed rotations. In a chain, by R17, success runs from the
        front: for some j the first j movers moved and the rest stayed. Each chain (rotation)
        takes the j (all or nothing) whose positions best explain the robots seen now
        (a robot seen where the hypothesis puts it, with no more HP than before), preferring
        more moves on a tie.
        """
        own = self.own
        movers: dict = {}
        for sq, (a, d) in self.orders.items():
            if a == "M" and sq in own:
                dx, dy = DIRS[d]
                movers[sq] = (sq[0] + dx, sq[1] + dy)
        count: dict = {}
        for tg in movers.values():
            count[tg] = count.get(tg, 0) + 1
        free = {p for p, tg in movers.items()
                if self.amap.is_open(tg) and count[tg] == 1 and movers.get(tg) != p}  # R16a, b, c
        follower = {tg: p for p, tg in movers.items() if p in free and tg in free}  # origin → who enters it
        moved: set = set()

        def fits(robot_sq, pos) -> int:
            return int(pos is not None and pos in now and pos not in spawned and now[pos] <= own[robot_sq][1])

        done: set = set()
        for front in sorted(free):
            tg = movers[front]
            if front in done or tg in free:
                continue  # not the front of a chain (or part of a rotation: below)
            chain = [front]
            while chain[-1] in follower:
                chain.append(follower[chain[-1]])
            done.update(chain)
            if tg in own or (tg in self.enemy and tg in enemy_now):
                # R17: the front is blocked by a robot that stays, so is the chain (an enemy
                # there before and after either stayed, or left while another entered: R16b)
                continue
            best = None
            for j in range(len(chain) + 1):
                score = sum(fits(r, movers[r] if i < j else r) for i, r in enumerate(chain))
                if best is None or score >= best[0]:
                    best = (score, j)
            moved.update(chain[:best[1]])
        for start in sorted(free - done):  # closed rotations (H10): all move or none
            cycle = [start]
            while movers[cycle[-1]] != start and movers[cycle[-1]] in free and movers[cycle[-1]] not in cycle:
                cycle.append(movers[cycle[-1]])
            done.update(cycle)
            if movers[cycle[-1]] != start:
                continue
            stay = sum(fits(r, r) for r in cycle)
            go = sum(fits(r, movers[r]) for r in cycle)
            if go >= stay:
                moved.update(cycle)
        ids: dict = {}
        for p, (rid, hp) in sorted(own.items()):
            loc = movers[p] if p in moved else p
            if loc in now and loc not in spawned and loc not in ids and now[loc] <= hp:
                ids[loc] = rid
        return ids

    def _match_enemy(self, now: dict, spawned: set) -> dict:
        ids: dict = {}
        used: set = set()
        pending = []
        for sq in sorted(now):
            if sq in spawned:
                continue
            prev = self.enemy.get(sq)
            if prev is not None and now[sq] <= prev[1]:
                ids[sq] = prev[0]
                used.add(sq)
            else:
                pending.append(sq)
        for sq in pending:
            cands = [(sq[0] + dx, sq[1] + dy) for dx, dy in DIRS.values()]
            cands = [c for c in cands if c in self.enemy and c not in used and now[sq] <= self.enemy[c][1]
                     and c not in now]
            if len(cands) == 1:
                ids[sq] = self.enemy[cands[0]][0]
                used.add(cands[0])
        return ids


def to_order(action: Any, loc: tuple[int, int]) -> tuple[str, str | None]:
    """An rgkit action from rgkit location ``loc`` → ``(arena action, direction)``."""
    if not isinstance(action, (list, tuple)) or len(action) not in (1, 2) or not isinstance(action[0], str):
        raise InvalidAction(f"{action!r} is not an rgkit action")
    name = action[0]
    if name in ("move", "attack"):
        if len(action) != 2:
            raise InvalidAction(f"{list(action)!r}: {name} needs a location")
        target = action[1]
        if (not isinstance(target, (list, tuple)) or len(target) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in target)
                or not all(float(v).is_integer() for v in target)):
            raise InvalidAction(f"{list(action)!r}: the location must be two whole numbers")
        step = (int(target[0]) - loc[0], int(target[1]) - loc[1])
        d = RG_STEP_DIR.get(step)
        if d is None:
            raise InvalidAction(f"{list(action)!r}: {tuple(int(v) for v in target)} is not next to {loc}")
        return ("M" if name == "move" else "A", d)
    if len(action) != 1 and name in ("guard", "suicide"):
        raise InvalidAction(f"{list(action)!r}: {name} takes no location")
    if name == "guard":
        return ("D", None)
    if name == "suicide":
        return ("S", None)
    raise InvalidAction(f"{name!r} is not move, attack, guard or suicide")


class RgkitHost:
    """Drives one rgkit ``Robot`` instance for one arena seat."""

    def __init__(self, robot: Any, amap, config: dict[str, Any], seat: str, seed: int, path: str = "",
                 host: BotHost | None = None):
        self.robot = robot
        self.host = host
        self.amap = amap
        self.config = config
        self.seat = seat
        self.seed = seed
        self.path = path
        self.tracker: IdTracker | None = None

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        """One P11 view → the P12 reply (or a ``botwars_error`` reply)."""
        h = self.amap.height
        player = view["player"]
        if self.tracker is None:
            self.tracker = IdTracker(self.amap, self.config.get("spawn_interval", 10), player)
        own = {(r["x"], r["y"]): r["hp"] for r in view["robots"] if r["side"] == "F"}
        foe = {(r["x"], r["y"]): r["hp"] for r in view["robots"] if r["side"] == "E"}
        own_ids, foe_ids = self.tracker.update(view["turn"], own, foe)
        me, them = player - 1, 2 - player
        robots = AttrDict()
        for group, pid, ids in ((own, me, own_ids), (foe, them, foe_ids)):
            for sq, hp in group.items():
                loc = rgcompat.to_rg(sq, h)
                robots[loc] = AttrDict(location=loc, hp=hp, player_id=pid, robot_id=ids[sq])
        game = AttrDict(robots=robots, turn=view["turn"])
        orders = []
        chosen: dict = {}
        for loc in sorted(rgcompat.to_rg(sq, h) for sq in own):
            info = robots[loc]
            r = self.robot
            r.location, r.hp, r.player_id, r.robot_id = loc, info.hp, info.player_id, info.robot_id
            random.seed(f"{self.seed}:{self.seat}:{view['turn']}:{info.robot_id}")
            sq = rgcompat.from_rg(loc, h)
            try:
                action = r.act(game)
            except Exception as exc:
                traceback.print_exc()
                if self.host is None:
                    raise
                reply = self.host.failure_reply(exc, self.path)
                reply["botwars_error"] = f"robot at {loc}: {reply['botwars_error']}"
                return reply
            try:
                a, d = to_order(action, loc)
            except InvalidAction as exc:
                return {"botwars_error": f"robot at {loc}: {exc}", "code": FailureCode.MALFORMED}
            chosen[sq] = (a, d)
            o = {"x": sq[0], "y": sq[1], "action": a}
            if d:
                o["dir"] = d
            orders.append(o)
        self.tracker.orders = chosen
        return {"orders": orders}


def load_bot(path: str, host: BotHost) -> RgkitHost:
    """The pyhost adapter: configure ``rg`` for the match's map and parameters, load the file's
    ``Robot`` class and wrap one instance (raises when the file has no class ``Robot``)."""
    from botwars.games.arena.board import load_map
    amap = load_map(host.config.get("map", "default"))
    rgcompat.configure(amap, host.config)
    install_rg_modules()
    module = host.load_module(path, "robot")
    cls = vars(module).get("Robot")
    if not isinstance(cls, type):
        raise LookupError("no class Robot in the file")
    return RgkitHost(cls(), amap, host.config, host.seat, host.seed, path, host=host)
