"""The arena rules (shared/rules/arena.md, rules version 1): state, resolution, views, outcome.

Every rule lives here; the rest of the package only parses, prints and plays.
"""

from __future__ import annotations

import random
import string
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

from botwars.engine.codes import FailureCode, OnExpiry
from botwars.engine.errors import ConfigError
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Param, Ruleset
from botwars.engine.timecontrol import TimeControl
from botwars.games.arena.board import ArenaMap, Square, load_map, shipped_maps, sq_str
from botwars.games.arena.protocol import (DIRS, ArenaOrders, accept, fast_accept_json, parse_json_response,
                                          parse_text_response, text_orders)

NEIGHBOURS8 = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
_ORDERS_KIND = "orders"

Robot = tuple[int, int, int]
"""A robot: ``(id, player, hp)``; ids are unique within a match (for reports and adapters)."""


class ArenaReason(StrEnum):
    """How an arena game ends (``Outcome.reason``): ``turn_limit`` (R26, after turn
    ``max_turns``) or ``wipeout`` (R27, a player has no robot in play); a loss on time is the
    kernel's ``time``."""

    TURN_LIMIT = "turn_limit"
    WIPEOUT = "wipeout"


class ArenaState(NamedTuple):
    """A position between turns (immutable: :meth:`ArenaRuleset.resolve` returns a new one).

    ``turn``: the last turn resolved (0 after setup, R7); ``robots``: square → ``(id, player,
    hp)`` (never mutated once the state exists; states may share it); ``next_id``: the id of
    the next robot created; ``user_data``: stored user data of players 1 and 2 (P7); ``over``:
    the end check (R26, R27) has ended the game; ``rng``: with ``rules=robotgame`` only, rgkit's
    state seed for the next turn (:mod:`botwars.games.arena.robotgame`), else ``None``;
    ``game_seed``: below. A NamedTuple rather than a frozen dataclass:
    it is built once per turn on the hot path and costs a quarter as much.
    """

    seats: tuple[str, ...]
    config: dict[str, Any]
    amap: ArenaMap
    turn: int
    robots: dict[Square, Robot]
    next_id: int
    user_data: tuple[str, str]
    over: bool = False
    rng: str | None = None
    game_seed: str | None = None
    """With ``rules=robotgame`` only: the match seed as rgkit's ``Game`` holds it (``str(seed)``),
    from which its runner draws each player's act seeds (:func:`robotgame.act_seed`); never in a
    view (it would tell the coming spawns), never in the digest (it is the header's seed)."""
    act_seeds: tuple[int, int] | None = None
    """With ``rules=robotgame`` only: the act seeds of players 1 and 2 for the coming turn (each
    seat's view shows its own, ``act_seed``); derived from ``game_seed``, so not in the digest."""

    def player_of(self, seat: str) -> int:
        """Player number (1, 2) of ``seat`` (H3)."""
        return 1 if seat == self.seats[0] else self.seats.index(seat) + 1


def _map_check(value: str) -> None:
    try:
        load_map(value)
    except ConfigError as exc:
        raise ValueError(exc.one_line()) from None


_PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "

