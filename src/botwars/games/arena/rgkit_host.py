"""Host adapter for unmodified RobotGame (rgkit) bots: the arena's agent kind ``rgkit:``.

For the agent spec ``rgkit:path/to/robot.py`` the platform's Python host runs
``python -m botwars.agents.pyhost --adapter botwars.games.arena.rgkit_host:load_bot robot.py``
as a JSON-lines program (sandboxed), so the bot lives in its own process; :func:`load_bot`
builds an :class:`RgkitHost` there. Per decision it reads the arena P11 view and answers the
P12 object:

- Before loading the bot it installs :mod:`botwars.games.arena.rgcompat` as the modules ``rg``
  and ``rgkit.rg`` (and ``rgkit.settings``), configured for the match's map and parameters.
- One instance of the file's ``Robot`` class is made per match. For every robot of the player,
  in ascending rgkit location order (with ``rules=robotgame``: in rgkit's robot order, the
  view's ``robot_order``, which also orders ``game.robots``, as rgkit's state does), the instance's ``location``, ``hp``, ``player_id`` and
  ``robot_id`` are set (from the view, as rgkit sets them from its own state: a bot that
  changes ``game.robots`` changes nothing for its next robot) and ``act(game)`` is called,
  exactly as rgkit does.
- ``game`` has ``game.robots`` (also ``game['robots']``): a dict keyed by rgkit location of
  robot records with ``location``, ``hp`` and ``player_id`` (0 for arena player 1, 1 for player
  2) for both players, and ``robot_id`` for the player's own robots only (rgkit removes its
  ``player_only_properties`` from enemies, and bots tell friend from foe by ``'robot_id' in
  bot``); ``game.turn``: the arena turn being decided (1..``max_turns``; like rgkit, spawning
  happens in turns where ``turn % spawn_every == 0``); ``game.seed``: set before every ``act``,
  as rgkit does, to the string ``"TURNSEED-ROBOT_ID"`` that ``random`` is seeded with
  (``TURNSEED``, 0..``max_seed``, is drawn per seat and turn from the seat's seed). One
  ``game`` object serves all of the player's robots in a turn, as in rgkit.
- Actions are validated as rgkit's ``Player._validate_action`` does (:func:`to_order`):
  ``['move', loc]`` → ``M d`` and ``['attack', loc]`` → ``A d`` where ``loc`` is a tuple equal
  to an orthogonally adjacent location that is neither off the board nor an obstacle;
  ``['guard']`` → ``D``; ``['suicide']`` → ``S``.
- Per robot, as in rgkit: an exception in ``act`` (``crash``, or ``memory`` for MemoryError)
  or an action rgkit refuses (``malformed``) makes only that robot guard (``D``); the other
  robots' orders stand. Each such failure is reported in the reply's ``robot_errors`` list
  (``{"x", "y", "code", "detail"}``, at most 16, details at most 200 characters), which the
  arena records with the turn's errors (P14) and the match lists in its errors.

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
from botwars.games.arena.board import load_map  # at the top: a kept host imports it once, not per match
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

    def __init__(self, amap, spawn_interval: int, player: int, shared_spawns: bool = False):
        """``shared_spawns``: every spawn square may get either player's robots (``rules=robotgame``)."""
        self.amap = amap
        self.spawn_interval = spawn_interval
        self.player = player
        self.next_id = 1
        self.turn: int | None = None
        self.own: dict[tuple[int, int], tuple[int, int]] = {}    # square → (id, hp)
        self.enemy: dict[tuple[int, int], tuple[int, int]] = {}
        self.orders: dict[tuple[int, int], tuple[str, str | None]] = {}
        if shared_spawns:
            self.own_spawns = self.enemy_spawns = frozenset(sq for sqs in amap.spawns.values() for sq in sqs)
        else:
            self.own_spawns = frozenset(amap.spawns.get(player, ()))
            self.enemy_spawns = frozenset(amap.spawns.get(3 - player, ()))

    def _new(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def update(self, turn: int, own_now: dict, enemy_now: dict) -> tuple[dict, dict]:
        """Ids for this turn's robots: ``(own square → id, enemy square → id)``."""
        own_ids: dict = {}
        enemy_ids: dict = {}
        if self.turn is not None and turn == self.turn + 1:
            if (turn - 1) % self.spawn_interval == 0:  # robots on spawn points are new
                own_ids = self._match_own(own_now, self.own_spawns, enemy_now)
                enemy_ids = self._match_enemy(enemy_now, self.enemy_spawns)
            else:
                own_ids = self._match_own(own_now, _NONE, enemy_now)
                enemy_ids = self._match_enemy(enemy_now, _NONE)
        # the matches name only robots seen now: when they name all of them, nobody is new
        if len(own_ids) != len(own_now):
            for sq in sorted(own_now):
                if sq not in own_ids:
                    own_ids[sq] = self._new()
        if len(enemy_ids) != len(enemy_now):
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
        if not movers:  # nobody moved: every robot kept its square (distinct squares, any order)
            return {p: rid for p, (rid, hp) in own.items() if p in now and p not in spawned and now[p] <= hp}
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
        enemy = self.enemy
        for sq, hp in now.items():  # independent of each other: any order
            if sq in spawned:
                continue
            prev = enemy.get(sq)
            if prev is not None and hp <= prev[1]:
                ids[sq] = prev[0]
                used.add(sq)
            else:
                pending.append(sq)
        pending.sort()  # these compete for last turn's robots: in square order
        for sq in pending:
            cands = [(sq[0] + dx, sq[1] + dy) for dx, dy in DIRS.values()]
            cands = [c for c in cands if c in self.enemy and c not in used and now[sq] <= self.enemy[c][1]
                     and c not in now]
            if len(cands) == 1:
                ids[sq] = self.enemy[cands[0]][0]
                used.add(cands[0])
        return ids


def to_order(action: Any, loc: tuple[int, int]) -> tuple[str, str | None]:
    """An rgkit action of the robot at rgkit location ``loc`` → ``(arena action, direction)``.

    Validates exactly as rgkit's ``Player._validate_action``: a ``list`` or ``tuple`` (exact
    types) of length 1 or 2 starting with a ``str``; ``move``/``attack`` need a second element,
    a list or tuple of two ``int``/``float`` (exact types: no ``bool``) that equals one of
    ``rg.locs_around(loc, filter_out=['invalid', 'obstacle'])`` (so a *list* location, a
    distant or diagonal square, a wall or a square off the board are refused, as in rgkit);
    ``guard`` and ``suicide`` ignore a second element. Needs :func:`rgcompat.configure` first.
    Raises :class:`InvalidAction` (in the host: that robot guards, as in rgkit).
    """
    if type(action) not in (list, tuple) or len(action) not in (1, 2) or type(action[0]) is not str:
        raise InvalidAction(f"{_short(action)} is not an rgkit action")
    name = action[0]
    if name in ("move", "attack"):
        if len(action) != 2:
            raise InvalidAction(f"{_short(action)}: {name} requires a location as well")
        target = action[1]
        if type(target) not in (list, tuple) or len(target) != 2 \
                or type(target[0]) not in (int, float) or type(target[1]) not in (int, float):
            raise InvalidAction(f"{_short(action)}: the location must be a tuple of two numbers")
        # a list never equals rgkit's tuple locations; a tuple of whole floats equals (and hashes
        # as) the ints, as in rgkit's comparison
        if type(target) is not tuple or target not in rgcompat.valid_steps(loc):
            raise InvalidAction(f"{_short(action)} is not a valid action from {loc}")
        d = RG_STEP_DIR[(int(target[0]) - loc[0], int(target[1]) - loc[1])]
        return ("M" if name == "move" else "A", d)
    if name == "guard":
        return ("D", None)
    if name == "suicide":
        return ("S", None)
    raise InvalidAction(f"{name[:20]!r} is not move, attack, guard or suicide")


def _short(value: Any) -> str:
    """``repr`` of a bot's value, clipped (rgkit's ``str_limit``: 50 characters)."""
    try:
        text = repr(value) if type(value) in (list, tuple, str, int, float) else f"a {type(value).__name__}"
    except Exception:
        text = "an unprintable value"
    return text if len(text) <= 50 else text[:47] + "..."


class RgkitHost:
    """Drives one rgkit ``Robot`` instance for one arena seat."""

    #: the replies of :meth:`act` hold only dicts, lists, ``str`` (failure codes: a ``StrEnum``)
    #: and ``int`` that this class built (the bot's own values never reach them), so the Python
    #: host may encode them with ``orjson`` (:func:`botwars.agents.pyhost.plain_reply_bytes`)
    plain_replies = True

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
        """One P11 view → the P12 reply, plus ``robot_errors`` for robots that fell back to
        guard (see the module docstring)."""
        h = self.amap.height
        player = view["player"]
        tracker = self.tracker
        if tracker is None:
            tracker = self.tracker = IdTracker(self.amap, self.config.get("spawn_interval", 10), player,
                                               self.config.get("rules") == "robotgame")
        own: dict = {}
        foe: dict = {}
        for rv in view["robots"]:
            side = rv["side"]
            if side == "F":
                own[(rv["x"], rv["y"])] = rv["hp"]
            elif side == "E":
                foe[(rv["x"], rv["y"])] = rv["hp"]
        turn = view["turn"]
        own_ids, foe_ids = tracker.update(turn, own, foe)
        given = view.get("robot_ids")
        if isinstance(given, list):  # rules=robotgame: rgkit's own ids, as its runner gives them
            known = {(e[0], e[1]): e[2] for e in given if isinstance(e, list) and len(e) == 3}
            own_ids = {sq: known.get(sq, rid) for sq, rid in own_ids.items()}
        me, them = player - 1, 2 - player
        mine = [((sq[0] - 1, h - sq[1]), sq, hp, own_ids[sq]) for sq, hp in own.items()]  # rgcompat.to_rg

        def robots() -> AttrDict:
            """rgkit's AttrDict records, built without AttrDict.__init__ (same keys, same order);
            called at the first read of ``game.robots`` only (a bot that never looks, such as
            guardbot, never pays for them)."""
            new = _new_dict
            out = AttrDict()
            for loc, _, hp, rid in mine:
                info = new(AttrDict)
                info["location"] = loc
                info["hp"] = hp
                info["player_id"] = me
                info["robot_id"] = rid
                info.__dict__ = info
                out[loc] = info
            for sq, hp in foe.items():  # rgkit: player_only_properties (robot_id) removed from enemies
                loc = (sq[0] - 1, h - sq[1])
                info = new(AttrDict)
                info["location"] = loc
                info["hp"] = hp
                info["player_id"] = them
                info.__dict__ = info
                out[loc] = info
            return out

        order = view.get("robot_order")
        if order is None:
            mine.sort()  # rgkit location order (locations are distinct)
            game = LazyGame(turn, robots)
        else:  # rules=robotgame: rgkit's own robot order, for game.robots and for the act calls
            rank = {(x - 1, h - y): i for i, (x, y) in enumerate(order)}
            last = len(rank)
            mine.sort(key=lambda m: rank.get(m[0], last))

            def ranked() -> AttrDict:
                """``robots()`` in rgkit's robot order (built at the first read, as above)."""
                return AttrDict(sorted(robots().items(), key=lambda kv: rank.get(kv[0], last)))
            game = LazyGame(turn, ranked)
        # rgkit: one seed per player and turn (0..max_seed), "SEED-ROBOT_ID" per act
        # (rules=robotgame: the very seed rgkit's runner would draw, from the view)
        turn_seed = view.get("act_seed")
        if not isinstance(turn_seed, int):
            turn_seed = random.Random(f"{self.seed}:{self.seat}:{turn}").randint(0, rgcompat.RGKIT_FIXED["max_seed"])
        prefix = f"{turn_seed}-"
        orders = []
        failures: list[dict[str, Any]] = []
        chosen: dict = {}
        r = self.robot
        for loc, sq, hp, rid in mine:
            # as rgkit, from the engine's own record of the robot (not from game.robots, which
            # the bot's earlier acts may have changed)
            r.location, r.hp, r.player_id, r.robot_id = loc, hp, me, rid
            seed = f"{prefix}{rid}"
            random.seed(seed)
            game.seed = seed
            try:
                a, d = to_order(r.act(game), loc)
            except InvalidAction as exc:
                a, d = "D", None  # rgkit: an action it refuses makes that robot guard
                failures.append({"x": sq[0], "y": sq[1], "code": FailureCode.MALFORMED,
                                 "detail": _clip(f"robot at {loc}: {exc}")})
            except (Exception, SystemExit) as exc:
                traceback.print_exc()
                if self.host is None:
                    raise
                a, d = "D", None  # rgkit: an exception in act makes only that robot guard
                reply = self.host.failure_reply(exc, self.path)
                failures.append({"x": sq[0], "y": sq[1], "code": reply["code"],
                                 "detail": _clip(f"robot at {loc}: {reply['botwars_error']}")})
            chosen[sq] = (a, d)
            if d:
                orders.append({"x": sq[0], "y": sq[1], "action": a, "dir": d})
            else:
                orders.append({"x": sq[0], "y": sq[1], "action": a})
        tracker.orders = chosen
        out: dict[str, Any] = {"orders": orders}
        if failures:
            if len(failures) > MAX_ROBOT_ERRORS:
                last = failures[MAX_ROBOT_ERRORS - 1]
                more = len(failures) - MAX_ROBOT_ERRORS
                failures = failures[:MAX_ROBOT_ERRORS - 1] + [dict(last, detail=_clip(
                    f"(and {more} more robots) {last['detail']}"))]
            out["robot_errors"] = failures
        return out


_new_dict = dict.__new__
_NONE: frozenset = frozenset()


class LazyGame(AttrDict):
    """rgkit's ``game`` (an ``AttrDict`` of ``robots`` and ``turn``) whose ``robots`` record is
    built at its first read (issue 28 item 3): ``game.robots``, ``game['robots']``, and any way
    of looking at the whole dict (``in``, ``len``, iteration, ``keys``/``values``/``items``,
    ``get``, ``copy``, ``dict(game)``, ``json.dumps``, ``copy``/``pickle``, ``repr``, ``==``)
    builds it first, so a bot sees exactly the eager ``AttrDict(robots=..., turn=...)``, keys in
    that order. ``build()`` returns the record; a bot that sets ``game.robots`` itself before
    reading it keeps its own value."""

    __slots__ = ("_build",)

    def __init__(self, turn: int, build: Any):
        dict.__init__(self, turn=turn)
        self.__dict__ = self
        self._build = build

    def _fill(self) -> None:
        build = self._build
        if build is None:
            return
        self._build = None
        if dict.__contains__(self, "robots"):  # the bot set its own
            return
        items = list(dict.items(self))
        dict.clear(self)
        dict.__setitem__(self, "robots", build())
        dict.update(self, items)

    def __missing__(self, key: Any) -> Any:
        if key == "robots" and self._build is not None:
            self._fill()
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def __getattr__(self, name: str) -> Any:  # only for names not in the dict
        if name == "robots" and self._build is not None:
            self._fill()
            return dict.__getitem__(self, name)
        raise AttributeError(name)

    def __reduce_ex__(self, protocol: Any) -> Any:
        self._fill()
        return (AttrDict, (dict(dict.items(self)),))


def _filled(name: str) -> Any:
    method = getattr(dict, name)

    def call(self: LazyGame, *args: Any, **kwargs: Any) -> Any:
        self._fill()
        return method(self, *args, **kwargs)
    call.__name__ = name
    return call


for _name in ("__contains__", "__iter__", "__len__", "__repr__", "__eq__", "__ne__", "__or__", "__ror__",
              "__reversed__", "keys", "values", "items", "get", "copy", "pop", "popitem", "setdefault"):
    setattr(LazyGame, _name, _filled(_name))


#: at most this many ``robot_errors`` entries per reply (the P12 line stays under 8192 characters)
MAX_ROBOT_ERRORS = 16
DETAIL_CHARS = 200


def _clip(text: str) -> str:
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS - 3] + "..."


def load_bot(path: str, host: BotHost) -> RgkitHost:
    """The pyhost adapter: configure ``rg`` for the match's map and parameters, load the file's
    ``Robot`` class and wrap one instance (raises when the file has no class ``Robot``)."""
    amap = load_map(host.config.get("map", "default"))
    rgcompat.configure(amap, host.config)
    install_rg_modules()
    module = host.load_module(path, "robot")
    cls = vars(module).get("Robot")
    if not isinstance(cls, type):
        raise LookupError("no class Robot in the file")
    return RgkitHost(cls(), amap, host.config, host.seat, host.seed, path, host=host)
