"""DADOED state and resolution engine (shared/rules/dadoed.md §3-§8): every rule lives here.

The :class:`State` is treated as immutable by callers: :func:`apply_order` copies it and mutates
the copy. :class:`Sim` runs one order on such a copy and collects the D-12.3 events in the
D-12.6 order. Legality (D-5.3, D-5.4) is :func:`command_problem` / :func:`super_problem`;
:func:`iter_legal` enumerates every legal order.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Iterator

from botwars.engine.codes import KernelReason
from botwars.engine.events import Event
from botwars.games.dadoed.board import DIR_NAMES, DIRS, SIZE, Tile, ahead, on_board, render_board, tile_str
from botwars.games.dadoed.pool import Pool

PLAYERS = ("blue", "orange")
ALL_TILES: tuple[Tile, ...] = tuple((c, r) for c in range(SIZE) for r in range(SIZE))


class DadoedReason(StrEnum):
    """DADOED's own result reasons (D-8.5); ``resign``, ``refused`` and ``time`` are the kernel's
    (:class:`~botwars.engine.codes.KernelReason`)."""

    ELIMINATION = "elimination"  # D-8.1
    NO_LEGAL_ORDER = "no_legal_order"  # D-8.2, D-5.2
    TURN_LIMIT = "turn_limit"  # D-8.4
    SETUP_FORFEIT = "setup_forfeit"  # D-3.5


def other(player: str) -> str:
    return "orange" if player == "blue" else "blue"


@dataclass(frozen=True)
class Bot:
    """A bot (D-2.4): ``owner`` is the player who owns it, or whose reserve holds it when
    ``tile`` is ``None`` (D-7.2); ``super`` is ``(first, second)`` once assigned (D-3.4)."""

    owner: str
    tile: Tile | None
    rooted: bool = False
    super: tuple[str, str] | None = None


@dataclass
class State:
    """A DADOED position between decisions.

    ``phase``: ``setup`` (supers being submitted, D-3.5), ``play``, ``ending`` or ``over``.
    ``ending``: the turn limit (D-8.4) or the next player's lack of a legal order (D-5.2) decides
    the game, but only after the clock has been charged for the turn just played (D-5.7): the
    result waits in ``pending_end`` and the next decision point (no seat pending) applies it.
    ``turn``: turns
    completed (the active turn is ``turn + 1``, Blue plays odd turns, D-5.1); ``left``: pool
    copies left by id (``None`` = unlimited); ``rejections``: consecutive rejected orders in
    the current turn (D-5.8); ``setup_rejections`` and ``submitted`` per player during setup;
    ``result``: ``(winner, reason)`` with winner ``blue``/``orange``/``draw`` (D-8.5);
    ``log``: the D-12.2 log entries.
    """

    seats: tuple[str, str]
    config: dict[str, Any]
    pool: Pool
    phase: str
    turn: int
    holes: set[Tile]
    fire: set[Tile]
    boulders: set[Tile]
    bots: dict[str, Bot]
    left: dict[str, int | None]
    gold_refreshes: int = 0
    rejections: int = 0
    setup_rejections: dict[str, int] = field(default_factory=lambda: {"blue": 0, "orange": 0})
    submitted: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    result: tuple[str, str] | None = None
    log: tuple = ()
    pending_end: tuple[str, str] | None = None

    def copy(self) -> "State":
        return replace(self, holes=set(self.holes), fire=set(self.fire), boulders=set(self.boulders),
                       bots=dict(self.bots), left=dict(self.left), setup_rejections=dict(self.setup_rejections),
                       submitted=dict(self.submitted))

    @property
    def active(self) -> str:
        """The player to move (D-5.1)."""
        return PLAYERS[self.turn % 2]

    def seat_of(self, player: str) -> str:
        return self.seats[PLAYERS.index(player)]

    def player_of(self, seat: str) -> str:
        return PLAYERS[self.seats.index(seat)]

    def bot_at(self, t: Tile) -> str | None:
        for label, b in self.bots.items():
            if b.tile == t:
                return label
        return None

    def own_bots(self, player: str) -> list[str]:
        """Labels of ``player``'s bots on the board, in label order."""
        return [lb for lb in sorted(self.bots) if self.bots[lb].owner == player and self.bots[lb].tile is not None]

    def reserve(self, player: str) -> list[str]:
        """Labels in ``player``'s reserve, in label order (D-7.2)."""
        return [lb for lb in sorted(self.bots) if self.bots[lb].owner == player and self.bots[lb].tile is None]

    def board_lines(self) -> list[str]:
        """The D-2.6 text board."""
        return render_board({lb: (b.owner, b.tile) for lb, b in self.bots.items()}, self.boulders, self.fire,
                            self.holes)


