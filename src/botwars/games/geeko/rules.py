"""The Geek-o Challenge (shared/rules/geeko.md, version 1) as a variant of ``factory``.

:class:`GeekoRuleset` subclasses :class:`FactoryRuleset` (python-chess variant style) and
overrides its named hooks: the factory stages, conveyors, pushers, gears, crushers, lasers and
buzzsaws run unchanged on each player's private :class:`RoomState` (G-1.3).  Overridden:
the turn (``play_turn``: N = max E(X) stages, G-4.7, G-6.7), ``sub_reveal`` (E(X)),
``bridge_blocks``/``static_path`` (gates and parked robots as obstacles, G-6.1, G-6.4),
``arrive`` (parking and exits, G-6.2, G-6.3), ``flip_channel`` (gates), ``damage`` (fused empty
registers filled, G-5.2), ``destroy`` (options kept, G-5.1), ``robot_beam_dirs`` (ML/RL, G-7.2),
``stage_end_touch`` (stations per robot and room, armouries, G-7.3), ``end_of_turn``
(E1-E5, G-3.4 (f)), the deal (G-4.4), orders (G-16.1), views (G-16.3) and names (G-10).
"""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Any

from botwars.engine.codes import KernelReason, OnExpiry, RefusalCode
from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Param, Ruleset
from botwars.engine.timecontrol import TimeControl
from botwars.games.factory.board import DIRS, Square, opposite, sq_str
from botwars.games.factory.cards import ALL_CARDS, CARD_TYPE, SET_TYPES, TYPES, card_str, parse_card, usable
from botwars.games.factory.rules import Ctx, FactoryRuleset
from botwars.games.factory.state import COLOURS
from botwars.games.geeko.board import GeekoBoard, load_rooms, room_set_names
from botwars.games.geeko.program import joint_fill
from botwars.games.geeko.state import LETTERS, GeekoBot, GeekoState, RoomState

REGS = 9


def _rooms_check(value: str) -> None:
    try:
        load_rooms(value)
    except ConfigError as exc:
        raise ValueError(exc.one_line()) from None


PARAMS = (
    Param("rooms", str, "standard", "The five rooms to race through: the standard set (§14), or your own five rooms as a file (G-2.3)",
          check=_rooms_check, kind="file", names=room_set_names),
    Param("turn_limit", int, 60, "Last turn (G-9.2)", minimum=1, maximum=10_000),
    Param("turn_time_s", float, 432000.0, "Submission deadline per turn in seconds (F-5.5)", minimum=0.001, maximum=2_592_000),
    Param("fence_damage", int, 2, "HP lost each time a robot touches an electric fence (F-6.4)", minimum=0, maximum=100),
    Param("laser_damage", int, 1, "HP lost per hit of a robot's laser (F-6.27)", minimum=0, maximum=100),
    Param("buzzsaw_threshold", float, 0.75, "Chance that buzzsaws do NOT spin in a register: 0.75 means they spin one register in four (F-6.28)", minimum=0, maximum=1),
)

# Factory parameters geeko fixes (§13): read by the inherited factory code.
FIXED = {"variant": "geeko", "registers": REGS, "max_hp": 10, "robots": 2, "edge": "fence",
         "reinstate_hp": 10, "double_wrench": "choice", "upgrades": True, "converge": "botwars",
         "robot_lasers": True, "sacrifice_default": 0}


class GeekoReason(StrEnum):
    """Geeko's own result reasons (G-9.5, instead of F-8.7); ``resign`` (G-9.4) is the kernel's
    :attr:`~botwars.engine.codes.KernelReason.RESIGN`."""

    FINISHED = "finished"  # G-9.2: every player has finished or is out
    TURN_LIMIT = "turn_limit"  # G-9.2


class GeekoOrders:
    """Validated orders (G-16.1): ``kind`` ``program`` or ``resign``; ``length`` L; ``progs``
    slot → priorities for registers 1..L; ``reboot`` ``None``, ``"A"`` or ``"B"``."""

    __slots__ = ("kind", "length", "progs", "reboot")

    def __init__(self, kind: str = "program", length: int = 0, progs: dict[int, tuple[int, ...]] | None = None,
                 reboot: str | None = None):
        self.kind = kind
        self.length = length
        self.progs = dict(progs or {})
        self.reboot = reboot

    def to_json(self) -> dict[str, Any]:
        if self.kind == "resign":
            return {"type": "resign"}
        out: dict[str, Any] = {"type": "program", "length": self.length}
        for slot in sorted(self.progs):
            out[LETTERS[slot]] = list(self.progs[slot])
        out["reboot"] = self.reboot
        return out

    def __repr__(self) -> str:
        return f"GeekoOrders({self.to_json()})"