PARAMS = (
    Param("rules", str, "arena", "arena: the BotWars.io rules; robotgame: RobotGame's original rules "
          "(19 by 19 board, robots appear at random, 50 HP, attacks of 8 to 10)",
          choices=("arena", "robotgame")),
    Param("map", str, "default", "Walls and spawn points (R5): a shipped map name, a file path or map text",
          check=_map_check, kind="file", names=shipped_maps),
    Param("max_turns", int, 100, "Last turn (R26)", minimum=1, maximum=100_000),
    Param("spawn_interval", int, 10, "New robots appear every this many turns (R19)", minimum=1, maximum=100_000),
    Param("initial_hp", int, 100, "HP of every new robot", minimum=1, maximum=1_000_000),
    Param("attack_damage_enemy", int, 12, "Attack hit on an enemy robot (R20)", minimum=0, maximum=1_000_000),
    Param("attack_damage_friendly", int, 8, "Attack hit on a friendly robot (R20)", minimum=0, maximum=1_000_000),
    Param("self_destruct_damage", int, 6, "Blast hit on each neighbouring robot (R21)", minimum=0, maximum=1_000_000),
    Param("defend_divisor", int, 2, "A defending robot takes the hit divided by this, rounded down (R24)", minimum=1, maximum=1_000_000),
    Param("wipeout_ends_game", bool, False, "End the game early when a player has no robots left (R27)"),
    Param("turn_time_limit_s", float, 2.0, "Wall-clock seconds per bot per turn (P2)", minimum=0.001, maximum=3600),
    Param("time_bank_s", float, 0.0, "Per-seat reserve for the whole match (P2)", minimum=0, maximum=86_400),
    Param("memory_limit_mib", int, 512, "Per bot process, where enforced (P3)", minimum=1, maximum=65_536),
    Param("user_data_max_len", int, 128, "Characters of user data kept between turns (P7)", minimum=0, maximum=1_000_000),
    Param("max_output_chars", int, 8192, "Longest accepted response line (P6)", minimum=1, maximum=1_000_000),
    Param("rating_initial", int, 1000, "Starting Elo rating (R29)", minimum=-1_000_000, maximum=1_000_000),
)


def _move_failure(target: Square, origin: Square, movers: dict[Square, Square], count: dict[Square, int],
                  is_open: Any) -> str:
    """Why a failed mover failed, by the first rule that fails it: ``wall`` (R16a: a wall or off
    the grid), ``contested`` (R16b: another mover has the same target), ``swap`` (R16c: a
    head-on swap), else ``blocked`` (R17: its target holds a robot that is not leaving it)."""
    if not is_open(target):
        return "wall"
    if count[target] > 1:
        return "contested"
    if movers.get(target) == origin:
        return "swap"
    return "blocked"


class ArenaObservation(NamedTuple):
    """A seat's P11 observation as plain read-only values, for trusted in-process bots
    (:meth:`ArenaRuleset.native_view`): the same facts as the P11 object and nothing more.

    ``turn``: the turn being ordered (1-based, as P11); ``max_turns``; ``player``: 1 or 2;
    ``mine`` and ``foes``: square ``(x, y)`` → HP of the seat's own robots (P11 side ``F``) and
    of the opponent's (side ``E``), read-only mappings in square order; ``user_data``: the
    seat's own stored user data (P7). Robot ids are not shown (P11).
    """

    turn: int
    max_turns: int
    player: int
    mine: Mapping[Square, int]
    foes: Mapping[Square, int]
    user_data: str

    @property
    def robots(self) -> Mapping[Square, tuple[int, int]]:
        """Every robot: square → ``(player, hp)``, in square order (a read-only mapping)."""
        p, q = self.player, 3 - self.player
        both = [(sq, (p, hp)) for sq, hp in self.mine.items()] + [(sq, (q, hp)) for sq, hp in self.foes.items()]
        return MappingProxyType(dict(sorted(both)))


_new_tuple = tuple.__new__