@dataclass(frozen=True)
class Order:
    """A parsed, validated order (D-5.3, D-12.4).

    ``kind``: ``command``, ``super``, ``resign``, ``setup`` or ``rejected`` (the default order of
    a seat whose submission was refused, D-5.8). For a command: ``command``, ``tile``,
    ``direction``, ``bot`` (drop_bot). For a super: ``bot``, ``direction`` (first component),
    ``second`` = ``(tile, direction, bot)`` parameters of the second component. For setup:
    ``supers`` = ``((label, (first, second)), ...)``.
    """

    kind: str
    command: str | None = None
    tile: Tile | None = None
    direction: str | None = None
    bot: str | None = None
    second: tuple[Tile | None, str | None, str | None] | None = None
    supers: tuple[tuple[str, tuple[str, str]], ...] | None = None

    def payload(self) -> dict[str, Any]:
        """The D-12.4 JSON form."""
        if self.kind == "command":
            out: dict[str, Any] = {"type": "command", "command": self.command, "tile": tile_str(self.tile)}
            if self.direction:
                out["direction"] = self.direction
            if self.bot:
                out["bot"] = self.bot
            return out
        if self.kind == "super":
            first: dict[str, Any] = {"direction": self.direction} if self.direction else {}
            st, sd, sb = self.second or (None, None, None)
            second: dict[str, Any] = {}
            if st is not None:
                second["tile"] = tile_str(st)
            if sd:
                second["direction"] = sd
            if sb:
                second["bot"] = sb
            return {"type": "super", "bot": self.bot, "first": first, "second": second}
        if self.kind == "setup":
            return {"type": "setup", "supers": {lb: list(p) for lb, p in self.supers or ()}}
        return {"type": self.kind}


class GameOver(Exception):
    """Raised inside resolution when a win check ends the game (D-7.6)."""


