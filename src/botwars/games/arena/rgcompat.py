"""RobotGame (rgkit) helpers computed on an arena map: importable as ``rg`` and ``rgkit.rg``.

:mod:`botwars.games.arena.rgkit_host` installs this module under those names before it loads
an rgkit bot, after :func:`configure` has set it up for the match's map and parameters.

Coordinates are rgkit's: a location is a tuple ``(x, y)`` of ints with ``x = X - 1`` (column,
0 at the west edge) and ``y = h - Y`` (row, 0 at the top/north edge, growing southwards), where
``X:Y`` is the arena square (R1) and ``h`` the map height. So rgkit "up" (y - 1) is arena N.
Walls are rgkit *obstacles*; both players' spawn points are rgkit *spawn* locations.

Provided: ``dist``, ``wdist``, ``loc_types``, ``locs_around``, ``toward``, ``memoize``,
``memodict``, ``CENTER_POINT``, ``settings`` (with ``board_size``, ``board_width``,
``board_height``, ``spawn_every``, ``robot_hp``, ``attack_range``, ``collision_damage``,
``suicide_damage``, ``max_turns``, ``spawn_coords``, ``obstacles``, ``player_count``, ``start``,
and rgkit's fixed entries ``str_limit``, ``max_seed``, ``default_rating``, ``max_time_initialization``
(also as ``max_time_initial``), ``max_time_first_act``, ``max_time_per_act``, ``exposed_properties``,
``player_only_properties``, ``user_obj_types``, ``valid_commands`` with rgkit's values).
``toward`` reproduces rgkit's own ``_sign(0) == -1`` quirk exactly.

With ``rules=robotgame`` (:mod:`botwars.games.arena.robotgame`) the settings are rgkit's own:
``spawn_per_player`` 5, ``attack_range`` (8, 10), ``collision_damage`` 5, ``start`` None, and
``spawn_coords``/``obstacles`` in the order of rgkit's map file (by row, then column).
"""

from __future__ import annotations

from typing import Any

Loc = tuple[int, int]


class AttrDict(dict):
    """A dict whose keys are also attributes (rgkit's ``AttrDict``)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.__dict__ = self


#: rgkit's settings that do not depend on the map or the match parameters, with rgkit's values
#: (``rgkit/settings.py``). rgkit spells the start-up allowance ``max_time_initialization``;
#: ``max_time_initial`` is the same value under the shorter name some bots use.
RGKIT_FIXED: dict[str, Any] = {
    "str_limit": 50,
    "max_seed": 2147483647,
    "default_rating": 1200,
    "max_time_initialization": 2000,
    "max_time_initial": 2000,
    "max_time_first_act": 1500,
    "max_time_per_act": 300,
    "exposed_properties": ("location", "hp", "player_id"),
    "player_only_properties": ("robot_id",),
    "user_obj_types": ("Robot",),
    "valid_commands": ("move", "attack", "guard", "suicide"),
}

settings = AttrDict()
CENTER_POINT: Loc = (0, 0)
_width = 0
_height = 0
_spawn_set: frozenset = frozenset()
_obstacle_set: frozenset = frozenset()


def configure(amap, config: dict[str, Any]) -> None:
    """Set ``settings``, ``CENTER_POINT`` and the map for ``amap`` (an ArenaMap) and ``config``."""
    global CENTER_POINT, _width, _height, _spawn_set, _obstacle_set
    _width, _height = amap.width, amap.height
    dmg = config.get("attack_damage_enemy", 12)
    settings.clear()
    settings.update(RGKIT_FIXED)
    settings.update({
        "spawn_every": config.get("spawn_interval", 10),
        "spawn_per_player": min(len(v) for v in amap.spawns.values()) if amap.spawns else 0,
        "board_size": max(amap.width, amap.height),
        "board_width": amap.width,
        "board_height": amap.height,
        "robot_hp": config.get("initial_hp", 100),
        "attack_range": (dmg, dmg),
        "collision_damage": 0,
        "suicide_damage": config.get("self_destruct_damage", 6),
        "max_turns": config.get("max_turns", 100),
        "player_count": 2,
        "spawn_coords": sorted(to_rg(sq, amap.height) for sqs in amap.spawns.values() for sq in sqs),
        "obstacles": sorted(to_rg(sq, amap.height) for sq in amap.walls),
        # rgkit's map ``start``: each player's turn-0 robots (R7: one on every spawn point)
        "start": [sorted(to_rg(sq, amap.height) for sq in amap.spawns.get(p, ())) for p in (1, 2)],
    })
    if config.get("rules") == "robotgame":  # RobotGame's own rules: rgkit's settings and list order
        from botwars.games.arena import robotgame
        settings.update({
            "spawn_per_player": robotgame.SPAWN_PER_PLAYER,
            "attack_range": robotgame.ATTACK_RANGE,
            "collision_damage": robotgame.COLLISION_DAMAGE,
            "spawn_coords": [to_rg(sq, amap.height) for sq in robotgame.spawn_squares(amap)],
            "obstacles": sorted((to_rg(sq, amap.height) for sq in amap.walls), key=lambda loc: (loc[1], loc[0])),
            "start": None,
        })
    _spawn_set = frozenset(settings["spawn_coords"])
    _obstacle_set = frozenset(settings["obstacles"])
    CENTER_POINT = (amap.width // 2, amap.height // 2)  # as rgkit: int(board_size / 2)
    _cache.clear()
    _around.clear()
    _steps.clear()


def to_rg(sq: tuple[int, int], height: int) -> Loc:
    """Arena square ``(X, Y)`` → rgkit location ``(x, y)``."""
    return (sq[0] - 1, height - sq[1])


def from_rg(loc: Loc, height: int) -> tuple[int, int]:
    """rgkit location ``(x, y)`` → arena square ``(X, Y)``."""
    return (loc[0] + 1, height - loc[1])


def dist(p1, p2) -> float:
    """Euclidean distance."""
    return ((p2[0] - p1[0]) ** 2 + (p2[1] - p1[1]) ** 2) ** 0.5


def wdist(p1, p2) -> int:
    """Walking distance: |dx| + |dy|."""
    return abs(p2[0] - p1[0]) + abs(p2[1] - p1[1])


def memoize(f):
    """Memoize a function of one hashable argument (as rgkit's ``rg.memoize``)."""
    class _Memo(dict):
        def __missing__(self, key):
            val = self[key] = f(key)
            return val
    return _Memo().__getitem__


memodict = memoize

_cache: dict = {}
_around: dict = {}  # loc -> its 4 orthogonal neighbours, rgkit's order
_steps: dict = {}  # loc -> frozenset of its neighbours on the board and not obstacles


def _types(loc: Loc) -> frozenset[str]:
    """:func:`loc_types` of the tuple ``loc``, cached (a frozenset: the caller must not change it)."""
    hit = _cache.get(loc)
    if hit is None:
        x, y = loc
        if not (0 <= x < _width and 0 <= y < _height):
            hit = frozenset(("invalid",))
        else:
            hit = frozenset(("normal",) + (("spawn",) if loc in _spawn_set else ())
                            + (("obstacle",) if loc in _obstacle_set else ()))
        _cache[loc] = hit
    return hit


def loc_types(loc) -> set[str]:
    """``{'invalid'}`` off the board, else ``{'normal'}`` plus ``'spawn'`` and/or ``'obstacle'``
    (a fresh set each call: a bot that changes it changes nothing else)."""
    return set(_types(tuple(loc)))


def _neighbours(loc) -> tuple[Loc, ...]:
    key = loc if type(loc) is tuple else tuple(loc)
    got = _around.get(key)
    if got is None:
        x, y = key
        got = _around[key] = tuple((x + dx, y + dy) for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)))
    return got