class ArenaRuleset(Ruleset):
    """BotWars.io arena (shared/rules/arena.md): two players, simultaneous orders per robot."""

    id = "arena"
    name = "Arena (BotWars.io): program a robot swarm"
    rules_version = 1
    params = PARAMS
    min_seats = 2
    max_seats = 2
    native_observations = True

    def clock_settings(self, per_turn_s: float) -> dict[str, Any]:
        """P2: ``turn_time_limit_s`` of the preset, at most an hour (its maximum)."""
        return {"turn_time_limit_s": float(min(per_turn_s, 3600))}

    def time_control(self, config: dict[str, Any]) -> TimeControl:
        """P2: ``turn_time_limit_s`` per turn plus ``time_bank_s``; on expiry all robots defend (P10)."""
        return TimeControl(config["turn_time_limit_s"], config["time_bank_s"], None, OnExpiry.DEFAULT)

    # ---- configuration: the rules=robotgame variant -----------------------------------------
    def validate_config(self, overrides: dict[str, Any] | None, source: str = "--set",
                        allow_paths: bool = True) -> dict[str, Any]:
        """As :meth:`Ruleset.validate_config`; with ``rules=robotgame`` the parameters the user
        did not set take rgkit's values (:data:`botwars.games.arena.robotgame.DEFAULTS`), and
        setting one the variant does not use to other than its default raises
        :class:`ConfigError` naming rgkit's rule."""
        rules = self.param_table()["rules"].coerce((overrides or {}).get("rules", "arena"), source=source)
        if rules == "robotgame":
            from botwars.games.arena import robotgame
            defaults = self.param_table()
            given = {k: v for k, v in (overrides or {}).items()
                     if k not in robotgame.NOT_USED or defaults[k].coerce(v, source=source) != defaults[k].default}
            overrides = {**robotgame.DEFAULTS, **given}
            for k in robotgame.NOT_USED:
                if k in given:
                    raise ConfigError(f"parameter {k} does not apply with rules=robotgame: "
                                      f"{robotgame.NOT_USED[k]}; leave it out", source=source)
        return super().validate_config(overrides, source, allow_paths)

    def check_config(self, config: dict[str, Any]) -> None:
        """``rules=robotgame`` needs a map whose spawn squares rgkit's symmetric draw can use
        (:func:`botwars.games.arena.robotgame.check_map`); raises :class:`ConfigError`."""
        if config.get("rules") == "robotgame":
            from botwars.games.arena import robotgame
            robotgame.check_map(load_map(config["map"]))

    # ---- setup (R7) ---------------------------------------------------------------------
    def setup(self, config: dict[str, Any], seats: list[str], seed: int) -> ArenaState:
        """Turn 0 (R7): one ``initial_hp`` robot on every spawn point; empty user data.
        ``rules=robotgame``: rgkit's turn 0 (:func:`botwars.games.arena.robotgame.setup_robots`),
        its robots in rgkit's order and ``rng`` the seed of rgkit's turn 1."""
        if len(seats) != 2:
            raise ConfigError(f"arena needs exactly 2 seats, got {len(seats)}")
        if config.get("rules") == "robotgame":
            from botwars.games.arena import robotgame
            robots, nid, rng = robotgame.setup_robots(config, seed)
            return ArenaState(tuple(seats), config, load_map(config["map"]), 0, robots, nid, ("", ""),
                              config["max_turns"] <= 1, rng, str(seed), robotgame.act_seeds(str(seed), 1))
        amap = load_map(config["map"])
        robots: dict[Square, Robot] = {}
        nid = 1
        for p in (1, 2):
            for sq in amap.spawns[p]:
                robots[sq] = (nid, p, config["initial_hp"])
                nid += 1
        return ArenaState(tuple(seats), config, amap, 0, robots, nid, ("", ""))

    def pending(self, state: ArenaState) -> list[str]:
        return [] if state.over else list(state.seats)

    # ---- orders (R10, R11, P5-P12) ---------------------------------------------------------
    def order_warnings(self, orders: ArenaOrders) -> list[dict[str, Any]]:
        """P14: the ignored tokens of accepted orders (``no_robot``, ``duplicate``, truncated
        user data), recorded with the seat's errors."""
        return list(orders.errors)

    def parse_orders(self, state: ArenaState, seat: str, payload: Any) -> ArenaOrders:
        """A P5 text response (str) or a P12 JSON response (dict) → :class:`ArenaOrders`.

        Raises :class:`InvalidOrders` with code ``malformed`` (P6, P12); ignored tokens
        (``no_robot``, ``duplicate``, P8) are listed in the result's ``errors``.
        """
        cfg = state.config
        p = 1 if seat == state.seats[0] else state.player_of(seat)
        if type(payload) is dict:
            try:  # hot path: one pass over a plain valid response (same result as below)
                fast = fast_accept_json(payload, state.robots, p, cfg["max_output_chars"], cfg["user_data_max_len"])
            except TypeError:
                fast = None
            if fast is not None:
                return fast
            tokens, user = parse_json_response(payload, cfg["max_output_chars"])
        elif isinstance(payload, str):
            tokens, user = parse_text_response(payload, cfg["max_output_chars"])
        else:
            tokens, user = parse_json_response(payload, cfg["max_output_chars"])
        own = {sq for sq, (_, q, _) in state.robots.items() if q == p}
        accepted = accept(tokens, user, own, cfg["user_data_max_len"])
        if type(payload) is dict and "robot_errors" in payload:
            accepted.errors.extend(robot_errors(payload["robot_errors"]))
        return accepted

    def default_orders(self, state: ArenaState, seat: str) -> ArenaOrders:
        """P10: every robot of the seat defends; user data unchanged."""
        p = state.player_of(seat)
        return ArenaOrders({sq: ("D", None) for sq, r in state.robots.items() if r[1] == p}, None)

    def legal_orders(self, state: ArenaState, seat: str) -> None:
        """Per-robot orders are a product of 11 choices per robot: not enumerated (see ``robot_actions``)."""
        return None

    def orders_json(self, orders: ArenaOrders) -> Any:
        """The P5 text form of accepted orders, with ``#USER`` when they store user data (P7):
        parsing it again gives the same orders."""
        text = text_orders(orders)
        return f"{text}#{orders.user_data}" if orders.user_data else text

    def twin_state(self, state: ArenaState, seat: str | None, rng: random.Random) -> ArenaState:
        """The state with the stored user data (P7) of every player but ``seat``'s redrawn:
        user data is private (R32, H25); everything else is public (R30). With
        ``rules=robotgame`` rgkit's seed (``rng``: the coming spawns and damage) is redrawn too."""
        user = list(state.user_data)
        for p in (1, 2):
            if (seat is None or state.player_of(seat) != p) and state.config["user_data_max_len"] > 0:
                n = rng.randint(1, state.config["user_data_max_len"])
                user[p - 1] = "".join(rng.choice(_PRINTABLE) for _ in range(n))
                if user[p - 1] == state.user_data[p - 1]:
                    user[p - 1] = user[p - 1][1:] or "x"
        if state.rng is not None:  # rules=robotgame: rgkit's seed (future spawns, damage) is no one's to see
            return state._replace(user_data=(user[0], user[1]), rng=str(rng.randint(0, 2147483647)),
                                  game_seed=str(rng.randint(0, 2147483647)))
        return state._replace(user_data=(user[0], user[1]))

    # ---- resolution (R12-R25) -------------------------------------------------------------
    def resolve(self, state: ArenaState, orders: dict[str, ArenaOrders]) -> tuple[ArenaState, list[Event]]:
        """One turn: steps 1-6 of R12, then the end check (R26, R27).

        ``orders`` maps seat → :class:`ArenaOrders` (from :meth:`parse_orders` or
        :meth:`default_orders`); an order for a square without a robot of that seat is never
        carried out. Returns the new state (``state`` is not modified) and the turn's events, in
        a deterministic order: ``orders`` per seat, then ``move``/``move_failed`` (with the
        target ``to`` and the rule it failed by, ``why``: see :func:`_move_failure`),
        ``spawn_kill``/``spawn``, ``attack``, ``blast``, ``removed``.
        """
        if state.rng is not None:  # rules=robotgame
            from botwars.games.arena import robotgame
            rg_result: tuple[ArenaState, list[Event]] = robotgame.play_turn(state, orders)
            return rg_result
        cfg = state.config
        amap = state.amap
        t = state.turn + 1
        robots = state.robots
        seats = state.seats
        events: list[Event] = []
        user = list(state.user_data)
        # Steps 1 and 2 (R13, R14) are flags; movers and attackers are collected for steps 3, 5.
        defending: set[int] = set()
        armed: list[tuple[int, Square]] = []
        movers: dict[Square, Square] = {}
        attackers: list[tuple[int, Square, Square]] = []
        for seat, o in orders.items():
            p = 1 if seat == seats[0] else seats.index(seat) + 1
            toks = []
            for sq, (a, d) in o.orders.items():
                r = robots.get(sq)
                if r is None or r[1] != p:
                    continue  # R10: only the issuing player's robots in play
                if a == "D":
                    defending.add(r[0])
                    toks.append(sq_str(sq) + "-D")
                elif a == "M":
                    dx, dy = DIRS[d]
                    movers[sq] = (sq[0] + dx, sq[1] + dy)
                    toks.append(f"{sq_str(sq)}-M-{d}")
                elif a == "A":
                    dx, dy = DIRS[d]
                    attackers.append((r[0], sq, (sq[0] + dx, sq[1] + dy)))
                    toks.append(f"{sq_str(sq)}-A-{d}")
                else:
                    armed.append((r[0], sq))
                    toks.append(sq_str(sq) + "-S")
            if o.user_data is not None:
                user[p - 1] = o.user_data
            events.append(Event(_ORDERS_KIND, {"seat": seat, "player": p, "orders": ",".join(toks),
                                               "errors": o.errors}))
        # Step 3 (R15-R18): moves.
        if movers:
            failed: set[Square] = set()
            count: dict[Square, int] = {}
            for tg in movers.values():
                count[tg] = count.get(tg, 0) + 1
            is_open = amap.is_open
            for sq, tg in movers.items():
                if count[tg] > 1 or movers.get(tg) == sq or not is_open(tg):  # R16b, c, a
                    failed.add(sq)
            changed = True
            while changed:  # R17 fixed point
                changed = False
                for sq, tg in movers.items():
                    if sq not in failed and tg in robots and (tg not in movers or tg in failed):
                        failed.add(sq)
                        changed = True
            new: dict[Square, Robot] = {}
            for sq, r in robots.items():  # R18: successful movers arrive together...
                if sq in movers:
                    if sq in failed:
                        tg = movers[sq]
                        events.append(Event("move_failed", {"robot": r[0], "at": sq_str(sq), "to": sq_str(tg),
                                                            "why": _move_failure(tg, sq, movers, count, is_open)}))
                    else:
                        new[movers[sq]] = r
                        events.append(Event("move", {"robot": r[0], "from": sq_str(sq), "to": sq_str(movers[sq])}))
            for sq, r in robots.items():  # ...and everyone else stays (R17 keeps them apart)
                if sq not in movers or sq in failed:
                    new[sq] = r
            changed_robots = True
        else:
            new = robots  # shared until something changes (states never mutate their dict)
            changed_robots = False
        nid = state.next_id
        # Step 4 (R19): spawn.
        if t % cfg["spawn_interval"] == 0:
            if not changed_robots:
                new = dict(robots)
                changed_robots = True
            hp0 = cfg["initial_hp"]
            for p in (1, 2):
                for sq in amap.spawns[p]:
                    old = new.get(sq)
                    if old is not None:
                        events.append(Event("spawn_kill", {"robot": old[0], "player": old[1], "at": sq_str(sq)}))
                    new[sq] = (nid, p, hp0)
                    events.append(Event("spawn", {"robot": nid, "player": p, "at": sq_str(sq)}))
                    nid += 1
        div = cfg["defend_divisor"]
        # Step 5 (R20, R23-R25): attacks.
        if attackers:
            if not changed_robots:
                new = dict(robots)
                changed_robots = True
            dmg: dict[Square, int] = {}
            for rid, sq, tg in attackers:
                me = new.get(sq)
                if me is None or me[0] != rid:
                    continue  # removed by a spawn event: no longer in play
                victim = new.get(tg)
                if victim is None:  # H7: empty square, wall or off the grid
                    events.append(Event("attack", {"robot": rid, "from": sq_str(sq), "to": sq_str(tg), "damage": 0}))
                    continue
                base = cfg["attack_damage_enemy"] if victim[1] != me[1] else cfg["attack_damage_friendly"]
                hit = base // div if victim[0] in defending else base
                dmg[tg] = dmg.get(tg, 0) + hit
                events.append(Event("attack", {"robot": rid, "from": sq_str(sq), "to": sq_str(tg),
                                               "target": victim[0], "damage": hit}))
            self._apply(new, dmg, events, "attack")
        # Step 6 (R21, R22): blasts.
        if armed:
            if not changed_robots:
                new = dict(robots)
                changed_robots = True
            dmg = {}
            sd = cfg["self_destruct_damage"]
            for rid, (x, y) in armed:
                hits = []
                for dx, dy in NEIGHBOURS8:
                    nsq = (x + dx, y + dy)
                    victim = new.get(nsq)
                    if victim is not None:
                        hit = sd // div if victim[0] in defending else sd
                        dmg[nsq] = dmg.get(nsq, 0) + hit
                        hits.append({"robot": victim[0], "at": sq_str(nsq), "damage": hit})
                events.append(Event("blast", {"robot": rid, "at": sq_str((x, y)), "hits": hits}))
            for nsq, d in dmg.items():
                r = new[nsq]
                new[nsq] = (r[0], r[1], r[2] - d)
            armed_ids = {rid for rid, _ in armed}
            for sq in [s for s, r in new.items() if r[0] in armed_ids or r[2] <= 0]:
                r = new.pop(sq)
                if r[0] in armed_ids:  # R22: an armed robot's final HP is 0
                    events.append(Event("removed", {"robot": r[0], "player": r[1], "at": sq_str(sq), "hp": 0,
                                                    "cause": "self_destruct"}))
                else:
                    events.append(Event("removed", {"robot": r[0], "player": r[1], "at": sq_str(sq), "hp": r[2],
                                                    "cause": "blast"}))
        over = t >= cfg["max_turns"]
        if cfg["wipeout_ends_game"] and not over:
            owners = {r[1] for r in new.values()}
            over = not (1 in owners and 2 in owners)
        return ArenaState(seats, cfg, amap, t, new, nid, (user[0], user[1]), over), events

    @staticmethod
    def _apply(new: dict[Square, Robot], dmg: dict[Square, int], events: list[Event], cause: str) -> None:
        for sq, d in dmg.items():
            r = new[sq]
            new[sq] = (r[0], r[1], r[2] - d)
        dead = [sq for sq, r in new.items() if r[2] <= 0]
        for sq in dead:
            r = new.pop(sq)
            events.append(Event("removed", {"robot": r[0], "player": r[1], "at": sq_str(sq), "hp": r[2],
                                            "cause": cause}))

    # ---- observation (R30, P11) -----------------------------------------------------------
    def view(self, state: ArenaState, seat: str | None) -> dict[str, Any]:
        """The P11 object for ``seat``, or the R30/H26 spectator object for ``None``. With
        ``rules=robotgame`` a seat's object also has ``robot_order``: every robot's ``[x, y]`` in
        rgkit's robot order (the order of rgkit's ``game.robots``; the ``rgkit:`` host uses it) and
        ``act_seed``: the seed rgkit's runner draws for this player this turn (0..``max_seed``; the
        host seeds ``random`` with ``"ACT_SEED-ROBOT_ID"`` before each robot's ``act``, as rgkit
        does, so a bot that uses ``random`` plays the same game in both engines) and ``robot_ids``:
        ``[x, y, id]`` of the seat's own robots with rgkit's ``robot_id`` (which the seed names).

        A fresh dict every call (a bot may keep or change it without affecting anyone).
        """
        turn = state.turn if state.over else state.turn + 1
        items = sorted(state.robots.items())
        if seat is None:
            robots = [{"player": 1, "x": x, "y": y, "hp": hp} for (x, y), (_, q, hp) in items if q == 1]
            robots += [{"player": q, "x": x, "y": y, "hp": hp} for (x, y), (_, q, hp) in items if q != 1]
            return {"turn": turn, "max_turns": state.config["max_turns"], "player": None, "robots": robots}
        p = 1 if seat == state.seats[0] else state.player_of(seat)
        robots = [{"side": "F", "x": x, "y": y, "hp": hp} for (x, y), (_, q, hp) in items if q == p]
        robots += [{"side": "E", "x": x, "y": y, "hp": hp} for (x, y), (_, q, hp) in items if q != p]
        out = {"turn": turn, "max_turns": state.config["max_turns"], "player": p, "robots": robots,
               "user_data": state.user_data[p - 1]}
        if state.rng is not None:  # rules=robotgame: rgkit's robot order (its game.robots order)
            out["robot_order"] = [[x, y] for x, y in state.robots]
            if state.act_seeds is not None and not state.over:
                out["act_seed"] = state.act_seeds[p - 1]
            # rgkit's robot_id of each of the seat's own robots (rgkit shows ids of one's own robots
            # only: player_only_properties); rgkit counts ids from 0, this state from 1
            out["robot_ids"] = [[x, y, rid - 1] for (x, y), (rid, q, _) in state.robots.items() if q == p]
        return out

    def native_view(self, state: ArenaState, seat: str) -> ArenaObservation:
        """:meth:`view` of ``seat`` as an :class:`ArenaObservation` (R30, P11): for built-in
        bots that answer with :class:`ArenaOrders` (``act_native``), skipping the P11 dict and
        the P12 parsing. Robot ids are left out, as in P11."""
        p = 1 if seat == state.seats[0] else state.player_of(seat)
        turn = state.turn if state.over else state.turn + 1
        sides = self._sides
        if sides[0] is not state.robots:
            sides = self._split(state.robots)
        # tuple.__new__: the NamedTuple's own __new__ without its Python-level argument handling
        return _new_tuple(ArenaObservation, (turn, state.config["max_turns"], p, sides[p], sides[3 - p],
                                             state.user_data[p - 1]))

    # a one-entry memo of the last robots dict split by player (the two seats of one turn, and
    # the turns that leave the robots as they were, share it); never changes a result: a state's
    # robots dict is never mutated, and the memo keeps it alive, so identity is a safe key
    _sides: tuple[Any, ...] = (None, None, None)

    def _split(self, robots: dict[Square, Robot]) -> tuple[Any, ...]:
        """``(robots, player 1's, player 2's)``: square → HP per player, read-only, in square order."""
        one: dict[Square, int] = {}
        two: dict[Square, int] = {}
        for sq, r in sorted(robots.items()):
            if r[1] == 1:
                one[sq] = r[2]
            else:
                two[sq] = r[2]
        sides = (robots, MappingProxyType(one), MappingProxyType(two))
        self._sides = sides
        return sides

    # ---- end (R26-R29) --------------------------------------------------------------------
    def outcome(self, state: ArenaState) -> Outcome | None:
        """R28: more robots wins, then more total HP, else a draw."""
        if not state.over:
            return None
        if state.rng is not None:  # rules=robotgame: rgkit's score, robots only
            from botwars.games.arena import robotgame
            return robotgame.outcome_of(state.robots, state.seats, ArenaReason.TURN_LIMIT)
        count = {1: 0, 2: 0}
        hp = {1: 0, 2: 0}
        for _, p, h in state.robots.values():
            count[p] += 1
            hp[p] += h
        s1, s2 = state.seats
        key1, key2 = (count[1], hp[1]), (count[2], hp[2])
        if key1 > key2:
            winner, ranking = s1, [[s1], [s2]]
        elif key2 > key1:
            winner, ranking = s2, [[s2], [s1]]
        else:
            winner, ranking = None, [[s1, s2]]
        reason = ArenaReason.TURN_LIMIT if state.turn >= state.config["max_turns"] else ArenaReason.WIPEOUT
        return Outcome(winner, {s1: count[1], s2: count[2]}, reason, ranking,
                       {"robots": {s1: count[1], s2: count[2]}, "hp": {s1: hp[1], s2: hp[2]}})

    # ---- tools ----------------------------------------------------------------------------
    def state_json(self, state: ArenaState) -> dict[str, Any]:
        out = {"turn": state.turn, "over": state.over, "next_id": state.next_id,
               "robots": [[sq_str(sq), r[0], r[1], r[2]] for sq, r in sorted(state.robots.items())],
               "user_data": list(state.user_data)}
        if state.rng is not None:  # rules=robotgame: rgkit's seed for the next turn
            out["seed"] = state.rng
        return out

    def render_text(self, state: ArenaState, seat: str | None = None) -> str:
        """The board as text: ``#`` wall, ``1``/``2`` spawn, ``a``/``b`` robots of player 1/2 (HP listed)."""
        from botwars.games.arena.report import render_board
        return render_board(state)

    def report(self, before: ArenaState, after: ArenaState, events: list[Event]) -> Any:
        """``botwars replay --report``: the turn's events by step and the board after it."""
        from botwars.games.arena.report import turn_report
        return turn_report(before, after, events)

    def check_board(self, text: str, source: str, entry: bool = False) -> list[str]:
        """``botwars board check``: the problems of a well-formed map (R5: a player without spawn
        points), one per line; empty when valid.  A text that is not a map (R5's characters,
        line lengths, size) raises :class:`ConfigError` with its line and column."""
        from botwars.games.arena.board import map_problems, parse_map
        return [ConfigError(p, source=source).one_line() for p in map_problems(parse_map(text, source, check=False))]

    def svg(self, state: ArenaState, seat: str | None = None, events: list | None = None,
            names: dict[str, str] | None = None) -> str:
        """The board as SVG (see :mod:`botwars.games.arena.svg`); the arena hides nothing (R30).
        ``names``: optional display names by seat (``p1``, ``p2``), shown in the robots' tooltips."""
        from botwars.games.arena.svg import arena_svg
        return arena_svg(state, seat, events, names)