def command_text(pool: Pool, cid: str, tile: Tile, d: str | None, bot: str | None) -> str:
    """D-2.5 notation of one command, e.g. ``east_3 F1 East 3``, ``drop_bot B7 C``."""
    cmd = pool.get(cid)
    parts = [cid, tile_str(tile)]
    if d:
        parts.append(DIR_NAMES[d])
    if cmd is not None and cmd.colour == "blue":
        parts.append(str(cmd.distance))
    if bot:
        parts.append(bot)
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
class Sim:
    """Executes commands on a mutable :class:`State` copy for the ``active`` player.

    ``events`` collects kernel :class:`Event` objects. Any destruction runs the D-8.1 win
    check; a win raises :class:`GameOver` after the state and events are consistent.
    """

    def __init__(self, st: State, active: str):
        self.st = st
        self.active = active
        self.events: list[Event] = []

    def ev(self, kind: str, **data: Any) -> None:
        self.events.append(Event(kind, data))

    # ---- destruction and the win check (D-7.1, D-7.2, D-8.1) --------------------------------
    def destroy(self, label: str) -> str:
        """Destroy a bot: it joins the other player's reserve, unrooted (D-7.2). Returns that player."""
        b = self.st.bots[label]
        receiver = other(b.owner)
        self.st.bots[label] = Bot(receiver, None, False, b.super)
        return receiver

    def win_check(self) -> None:
        """D-8.1: if exactly one player has a bot on the board, that player wins."""
        present = {b.owner for b in self.st.bots.values() if b.tile is not None}
        if len(present) == 1:
            self.st.result = (next(iter(present)), DadoedReason.ELIMINATION)
            self.st.phase = "over"
            raise GameOver()

    # ---- motion (D-6.1 - D-6.9) -----------------------------------------------------------------
    def motion(self, d: str, *, walker: str | None = None, distance: int = 0, nudge: Tile | None = None) -> None:
        """A walk of ``walker`` over ``distance`` push steps (D-6.5) or a nudge of the boulder on
        ``nudge`` (D-6.8), then the roll phase (D-6.9). Emits events per D-12.6 (also when the
        game ends part-way, then re-raises :class:`GameOver`)."""
        st = self.st
        occ: dict[Tile, Any] = {}
        pos: dict[Any, Tile] = {}
        for label, b in st.bots.items():
            if b.tile is not None:
                occ[b.tile] = label
                pos[label] = b.tile
        for i, t in enumerate(sorted(st.boulders)):
            occ[t] = i
            pos[i] = t
        start = dict(pos)
        steps: list[list[list[Any]]] = []  # per push step, front-most first: [obj, from, to, fell, reserve, fire_off]
        rolling: set[int] = set()
        gone: set[Any] = set()
        dx, dy = DIRS[d]
        walker_start = pos.get(walker) if walker else None
        hole_made = [False]

        def push(x: Any, nudge_driver: bool = False) -> list[Any] | None:
            t = pos[x]
            train: list[Any] = []
            nt = (t[0] + dx, t[1] + dy)
            while nt in occ:
                train.append(occ[nt])
                nt = (nt[0] + dx, nt[1] + dy)
            for o in train:
                if isinstance(o, str) and st.bots[o].rooted:
                    return None  # D-6.3 blocked
            objs = [x] + train
            frm = {}
            for o in objs:
                frm[o] = pos[o]
                del occ[pos[o]]
                if isinstance(o, int):
                    st.boulders.discard(pos[o])
            for o in objs:
                p = pos[o]
                np_ = (p[0] + dx, p[1] + dy)
                pos[o] = np_
                if on_board(np_) and np_ not in st.holes:
                    occ[np_] = o
                    if isinstance(o, int):
                        st.boulders.add(np_)
                    else:
                        st.bots[o] = replace(st.bots[o], tile=np_)
            if walker is not None and not hole_made[0]:  # D-6.6
                hole_made[0] = True
                st.holes.add(walker_start)
                st.fire.discard(walker_start)
            recs = [[o, frm[o], pos[o], False, None, None] for o in reversed(objs)]
            steps.append(recs)
            for rec in recs:  # boulders entering fire put it out (D-6.10)
                o, p = rec[0], rec[2]
                if isinstance(o, int) and on_board(p) and p not in st.holes and p in st.fire:
                    st.fire.discard(p)
                    rec[5] = p
            for rec in recs:  # D-6.4 / D-7.3: falls front-most first, win check after each
                o, p = rec[0], rec[2]
                if not on_board(p) or p in st.holes:
                    rec[3] = True
                    gone.add(o)
                    if isinstance(o, int):
                        rolling.discard(o)
                    else:
                        rec[4] = self.destroy(o)
                        self.win_check()
            for i, o in enumerate(objs):  # D-6.7
                if not isinstance(o, int) or o in gone:
                    continue
                if i == 0 and nudge_driver:
                    continue
                front = objs[i + 1] if i + 1 < len(objs) else None
                if isinstance(front, int):
                    rolling.discard(o)
                else:
                    rolling.add(o)
            return objs

        def progress(o: Any) -> int:
            p = pos[o]
            return p[0] * dx + p[1] * dy

        try:
            if walker is not None:
                for _ in range(distance):
                    objs = push(walker)
                    if objs is None or walker in gone:
                        break
                    if any(isinstance(o, int) for o in objs[1:]):
                        break  # D-6.5: halts after a step whose train held a boulder
            else:
                driver = occ[nudge]
                push(driver, nudge_driver=True)
            while rolling:  # D-6.9 roll rounds
                order = sorted(rolling, key=progress, reverse=True)
                stopped: set[int] = set()
                for b in order:
                    if b not in rolling or b in stopped or b in gone:
                        continue
                    before = set(rolling)
                    if push(b) is None:
                        rolling.discard(b)  # a rolling boulder whose push is blocked stops
                    stopped |= before - rolling
        except GameOver:
            self._motion_events(steps, start, walker, walker_start)
            raise
        self._motion_events(steps, start, walker, walker_start)

    def _motion_events(self, steps, start, walker, walker_start) -> None:
        """D-12.6: per step, front-most first: move (if its motion ends here), hole, fall/fire_off."""
        last: dict[Any, int] = {}
        for i, recs in enumerate(steps):
            for rec in recs:
                last[rec[0]] = i
        for i, recs in enumerate(steps):
            for o, frm, to, fell, reserve, fire_off in recs:
                name = o if isinstance(o, str) else "boulder"
                if last[o] == i:
                    end = to if on_board(to) else frm
                    if end != start[o]:
                        self.ev("move", object=name, **{"from": tile_str(start[o]), "to": tile_str(end)})
                    if o == walker:
                        self.ev("hole", tile=tile_str(walker_start))
                if fell:
                    self.ev("fall", object=name, tile=tile_str(to) if on_board(to) else "off", reserve=reserve)
                elif fire_off is not None:
                    self.ev("fire_off", tile=tile_str(fire_off))

    # ---- commands (D-4.2) ----------------------------------------------------------------------
    def command(self, cid: str, tile: Tile, d: str | None, bot: str | None) -> None:
        """Execute one command component; its legality was checked by :func:`command_problem`."""
        st = self.st
        cmd = st.pool.get(cid)
        if cmd.colour == "blue":
            label = st.bot_at(tile)
            if st.bots[label].rooted:  # D-6.11: the root is removed as the command starts
                st.bots[label] = replace(st.bots[label], rooted=False)
                self.ev("unroot", bot=label)
            self.motion(cmd.direction or d, walker=label, distance=cmd.distance)
        elif cid == "spread_fire" or cid == "ignite":
            t = ahead(tile, d)
            st.fire.add(t)
            self.ev("fire_on", tile=tile_str(t))
        elif cid == "nudge_boulder":
            self.motion(d, nudge=tile)
        elif cid == "root":
            label = st.bot_at(tile)
            st.bots[label] = replace(st.bots[label], rooted=True)
            self.ev("root", bot=label)
        elif cid == "self_destruct":
            self.blast(tile)
        elif cid == "place_boulder":
            st.boulders.add(tile)
            self.ev("boulder_placed", tile=tile_str(tile))
            if tile in st.fire:
                st.fire.discard(tile)
                self.ev("fire_off", tile=tile_str(tile))
        elif cid == "douse":
            for t in douse_tiles(st, tile):
                st.fire.discard(t)
                self.ev("fire_off", tile=tile_str(t))
        elif cid == "patch":
            t = ahead(tile, d)
            st.holes.discard(t)
            self.ev("patch", tile=tile_str(t))
        elif cid == "drop_bot":
            st.bots[bot] = replace(st.bots[bot], owner=self.active, tile=tile, rooted=False)
            self.ev("drop", bot=bot, tile=tile_str(tile), owner=self.active)
        else:  # pragma: no cover - pool validation prevents it
            raise AssertionError(f"no behaviour for {cid}")

    def blast(self, centre: Tile) -> None:
        """D-7.4 / H17: holes first, then the bots: non-active, active's others, the exploder last."""
        st = self.st
        r = int(st.config.get("blast_radius", 1))
        area = [(c, w) for c in range(centre[0] - r, centre[0] + r + 1) for w in range(centre[1] - r, centre[1] + r + 1)
                if on_board((c, w))]
        area.sort()
        for t in area:
            st.holes.add(t)
            st.fire.discard(t)
            st.boulders.discard(t)
        self.ev("blast", centre=tile_str(centre), tiles=[tile_str(t) for t in area])
        exploder = st.bot_at(centre)
        inside = [lb for lb in sorted(st.bots) if st.bots[lb].tile in set(area)]
        order = ([lb for lb in inside if st.bots[lb].owner != self.active]
                 + [lb for lb in inside if st.bots[lb].owner == self.active and lb != exploder]
                 + ([exploder] if exploder else []))
        for lb in order:
            t = st.bots[lb].tile
            receiver = other(st.bots[lb].owner)
            self.ev("blasted", bot=lb, tile=tile_str(t), reserve=receiver)
            self.destroy(lb)
            self.win_check()

    def fire_check(self) -> None:
        """D-5.6: bots on fire burn, the non-active player's first, each group in label order."""
        st = self.st
        victims = ([lb for lb in sorted(st.bots) if st.bots[lb].owner != self.active and st.bots[lb].tile in st.fire]
                   + [lb for lb in sorted(st.bots) if st.bots[lb].owner == self.active and st.bots[lb].tile in st.fire])
        for lb in victims:
            self.ev("burn", bot=lb, tile=tile_str(st.bots[lb].tile))
            self.destroy(lb)
            self.win_check()