class GeekoRuleset(FactoryRuleset):
    """Geek-o Challenge: 1-8 players, two robots each, five rooms, fewest turns wins."""

    id = "geeko"
    name = "Geek-o Challenge: two robots through five rooms in the fewest turns"
    rules_version = 1
    params = PARAMS
    min_seats = 1
    max_seats = 8

    # ---- configuration ------------------------------------------------------------------
    def validate_config(self, overrides: dict[str, Any] | None, source: str = "--set",
                        allow_paths: bool = True) -> dict[str, Any]:
        """The §13 parameters; the factory parameters geeko fixes are added (``FIXED``)."""
        cfg = Ruleset.validate_config(self, overrides, source, allow_paths)
        cfg.update(FIXED)
        return cfg

    def time_control(self, config: dict[str, Any]) -> TimeControl:
        """F-5.5 / G-16.2: ``turn_time_s`` per turn; on expiry the default program of G-4.6."""
        return TimeControl(config["turn_time_s"], 0.0, None, OnExpiry.DEFAULT)

    def robots_per_player(self, config: dict[str, Any]) -> int:
        """G-1.1: robots A and B."""
        return 2

    def rooms(self, config: dict[str, Any]) -> list[GeekoBoard]:
        return load_rooms(config["rooms"])

    # ---- hooks: names, registers, lasers -----------------------------------------------------
    def bot_name(self, st: RoomState, i: int) -> str:
        """G-10.1: ``<player>-A`` / ``<player>-B`` (also in HITS, G-15.8)."""
        return f"{st.players[0].name}-{LETTERS[st.bots[i].slot]}"

    def column_name(self, st: RoomState, i: int) -> str:
        return self.bot_name(st, i)

    def report_seat(self, st: RoomState) -> str | None:
        """G-10.1: a run's reports are its player's own."""
        return st.players[0].seat

    def stage_header(self, c: Ctx, s: int) -> str:
        """G-10.1: ``=== TURN t STAGE s ROOM k ===``."""
        return f"=== TURN {c.t} STAGE {s} ROOM {c.st.room} ==="

    def hp_cell(self, st: RoomState, i: int) -> str:
        """A parked robot stands on its gate (G-4.2 counts it on the board), so its HP shows."""
        b = st.bots[i]
        return str(b.hp) if b.alive or b.place == "parked" else "-"

    def free_registers(self, st: RoomState, i: int) -> int:
        """G-4.3: free(X) = HP − 1 (registers 1..HP−1 of nine)."""
        return max(0, min(REGS, st.bots[i].hp - 1))

    def robot_beam_dirs(self, st: RoomState, i: int) -> list[int]:
        """G-7.2: no laser without ``ML`` (straight ahead); ``RL`` gives the rear beam."""
        b = st.bots[i]
        return ([b.facing] if b.has("ML") else []) + ([opposite(b.facing)] if b.has("RL") else [])

    def mode_text(self, st: RoomState, i: int) -> str:
        """G-10.2 MODE: ``real``, ``real, reboot``, ``parked``, ``exited``, ``transit``, ``destroyed``."""
        b = st.bots[i]
        if b.alive:
            return "real, reboot" if b.rebooting else "real"
        if b.place == "done":
            return "exited"
        return b.place

    def on_board(self, st: RoomState) -> list[int]:
        """Robots on the board (G-4.2: parked, exited and transit robots are not)."""
        return [i for i, b in enumerate(st.bots) if b.alive]

    def programmable(self, st: RoomState) -> list[int]:
        """G-4.2: P = robots on the board that are not rebooting (parked robots are off the board)."""
        return [i for i, b in enumerate(st.bots) if b.alive and not b.rebooting]

    # ---- setup (G-3.1, G-3.2) ---------------------------------------------------------------
    def setup(self, config: dict[str, Any], seats: list[str], seed: Any, names: list[str] | None = None
              ) -> GeekoState:
        """Every player's robots on the start squares of room 1, then the deal of turn 1."""
        if not self.min_seats <= len(seats) <= self.max_seats:
            raise ConfigError(f"geeko needs 1 to 8 seats, got {len(seats)}")
        names = names or list(seats)
        runs = [self.new_run(config, seat, names[k], str(seed), k) for k, seat in enumerate(seats)]
        gs = GeekoState(tuple(seats), config, str(seed), 0, runs)
        for run in runs:
            self.deal(run, 1, [])
        return gs

    def new_run(self, config: dict[str, Any], seat: str, name: str, seed: str, index: int = 0) -> RoomState:
        """A player's private copy of room 1 with robots A and B on their start squares;
        ``index``: the seat's place in seat order, which gives its colour (F-2.9)."""
        room1 = self.rooms(config)[0]
        fs = self.empty_state(config, [seat], seed, room1, [name])
        run = RoomState(**{k: getattr(fs, k) for k in fs.__dataclass_fields__})
        run.players[0].colour = COLOURS[index % len(COLOURS)]
        run.players[0].standing = {"sacrifice_at": 0, "wrench2": "repair", "facing": "N"}
        run.players[0].robots_left = 0
        run.started = 1
        run.bots = [GeekoBot(0, 0, None, 0), GeekoBot(0, 1, None, 0)]
        self.enter_room(run, 1)
        return run

    def enter_room(self, run: RoomState, k: int) -> None:
        """G-3.2, G-6.6: room ``k``'s devices take their initial states; robots A and B stand on
        their start squares facing as given; HP, options, upgrades and fused registers stay."""
        board = self.rooms(run.config)[k - 1]
        fresh = self.empty_state(run.config, list(run.seats), run.seed, board, [run.players[0].name])
        run.board = board
        run.room = k
        for name in ("switches", "trapdoors", "bridges", "teleporters", "eyes", "blasers"):
            setattr(run, name, getattr(fresh, name))
        run.gates = {sq: board.kind[sq][2] for sq in board.gates()}
        for b in run.bots:
            sq, f = board.starts[b.slot]
            b.sq, b.facing, b.alive, b.place, b.transit = sq, f, True, "board", None

    def place_on_start(self, run: RoomState, i: int) -> None:
        """G-5.4, G-5.5: on its own start square, or the other one if occupied; facing as given."""
        b = run.bots[i]
        starts = run.board.starts
        taken = {o.sq for j, o in enumerate(run.bots) if j != i and o.alive}
        own, other = starts[b.slot], starts[1 - b.slot]
        sq, f = own if own[0] not in taken else other
        b.sq, b.facing, b.alive, b.place, b.transit = sq, f, True, "board", None

    # ---- start of turn and deal (G-4.1, G-4.4, G-10.4) -----------------------------------------
    def deal(self, run: RoomState, t: int, events: list[Event]) -> None:
        """G-3.4 (a)-(c) for turn ``t``: reboots begin, the deck, the joint hand, the hand message."""
        if not run.active:
            run.hand, run.deck_left = [], []
            return
        for b in run.bots:  # (a) G-8.1 / F-7.7
            if b.alive and b.rebooting:
                b.hp = 10
                b.regs = [None] * REGS
            else:
                for r in range(1, REGS + 1):
                    if not b.fused(r):
                        b.regs[r - 1] = None
        deck = list(ALL_CARDS)  # (b) G-4.1, G-3.3: the same stream for every player
        random.Random(f"{run.seed}/deck/{t}").shuffle(deck)
        held = {c for b in run.bots for c in b.regs if c is not None}
        deck = [c for c in deck if c not in held]
        P = self.programmable(run)  # (c) G-4.4
        size = sum(self.free_registers(run, i) for i in P) + sum(1 for i in P if run.bots[i].has("XM"))
        hand: list[int] = []
        k = 0
        while P and len(hand) < size and k < len(deck):
            c = deck[k]
            k += 1
            if any(usable(c, run.bots[i].sets) for i in P):
                hand.append(c)
            # else: set aside for the rest of the turn (G-4.4)
        run.hand = hand
        run.deck_left = deck[k:]
        run.hands = {}
        run.length = 0
        pl = run.players[0]
        parts = []
        fused = []
        for i, b in enumerate(run.bots):
            parts.append(f"{b.letter}: HP {b.hp}, {self.free_registers(run, i)} free" if i in P else f"{b.letter}: -")
            cell = self.fused_cell(b) if b.alive or b.place == "parked" else ""
            if cell:
                fused.append(f"{b.letter}: {cell}")
        msg = [f"=== TURN {t} HAND {pl.name} ===", "; ".join(parts), "fused: " + ("; ".join(fused) or "-"),
               "cards: " + (", ".join(card_str(c) for c in hand) or "-")]
        run.hand_msgs = {pl.seat: msg}
        events.append(Event("hand", {"turn": t, "seat": pl.seat, "lines": msg}, frozenset([pl.seat])))

    # ---- orders (G-4.5, G-4.6, G-16.1) --------------------------------------------------------
    def pending(self, gs: GeekoState) -> list[str]:
        if gs.over:
            return []
        return [run.players[0].seat for run in gs.runs if run.active]

    def needs_cards(self, run: RoomState) -> list[int]:
        """Robots in P with free(X) ≥ 1 (G-4.5)."""
        return [i for i in self.programmable(run) if self.free_registers(run, i) >= 1]

    def parse_orders(self, gs: GeekoState, seat: str, payload: Any) -> GeekoOrders:
        """G-16.1 payload → :class:`GeekoOrders`; raises :class:`InvalidOrders` naming the entry."""
        if seat not in gs.seats:
            raise InvalidOrders(f"unknown seat {seat!r}", code=RefusalCode.MALFORMED, part=seat)
        run = gs.runs[gs.player_of(seat)]
        if not run.active:
            raise InvalidOrders("you have finished or are out of the game", code=RefusalCode.ILLEGAL, part=seat)
        if self.order_type(payload, {"type", "length", "A", "B", "reboot"},
                           " (G-16.1: type, length, A, B, reboot)") == "resign":
            return GeekoOrders("resign")
        L = payload.get("length")
        if isinstance(L, bool) or not isinstance(L, int):
            raise InvalidOrders(f"'length' must be a whole number, got {L!r}", code=RefusalCode.MALFORMED,
                                part="length")
        need = self.needs_cards(run)
        reboot = payload.get("reboot")
        if reboot not in (None, "A", "B"):
            raise InvalidOrders(f"'reboot' must be null, \"A\" or \"B\", got {reboot!r}", part="reboot")
        if reboot is not None and not run.bots[LETTERS.index(reboot)].alive:
            raise InvalidOrders(f"robot {reboot} is not on the board and cannot be declared for reboot (G-8.1)",
                                part="reboot")
        if not need and L != 0:
            raise InvalidOrders(f"no robot needs cards this turn: 'length' must be 0, got {L}", part="length")
        zero = False  # G-4.5: L = 0 although robots need cards, because no program with L ≥ 1 is valid
        if need:
            top = min(self.free_registers(run, i) for i in need)
            if L == 0 and self.longest_program(run) == 0:
                zero = True
            elif self.longest_program(run) == 0:
                raise InvalidOrders(f"no program with L ≥ 1 is valid with this hand: 'length' must be 0 (G-4.5), "
                                    f"got {L}", part="length")
            elif not 1 <= L <= top:
                raise InvalidOrders(f"'length' must be 1 to {top} (G-4.5: every program has length L ≤ the free "
                                    f"registers of each robot), got {L}", part="length")
        progs_raw: dict[int, list[Any]] = {}
        for slot, letter in enumerate(LETTERS):
            raw = payload.get(letter)
            i = slot
            if i not in need or zero:
                if zero and raw not in (None, []):
                    raise InvalidOrders(f"'length' is 0: robot {letter} gets no cards, omit '{letter}' (G-4.5)",
                                        part=letter)
                if raw not in (None, []):
                    why = "is not programmable this turn" if i not in self.programmable(run) else "has no free register"
                    raise InvalidOrders(f"robot {letter} {why}: omit '{letter}'", part=letter)
                continue
            if not isinstance(raw, list):
                raise InvalidOrders(f"'{letter}' must be a list of {L} cards", code=RefusalCode.MALFORMED, part=letter)
            progs_raw[slot] = raw
        if not need or zero:
            return GeekoOrders("program", 0, {}, reboot)
        for slot, raw in progs_raw.items():
            if len(raw) != L:
                raise InvalidOrders(f"'{LETTERS[slot]}' must hold exactly {L} cards, got {len(raw)}", part=LETTERS[slot])
        progs = self.assign_joint(run, progs_raw)
        return GeekoOrders("program", L, progs, reboot)

    def assign_joint(self, run: RoomState, progs_raw: dict[int, list[Any]]) -> dict[int, tuple[int, ...]]:
        """G-4.5 / GH20: cards named by priority in either program first, then type names, A's
        program before B's, each in register order; every card usable by its robot."""
        hand = run.hand
        used: set[int] = set()
        out: dict[int, list[int | None]] = {slot: [None] * len(raw) for slot, raw in progs_raw.items()}
        types: list[tuple[int, int, str]] = []
        for slot in sorted(progs_raw):
            letter = LETTERS[slot]
            for r, c in enumerate(progs_raw[slot]):
                where = f"{letter} register {r + 1}"
                if isinstance(c, bool) or not isinstance(c, (int, str)):
                    raise InvalidOrders(f"{where}: a card is a priority or a type name, got {c!r}",
                                        code=RefusalCode.MALFORMED, part=c)
                if isinstance(c, str) and c.strip() in TYPES:
                    types.append((slot, r, c.strip()))
                    continue
                try:
                    pr = parse_card(str(c))
                except ValueError as exc:
                    raise InvalidOrders(f"{where}: unknown card {c!r}: {exc}", part=c) from None
                if pr not in hand:
                    raise InvalidOrders(f"{where}: card {card_str(pr)} is not in your hand", part=c)
                if pr in used:
                    raise InvalidOrders(f"{where}: card {card_str(pr)} is used twice", part=c)
                if not usable(pr, run.bots[slot].sets):
                    raise InvalidOrders(f"{where}: robot {letter} cannot use {card_str(pr)} (its set is not "
                                        "unlocked for this robot, G-7.3)", part=c)
                used.add(pr)
                out[slot][r] = pr
        for slot, r, t in types:
            where = f"{LETTERS[slot]} register {r + 1}"
            pick = next((h for h in hand if CARD_TYPE[h] == t and h not in used), None)
            if pick is None:
                raise InvalidOrders(f"{where}: no {t} card left in your hand", part=t)
            if not usable(pick, run.bots[slot].sets):
                raise InvalidOrders(f"{where}: robot {LETTERS[slot]} cannot use {t} (G-7.3)", part=t)
            used.add(pick)
            out[slot][r] = pick
        return {slot: tuple(v) for slot, v in out.items()}  # type: ignore[misc]

    def longest_program(self, run: RoomState) -> int:
        """G-4.5: the largest L (0 to the smallest free count) for which a valid program exists with
        ``run.hand``: every robot that needs cards gets L distinct hand cards it can use.  0 means
        no program with L ≥ 1 is valid, so ``length`` 0 is the order (G-16.1)."""
        need = self.needs_cards(run)
        if not need:
            return 0
        top = min(self.free_registers(run, i) for i in need)
        for L in range(top, 0, -1):
            if joint_fill(run.hand, [run.bots[i].sets for i in need], L) is not None:
                return L
        return 0

    def default_orders(self, gs: GeekoState, seat: str) -> GeekoOrders:
        """G-4.6: the largest L the greedy hand-order fill completes; no reboot."""
        run = gs.runs[gs.player_of(seat)]
        if not run.active:
            return GeekoOrders("program")
        return self.default_program(run)

    def default_program(self, run: RoomState) -> GeekoOrders:
        need = self.needs_cards(run)
        if not need:
            return GeekoOrders("program", 0, {}, None)
        top = min(self.free_registers(run, i) for i in need)
        for L in range(top, 0, -1):
            progs: dict[int, list[int]] = {i: [] for i in need}
            for c in run.hand:
                for i in need:  # A first, then B
                    if len(progs[i]) < L and usable(c, run.bots[i].sets):
                        progs[i].append(c)
                        break
            if all(len(p) == L for p in progs.values()):
                return GeekoOrders("program", L, {i: tuple(p) for i, p in progs.items()}, None)
        return GeekoOrders("program", 0, {}, None)

    def orders_json(self, orders: GeekoOrders) -> Any:
        return orders.to_json()

    def twin_state(self, gs: GeekoState, seat: str | None, rng: random.Random) -> GeekoState:
        """The state with the other players' private room copies (G-1.3, G-16.3) changed: their
        hands (other cards, same sizes), the rest of their decks, their hand messages and their
        robots' HP. Only room, finished and out of another player are public (G-16.4)."""
        t = gs.copy()
        for p, run in enumerate(t.runs):
            if gs.seats[p] == seat:
                continue
            held = {c for b in run.bots for c in b.regs if c is not None}
            pool = [c for c in ALL_CARDS if c not in held]
            rng.shuffle(pool)
            run.hand, run.deck_left = pool[:len(run.hand)], pool[len(run.hand):]
            run.hand_msgs = {k: [f"twin {rng.random()}"] for k in run.hand_msgs}
            for b in run.bots:
                if b.alive:
                    b.hp = rng.randint(1, 10)
        return t

    def apply_program(self, run: RoomState, p: int, o: GeekoOrders) -> None:
        """Store the programs, fix E(X) (G-4.7, GH21) and the reboot declaration (G-8.1)."""
        run.length = o.length
        for i, b in enumerate(run.bots):
            b.declared = False
            for r, card in enumerate(o.progs.get(i, ())):
                b.regs[r] = card
            if not b.alive or b.rebooting:
                b.run_len = 0
            else:
                free = self.free_registers(run, i)
                b.run_len = REGS if (free == 0 or o.length == free) else o.length
        if o.reboot is not None:
            run.bots[LETTERS.index(o.reboot)].declared = True

    # ---- resolution ---------------------------------------------------------------------------
    def resolve(self, state: GeekoState, orders: dict[str, Any]) -> tuple[GeekoState, list[Event]]:
        """One turn for every racing player (G-3.4), then E4 (G-9) and the next deal."""
        gs = state.copy()
        t = gs.turn + 1
        events: list[Event] = []
        resigned = False
        for p, run in enumerate(gs.runs):
            o = orders.get(run.players[0].seat)
            if o is not None and o.kind == "resign" and run.active:
                self.resign_run(run)
                resigned = True
                events.append(Event("resign", {"turn": t, "seat": run.players[0].seat}))
        if resigned and not any(r.active for r in gs.runs):  # G-9.4: the game ends at once
            self.end_game(gs, KernelReason.RESIGN, events, t - 1)
            for run in gs.runs:
                run.hand, run.hand_msgs = [], {}
            return gs, events
        for p, run in enumerate(gs.runs):
            if not run.active:
                continue
            seat = run.players[0].seat
            o = orders.get(seat)
            if o is None or o.kind != "program":
                o = self.default_program(state.runs[p])
            self.apply_program(run, p, o)
            c = Ctx(run, t)
            self.play_turn(c)
            run.turn = t
            run.reports = c.lines
            events += [Event(e.kind, e.data, frozenset([seat])) for e in c.events]
        gs.turn = t
        for run in gs.runs:
            run.turn = t
        if all(not r.active for r in gs.runs):  # E4 (G-9.2)
            self.end_game(gs, GeekoReason.FINISHED, events, t)
        elif t >= gs.config["turn_limit"]:
            self.end_game(gs, GeekoReason.TURN_LIMIT, events, t)
        if gs.over:
            for run in gs.runs:
                run.hand, run.hand_msgs, run.hands = [], {}, {}
        else:
            for run in gs.runs:
                self.deal(run, t + 1, events)
        return gs, events

    def resign_run(self, run: RoomState) -> None:
        """G-9.4: the player is out at once; their robots leave the board."""
        pl = run.players[0]
        pl.out = True
        for b in run.bots:
            b.alive = False
            b.sq = None
            b.place = "out"
            b.declared = b.rebooting = False
        run.hand, run.hands = [], {}

    def play_turn(self, c: Ctx) -> None:
        """Stages 1..N, N = max E(X) (G-4.7), skipping the rest once no robot is on the board
        (G-6.7); then the end of turn."""
        run = c.st
        n = max([b.run_len for b in run.bots if b.alive] or [0])
        for s in range(1, n + 1):
            if not self.on_board(run):
                break
            self.stage(c, s)
        if c.frames == []:  # no stage ran: the start picture still opens the turn
            c.snap(0, "start")
        self.end_of_turn(c)
        c.snap(99, "end of turn")

    def sub_reveal(self, c: Ctx, s: int) -> dict[int, int]:
        """S1: register ``s`` of every robot on the board with s ≤ E(X) (G-4.7)."""
        out = {}
        for i, b in enumerate(c.st.bots):
            if b.alive and not b.rebooting and s <= b.run_len and b.regs[s - 1] is not None:
                out[i] = b.regs[s - 1]
        return out

    # ---- gates and parking (G-6) ---------------------------------------------------------------
    def parked_on(self, st: RoomState, sq: Square) -> int | None:
        for j, b in enumerate(st.bots):
            if b.place == "parked" and b.sq == sq:
                return j
        return None

    def bridge_blocks(self, st: RoomState, sq: Square, d: int) -> bool:
        """G-6.1, G-6.4: a closed gate, or a gate holding a parked robot, is an obstacle as a wall is."""
        k = st.board.kind[sq]
        if k[0] == "GT":
            return not st.gates[sq] or self.parked_on(st, sq) is not None
        return super().bridge_blocks(st, sq, d)

    def static_path(self, st: RoomState, origin: Square, d: int, include_origin: bool, lowered: tuple = ()):
        """Beams stop before a closed gate (G-6.1) and on a parked robot without effect (G-6.4)."""
        path, eye = super().static_path(st, origin, d, include_origin, lowered)
        gates = getattr(st, "gates", None)
        if gates:
            for n, sq in enumerate(path):
                if sq in gates and (n > 0 or not include_origin):
                    if not gates[sq]:
                        return path[:n], None
                    if self.parked_on(st, sq) is not None:
                        return path[:n + 1], None
        return path, eye

    def arrive(self, c: Ctx, i: int) -> None:
        """F-6.6, plus G-6.2: entering an open gate parks the robot (its movement ends)."""
        b = c.st.bots[i]
        if c.st.board.kind[b.sq][0] == "GT":
            self.park(c, i)
            return
        super().arrive(c, i)

    def park(self, c: Ctx, i: int) -> None:
        """G-6.2, G-6.3: parked; exits at once in a one-gate room, or with its partner once both
        gates hold a parked robot."""
        st = c.st
        b = st.bots[i]
        b.alive = False
        b.place = "parked"
        c.ev(i, "parked")
        gates = st.board.gates()
        if len(gates) == 1:
            self.exit_bot(c, i)
            return
        others = [j for j, o in enumerate(st.bots) if j != i and o.place == "parked" and o.sq != b.sq]
        if others:
            self.exit_bot(c, i)
            for j in others:
                self.exit_bot(c, j)

    def exit_bot(self, c: Ctx, i: int) -> None:
        b = c.st.bots[i]
        b.place = "exited"
        b.sq = None
        c.ev(i, "exited")

    def flip_channel(self, c: Ctx, ch: int) -> None:
        """F-6.14, G-2.2: gates of the channel toggle open ↔ closed (a parked robot stays, GH17)."""
        super().flip_channel(c, ch)
        st = c.st
        for kind, key in st.board.channel_devices().get(ch, []):
            if kind == "GT":
                st.gates[key] = not st.gates[key]

    # ---- damage (G-5) ----------------------------------------------------------------------------
    def damage(self, c: Ctx, i: int, points: int, label: str) -> None:
        """F-7.1 without option sacrifice (G-5.1), then G-5.2: empty fused registers are filled at
        once from the remaining deck (the first card the robot can use)."""
        st = c.st
        b = st.bots[i]
        if not b.alive:
            return
        super().damage(c, i, points, label)
        if b.alive:
            self.fill_fused(st, i)

    def fill_fused(self, st: RoomState, i: int) -> None:
        """G-5.2 (GH7): each fused empty register, highest first (the order they fuse in), takes
        the first usable card of ``deck_left``; passed-over cards stay."""
        b = st.bots[i]
        for r in range(REGS, 0, -1):
            if b.fused(r) and b.regs[r - 1] is None:
                for k, card in enumerate(st.deck_left):
                    if usable(card, b.sets):
                        b.regs[r - 1] = st.deck_left.pop(k)
                        break

    def destroy(self, c: Ctx, i: int) -> None:
        """F-7.2 with G-5.1: registers cleared, declaration lapses, options stay (for G-5.4)."""
        st = c.st
        b = st.bots[i]
        if not b.alive:
            return
        opts = b.options
        super().destroy(c, i)
        b.options = opts
        b.place = "destroyed"
        st.lost += 1

    # ---- stage end (G-7) ---------------------------------------------------------------------------
    def stage_end_touch(self, c: Ctx, i: int) -> bool:
        """S10 (a): upgrade stations per robot and room (G-7.3) and armouries (G-7.2)."""
        st = c.st
        b = st.bots[i]
        k = st.board.kind[b.sq]
        if k[0] == "UP" and st.room not in b.stations:
            b.stations[st.room] = b.sq
            c.check[i].append(f"upgrade {sq_str(b.sq)}")
            n = len(b.stations)
            for need, name in ((2, "A"), (4, "B"), (6, "C")):
                if n >= need and name not in b.sets:
                    b.sets.append(name)
                    c.check[i].append("cards " + " ".join(SET_TYPES[name]))
        elif k[0] == "AR":
            super().stage_end_touch(c, i)
        return False

    # ---- end of turn (G-3.4 (f)) -------------------------------------------------------------------
    def end_of_turn(self, c: Ctx) -> None:
        """E1 repairs, E2 replacements, transit and rooms, E3 reboots, E5 the report (E4 is
        game-wide, in :meth:`resolve`)."""
        run = c.st
        repair: list[list[str]] = [[] for _ in run.bots]
        for i, b in enumerate(run.bots):  # E1 (G-7.1)
            if b.alive and not b.rebooting and run.board.kind[b.sq][0] == "W":
                repair[i] = self.repair(c, i)
        k = run.room
        for i, b in enumerate(run.bots):  # E2 (G-5.4)
            if b.died:
                nb = GeekoBot(0, b.slot, None, 0)
                nb.options, nb.stations, nb.sets = b.options, dict(b.stations), list(b.sets)
                nb.died = True
                run.bots[i] = nb
                if k == 1:
                    self.place_on_start(run, i)
                else:
                    nb.place, nb.transit = "transit", 1
            elif b.place == "transit":  # G-5.5
                b.transit = (b.transit or 0) + 1
                if b.transit >= k:
                    self.place_on_start(run, i)
        room_done = all(b.place == "exited" for b in run.bots)
        if room_done:  # G-6.6
            if k < 5:
                self.enter_room(run, k + 1)
            else:
                run.finished = c.t
                for b in run.bots:
                    b.place = "done"
        modes = ["destroyed" if b.died else self.mode_text(run, i) for i, b in enumerate(run.bots)]
        for b in run.bots:  # E3
            b.rebooting = b.alive and b.declared
            b.declared = False
            b.died = False
            b.run_len = 0
        if c.log:
            from botwars.games.geeko.report import end_events
            for ev in end_events(self, c, modes, repair):
                c.events.append(ev)
                c.lines += ev.data["lines"]

    def room_cell(self, run: RoomState, i: int) -> str:
        """G-10.3 ROOM cell."""
        b = run.bots[i]
        if run.finished is not None or b.place == "done":
            return "done"
        if b.place == "exited":
            return f"exited {run.room}"
        if b.place == "transit":
            return f"transit {b.transit}"
        if b.place == "out":
            return "out"
        return f"room {run.room}"

    # ---- the end (G-9) ---------------------------------------------------------------------------
    def standings(self, gs: GeekoState, winners: list[int] | None = None) -> list[tuple[int, int]]:
        """G-9.3: ``[(player, rank)]``: finished by score, then unfinished by rooms completed,
        ties by robots lost; out players after all others; equal keys share a rank."""
        def key(p):
            r = gs.runs[p]
            fin = r.finished is not None
            return (1 if r.out else 0, 0 if fin else 1, r.finished if fin else -r.rooms_done(), r.lost)
        order = sorted(range(len(gs.runs)), key=lambda p: (key(p), p))
        out: list[tuple[int, int]] = []
        prev, rank = None, 0
        for n, p in enumerate(order, 1):
            if key(p) != prev:
                rank, prev = n, key(p)
            out.append((p, rank))
        return out

    def end_game(self, gs: GeekoState, reason: GeekoReason | KernelReason, events: list[Event], t: int) -> None:
        """G-9.2 to G-9.5: the result and the G-10.5 result table (public)."""
        ranks = self.standings(gs)
        winners = [p for p, r in ranks if r == 1 and gs.runs[p].finished is not None and not gs.runs[p].out]
        gs.winners = winners
        rows = []
        for p, r in ranks:
            run = gs.runs[p]
            if p in winners:
                status = "winner"
            elif run.out:
                status = "out"
            elif run.finished is not None:
                status = "finished"
            else:
                status = "unfinished"
            rows.append((p, r, status))
        gs.result = {"reason": reason, "standings": [{"rank": r, "seat": gs.seats[p], "status": s}
                                                      for p, r, s in rows]}
        from botwars.games.geeko.report import result_event
        ev = result_event(self, gs, rows, t)
        events.append(ev)
        gs.public = list(ev.data["lines"])

    def outcome(self, gs: GeekoState) -> Outcome | None:
        """Winner: the single winning seat; scores: the score turn (G-1.2; 0 when unfinished)."""
        if gs.result is None:
            return None
        w = [gs.seats[p] for p in gs.winners]
        ranking: list[list[str]] = []
        last = None
        for row in gs.result["standings"]:
            if row["rank"] != last:
                ranking.append([])
                last = row["rank"]
            ranking[-1].append(row["seat"])
        turns = {gs.seats[p]: (r.finished if r.finished is not None else "-") for p, r in enumerate(gs.runs)}
        rooms = {gs.seats[p]: r.rooms_done() for p, r in enumerate(gs.runs)}
        lost = {gs.seats[p]: r.lost for p, r in enumerate(gs.runs)}
        return Outcome(w[0] if len(w) == 1 else None, {s: float(gs.runs[p].finished or 0) for p, s in enumerate(gs.seats)},
                       gs.result["reason"], ranking, {"turns": turns, "rooms": rooms, "lost": lost})

    # ---- observation (G-16.3 to G-16.5) -------------------------------------------------------
    def others(self, gs: GeekoState, seat: str | None) -> list[dict[str, Any]]:
        return [{"seat": p + 1, "room": r.room, "finished": r.finished is not None, "out": r.out}
                for p, r in enumerate(gs.runs) if gs.seats[p] != seat]

    def view(self, gs: GeekoState, seat: str | None) -> dict[str, Any]:
        """The seat's own copy (G-16.3) or the public spectator view (G-16.4)."""
        out: dict[str, Any] = {"ruleset": "geeko", "turn": gs.turn if gs.over else gs.turn + 1,
                               "phase": "over" if gs.over else "program",
                               "deadline_s": None if gs.over else gs.config["turn_time_s"],
                               "others": self.others(gs, seat), "result": gs.result}
        if seat is None:
            return out
        p = gs.player_of(seat)
        run = gs.runs[p]

        def key3(k):
            return f"{sq_str((k[0], k[1]))}{DIRS[k[2]]}"
        robots = {}
        for i, b in enumerate(run.bots):
            mode = self.mode_text(run, i)
            robots[b.letter] = {
                "square": sq_str(b.sq) if b.sq is not None and b.place in ("board", "parked") else None,
                "facing": DIRS[b.facing] if b.place in ("board", "parked") else None,
                "hp": b.hp, "mode": "real" if mode.startswith("real") else mode, "rebooting": b.rebooting,
                "transit": b.transit if b.place == "transit" else None,
                "options": [({"code": o["code"], "charges": o["charges"]} if o["code"] == "AA"
                             else {"code": o["code"]}) for o in b.options],
                "fused": {str(r): card_str(b.regs[r - 1]) for r in range(1, REGS + 1)
                          if b.fused(r) and b.regs[r - 1] is not None},
                "stations": {str(k): sq_str(v) for k, v in sorted(b.stations.items())}, "sets": list(b.sets),
                "free": self.free_registers(run, i) if i in self.programmable(run) else 0}
        out.update({
            "you": p + 1, "room": run.room, "board": run.board.text(),
            "config": {k: gs.config[k] for k in sorted(gs.config)},
            "devices": {"switches": {sq_str(k): v for k, v in run.switches.items()},
                        "eyes": {key3(k): v for k, v in run.eyes.items()},
                        "trapdoors": {sq_str(k): v for k, v in run.trapdoors.items()},
                        "bridges": {sq_str(k): ("lowered" if v else "raised") for k, v in run.bridges.items()},
                        "teleporters": dict(run.teleporters),
                        "blasers": {key3(k): v for k, v in run.blasers.items()},
                        "gates": {sq_str(k): v for k, v in sorted(run.gates.items())}},
            "robots": robots, "hand": [card_str(c) for c in run.hand], "program": None,
            "reports": list(run.reports) + list(run.hand_msgs.get(seat, [])) + list(gs.public),
            "finished": run.finished, "lost": run.lost})
        return out

    # ---- tools -------------------------------------------------------------------------------------
    def seats_of(self, gs: GeekoState) -> list[str]:
        return list(gs.seats)

    def state_json(self, gs: GeekoState) -> dict[str, Any]:
        return gs.to_json()

    def turn_number(self, gs: GeekoState) -> int:
        return gs.turn

    def render_text(self, gs: GeekoState, seat: str | None = None) -> str:
        from botwars.games.geeko.report import render_text
        return render_text(self, gs, seat)

    def svg(self, gs: GeekoState, seat: str | None = None, events: list[Event] | None = None,
            names: dict[str, str] | None = None) -> str:
        """The seat's room as SVG, drawn by the factory renderer.  A spectator gets the first
        seat's room: after the game as it stood, during it (G-10.6: only room numbers are
        public) the bare room with its initial devices and no robots. ``names``: optional
        display names by seat, drawn under the robots."""
        from botwars.games.factory.svg import factory_svg
        return factory_svg(self._drawn_run(gs, seat), None, None, names)

    def legend(self, gs: GeekoState, seat: str | None = None) -> str:
        """The legend of :meth:`svg`'s drawing for ``seat``: the elements of the room drawn."""
        from botwars.games.factory.svg import legend_svg
        return legend_svg(self._drawn_run(gs, seat))

    def _drawn_run(self, gs: GeekoState, seat: str | None) -> RoomState:
        p = gs.player_of(seat) if seat is not None else 0
        run = gs.runs[p]
        if seat is None and not gs.over:  # G-10.6: only the room number is public during the game
            run = run.copy()
            self.enter_room(run, run.room)
            for b in run.bots:
                b.alive, b.sq = False, None
        return run

    def report(self, before: GeekoState, after: GeekoState, events: list[Event]) -> Any:
        """Every player's stage, end, fused and result tables of one turn (published after the
        game, G-10.6), then the text pictures."""
        from rich.console import Group
        from rich.text import Text

        from botwars.games.factory.report import rich_report
        parts = []
        for seat in after.seats:
            mine = [e for e in events if e.visible_to is not None and seat in e.visible_to]
            parts.append(rich_report([Event(e.kind, e.data) for e in mine if e.kind != "hand"]))
        parts.append(rich_report([e for e in events if e.visible_to is None]))
        parts.append(Text(self.render_text(after, None)))
        return Group(*parts)

    def check_board(self, text: str, source: str, entry: bool = False) -> list[str]:
        """``botwars board check FILE --game geeko`` (a room or a five-room set, G-2) or, with
        ``--entry``, the entry-board acceptance test (G-11: ``REJECT Vn: ...`` lines)."""
        from botwars.games.geeko.board import check_entry, check_room
        return check_entry(text, source) if entry else check_room(text, source)

    def simulate_run(self, run: RoomState, programs: dict[int, list[int]], length: int, stages: int | None = None
                     ) -> RoomState:
        """Bots' look-ahead: play the stages of a program silently on a copy of ``run``."""
        sim = run.copy()
        o = GeekoOrders("program", length, {i: tuple(p) for i, p in programs.items()}, None)
        self.apply_program(sim, 0, o)
        c = Ctx(sim, sim.turn + 1, log=False)
        n = max([b.run_len for b in sim.bots if b.alive] or [0])
        if stages is not None:
            n = min(n, stages)
        for s in range(1, n + 1):
            if not self.on_board(sim):
                break
            self.stage(c, s)
        return sim