def make_state(config: dict[str, Any], robots: dict[Square, tuple[int, int]], turn: int = 0,
               seats: tuple[str, str] = ("p1", "p2"), user_data: tuple[str, str] = ("", "")) -> ArenaState:
    """A state with the given robots (square → ``(player, hp)``) after ``turn`` (for scenarios and tests)."""
    amap = load_map(config["map"])
    rs: dict[Square, Robot] = {}
    for i, (sq, (p, hp)) in enumerate(robots.items(), 1):
        if not amap.is_open(sq):
            raise ConfigError(f"robot on {sq_str(sq)}, which is a wall or off the map")
        rs[sq] = (i, p, hp)
    return ArenaState(seats, config, amap, turn, rs, len(rs) + 1, user_data)


def robot_errors(value: Any) -> list[dict[str, Any]]:
    """The per-robot failures a platform host reports next to its orders (P12 key
    ``robot_errors``, e.g. the ``rgkit:`` host when one robot's ``act`` raised and that robot
    guards, as rgkit does) → P14 error entries ``{"code", "detail"}`` with ``code`` one of
    ``crash``, ``memory``, ``malformed`` and ``detail`` starting with the robot's square
    ``X:Y``. At most 16 entries, details clipped to 240 characters; entries of another shape
    are left out (they change nothing else: P12 ignores unknown content)."""
    out: list[dict[str, Any]] = []
    if type(value) is not list:
        return out
    codes = {FailureCode.CRASH.value, FailureCode.MEMORY.value, FailureCode.MALFORMED.value}
    for e in value[:16]:
        if type(e) is not dict or e.get("code") not in codes or type(e.get("detail")) is not str:
            continue
        x, y = e.get("x"), e.get("y")
        where = f"{x}:{y} " if type(x) is int and type(y) is int else ""
        out.append({"code": e["code"], "detail": (where + e["detail"])[:240]})
    return out