def douse_tiles(st: State, tile: Tile) -> list[Tile]:
    """The fire tiles Douse puts out from ``tile``: itself and its 4 neighbours (sorted)."""
    cand = [tile] + [ahead(tile, d) for d in DIRS]
    return sorted(t for t in cand if t in st.fire)


# ---------------------------------------------------------------------------------------------
def push_blocked(st: State, t: Tile, d: str) -> str | None:
    """D-6.3: the label of a rooted bot in the train ahead of ``t`` in ``d``, else ``None``."""
    occ = {b.tile: lb for lb, b in st.bots.items() if b.tile is not None}
    nt = ahead(t, d)
    while on_board(nt) and nt not in st.holes:
        if nt in occ:
            if st.bots[occ[nt]].rooted:
                return occ[nt]
        elif nt not in st.boulders:
            return None
        nt = ahead(nt, d)
    return None


def command_problem(st: State, player: str, cid: str, tile: Tile | None, d: str | None, bot: str | None,
                    *, ignore_copies: bool = False) -> str | None:
    """Why ``player`` may not issue this command now (D-4.2, D-4.3, D-5.3a), or ``None`` if legal.

    ``ignore_copies`` is for super components (D-4.5). The message names the failed condition.
    """
    cmd = st.pool.get(cid)
    if cmd is None:
        return f"unknown command {cid!r} (pool: {', '.join(st.pool.ids())})"
    if not ignore_copies:
        left = st.left.get(cid)
        if left is not None and left <= 0:
            if cmd.colour == "gold":
                return f"{cid} has no copies left until the gold copies are restored (D-4.4)"
            return f"{cid} has no copies left (D-4.3)"
    if tile is None:
        return f"{cid} needs an acting tile"
    if cmd.takes_direction and d is None:
        return f"{cid} needs a direction (N, E, S or W)"
    if cmd.colour == "blue" and cmd.direction is not None:
        if d is not None and d != cmd.direction:
            return f"{cid} always moves {DIR_NAMES[cmd.direction]}, not {DIR_NAMES[d]} (D-12.4)"
        d = cmd.direction
    if not cmd.takes_direction and cmd.colour != "blue" and d is not None:
        return f"{cid} takes no direction"
    if cid != "drop_bot" and bot is not None:
        return f"{cid} takes no bot label"
    ts = tile_str(tile)
    if cmd.bot_executed:
        lb = st.bot_at(tile)
        if lb is None or st.bots[lb].owner != player:
            return f"condition failed: {ts} holds no bot of yours ({cid} is executed by your bot on the acting tile)"
        if cmd.colour == "blue":
            rb = push_blocked(st, tile, d)
            if rb is not None:
                return (f"condition failed: the first push step {DIR_NAMES[d]} from {ts} is blocked by rooted bot "
                        f"{rb} (D-6.3)")
            return None
        if cid == "root":
            return f"condition failed: bot {lb} on {ts} is already rooted" if st.bots[lb].rooted else None
        if cid == "self_destruct":
            return None
        if cid == "ignite":
            t = ahead(tile, d)
            if not on_board(t):
                return f"condition failed: no tile {DIR_NAMES[d]} of {ts} (off the board)"
            if t in st.holes:
                return f"condition failed: {tile_str(t)} is a hole"
            if t in st.fire:
                return f"condition failed: {tile_str(t)} is already on fire"
            if t in st.boulders or st.bot_at(t) is not None:
                return f"condition failed: {tile_str(t)} holds an object"
            return None
        if cid == "douse":
            return None if douse_tiles(st, tile) else f"condition failed: no fire on or next to {ts}"
        if cid == "patch":
            t = ahead(tile, d)
            if not on_board(t) or t not in st.holes:
                return f"condition failed: the tile {DIR_NAMES[d]} of {ts} is not a hole"
            return None
    if cid == "spread_fire":
        if tile not in st.fire:
            return f"condition failed: {ts} is not on fire"
        t = ahead(tile, d)
        if not on_board(t):
            return f"condition failed: no tile {DIR_NAMES[d]} of {ts} (off the board)"
        if t in st.holes:
            return f"condition failed: {tile_str(t)} is a hole"
        if t in st.fire:
            return f"condition failed: {tile_str(t)} is already on fire"
        if t in st.boulders:
            return f"condition failed: {tile_str(t)} holds a boulder"
        return None
    if cid == "nudge_boulder":
        if tile not in st.boulders:
            return f"condition failed: no boulder on {ts}"
        rb = push_blocked(st, tile, d)
        if rb is not None:
            return f"condition failed: the push {DIR_NAMES[d]} from {ts} is blocked by rooted bot {rb} (D-6.3)"
        return None
    if cid == "place_boulder":
        if tile in st.holes:
            return f"condition failed: {ts} is a hole"
        if st.bot_at(tile) is not None:
            return f"condition failed: {ts} holds a bot"
        if tile in st.boulders:
            return f"condition failed: {ts} already holds a boulder"
        return None
    if cid == "drop_bot":
        if bot is None:
            return "drop_bot needs the label of a bot in your reserve"
        if bot not in st.bots or st.bots[bot].tile is not None or st.bots[bot].owner != player:
            return f"condition failed: bot {bot} is not in your reserve"
        if tile in st.holes:
            return f"condition failed: {ts} is a hole"
        if tile in st.fire:
            return f"condition failed: {ts} is on fire"
        if tile in st.boulders or st.bot_at(tile) is not None:
            return f"condition failed: {ts} holds an object"
        return None
    return f"no behaviour for {cid}"  # pragma: no cover