def locs_around(loc, filter_out=None) -> list[Loc]:
    """The 4 orthogonal neighbours (rgkit order: south, east, north, west in y-down terms:
    ``(x, y+1), (x+1, y), (x, y-1), (x-1, y)``) minus those of a type in ``filter_out``."""
    around = _neighbours(loc)
    if not filter_out:
        return list(around)
    drop = set(filter_out)
    return [n for n in around if not drop & _types(n)]


def valid_steps(loc: Loc) -> frozenset[Loc]:
    """``locs_around(loc, filter_out=('invalid', 'obstacle'))`` as a frozenset, cached per
    location (what an rgkit move or attack from ``loc`` may name)."""
    got = _steps.get(loc)
    if got is None:
        got = _steps[loc] = frozenset(locs_around(loc, filter_out=("invalid", "obstacle")))
    return got


def _sign(v: int) -> int:
    """rgkit's ``_sign``: 1 for a positive ``v``, else -1 (so ``_sign(0) == -1``, a quirk of
    rgkit's ``x and 1 if x > 0 else -1`` that :func:`toward` inherits)."""
    return 1 if v > 0 else -1


def toward(curr, dest) -> Loc:
    """rgkit's ``rg.toward``, step for step: ``curr`` when ``curr == dest``; otherwise one step
    along the axis with the larger difference (x on a tie) unless that square is an obstacle,
    then the step along the other axis. Steps use :func:`_sign`, so a zero difference steps
    towards -1 (rgkit's quirk: from (5, 5) to (5, 9) past an obstacle at (5, 6) it returns
    (4, 5)). No bounds check, as in rgkit."""
    if curr == dest:
        return curr
    x0, y0 = curr
    x, y = dest
    x_diff, y_diff = x - x0, y - y0
    move_y = (x0, y0 + _sign(y_diff))
    move_x = (x0 + _sign(x_diff), y0)
    obstacles = _obstacle_set
    if abs(y_diff) > abs(x_diff):
        return move_y if move_y not in obstacles else move_x
    return move_x if move_x not in obstacles else move_y
