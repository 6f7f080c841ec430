"""RobotGame's own rules (rgkit) as an arena variant: the match parameter ``rules=robotgame``.

The binding text of this variant is rgkit's source (``rgkit/settings.py``, ``rgkit/gamestate.py``
``GameState.get_delta``/``apply_delta``, ``rgkit/game.py`` ``Game.run_all_turns``/``get_scores``,
``rgkit/maps/default.py``), not shared/rules/arena.md; docs/arena-robotgame.md lists where the
two differ. In short, with rgkit's settings:

- the board is rgkit's default map (the shipped map ``robotgame``: 19×19 with its obstacles and
  48 spawn squares, which belong to no player);
- turn 0 has no robots and only spawns (done by :func:`setup`); bots act in turns 1 to
  ``max_turns - 1`` (rgkit's ``game.turn``); the game ends when rgkit's state turn reaches
  ``max_turns`` (100);
- every ``spawn_interval`` (10) turns, after moves and damage, every robot standing on *any*
  spawn square dies and 5 new robots per player (``initial_hp`` 50 HP) appear on spawn squares
  drawn by rgkit's symmetric draw (``GameState._get_spawn_locations_symmetric``);
- moves are rgkit's: a robot whose target is wanted by another robot, or held by a robot that
  stays, or swapped head-on, stays (``GameState._get_contenders``); a robot that tried to move
  takes 5 (``collision_damage``) from every enemy it collided with unless it guards;
- an attack deals a random 8-10 (``attack_range``) to whoever stands on the target square after
  moves, if an enemy; suicide deals ``self_destruct_damage`` (15) to the 4 orthogonal
  neighbours' enemies and kills the robot; a guarding robot takes half (floor) of attack and
  suicide damage and no collision damage; friendly fire does nothing;
- an order rgkit would refuse (a move or attack onto an obstacle or off the board) and a robot
  without an order make the robot guard, as rgkit does for an action it refuses;
- the score is each player's number of robots at the end (``GameState.get_scores``): more wins,
  equal is a draw (no HP tie-break).

Randomness: rgkit's, from the match seed. The state carries rgkit's ``GameState`` seed string
(``ArenaState.rng``); each turn draws attack damage from ``Random(seed + 'a')`` in robot order
and spawn squares and the next seed from ``Random(seed + 's')``, exactly as rgkit does, so the
same match seed and orders give the same game as rgkit's ``Game(seed=match_seed)``.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict, defaultdict
from typing import Any

from botwars.engine.errors import ConfigError
from botwars.engine.events import Event, Outcome
from botwars.games.arena.board import ArenaMap, Square, load_map, sq_str
from botwars.games.arena.protocol import DIRS

#: rgkit's ``rgkit/settings.py`` numbers that are not match parameters here
ATTACK_RANGE = (8, 10)
COLLISION_DAMAGE = 5
SPAWN_PER_PLAYER = 5
MAX_SEED = 2147483647

#: the arena parameters that ``rules=robotgame`` sets to rgkit's values when the user did not
#: set them (``rgkit/settings.py``; the map is rgkit's ``maps/default.py``)
DEFAULTS: dict[str, Any] = {"map": "robotgame", "initial_hp": 50, "max_turns": 100, "spawn_interval": 10,
                            "self_destruct_damage": 15}
#: arena parameters that mean nothing under rgkit's rules: setting one with ``rules=robotgame``
#: is refused, naming rgkit's rule instead
NOT_USED: dict[str, str] = {
    "attack_damage_enemy": "an attack deals a random 8-10 (rgkit's attack_range)",
    "attack_damage_friendly": "attacks do not hurt friendly robots",
    "defend_divisor": "a guarding robot takes half damage (rgkit's guard)",
    "wipeout_ends_game": "the game always runs to max_turns",
}

Action = tuple[Any, ...]  # ("move", square) | ("attack", square) | ("guard",) | ("suicide",)


def spawn_squares(amap: ArenaMap) -> list[Square]:
    """Every spawn square of ``amap`` (both players'), in rgkit's order: its location list is
    sorted by row from the top, then column (``rgkit/maps/default.py``), which is what
    ``random.choice`` draws from."""
    h = amap.height
    squares = {sq for sqs in amap.spawns.values() for sq in sqs}
    return sorted(squares, key=lambda sq: (h - sq[1], sq[0]))


def mirror(amap: ArenaMap, sq: Square) -> Square:
    """rgkit's ``symmetric_loc``: the square point-mirrored through the board's centre."""
    return (amap.width + 1 - sq[0], amap.height + 1 - sq[1])


def check_map(amap: ArenaMap) -> None:
    """What rgkit's symmetric spawn draw needs of a map: at least 10 spawn squares, each one's
    mirror image (:func:`mirror`) a spawn square too and none its own mirror. Raises
    :class:`ConfigError` naming the first square that breaks it."""
    squares = spawn_squares(amap)
    if len(squares) < 2 * SPAWN_PER_PLAYER:
        raise ConfigError(f"rules=robotgame needs a map with at least {2 * SPAWN_PER_PLAYER} spawn squares, "
                          f"this one has {len(squares)}")
    have = set(squares)
    for sq in squares:
        m = mirror(amap, sq)
        if m == sq or m not in have:
            raise ConfigError(f"rules=robotgame needs spawn squares in mirror pairs through the centre: "
                              f"{sq_str(sq)} has no spawn square at {sq_str(m)}")


def _spawn_draw(rng: random.Random, amap: ArenaMap, squares: list[Square]) -> list[Square]:
    """rgkit's ``GameState._get_spawn_locations_symmetric``: 5 squares for player 1 (rgkit's
    player 0), then their mirror images for player 2, drawn from ``rng`` (``Random(seed+'s')``)."""
    one: list[Square] = []
    two: list[Square] = []
    while len(one) < SPAWN_PER_PLAYER:
        sq = rng.choice(squares)
        m = mirror(amap, sq)
        if sq not in one and sq not in two and m not in one and m not in two:
            one.append(sq)
            two.append(m)
    return one + two


def _spawn(robots: dict[Square, tuple[int, int, int]], nid: int, hp: int, chosen: list[Square],
           events: list[Event]) -> int:
    """rgkit's ``_apply_spawn``/``apply_delta`` order: robot i of player 1, then of player 2, for
    i in 0..4; returns the next robot id."""
    for i in range(SPAWN_PER_PLAYER):
        for p in (1, 2):
            sq = chosen[(p - 1) * SPAWN_PER_PLAYER + i]
            robots[sq] = (nid, p, hp)
            events.append(Event("spawn", {"robot": nid, "player": p, "at": sq_str(sq)}))
            nid += 1
    return nid


_ACT_LOCK = threading.Lock()
_ACT: "OrderedDict[str, tuple[random.Random, list[int]]]" = OrderedDict()
_ACT_KEEP = 256  # matches whose act seeds are remembered (the oldest is dropped first)


def act_seed(game_seed: str, turn: int, player: int) -> int:
    """The seed rgkit's runner gives ``player`` (1, 2) for ``turn`` (1, 2, ...) of the match whose
    ``Game`` seed is ``game_seed``: rgkit's ``Game`` keeps ``Random(seed)`` and draws
    ``randint(0, max_seed)`` once per player (player 0 first) in every ``Game.run_turn``
    (``Game._get_robots_responses``), and ``Player.get_responses`` seeds ``random`` with
    ``"SEED-ROBOT_ID"`` before each robot's ``act``. Turn ``t`` here is rgkit's ``run_turn``
    number ``t + 1``: its first one, on turn 0, has no robots yet and only spawns (this variant's
    set-up, :func:`setup_robots`), but draws its two seeds all the same. Pure: the same arguments give the same seed
    (the draws are remembered per match, so a turn costs two draws, not ``2 × turn``). Raises
    ``ValueError`` for a turn under 1 or a player other than 1 or 2."""
    if turn < 1 or player not in (1, 2):
        raise ValueError(f"act_seed: turn {turn} (from 1) and player {player} (1 or 2)")
    k = 2 * turn + player - 1  # the first two draws went to rgkit's robotless turn 0
    with _ACT_LOCK:
        entry = _ACT.get(game_seed)
        if entry is None:
            entry = _ACT[game_seed] = (random.Random(game_seed), [])
            while len(_ACT) > _ACT_KEEP:
                _ACT.popitem(last=False)
        rng, draws = entry
        if k >= len(draws) and len(draws) > 2 * 1024:  # a very long match: start again, not keep growing
            rng.seed(game_seed)
            draws.clear()
        while len(draws) <= k:
            draws.append(rng.randint(0, MAX_SEED))
        return draws[k]


def act_seeds(game_seed: str, turn: int) -> tuple[int, int]:
    """``(player 1's, player 2's)`` :func:`act_seed` for ``turn``."""
    return act_seed(game_seed, turn, 1), act_seed(game_seed, turn, 2)


def setup_robots(config: dict[str, Any], seed: int) -> tuple[dict[Square, tuple[int, int, int]], int, str]:
    """rgkit's turn 0 (``Game.run_all_turns`` with no robots yet; 0 is a spawn turn whatever
    ``spawn_interval``): the first spawn. Returns
    ``(robots square → (id, player, hp) in rgkit's order, next id, the next turn's rgkit seed)``."""
    amap = load_map(config["map"])
    srng = random.Random(str(seed) + "s")
    robots: dict[Square, tuple[int, int, int]] = {}
    events: list[Event] = []
    nid = _spawn(robots, 1, config["initial_hp"], _spawn_draw(srng, amap, spawn_squares(amap)), events)
    return robots, nid, str(srng.randint(0, MAX_SEED))


def actions_of(robots: dict[Square, tuple[int, int, int]], orders: dict[int, dict[Square, tuple[str, Any]]],
               amap: ArenaMap) -> dict[Square, Action]:
    """Each robot's rgkit action from the players' accepted arena orders (``player → square →
    (action, direction)``): ``M d`` → move, ``A d`` → attack, ``D`` → guard, ``S`` → suicide; a
    move or attack onto an obstacle or off the board (rgkit's ``_validate_action`` refuses it)
    and a robot without an order → guard."""
    out: dict[Square, Action] = {}
    for sq, (_, p, _) in robots.items():
        o = orders.get(p, {}).get(sq)
        act: Action = ("guard",)
        if o is not None:
            a, d = o
            if a in ("M", "A"):
                dx, dy = DIRS[d]
                tg = (sq[0] + dx, sq[1] + dy)
                if amap.is_open(tg):
                    act = ("move" if a == "M" else "attack", tg)
            elif a == "S":
                act = ("suicide",)
        out[sq] = act
    return out


def resolve_turn(robots: dict[Square, tuple[int, int, int]], actions: dict[Square, Action], seed: str,
                 spawn: bool, amap: ArenaMap, config: dict[str, Any], nid: int,
                 events: list[Event]) -> tuple[dict[Square, tuple[int, int, int]], int, str]:
    """One rgkit turn (``GameState.get_delta`` then ``apply_delta``) on ``robots`` (square →
    ``(id, player, hp)`` in rgkit's robot order) with every robot's action; ``seed``: rgkit's
    state seed. Returns ``(new robots in rgkit's order, next id, next seed)``; appends events
    (``move``, ``move_failed``, ``collision``, ``attack``, ``blast``, ``spawn_kill``, ``spawn``,
    ``removed``). Units: squares and HP."""
    arng = random.Random(seed + "a")
    srng = random.Random(seed + "s")

    def dest(loc: Square) -> Square:
        a = actions[loc]
        return a[1] if a[0] == "move" else loc  # type: ignore[no-any-return]

    contenders: defaultdict[Square, set[Square]] = defaultdict(set)

    def stuck(loc: Square) -> None:
        old = contenders[loc]
        contenders[loc] = {loc}
        for c in old:
            if c != loc:
                stuck(c)

    for loc in robots:
        contenders[dest(loc)].add(loc)
    for loc in robots:
        d = dest(loc)
        if len(contenders[d]) > 1 or (d in robots and d != loc and dest(d) == loc):
            stuck(loc)
    new_loc = {loc: (loc if loc != dest(loc) and loc in contenders[loc] else dest(loc)) for loc in robots}
    collisions: defaultdict[Square, set[Square]] = defaultdict(set)
    for loc in robots:
        for loc2 in contenders[dest(loc)]:
            collisions[loc].add(loc2)
            collisions[loc2].add(loc)
    # damage_map: target → per player: actor square → damage (rgkit's _get_damage_map)
    damage_map: defaultdict[Square, list[dict[Square, int]]] = defaultdict(lambda: [{}, {}])
    suicide = config["self_destruct_damage"]
    for loc, (rid, p, _) in robots.items():
        a = actions[loc]
        if a[0] == "attack":
            dmg = arng.randint(*ATTACK_RANGE)
            damage_map[a[1]][p - 1][loc] = dmg
        elif a[0] == "suicide":
            x, y = loc
            for tg in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                damage_map[tg][p - 1][loc] = suicide
    delta: list[tuple[Square, int, int, Square, int]] = []  # (from, id, player, to, hp after)
    hits: defaultdict[Square, list[dict[str, Any]]] = defaultdict(list)  # actor square → its hits
    for loc, (rid, p, hp) in robots.items():
        a = actions[loc]
        guard = a[0] == "guard"
        end = new_loc[loc]
        if a[0] == "move":
            if end == loc:
                events.append(Event("move_failed", {"robot": rid, "at": sq_str(loc), "to": sq_str(a[1]),
                                                    "why": "collision"}))
            else:
                events.append(Event("move", {"robot": rid, "from": sq_str(loc), "to": sq_str(end)}))
        hp_end = hp
        if not guard:
            for other in collisions[loc]:
                if robots[other][1] != p:
                    hp_end -= COLLISION_DAMAGE
                    events.append(Event("collision", {"robot": rid, "at": sq_str(loc), "with": robots[other][0],
                                                      "damage": COLLISION_DAMAGE}))
        for q, per_actor in enumerate(damage_map.get(end, ()), 1):
            if q != p:
                for actor, dmg in per_actor.items():
                    hit = dmg // 2 if guard else dmg
                    hp_end -= hit
                    hits[actor].append({"robot": rid, "at": sq_str(end), "damage": hit})
        if a[0] == "suicide":
            hp_end = 0
        delta.append((loc, rid, p, end, hp_end))
    for loc, (rid, _, _) in robots.items():
        a = actions[loc]
        if a[0] == "attack":
            for h in hits.get(loc) or [{"damage": 0}]:
                data = {"robot": rid, "from": sq_str(loc), "to": sq_str(a[1]), "damage": h["damage"]}
                if "robot" in h:
                    data["target"] = h["robot"]
                events.append(Event("attack", data))
        elif a[0] == "suicide":
            events.append(Event("blast", {"robot": rid, "at": sq_str(loc), "hits": hits.get(loc, [])}))
    chosen: list[Square] = []
    if spawn:
        spawn_set = set(spawn_squares(amap))
        for i, (loc, rid, p, end, hp_end) in enumerate(delta):
            if end in spawn_set and hp_end > 0:
                events.append(Event("spawn_kill", {"robot": rid, "player": p, "at": sq_str(end)}))
                delta[i] = (loc, rid, p, end, 0)
        chosen = _spawn_draw(srng, amap, spawn_squares(amap))
    new: dict[Square, tuple[int, int, int]] = {}
    for loc, rid, p, end, hp_end in delta:
        if hp_end > 0:
            new[end] = (rid, p, hp_end)
        else:
            events.append(Event("removed", {"robot": rid, "player": p, "at": sq_str(end), "hp": hp_end,
                                            "cause": "self_destruct" if actions[loc][0] == "suicide" else "damage"}))
    if spawn:
        nid = _spawn(new, nid, config["initial_hp"], chosen, events)
    return new, nid, str(srng.randint(0, MAX_SEED))


def outcome_of(robots: dict[Square, tuple[int, int, int]], seats: tuple[str, ...],
               reason: str) -> Outcome:
    """rgkit's ``GameState.get_scores``: each player's robot count; more robots wins, an equal
    count is a draw (rgkit's ``run.py`` counts ``p1 > p2``). ``details`` also gives each
    player's total HP (not used for the result)."""
    count = {1: 0, 2: 0}
    hp = {1: 0, 2: 0}
    for _, p, h in robots.values():
        count[p] += 1
        hp[p] += h
    s1, s2 = seats[0], seats[1]
    if count[1] > count[2]:
        winner, ranking = s1, [[s1], [s2]]
    elif count[2] > count[1]:
        winner, ranking = s2, [[s2], [s1]]
    else:
        winner, ranking = None, [[s1, s2]]
    return Outcome(winner, {s1: count[1], s2: count[2]}, reason, ranking,
                   {"robots": {s1: count[1], s2: count[2]}, "hp": {s1: hp[1], s2: hp[2]}})


def play_turn(state: Any, orders: dict[str, Any]) -> tuple[Any, list[Event]]:
    """One turn of rgkit's rules on an ``ArenaState`` (:mod:`botwars.games.arena.rules`) with ``rules=robotgame``: the players'
    accepted orders (seat → ``ArenaOrders``; user data is kept as P7 says) become rgkit actions
    (:func:`actions_of`), then :func:`resolve_turn`. Turn ``t`` is rgkit's turn ``t`` (a spawn
    turn when ``t % spawn_interval == 0``); the game is over when rgkit's state turn ``t + 1``
    reaches ``max_turns``. Returns the new state and the events, ``orders`` per seat first."""
    cfg = state.config
    t = state.turn + 1
    events: list[Event] = []
    user = list(state.user_data)
    by_player: dict[int, dict[Square, tuple[str, Any]]] = {}
    for seat, o in orders.items():
        p = state.player_of(seat)
        mine = {sq: od for sq, od in o.orders.items() if sq in state.robots and state.robots[sq][1] == p}
        by_player[p] = mine
        toks = [f"{sq_str(sq)}-{a}" + (f"-{d}" if a in ("M", "A") else "") for sq, (a, d) in mine.items()]
        if o.user_data is not None:
            user[p - 1] = o.user_data
        events.append(Event("orders", {"seat": seat, "player": p, "orders": ",".join(toks), "errors": o.errors}))
    actions = actions_of(state.robots, by_player, state.amap)
    new, nid, rng = resolve_turn(state.robots, actions, state.rng, t % cfg["spawn_interval"] == 0, state.amap,
                                 cfg, state.next_id, events)
    over = t + 1 >= cfg["max_turns"]
    acts = act_seeds(state.game_seed, t + 1) if state.game_seed is not None and not over else None
    return state._replace(turn=t, robots=new, next_id=nid, user_data=(user[0], user[1]), over=over, rng=rng,
                          act_seeds=acts), events