def super_problem(st: State, player: str, label: str, d1: str | None,
                  second: tuple[Tile | None, str | None, str | None]) -> tuple[str | None, State | None]:
    """D-5.3b / D-5.4: ``(reason, None)`` if the super is illegal, else ``(None, state after the
    first component)`` (the second component is checked there; a game that ends in the first
    component makes the super legal)."""
    if st.turn == 0:
        return "supers cannot be used on turn 1 (D-3.6)", None
    b = st.bots.get(label)
    if b is None or b.owner != player or b.tile is None:
        return f"bot {label} is not one of your bots on the board", None
    if b.super is None:
        return f"bot {label} has no super", None
    first, second_id = b.super
    prob = command_problem(st, player, first, b.tile, d1, None, ignore_copies=True)
    if prob:
        return f"super {label}: first component {first}: {prob}", None
    sim_st = st.copy()
    sim = Sim(sim_st, player)
    try:
        sim.command(first, b.tile, d1, None)
    except GameOver:
        return None, sim_st
    nb = sim_st.bots[label]
    if nb.tile is None:
        return f"super {label}: bot {label} is not on the board after {first} (D-5.4)", None
    cmd2 = st.pool.get(second_id)
    s_tile, s_dir, s_bot = second
    if cmd2 is not None and cmd2.bot_executed:
        if s_tile is not None and s_tile != nb.tile:
            return (f"super {label}: {second_id} acts from {label}'s tile after the first component, "
                    f"{tile_str(nb.tile)}, not {tile_str(s_tile)}"), None
        s_tile = nb.tile
    prob = command_problem(sim_st, player, second_id, s_tile, s_dir, s_bot, ignore_copies=True)
    if prob:
        return f"super {label}: second component {second_id}: {prob}", None
    return None, sim_st


# ---------------------------------------------------------------------------------------------
def _command_params(st: State, player: str, cmd, *, acting_tile: Tile | None = None) -> Iterator[tuple]:
    """Candidate (tile, direction, bot) parameters of a command (legality checked by the caller)."""
    dirs: tuple[str | None, ...] = tuple(DIRS) if cmd.takes_direction else (cmd.direction,)
    if cmd.bot_executed:
        tiles = [acting_tile] if acting_tile is not None else [st.bots[lb].tile for lb in st.own_bots(player)]
        for t in tiles:
            for d in dirs:
                yield t, d, None
    elif cmd.id == "spread_fire":
        for t in sorted(st.fire):
            for d in dirs:
                yield t, d, None
    elif cmd.id == "nudge_boulder":
        for t in sorted(st.boulders):
            for d in dirs:
                yield t, d, None
    elif cmd.id == "place_boulder":
        for t in ALL_TILES:
            yield t, None, None
    elif cmd.id == "drop_bot":
        for lb in st.reserve(player):
            for t in ALL_TILES:
                yield t, None, lb


def iter_legal(st: State, player: str, *, supers: bool = True) -> Iterator[Order]:
    """Every legal order of ``player`` except ``resign`` (D-5.3), in pool order then supers by label."""
    if st.phase != "play":
        return
    for cmd in st.pool.commands:
        left = st.left.get(cmd.id)
        if left is not None and left <= 0:
            continue
        for t, d, lb in _command_params(st, player, cmd):
            if command_problem(st, player, cmd.id, t, d, lb) is None:
                yield Order("command", cmd.id, t, d, lb)
    if not supers or st.turn == 0:
        return
    for label in st.own_bots(player):
        b = st.bots[label]
        if b.super is None:
            continue
        first = st.pool.get(b.super[0])
        cmd2 = st.pool.get(b.super[1])
        if first is None or cmd2 is None:
            continue
        for d1 in (tuple(DIRS) if first.takes_direction else (first.direction,)):
            if command_problem(st, player, first.id, b.tile, d1, None, ignore_copies=True):
                continue
            sim_st = st.copy()
            try:
                Sim(sim_st, player).command(first.id, b.tile, d1, None)
            except GameOver:  # D-5.4: legal; the second component never runs
                yield Order("super", bot=label, direction=d1, second=(None, None, None))
                continue
            nt = sim_st.bots[label].tile
            if nt is None:
                continue
            for t, d, lb in _command_params(sim_st, player, cmd2, acting_tile=nt if cmd2.bot_executed else None):
                if command_problem(sim_st, player, cmd2.id, t, d, lb, ignore_copies=True) is None:
                    yield Order("super", bot=label, direction=d1,
                                second=(None if cmd2.bot_executed else t, d, lb))


def has_legal(st: State, player: str) -> bool:
    """D-5.2: does ``player`` have a legal order other than resigning?"""
    for _ in iter_legal(st, player):
        return True
    return False


# ---------------------------------------------------------------------------------------------
def apply_order(state: State, order: Order, *, log: bool = True) -> tuple[State, list[Event]]:
    """Resolve one decision of the ``play`` phase (D-5.5 - D-5.7, D-8.1, D-8.2, D-8.4).

    ``order`` must be legal (parsed by the rule set) or ``rejected``. Returns the new state and
    its events; ``state`` is not modified.
    """
    st = state.copy()
    player = st.active
    sim = Sim(st, player)
    text = order_text(state, order) if log else ""
    cfg = st.config
    if order.kind == "rejected":
        st.rejections += 1
        sim.ev("rejected", player=player, count=st.rejections)
        if st.rejections >= cfg.get("max_rejections", 3):  # D-5.8 / D-8.2
            st.turn += 1
            _finish(st, sim, other(player), KernelReason.REFUSED)
        return st, sim.events
    if order.kind == "resign":
        st.turn += 1
        _finish(st, sim, other(player), KernelReason.RESIGN)
    else:
        try:
            if order.kind == "command":
                sim.command(order.command, order.tile, order.direction, order.bot)
                cmd = st.pool.get(order.command)
                if st.left.get(cmd.id) is not None:  # D-5.5 consume, D-4.4 gold cycle
                    st.left[cmd.id] -= 1
                    if cmd.colour == "gold":
                        gold = st.pool.gold_ids()
                        if all(st.left[g] <= 0 for g in gold):
                            for g in gold:
                                st.left[g] = st.pool.get(g).copies
                            st.gold_refreshes += 1
                            sim.ev("gold_refresh", count=st.gold_refreshes)
            else:  # super (D-5.5): first component, then second, no fire check between
                b = st.bots[order.bot]
                first, second = b.super
                sim.command(first, b.tile, order.direction, None)
                nt = st.bots[order.bot].tile
                s_tile, s_dir, s_bot = order.second
                if st.pool.get(second).bot_executed:
                    s_tile = nt
                sim.command(second, s_tile, s_dir, s_bot)
            sim.fire_check()
        except GameOver:
            st.turn += 1  # the turn in which the game ended counts as played
            sim.ev("result", winner=st.result[0], reason=st.result[1])
    if st.result is None:
        st.turn += 1
        st.rejections = 0
        # D-5.7: the clock is charged (by the kernel) before these two checks apply
        if st.turn >= cfg.get("max_turns", 200):  # D-8.4
            st.phase, st.pending_end = "ending", ("draw", DadoedReason.TURN_LIMIT)
        elif not has_legal(st, st.active):  # D-5.2 for the next player
            st.phase, st.pending_end = "ending", (other(st.active), DadoedReason.NO_LEGAL_ORDER)
    if log:
        st.log = st.log + ({"turn": state.turn + 1, "player": player, "order": text,
                            "events": _events_json(sim.events)},)
    return st, sim.events


def apply_ending(state: State) -> tuple[State, list[Event]]:
    """The decision point after an ``ending`` turn: the waiting result applies (D-8.4, D-5.2)."""
    st = state.copy()
    sim = Sim(st, st.active)
    winner, reason = st.pending_end
    st.pending_end = None
    _finish(st, sim, winner, reason)
    if st.log:  # the result belongs to the last turn's log entry
        last = dict(st.log[-1])
        last["events"] = list(last["events"]) + _events_json(sim.events)
        st.log = st.log[:-1] + (last,)
    return st, sim.events


def final_result(st: State) -> tuple[str, str] | None:
    """The result, or the one waiting in an ``ending`` state (for lookahead bots)."""
    return st.result or st.pending_end


def _finish(st: State, sim: Sim, winner: str, reason: str) -> None:
    st.result = (winner, reason)
    st.phase = "over"
    sim.ev("result", winner=winner, reason=reason)


def _events_json(events: list[Event]) -> list[dict[str, Any]]:
    return [{"type": e.kind, **e.data} for e in events]


def order_text(st: State, order: Order) -> str:
    """D-2.5 notation of an order in state ``st`` (before it executes)."""
    if order.kind == "command":
        return command_text(st.pool, order.command, order.tile, order.direction, order.bot)
    if order.kind == "super":
        b = st.bots[order.bot]
        first, second = b.super
        c1 = st.pool.get(first)
        t1 = command_text(st.pool, first, b.tile, c1.direction or order.direction, None)
        s_tile, s_dir, s_bot = order.second
        if st.pool.get(second).bot_executed:
            sim_st = st.copy()
            try:
                Sim(sim_st, st.active).command(first, b.tile, order.direction, None)
            except GameOver:
                pass
            s_tile = sim_st.bots[order.bot].tile or b.tile
        c2 = st.pool.get(second)
        if s_tile is None:  # the first component ends the game: the second never runs (D-5.4)
            return f"super {order.bot}: {t1} + {second}"
        t2 = command_text(st.pool, second, s_tile, c2.direction or s_dir, s_bot)
        return f"super {order.bot}: {t1} + {t2}"
    return order.kind
