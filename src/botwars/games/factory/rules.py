"""The factory rules (shared/rules/factory.md, version 1): setup, deal, programs, the five stages
in their exact sub-step order, damage, lives, flags, end of game, views.

Every rule lives here.  The resolution is split into named, overridable methods (python-chess
variant style) so that ``geeko`` can subclass :class:`FactoryRuleset`:
``robots_per_player``, ``order_robot``, ``hand_size``, ``free_registers``, ``deck_cards``,
``start_of_turn``, ``assign_cards``, ``apply_program``, ``stage`` and its sub-steps
(``sub_reveal``, ``sub_moves``/``execute_card``, ``sub_conveyors``, ``sub_pushers``,
``sub_gears``, ``sub_crushers``, ``sub_lasers``, ``sub_buzzsaws``, ``stage_end``,
``stage_end_touch``, ``win_check``), ``end_of_turn``, ``repair``, ``reinstate``,
``end_checks``, ``standings``; the report and laser hooks ``robot_beam_dirs``, ``bot_name``,
``column_name``, ``stage_header``, ``hp_cell``, ``mode_text``; ``bridge_blocks``,
``static_path``, ``arrive``, ``flip_channel``, ``damage``, ``destroy``.  Robots are one list in board order (``state.bots``), never
"the player's robot" inside the resolution.
"""

from __future__ import annotations

import random
from contextvars import ContextVar
from enum import StrEnum
from typing import Any

from botwars.engine.codes import KernelReason, OnExpiry, RefusalCode
from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Param, Ruleset
from botwars.engine.timecontrol import TimeControl
from botwars.games.factory.board import (DELTA, DIRS, OPTION_CODES, Board, Square, load_board, shipped_boards, opposite,
                                         path_str, sq_str)
from botwars.games.factory.cards import (ALL_CARDS, BASE_CARDS, CARD_TYPE, MOVE, SET_TYPES, TURN, TYPES,
                                         card_str, parse_card, usable)
from botwars.games.factory.state import COLOURS, Bot, FactoryState, Player

CLASSIC = {"edge": "pit", "reinstate_hp": 8, "double_wrench": "both", "upgrades": False, "converge": "none"}


def _board_check(value: str) -> None:
    try:
        load_board(value)
    except ConfigError as exc:
        raise ValueError(exc.one_line()) from None


PARAMS = (
    Param("variant", str, "factory", "factory or classic (§12: sets the classic column of §11)",
          choices=("factory", "classic")),
    Param("board", str, "assembly-hall", "A shipped board name, a board file path or board text (§3)",
          check=_board_check, kind="file", names=shipped_boards),
    Param("registers", int, 5, "Registers and stages per turn (fixed, §11)", minimum=5, maximum=5),
    Param("max_hp", int, 10, "HP of a new robot", minimum=2, maximum=10),
    Param("robots", int, 3, "Robots (lives) per player", minimum=1, maximum=100),
    Param("edge", str, "fence", "Perimeter: fence or pit (the void)", choices=("fence", "pit")),
    Param("fence_damage", int, 2, "HP lost each time a robot touches an electric fence (F-6.4)", minimum=0, maximum=100),
    Param("reinstate_hp", int, 10, "HP of a reinstated robot (F-7.10)", minimum=1, maximum=10),
    Param("double_wrench", str, "choice", "A double-wrench square at the end of a turn: repair 2 HP or take an option instead (choice), or repair 1 HP and take an option (both) (F-6.30)",
          choices=("choice", "both")),
    Param("upgrades", bool, True, "Upgrade stations and upgrade cards; no: upgrade squares are plain floor and the deck has only the 84 base cards"),
    Param("converge", str, "botwars", "Two robots carried by conveyors onto one square: botwars (the one already moving along the target belt goes on, the others stay) or none (all of them stay) (F-6.20)",
          choices=("botwars", "none")),
    Param("robot_lasers", bool, True, "Robots fire (F-6.27)"),
    Param("laser_damage", int, 1, "HP lost per hit of a robot's laser (F-6.27)", minimum=0, maximum=100),
    Param("buzzsaw_threshold", float, 0.75, "Chance that buzzsaws do NOT spin in a register: 0.75 means they spin one register in four (F-6.28)", minimum=0, maximum=1),
    Param("sacrifice_default", int, 6, "Default HP at or below which a robot gives up an option instead of losing 1 HP (standing order sacrifice_at, F-7.1)", minimum=0, maximum=10),
    Param("turn_limit", int, 50, "Last turn (F-8.4)", minimum=1, maximum=10_000),
    Param("turn_time_s", float, 432000.0, "Submission deadline per turn in seconds (F-5.5)", minimum=0.001, maximum=2_592_000),
)

STANDING_KEYS = ("sacrifice_at", "wrench2", "facing")


class FactoryReason(StrEnum):
    """Factory's own result reasons (F-8.7); ``resign`` (F-8.6) is the kernel's
    :attr:`~botwars.engine.codes.KernelReason.RESIGN`."""

    FLAGS = "flags"  # F-8.1
    ELIMINATION = "elimination"  # F-8.3
    TURN_LIMIT = "turn_limit"  # F-8.4


class FactoryOrders:
    """Validated orders of one seat: ``kind`` ``program`` or ``resign``; ``cards`` the priorities
    for free registers 1..k; ``reboot`` the declaration for the next turn; ``standing`` the
    changed standing orders (F-5.4, F-5.7, F-15.1)."""

    __slots__ = ("kind", "cards", "reboot", "standing")

    def __init__(self, kind: str = "program", cards: tuple[int, ...] = (), reboot: bool = False,
                 standing: dict[str, Any] | None = None):
        self.kind = kind
        self.cards = tuple(cards)
        self.reboot = reboot
        self.standing = dict(standing or {})

    def to_json(self) -> dict[str, Any]:
        if self.kind == "resign":
            return {"type": "resign"}
        out: dict[str, Any] = {"type": "program", "cards": list(self.cards), "reboot": self.reboot}
        if self.standing:
            out["standing"] = dict(self.standing)
        return out

    def __repr__(self) -> str:
        return f"FactoryOrders({self.to_json()})"


# ---- per-resolution context and logging --------------------------------------------------------
MERGE = ("move to ", "pushed to ", "conveyor to ")

FRAMES: ContextVar[Any] = ContextVar("factory_frames", default=None)
"""The frame collector of a stage-by-stage re-simulation (:mod:`botwars.games.factory.stages`),
``None`` (the default) in every ordinary resolution: then no frame is ever drawn."""


class Ctx:
    """Working data of one turn's resolution: the state being changed, turn ``t``, stage ``s``,
    the card being executed (``card``/``owner``), and the report log of the current stage.

    ``log`` is ``False`` for silent simulation (bots)."""

    def __init__(self, st: FactoryState, t: int, log: bool = True):
        self.st = st
        self.t = t
        self.s = 0
        self.card: int | None = None
        self.owner: int | None = None
        self.log = log
        self.new_stage()
        self.end_rows: dict[int, dict[str, list[str]]] = {}
        self.events: list[Event] = []
        self.lines: list[str] = []
        self.result_ev: Event | None = None
        coll = FRAMES.get() if log else None
        self.frames: list[dict[str, Any]] | None = coll.open(self) if coll is not None else None
        self._draw = coll.draw if coll is not None else None

    def snap(self, s: int, label: str) -> None:
        """Stage-by-stage pictures (issue 14): when a frame collector is active, draw the board
        after sub-step ``label`` of stage ``s`` (0: the start of the turn, 99: the end of turn)
        and keep it if it differs from the previous picture. A no-op in ordinary resolution."""
        if self.frames is None or self._draw is None:
            return
        svg = self._draw(self.st)
        if self.frames and self.frames[-1]["svg"] == svg:
            return
        self.frames.append({"stage": s, "label": label, "svg": svg})

    def new_stage(self) -> None:
        n = len(self.st.bots)
        self.moves: list[list[list[Any]]] = [[] for _ in range(n)]  # per bot: [prefix, [events]]
        self.mech: list[list[str]] = [[] for _ in range(n)]
        self.check: list[list[str]] = [[] for _ in range(n)]
        self.hits: list[list[str]] = [[] for _ in range(n)]
        self.combat: list[str] = ["-"] * n
        self.board_line: list[str] = []

    def ev(self, i: int, text: str) -> None:
        """Log event ``text`` for robot ``i`` in MOVES (during a card) or MECH (otherwise)."""
        if not self.log:
            return
        if self.card is not None:
            entries = self.moves[i]
            if not entries or entries[-1][0] != self.card:
                entries.append([self.card, []])
            evs = entries[-1][1]
        else:
            evs = self.mech[i]
        if evs and text.startswith(MERGE) and evs[-1].rsplit(" ", 1)[0] == text.rsplit(" ", 1)[0]:
            evs[-1] = text  # F-9.4, F-9.5: consecutive moves merge into the last
        else:
            evs.append(text)


class FactoryRuleset(Ruleset):
    """BotWars rules v3 (shared/rules/factory.md): 1-8 players, programmed cards, factory floor."""

    id = "factory"
    name = "Factory (BotWars rules v3): program cards on a factory floor"
    rules_version = 1
    params = PARAMS
    min_seats = 1
    max_seats = 8
    replaces_submissions = True  # F-5.5, F-15.1 (geeko G-16.1): a later valid program replaces an earlier one

    # ---- configuration --------------------------------------------------------------------
    def validate_config(self, overrides: dict[str, Any] | None, source: str = "--set",
                        allow_paths: bool = True) -> dict[str, Any]:
        """As the base class; ``variant=classic`` first sets the §11 classic column (F-12.1), then
        the other overrides apply on top."""
        ov = dict(overrides or {})
        cfg = super().validate_config(ov, source, allow_paths)
        if cfg["variant"] == "classic":
            for k, v in CLASSIC.items():
                if k not in ov:
                    cfg[k] = v
        return cfg

    def seat_names(self, n: int) -> list[str]:
        return [f"p{i + 1}" for i in range(n)]

    def private_summary(self, state: FactoryState, seat: str) -> dict[str, Any]:
        """For a turn notice, from ``seat``'s own view (F-15.3) only: its robot's ``hp``,
        ``robots_left`` (F-8.1) and ``hand_size`` (the program cards dealt, F-5.2)."""
        view = self.view(state, seat)
        me = next((p for p in view.get("players", []) if p.get("name") == seat or p.get("seat_name") == seat), None)
        if me is None and seat in state.seats:
            players = view.get("players", [])
            i = list(state.seats).index(seat)
            me = players[i] if i < len(players) else None
        out: dict[str, Any] = {}
        if me is not None:
            robot = me.get("robot")
            if isinstance(robot, dict) and "hp" in robot:
                out["hp"] = robot["hp"]
            if "robots_left" in me:
                out["robots_left"] = me["robots_left"]
        if isinstance(view.get("hand"), list):
            out["hand_size"] = len(view["hand"])
        return out

    def clock_settings(self, per_turn_s: float) -> dict[str, Any]:
        """F-5.5: the preset's seconds are the submission deadline per turn (``turn_time_s``)."""
        return {"turn_time_s": float(min(per_turn_s, 2_592_000))}

    def time_control(self, config: dict[str, Any]) -> TimeControl:
        """F-5.5: ``turn_time_s`` per turn, no time bank; on expiry the default program applies."""
        return TimeControl(config["turn_time_s"], 0.0, None, OnExpiry.DEFAULT)

    # ---- hooks a subclass overrides (geeko) ---------------------------------------------------
    def robots_per_player(self, config: dict[str, Any]) -> int:
        """Robots on the board per player at a time (F-1.1: one)."""
        return 1

    def hand_size(self, st: FactoryState, i: int) -> int:
        """F-5.3: min(9, HP − 1) + 1 per Extra Memory option."""
        b = st.bots[i]
        return max(0, min(9, b.hp - 1)) + (1 if b.has("XM") else 0)

    def free_registers(self, st: FactoryState, i: int) -> int:
        """F-5.3: registers 1..k are free, k = min(5, HP − 1)."""
        return max(0, min(5, st.bots[i].hp - 1))

    def order_robot(self, st: FactoryState, p: int) -> int:
        """The robot (index into ``st.bots``) that player ``p``'s order programs and whose hand and
        state the view shows: its only robot in ``factory``.  A rule set with several robots per
        player overrides this together with ``parse_orders``/``apply_program``/``view``."""
        return st.bots_of(p)[0]

    def robot_beam_dirs(self, st: FactoryState, i: int) -> list[int]:
        """F-6.27, F-6.33 RL: the directions robot ``i`` fires in at S8 (ahead, plus behind with
        Rear Laser)."""
        b = st.bots[i]
        return [b.facing] + ([opposite(b.facing)] if b.options and b.has("RL") else [])

    def bot_name(self, st: FactoryState, i: int) -> str:
        """How robot ``i`` is named in HITS (F-9.6): its player's name."""
        return st.players[st.bots[i].owner].name

    def column_name(self, st: FactoryState, i: int) -> str:
        """The NAME cell of robot ``i``'s report column (F-9.3): ``<player> (<colour>)``."""
        pl = st.players[st.bots[i].owner]
        return f"{pl.name} ({pl.colour})"

    def hp_cell(self, st: FactoryState, i: int) -> str:
        """The stage table's HP cell of robot ``i`` (F-9.3): its HP, ``-`` if not on the board."""
        b = st.bots[i]
        return str(b.hp) if b.alive else "-"

    def report_seat(self, st: FactoryState) -> str | None:
        """The seat whose private report a resolution of ``st`` writes; ``None``: the reports
        are public (F-9; geeko: each player's own, G-10.1)."""
        return None

    def stage_header(self, c: "Ctx", s: int) -> str:
        """The stage report's header line (F-9.1)."""
        return f"=== TURN {c.t} STAGE {s} ==="

    def deck_cards(self, st: FactoryState) -> list[int]:
        """The full deck in ascending priority (F-2.6; 84 base cards with ``upgrades`` off)."""
        return list(ALL_CARDS if st.config["upgrades"] else BASE_CARDS)

    # ---- setup (§4) ------------------------------------------------------------------------------
    def make_board(self, config: dict[str, Any]) -> Board:
        return load_board(config["board"], edge=config["edge"])

    def setup(self, config: dict[str, Any], seats: list[str], seed: Any, board: Board | None = None,
              names: list[str] | None = None) -> FactoryState:
        """F-4.2 to F-4.5, then the start of turn 1 (F-5.1).  ``seed`` is used as its string form."""
        if not self.min_seats <= len(seats) <= self.max_seats:
            raise ConfigError(f"factory needs 1 to 8 seats, got {len(seats)}")
        board = board or self.make_board(config)
        st = self.empty_state(config, seats, str(seed), board, names)
        for p in range(len(seats)):
            for slot in range(self.robots_per_player(config)):
                st.bots.append(Bot(p, slot, board.start, board.start_facing, config["max_hp"], "virtual", 0))
        st.started = len(seats)
        events: list[Event] = []
        self.start_of_turn(st, 1, events)
        return st

    def empty_state(self, config: dict[str, Any], seats: list[str], seed: str, board: Board,
                    names: list[str] | None = None) -> FactoryState:
        """A state with players but no robots and devices as F-4.3 says."""
        names = names or list(seats)
        standing = {"sacrifice_at": config["sacrifice_default"], "wrench2": "auto", "facing": DIRS[board.start_facing]}
        players = [Player(s, names[k], COLOURS[k % 8], board.start, dict(standing)) for k, s in enumerate(seats)]
        for p in players:
            p.robots_left = config["robots"]
        sw, td, br, tp = {}, {}, {}, {}
        for sq, k in sorted(board.kind.items()):
            if board.switch_of(sq) is not None:  # SG, SR, or a crusher over a switch (F-6.24a): off
                sw[sq] = False
            if k[0] == "TD":
                td[sq] = k[2]
            elif k[0] == "DB":
                br[sq] = False
            elif k[0] == "TP":
                tp[k[1]] = k[3]
        opts = [c for c in OPTION_CODES for _ in range(2)]
        random.Random(f"{seed}/options").shuffle(opts)
        return FactoryState(tuple(seats), config, board, seed, 0, [], players, sw, td, br, dict(sorted(tp.items())),
                            {k: False for k in sorted(board.eyes)},
                            {k: v[1] for k, v in sorted(board.blasers.items())}, opts)

    # ---- start of turn and deal (F-5.1, F-5.2, F-7.6, F-7.7) --------------------------------------
    def start_of_turn(self, st: FactoryState, t: int, events: list[Event]) -> None:
        """F-5.1 (a)-(d) for turn ``t`` and the hand messages (F-9.12)."""
        cfg = st.config
        # (a) reboots begin
        for b in st.bots:
            if b.alive and b.rebooting:
                b.hp = cfg["max_hp"]
                b.regs = [None] * 5
            elif b.alive:
                for r in range(1, 6):
                    if not b.fused(r):
                        b.regs[r - 1] = None
        # (b) shuffle, remove fused cards
        deck = self.deck_cards(st)
        random.Random(f"{st.seed}/deck/{t}").shuffle(deck)
        held = {c for b in st.bots if b.alive for c in b.regs if c is not None}
        deck = [c for c in deck if c not in held]
        # (c) empty fused registers
        for i, b in enumerate(st.bots):
            if not b.alive or b.rebooting:
                continue
            sets = st.players[b.owner].sets
            for r in range(1, 6):
                if b.fused(r) and b.regs[r - 1] is None:
                    for k, c in enumerate(deck):
                        if usable(c, sets):
                            b.regs[r - 1] = deck.pop(k)
                            break
        # (d) deal
        st.hands = {}
        for i, b in enumerate(st.bots):
            pl = st.players[b.owner]
            if pl.out or not b.alive or b.rebooting:
                continue
            n = self.hand_size(st, i)
            hand: list[int] = []
            aside: list[int] = []
            k = 0
            while len(hand) < n and k < len(deck):
                c = deck[k]
                k += 1
                (hand if usable(c, pl.sets) else aside).append(c)
            deck[0:k] = aside  # H4: set-aside cards go back on top in drawn order
            st.hands[i] = hand
        st.hand_msgs = {}
        for p, pl in enumerate(st.players):
            if pl.out:
                continue
            msg: list[str] = []
            for i in st.bots_of(p):
                b = st.bots[i]
                if not b.alive:
                    continue
                k = 0 if b.rebooting else self.free_registers(st, i)
                msg += [f"=== TURN {t} HAND {pl.name} ===", f"HP {b.hp}, {pl.robots_left} robots, {k} free registers",
                        "fused: " + (self.fused_cell(b) or "-"),
                        "cards: " + (", ".join(card_str(c) for c in st.hands.get(i, [])) or "-")]
            st.hand_msgs[pl.seat] = msg
            events.append(Event("hand", {"turn": t, "seat": pl.seat, "lines": msg}, frozenset([pl.seat])))

    @staticmethod
    def fused_cell(b: Bot) -> str:
        """F-9.9 cell: ``R<i> <card>`` for fused registers, ascending, joined by ``, ``."""
        return ", ".join(f"R{r} {card_str(b.regs[r - 1])}" for r in range(1, len(b.regs) + 1)
                         if b.fused(r) and b.regs[r - 1] is not None)

    # ---- orders (F-5.4, F-15.1) ------------------------------------------------------------------
    def pending(self, st: FactoryState) -> list[str]:
        if st.over:
            return []
        return [pl.seat for pl in st.players if not pl.out]

    def parse_orders(self, st: FactoryState, seat: str, payload: Any) -> FactoryOrders:
        """F-15.1 payload → :class:`FactoryOrders`.

        Raises :class:`InvalidOrders` naming the offending key, card or register: unknown keys or
        types, a card not in the hand, a card used twice, an unknown card name, the wrong number
        of cards (naming the fused registers), a missing ``reboot``, a bad standing order.
        """
        if seat not in st.seats:
            raise InvalidOrders(f"unknown seat {seat!r}", code=RefusalCode.MALFORMED, part=seat)
        p = st.player_of(seat)
        if st.players[p].out:
            raise InvalidOrders("you are out of the game", code=RefusalCode.ILLEGAL, part=seat)
        if self.order_type(payload, {"type", "cards", "reboot", "standing"}) == "resign":
            return FactoryOrders("resign")
        if "reboot" not in payload or not isinstance(payload["reboot"], bool):
            raise InvalidOrders("'reboot' (true or false) is required", code=RefusalCode.MALFORMED, part="reboot")
        standing = self.parse_standing(payload.get("standing"))
        cards = payload.get("cards")
        if not isinstance(cards, list):
            raise InvalidOrders("'cards' must be a list", code=RefusalCode.MALFORMED, part="cards")
        i = self.order_robot(st, p)
        chosen = self.assign_cards(st, i, cards)
        return FactoryOrders("program", tuple(chosen), payload["reboot"], standing)

    @staticmethod
    def order_type(payload: Any, program_keys: set[str], keys_hint: str = "") -> str:
        """The F-15.1 order envelope (shared with geeko's G-16.1): ``"program"`` or ``"resign"``.

        Raises :class:`InvalidOrders` (``malformed``) for a non-object, an unknown ``type``, or a
        key outside ``program_keys`` (``{"type"}`` for a resignation); ``keys_hint`` is appended
        to the unknown-key message.
        """
        if not isinstance(payload, dict):
            raise InvalidOrders("orders must be a JSON object {\"type\": \"program\", ...}", code=RefusalCode.MALFORMED)
        typ = payload.get("type")
        if typ == "resign":
            extra = sorted(set(payload) - {"type"})
            if extra:
                raise InvalidOrders(f"unknown key {extra[0]!r} in a resign order", code=RefusalCode.MALFORMED,
                                    part=extra[0])
            return "resign"
        if typ != "program":
            raise InvalidOrders(f"type must be 'program' or 'resign', got {typ!r}", code=RefusalCode.MALFORMED,
                                part="type")
        extra = sorted(set(payload) - program_keys)
        if extra:
            raise InvalidOrders(f"unknown key {extra[0]!r}{keys_hint}", code=RefusalCode.MALFORMED, part=extra[0])
        return "program"

    def parse_standing(self, raw: Any) -> dict[str, Any]:
        """F-5.7 standing orders (any subset); raises :class:`InvalidOrders` naming the key."""
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise InvalidOrders("'standing' must be an object", code=RefusalCode.MALFORMED, part="standing")
        out: dict[str, Any] = {}
        for k, v in raw.items():
            if k == "sacrifice_at":
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 10:
                    raise InvalidOrders(f"standing sacrifice_at must be 0 to 10, got {v!r}", part="sacrifice_at")
            elif k == "wrench2":
                if v not in ("auto", "repair", "option"):
                    raise InvalidOrders(f"standing wrench2 must be auto, repair or option, got {v!r}", part="wrench2")
            elif k == "facing":
                if v not in ("N", "E", "S", "W"):
                    raise InvalidOrders(f"standing facing must be N, E, S or W, got {v!r}", part="facing")
            else:
                raise InvalidOrders(f"unknown standing order {k!r}", code=RefusalCode.MALFORMED, part=k)
            out[k] = v
        return out

    def assign_cards(self, st: FactoryState, i: int, cards: list[Any]) -> list[int]:
        """F-5.4: cards by priority first, then type names in register order (first remaining hand
        card of that type in hand order).  Returns priorities for registers 1..k."""
        b = st.bots[i]
        k = 0 if b.rebooting or not b.alive else self.free_registers(st, i)
        if len(cards) != k:
            if b.rebooting:
                raise InvalidOrders(f"your robot is rebooting: send no cards, got {len(cards)}", part="cards")
            fused = [r for r in range(k + 1, 6)]
            fz = f" (registers {', '.join(map(str, fused))} are fused and cannot be changed)" if fused else ""
            raise InvalidOrders(f"expected {k} cards for free registers 1..{k}{fz}, got {len(cards)}", part="cards")
        hand = st.hands.get(i, [])
        out: list[int | None] = [None] * k
        used: set[int] = set()
        for r, c in enumerate(cards):
            if isinstance(c, bool) or not isinstance(c, (int, str)):
                raise InvalidOrders(f"register {r + 1}: a card is a priority or a type name, got {c!r}",
                                    code=RefusalCode.MALFORMED, part=c)
            if isinstance(c, str) and c.strip() in TYPES:
                continue
            try:
                pr = parse_card(str(c))
            except ValueError as exc:
                raise InvalidOrders(f"register {r + 1}: unknown card {c!r}: {exc}", part=c) from None
            if pr not in hand:
                name = card_str(pr) if pr in CARD_TYPE else str(pr)
                raise InvalidOrders(f"register {r + 1}: card {name} is not in your hand", part=c)
            if pr in used:
                raise InvalidOrders(f"register {r + 1}: card {card_str(pr)} is used twice", part=c)
            used.add(pr)
            out[r] = pr
        for r, c in enumerate(cards):
            if isinstance(c, str) and c.strip() in TYPES:
                t = c.strip()
                pick = next((h for h in hand if CARD_TYPE[h] == t and h not in used), None)
                if pick is None:
                    raise InvalidOrders(f"register {r + 1}: no {t} card left in your hand", part=c)
                used.add(pick)
                out[r] = pick
        return [c for c in out if c is not None]

    def default_orders(self, st: FactoryState, seat: str) -> FactoryOrders:
        """F-5.5: the first k hand cards in hand order, no reboot, standing orders unchanged."""
        p = st.player_of(seat)
        if st.players[p].out:
            return FactoryOrders("program")
        i = self.order_robot(st, p)
        b = st.bots[i]
        k = 0 if b.rebooting or not b.alive else self.free_registers(st, i)
        return FactoryOrders("program", tuple(st.hands.get(i, [])[:k]), False, {})

    def orders_json(self, orders: FactoryOrders) -> Any:
        return orders.to_json()

    def twin_state(self, st: FactoryState, seat: str | None, rng: random.Random) -> FactoryState:
        """The state with what ``seat`` may not know redrawn (F-14.2, F-15.3): the other
        players' hands (other cards of the deck, same sizes), their hand messages and standing
        orders, the option deck's order and the deck seed (future deals)."""
        t = st.copy()
        you = st.player_of(seat) if seat in st.seats else None
        mine = set(st.hands.get(self.order_robot(st, you), [])) if you is not None else set()
        held = {c for b in st.bots for c in b.regs if c is not None}
        pool = [c for c in self.deck_cards(st) if c not in mine and c not in held]
        rng.shuffle(pool)
        for i in sorted(st.hands):
            if st.bots[i].owner != you:
                t.hands[i], pool = pool[:len(st.hands[i])], pool[len(st.hands[i]):]
        for p, pl in enumerate(t.players):
            if p != you:
                pl.standing = {**pl.standing, "sacrifice_at": rng.randint(0, 10)}
                if pl.seat in t.hand_msgs:
                    t.hand_msgs[pl.seat] = [f"twin {rng.random()}"]
        rng.shuffle(t.option_deck)
        t.seed = f"{st.seed}/twin{rng.random()}"
        return t

    # ---- resolution ---------------------------------------------------------------------------
    def resolve(self, state: FactoryState, orders: dict[str, Any]) -> tuple[FactoryState, list[Event]]:
        """One turn: resignations (F-8.6), programs, five stages (F-5.8), end of turn (F-5.11),
        then the deal of the next turn.  Never mutates ``state``."""
        st = state.copy()
        t = st.turn + 1
        c = Ctx(st, t)
        c.lines = []
        # F-8.6 resignations
        for p, pl in enumerate(st.players):
            o = orders.get(pl.seat)
            if o is not None and o.kind == "resign" and not pl.out:
                self.resign(c, p)
        if self.after_resign(c):
            return self.finish(c)
        for p, pl in enumerate(st.players):
            o = orders.get(pl.seat)
            if pl.out:
                continue
            if o is None or o.kind != "program":
                o = self.default_orders(state, pl.seat)
            self.apply_program(st, p, o)
        self.play_turn(c)
        return self.finish(c)

    def finish(self, c: Ctx) -> tuple[FactoryState, list[Event]]:
        st = c.st
        st.turn = c.t
        st.reports = c.lines
        if not st.over:
            self.start_of_turn(st, c.t + 1, c.events)
        else:
            st.hands = {}
            st.hand_msgs = {}
        return st, c.events

    def apply_program(self, st: FactoryState, p: int, o: FactoryOrders) -> None:
        """Store a program in the free registers, the reboot declaration and standing orders (F-5.7)."""
        pl = st.players[p]
        pl.standing.update(o.standing)
        i = self.order_robot(st, p)
        b = st.bots[i]
        if b.alive and not b.rebooting:
            for r, card in enumerate(o.cards):
                b.regs[r] = card
        b.declared = bool(o.reboot) and b.alive

    def play_turn(self, c: Ctx) -> None:
        """The five stages, then the end of turn (F-5.8 to F-5.11)."""
        for s in range(1, 6):
            self.stage(c, s)
            if c.st.over:
                return
        self.end_of_turn(c)
        c.snap(99, "end of turn")

    # ---- a stage (F-5.8) -----------------------------------------------------------------------
    def stage(self, c: Ctx, s: int) -> None:
        """Sub-steps S1..S10 of stage ``s``."""
        st = c.st
        c.s = s
        c.new_stage()
        modes = [self.mode_text(st, i) for i in range(len(st.bots))]
        if s == 1:
            c.snap(0, "start")
        revealed = self.sub_reveal(c, s)
        self.sub_moves(c, revealed)
        c.snap(s, "cards")
        self.sub_conveyors(c)
        c.snap(s, "conveyors")
        self.sub_pushers(c, s)
        c.snap(s, "pushers")
        self.sub_gears(c)
        c.snap(s, "gears")
        self.sub_crushers(c, s)
        c.snap(s, "crushers")
        self.sub_lasers(c)
        c.snap(s, "lasers")
        self.sub_buzzsaws(c, s)
        c.snap(s, "buzzsaws")
        self.stage_end(c, s, modes, revealed)
        c.snap(s, "stage end")

    def mode_text(self, st: FactoryState, i: int) -> str:
        b = st.bots[i]
        if st.players[b.owner].out:
            return "out"
        if not b.alive:
            return "destroyed"
        return b.mode + (", reboot" if b.rebooting else "")

    def sub_reveal(self, c: Ctx, s: int) -> dict[int, int]:
        """S1: register ``s`` of every robot on the board that is not rebooting."""
        out = {}
        for i, b in enumerate(c.st.bots):
            if b.alive and not b.rebooting and b.regs[s - 1] is not None:
                out[i] = b.regs[s - 1]
        return out

    def sub_moves(self, c: Ctx, revealed: dict[int, int]) -> None:
        """S2 (F-5.9): cards in descending priority, each completely; destroyed robots skip."""
        for i, card in sorted(revealed.items(), key=lambda kv: -kv[1]):
            if not c.st.bots[i].alive:
                continue
            c.card, c.owner = card, i
            self.execute_card(c, i, card)
            c.card = c.owner = None

    def execute_card(self, c: Ctx, i: int, card: int) -> None:
        """F-6.1 to F-6.3: rotate, idle or step n times (stopping at an obstruction or death)."""
        b = c.st.bots[i]
        typ = CARD_TYPE[card]
        if typ in TURN:
            b.facing = (b.facing + TURN[typ]) % 4
            c.ev(i, f"face {DIRS[b.facing]}")
            return
        if typ == "IDLE":
            c.ev(i, "idle")
            return
        rel, n = MOVE[typ]
        d = (b.facing + rel) % 4
        for _ in range(n):
            if self.step(c, i, d, "move") != "ok":
                return

    # ---- movement primitives (F-6.2, F-6.5, F-6.6) ---------------------------------------------
    def real_at(self, st: FactoryState, sq: Square, skip: int = -1) -> int | None:
        """Index of the real robot on ``sq`` (robots on the board), or ``None``."""
        for j, o in enumerate(st.bots):
            if j != skip and o.alive and o.sq == sq and o.mode == "real":
                return j
        return None

    def bridge_blocks(self, st: FactoryState, sq: Square, d: int) -> bool:
        """A raised drawbridge on ``sq`` entered moving ``d`` through its bridge side (F-6.17)."""
        k = st.board.kind[sq]
        return k[0] == "DB" and not st.bridges[sq] and k[1] == opposite(d)

    def step(self, c: Ctx, i: int, d: int, verb: str) -> str:
        """F-6.2: one step of robot ``i`` in direction ``d``.  ``verb`` is the report word
        (``move``, ``pusher``).  Returns ``ok``, ``blocked`` or ``dead``."""
        st = c.st
        b = st.bots[i]
        a = b.sq
        e = st.board.edges[(a[0], a[1], d)]
        dr, dc = DELTA[d]
        nb = (a[0] + dr, a[1] + dc)
        if e == "wall" or (e == "open" and self.bridge_blocks(st, nb, d)):
            if verb == "move":
                c.ev(i, "obstruction encountered")
            return "blocked"
        if e == "fence":
            self.fence_contact(c, i)
            if b.alive and verb == "move":
                c.ev(i, "obstruction encountered")
            return "blocked" if b.alive else "dead"
        if e == "void":
            c.ev(i, "fell off board")
            self.destroy(c, i)
            return "dead"
        if b.mode == "real":
            j = self.real_at(st, nb, i)
            if j is not None and not self.push(c, i, d, j):
                if b.alive and verb == "move":
                    c.ev(i, "obstruction encountered")
                return "blocked" if b.alive else "dead"
        b.sq = nb
        c.ev(i, f"{verb} to {sq_str(nb)}")
        self.arrive(c, i)
        return "ok" if b.alive else "dead"

    def push(self, c: Ctx, mover: int, d: int, first: int) -> bool:
        """F-6.5: push the chain starting with real robot ``first``; True if the mover may enter."""
        st = c.st
        chain = [first]
        while True:
            sq = st.bots[chain[-1]].sq
            if st.board.edges[(sq[0], sq[1], d)] != "open":
                break
            dr, dc = DELTA[d]
            j = self.real_at(st, (sq[0] + dr, sq[1] + dc))
            if j is None or j == mover or j in chain:
                break
            chain.append(j)
        k = chain[-1]
        ksq = st.bots[k].sq
        e = st.board.edges[(ksq[0], ksq[1], d)]
        dr, dc = DELTA[d]
        z = (ksq[0] + dr, ksq[1] + dc)
        if any(st.bots[j].has("HC") for j in chain) or e == "wall" or (e == "open" and self.bridge_blocks(st, z, d)):
            return False
        if e == "fence":
            self.fence_contact(c, k)
            return False
        if e == "void":
            c.ev(k, "fell off board")
            self.destroy(c, k)
            chain.pop()
        for j in reversed(chain):
            o = st.bots[j]
            if not o.alive:
                continue
            o.sq = (o.sq[0] + dr, o.sq[1] + dc)
            c.ev(j, f"pushed to {sq_str(o.sq)}")
            self.arrive(c, j)
        return True

    def arrive(self, c: Ctx, i: int) -> None:
        """F-6.6 arrival effects: fall (pit, open trap door, raised drawbridge), switch (also the
        switch under a crusher, F-6.24a), teleport."""
        st = c.st
        b = st.bots[i]
        sq = b.sq
        k = st.board.kind[sq]
        kk = k[0]
        if kk == "CR" and k[2] is not None:
            kk, k = k[2][0], k[2]
        if kk == "." or kk in ("CY", "CB", "G", "F", "W", "UP", "AR", "BZ", "CR"):
            return
        if kk == "PT" or (kk == "TD" and st.trapdoors[sq]) or (kk == "DB" and not st.bridges[sq]):
            c.ev(i, "fell into pit")
            self.destroy(c, i)
            return
        if kk in ("SG", "SR"):
            if self.press_switch(c, sq, kk, k[1]):
                c.ev(i, f"switch {sq_str(sq)} {'on' if st.switches[sq] else 'off'}")
            return
        if kk == "TP" and st.teleporters[k[1]]:
            dest = self.teleport_target(st, k[1])
            if dest is not None:
                b.sq = dest
                c.ev(i, f"teleport to {sq_str(dest)}")

    def press_switch(self, c: Ctx, sq: Square, kind: str, ch: int) -> bool:
        """A floor switch on ``sq`` is pressed (a robot enters it, or a crusher comes down on it,
        F-6.24a): an ``SG`` that is off turns on (F-6.11), an ``SR`` toggles (F-6.12), and a flip
        toggles channel ``ch`` (F-6.14).  Returns whether the switch flipped."""
        st = c.st
        if kind == "SG" and st.switches[sq]:
            return False
        st.switches[sq] = not st.switches[sq]
        self.flip_channel(c, ch)
        return True

    def teleport_target(self, st: FactoryState, colour: str) -> Square | None:
        """F-6.18: the next active, empty teleporter in cyclic alphabetical order after ``colour``."""
        tps = st.board.teleporters()
        order = sorted(tps)
        k = order.index(colour)
        occupied = {o.sq for o in st.bots if o.alive}
        for n in range(1, len(order)):
            col = order[(k + n) % len(order)]
            if st.teleporters[col] and tps[col] not in occupied:
                return tps[col]
        return None

    def flip_channel(self, c: Ctx, ch: int) -> None:
        """F-6.14: toggle every device of channel ``ch``; a trap door that opens drops its robots."""
        st = c.st
        for kind, key in st.board.channel_devices().get(ch, []):
            if kind == "TD":
                st.trapdoors[key] = not st.trapdoors[key]
                if st.trapdoors[key]:
                    for j, o in enumerate(st.bots):
                        if o.alive and o.sq == key:
                            c.ev(j, "fell into pit")
                            self.destroy(c, j)
            elif kind == "DB":
                st.bridges[key] = True
            elif kind == "TP":
                st.teleporters[key] = not st.teleporters[key]
            elif kind == "BL":
                st.blasers[key] = not st.blasers[key]

    # ---- damage and destruction (F-7.1 to F-7.4) -------------------------------------------------
    def fence_contact(self, c: Ctx, i: int) -> None:
        """F-6.4: ``fence_damage`` points (none with Fence Insulation)."""
        b = c.st.bots[i]
        pts = 0 if b.has("FI") else c.st.config["fence_damage"]
        self.damage(c, i, pts, "fence")

    def damage(self, c: Ctx, i: int, points: int, label: str) -> None:
        """F-7.1: ``points`` damage points, each alone (armour, sacrifice, HP); logs
        ``<label> -N HP`` and its consequences (F-9.4 order)."""
        st = c.st
        b = st.bots[i]
        if not b.alive:
            return
        hp0 = b.hp
        armour = None
        lost: list[str] = []
        fused: list[int] = []
        dead = False
        sac = st.players[b.owner].standing["sacrifice_at"]
        for _ in range(points):
            aa = next((o for o in b.options if o["code"] == "AA" and o["charges"] > 0), None)
            if aa is not None:
                aa["charges"] -= 1
                armour = aa["charges"]
                if aa["charges"] == 0:
                    b.options.remove(aa)
                    lost.append("AA")
                    if not aa["armoury"]:
                        st.option_deck.append("AA")
            elif b.options and b.hp <= sac:
                o = b.options.pop()
                lost.append(o["code"])
                if not o["armoury"]:
                    st.option_deck.append(o["code"])
            else:
                b.hp -= 1
                if 1 <= b.hp <= len(b.regs):
                    fused.append(b.hp)
                if b.hp <= 0:
                    dead = True
                    break
        parts = [f"{label} -{hp0 - b.hp} HP"]
        if armour is not None:
            parts.append(f"armour {armour} left")
        parts += [f"option {x} lost" for x in lost]
        parts += [f"fused register {r}" for r in fused]
        for p in parts:
            c.ev(i, p)
        if dead:
            self.destroy(c, i)

    def destroy(self, c: Ctx, i: int) -> None:
        """F-7.2, F-7.3: the robot leaves the board; options to the deck bottom; registers cleared."""
        st = c.st
        b = st.bots[i]
        if not b.alive:
            return
        c.ev(i, "destroyed")
        b.alive = False
        b.died = True
        b.sq = None
        b.hp = 0
        pl = st.players[b.owner]
        pl.robots_left -= 1
        for o in b.options:
            if not o["armoury"]:
                st.option_deck.append(o["code"])
        b.options = []
        b.regs = [None] * len(b.regs)
        b.declared = False
        b.rebooting = False

    # ---- conveyors (F-6.19 to F-6.21) --------------------------------------------------------------
    def sub_conveyors(self, c: Ctx) -> None:
        """S3 express conveyors, then S4 all conveyors."""
        st = c.st
        kind = st.board.kind
        s3 = [i for i, b in enumerate(st.bots) if b.alive and kind[b.sq][0] == "CB"]
        moved = self.conveyor_step(c, s3)
        stuck = set(s3) - moved
        s4 = [i for i, b in enumerate(st.bots) if b.alive and kind[b.sq][0] in ("CY", "CB") and i not in stuck]
        self.conveyor_step(c, s4)

    def conveyor_step(self, c: Ctx, movers: list[int]) -> set[int]:
        """F-6.20 (1)-(5) for ``movers`` (board order); returns the robots that moved."""
        if not movers:
            return set()
        st = c.st
        board = st.board
        bots = st.bots
        dirs: dict[int, int] = {}
        target: dict[int, Square] = {}
        remaining: list[int] = []
        for i in movers:  # (1)
            b = bots[i]
            d = board.kind[b.sq][1]
            e = board.edges[(b.sq[0], b.sq[1], d)]
            dr, dc = DELTA[d]
            tg = (b.sq[0] + dr, b.sq[1] + dc)
            if e == "wall" or (e == "open" and self.bridge_blocks(st, tg, d)):
                continue
            if e == "fence":
                self.fence_contact(c, i)
                continue
            if e == "void":
                c.ev(i, "fell off board")
                self.destroy(c, i)
                continue
            dirs[i] = d
            target[i] = tg
            remaining.append(i)
        real = [i for i in remaining if bots[i].mode == "real"]
        stay: set[int] = set()
        by_target: dict[Square, list[int]] = {}
        for i in real:  # (2)
            by_target.setdefault(target[i], []).append(i)
        for tg, group in by_target.items():
            if len(group) > 1:
                k = board.kind[tg]
                if st.config["converge"] == "botwars" and k[0] in ("CY", "CB"):
                    stay.update(i for i in group if dirs[i] != k[1])
                else:
                    stay.update(group)
        while True:
            changed = True
            while changed:  # (3)
                changed = False
                live = [i for i in real if i not in stay]
                for i in live:
                    j = self.real_at(st, target[i])
                    if j is not None and j not in live:
                        stay.add(i)
                        changed = True
            swapped = False  # (4)
            live = [i for i in real if i not in stay]
            for i in live:
                for j in live:
                    if i < j and target[i] == bots[j].sq and target[j] == bots[i].sq:
                        stay.update((i, j))
                        swapped = True
            if not swapped:
                break
        go = [i for i in remaining if i not in stay]
        for i in go:  # (5)
            bots[i].sq = target[i]
        for i in go:
            b = bots[i]
            if not b.alive:
                continue
            c.ev(i, f"conveyor to {sq_str(b.sq)}")
            k = board.kind[b.sq]
            if k[0] in ("CY", "CB") and not b.has("GS"):
                d1, d2 = dirs[i], k[1]
                if d2 == (d1 + 1) % 4 or d2 == (d1 + 3) % 4:
                    b.facing = (b.facing + (1 if d2 == (d1 + 1) % 4 else 3)) % 4
                    c.ev(i, f"face {DIRS[b.facing]}")
            self.arrive(c, i)
        return set(go)

    # ---- pushers, gears, crushers (F-6.22 to F-6.24) ---------------------------------------------
    def sub_pushers(self, c: Ctx, s: int) -> None:
        """S5: pushers active in stage ``s`` push robots on their square one step (F-6.22, H10)."""
        st = c.st
        pushers = st.board.pushers
        if not pushers:
            return
        todo: list[tuple[int, int]] = []
        for i, b in enumerate(st.bots):
            if b.alive and b.sq in pushers and s in pushers[b.sq][1]:
                todo.append((i, opposite(pushers[b.sq][0])))
        if not todo:
            return
        tgt: dict[int, Square] = {}
        for i, d in todo:
            sq = st.bots[i].sq
            tgt[i] = (sq[0] + DELTA[d][0], sq[1] + DELTA[d][1])
        stay = set()
        for i, _ in todo:
            b = st.bots[i]
            if b.has("HC"):
                stay.add(i)
            if b.mode == "real" and any(j != i and st.bots[j].mode == "real" and tgt[j] == tgt[i] for j, _ in todo):
                stay.add(i)
        start = {i: st.bots[i].sq for i in range(len(st.bots))}
        for i, d in todo:
            b = st.bots[i]
            if i in stay or not b.alive or b.sq != start[i]:
                continue
            self.step(c, i, d, "pusher")

    def sub_gears(self, c: Ctx) -> None:
        """S6: gears turn robots (Gyro Stabiliser exempt)."""
        st = c.st
        for i, b in enumerate(st.bots):
            if b.alive:
                k = st.board.kind[b.sq]
                if k[0] == "G" and not b.has("GS"):
                    b.facing = (b.facing + {"L": 3, "R": 1, "U": 2}[k[1]]) % 4
                    c.ev(i, f"gear face {DIRS[b.facing]}")

    def sub_crushers(self, c: Ctx, s: int) -> None:
        """S7: crushers active in ``s`` destroy every robot on them (F-6.24); then each crusher
        over a switch active in ``s`` presses its switch, robot or not (F-6.24a), in ascending
        (row, column) order, reported on the stage's ``BOARD`` line (F-9.1)."""
        st = c.st
        for i, b in enumerate(st.bots):
            if b.alive:
                k = st.board.kind[b.sq]
                if k[0] == "CR" and s in k[1]:
                    c.ev(i, "crushed")
                    self.destroy(c, i)
        for sq, kind, ch in st.board.switch_squares():
            k = st.board.kind[sq]
            if k[0] == "CR" and s in k[1] and self.press_switch(c, sq, kind, ch) and c.log:
                c.board_line.append(f"switch {sq_str(sq)} {'on' if st.switches[sq] else 'off'}")

    # ---- lasers (F-6.25 to F-6.27, F-6.13) -----------------------------------------------------
    def static_path(self, st: FactoryState, origin: Square, d: int, include_origin: bool, lowered: tuple = ()
                    ) -> tuple[tuple[Square, ...], tuple[int, int, int] | None]:
        """The path of a beam as if no robots existed, and the eye it reaches (cached per board and
        set of ``lowered`` drawbridges: nothing else changes a robot-free path)."""
        key = (origin, d, include_origin, lowered)
        cache = st.board._cache.setdefault("paths", {})
        hit = cache.get(key)
        if hit is not None:
            return hit
        board = st.board
        path: list[Square] = [origin] if include_origin else []
        sq = origin
        dr, dc = DELTA[d]
        eye = None
        while True:
            e = board.edges[(sq[0], sq[1], d)]
            if e != "open":
                k3 = (sq[0], sq[1], d)
                eye = k3 if k3 in board.eyes else None
                break
            nb = (sq[0] + dr, sq[1] + dc)
            k = board.kind[nb]
            if k[0] == "DB" and not st.bridges[nb]:
                break
            sq = nb
            path.append(sq)
        cache[key] = (tuple(path), eye)
        return cache[key]

    def trace(self, st: FactoryState, origin: Square, d: int, include_origin: bool, robots: dict[Square, int] | None,
              lowered: tuple = ()) -> tuple[tuple[Square, ...], int | None, tuple[int, int, int] | None]:
        """Trace a beam (F-6.25); ``robots`` maps squares to the real robot on them (``None``: trace
        as if no robots existed); ``lowered``: the lowered drawbridges.  Returns (path, robot hit
        or None, eye key reached or None)."""
        path, eye = self.static_path(st, origin, d, include_origin, lowered)
        if robots:
            for n, sq in enumerate(path):
                j = robots.get(sq)
                if j is not None:
                    return path[:n + 1], j, None
        return path, None, eye

    def sub_lasers(self, c: Ctx) -> None:
        """S8: trace every beam, then damage robot by robot (board points first), then eyes."""
        st = c.st
        board = st.board
        n = len(st.bots)
        board_pts = [0] * n
        robot_pts = [0] * n
        board_eyes: set[tuple[int, int, int]] = set()
        robot_eyes: dict[int, list[tuple[int, int, int]]] = {}
        hits: list[list[Any]] = [[] for _ in range(n)]
        sources: list[tuple[Square, int, int]] = [(sq, opposite(side), pts) for sq, side, pts in board.turrets]
        sources += [((k[0], k[1]), opposite(k[2]), 1) for k, on in st.blasers.items() if on]
        occ: dict[Square, int] = {}
        virtual = False
        for i, b in enumerate(st.bots):
            if b.alive:
                if b.mode == "real":
                    occ[b.sq] = i
                else:
                    virtual = True
        lowered = tuple(k for k, v in st.bridges.items() if v) if st.bridges else ()
        static_path = self.static_path
        for sq, d, pts in sources:
            path, eye = static_path(st, sq, d, True, lowered)
            for p in path:  # F-6.25: the first real robot entered is hit and stops the beam
                j = occ.get(p)
                if j is not None:
                    board_pts[j] += pts
                    break
            else:
                if eye is not None:
                    board_eyes.add(eye)
            if virtual:  # board beams also hit virtual robots on their robot-free path
                for v, b in enumerate(st.bots):
                    if b.alive and b.mode == "virtual" and b.sq in path:
                        board_pts[v] += pts
        if st.config["robot_lasers"]:
            for i, b in enumerate(st.bots):
                if not b.alive or b.mode != "real" or b.rebooting:
                    continue
                opts = b.options
                dirs = self.robot_beam_dirs(st, i)
                if not dirs:  # geeko: a robot without a laser does not fire (COMBAT stays '-')
                    continue
                per = st.config["laser_damage"] * (2 if opts and b.has("DL") else 1)
                texts = []
                for d in dirs:
                    path, j, eye = self.trace(st, b.sq, d, False, occ, lowered)
                    texts.append(path_str(path))
                    if j is not None:
                        robot_pts[j] += per
                        hits[i].append(("bot", j))
                    if eye is not None:
                        hits[i].append(("eye", eye))
                        robot_eyes.setdefault(i, []).append(eye)
                c.combat[i] = " + ".join(texts)
        for i in range(n):
            b = st.bots[i]
            if not b.alive:
                continue
            if board_pts[i]:
                self.damage(c, i, 0 if b.has("MP") else board_pts[i], "laser")
            if robot_pts[i] and b.alive:
                self.damage(c, i, robot_pts[i], "shot")
        flips = sorted(board_eyes | {e for v in robot_eyes.values() for e in v})
        for key in flips:
            st.eyes[key] = not st.eyes[key]
            self.flip_channel(c, board.eyes[key])

        def eye_text(key):
            return f"eye {sq_str((key[0], key[1]))} {'on' if st.eyes[key] else 'off'}"
        for i in range(n):
            out = []
            for kind, x in hits[i]:
                out.append(self.bot_name(st, x) if kind == "bot" else eye_text(x))
            c.hits[i] = out
        c.board_line += [eye_text(k) for k in sorted(board_eyes)]

    # ---- buzzsaws (F-6.28) ------------------------------------------------------------------------
    def sub_buzzsaws(self, c: Ctx, s: int) -> None:
        """S9: one draw per stage from the saw stream; spin if u > threshold."""
        st = c.st
        if not st.board.has_buzzsaw():
            return
        u = random.Random(f"{st.seed}/saw/{c.t}/{s}").random()
        spin = u > st.config["buzzsaw_threshold"]
        c.board_line.append("buzzsaws spin" if spin else "buzzsaws still")
        if spin:
            for i, b in enumerate(st.bots):
                if b.alive and st.board.kind[b.sq][0] == "BZ":
                    self.damage(c, i, 1, "buzzsaw")

    # ---- stage end (F-5.10) -----------------------------------------------------------------------
    def stage_end(self, c: Ctx, s: int, modes: list[str], revealed: dict[int, int]) -> None:
        """S10: (a) touches, (b) virtual → real, (c) win check, (d) the stage report."""
        st = c.st
        tagged_last: list[int] = []
        for i, b in enumerate(st.bots):
            if b.alive and not b.rebooting:
                if self.stage_end_touch(c, i):
                    tagged_last.append(b.owner)
        for i, b in enumerate(st.bots):  # (b) F-7.9
            if b.alive and b.mode == "virtual" and (c.t > b.reinst + 1 or (c.t == b.reinst + 1 and s == 5)):
                if not any(j != i and o.alive and o.sq == b.sq for j, o in enumerate(st.bots)):
                    b.mode = "real"
                    c.check[i].append("real")
        if c.log:
            from botwars.games.factory.report import stage_event
            ev = stage_event(self, c, s, modes, revealed)
            c.events.append(ev)
            c.lines += ev.data["lines"]
        self.win_check(c, tagged_last)
        self.emit_result(c)

    @staticmethod
    def emit_result(c: Ctx) -> None:
        """Append the pending result table (if any) to the events and report lines."""
        ev = getattr(c, "result_ev", None)
        if ev is not None:
            c.events.append(ev)
            c.lines += ev.data["lines"]
            c.result_ev = None

    def stage_end_touch(self, c: Ctx, i: int) -> bool:
        """S10 (a) for robot ``i``: flag, checkpoint, upgrade station, armoury (F-6.29 to F-6.32).
        Returns True when it tagged its player's last flag."""
        st = c.st
        b = st.bots[i]
        pl = st.players[b.owner]
        k = st.board.kind[b.sq]
        last = False
        if k[0] == "F":
            moved = pl.checkpoint != b.sq
            pl.checkpoint = b.sq
            if k[1] == pl.next_flag:
                pl.next_flag += 1
                c.check[i].append(f"flag {k[1]}")
                last = pl.next_flag > len(st.board.flags())
            elif moved:
                c.check[i].append(f"checkpoint {sq_str(b.sq)}")
        elif k[0] == "W":
            if pl.checkpoint != b.sq:
                pl.checkpoint = b.sq
                c.check[i].append(f"checkpoint {sq_str(b.sq)}")
        elif k[0] == "UP" and st.config["upgrades"]:
            if b.sq not in pl.stations:
                pl.stations.append(b.sq)
                c.check[i].append(f"upgrade {sq_str(b.sq)}")
                n = len(pl.stations)
                for need, name in ((2, "A"), (4, "B"), (6, "C")):
                    if n >= need and name not in pl.sets:
                        pl.sets.append(name)
                        c.check[i].append("cards " + " ".join(SET_TYPES[name]))
        elif k[0] == "AR":
            if not b.has(k[1]):
                b.options.append({"code": k[1], "charges": 3 if k[1] == "AA" else 0, "armoury": True})
                c.check[i].append(f"option {k[1]}")
        return last

    def win_check(self, c: Ctx, tagged_last: list[int]) -> None:
        """F-8.1: players who tagged the last flag this stage win (co-winners, H23)."""
        if tagged_last:
            winners = sorted(set(tagged_last))
            self.end_game(c, FactoryReason.FLAGS, winners)

    # ---- end of turn (F-5.11) ----------------------------------------------------------------------
    def end_of_turn(self, c: Ctx) -> None:
        """E1 repairs and options, E2 reinstatement, E3 reboots, E4 end checks, E5 report."""
        st = c.st
        n = len(st.bots)
        repair: list[list[str]] = [[] for _ in range(n)]
        for i, b in enumerate(st.bots):  # E1
            if b.alive and not b.rebooting:
                repair[i] = self.repair(c, i)
        for i, b in enumerate(st.bots):  # E2
            if b.died:
                self.reinstate(c, i)
        modes = []  # F-9.8: as the players stand after E2
        for i, b in enumerate(st.bots):
            if st.players[b.owner].out:
                modes.append("out")
            elif b.died:
                modes.append("destroyed")
            else:
                modes.append(b.mode + (", reboot" if b.rebooting else ""))
        for b in st.bots:  # E3
            b.rebooting = b.alive and b.declared
            b.declared = False
            b.died = False
        self.end_checks(c)
        if c.log:
            from botwars.games.factory.report import end_event
            evs = end_event(self, c, modes, repair)
            for ev in evs:
                c.events.append(ev)
                c.lines += ev.data["lines"]
        self.emit_result(c)

    def repair(self, c: Ctx, i: int) -> list[str]:
        """E1 for robot ``i`` (F-6.29, F-6.30): flags and W1 repair 1; W2 per ``double_wrench``."""
        st = c.st
        b = st.bots[i]
        k = st.board.kind[b.sq]
        cfg = st.config
        out: list[str] = []
        hp0 = b.hp
        if k[0] == "F" or (k[0] == "W" and k[1] == 1):
            b.hp = min(cfg["max_hp"], b.hp + 1)
        elif k[0] == "W":
            if cfg["double_wrench"] == "both":
                b.hp = min(cfg["max_hp"], b.hp + 1)
                code = self.draw_option(st, i)
                if code:
                    out.append(f"option {code}")
            else:
                w = st.players[b.owner].standing["wrench2"]
                want = w == "option" or (w == "auto" and b.hp >= cfg["max_hp"])
                code = self.draw_option(st, i) if want else None
                if code:
                    out.append(f"option {code}")
                else:
                    b.hp = min(cfg["max_hp"], b.hp + 2)
        if b.hp > hp0:
            out.insert(0, f"+{b.hp - hp0} HP")
        return out

    def draw_option(self, st: FactoryState, i: int) -> str | None:
        """F-6.30: the top option card whose code the robot lacks; passed-over cards go to the bottom."""
        b = st.bots[i]
        deck = st.option_deck
        for _ in range(len(deck)):
            code = deck.pop(0)
            if not b.has(code):
                b.options.append({"code": code, "charges": 3 if code == "AA" else 0, "armoury": False})
                return code
            deck.append(code)
        return None

    def reinstate(self, c: Ctx, i: int) -> None:
        """E2 (F-7.10): a new virtual robot on the checkpoint, or the player is out."""
        st = c.st
        old = st.bots[i]
        pl = st.players[old.owner]
        if pl.out:
            return
        if pl.robots_left >= 1:
            nb = Bot(old.owner, old.slot, pl.checkpoint, DIRS.index(pl.standing["facing"]),
                     st.config["reinstate_hp"], "virtual", c.t)
            nb.died = True
            st.bots[i] = nb
        else:
            pl.out = True

    def end_checks(self, c: Ctx) -> None:
        """E4 (F-8.2 to F-8.4)."""
        st = c.st
        left = [p for p, pl in enumerate(st.players) if not pl.out]
        if not left:
            self.end_game(c, FactoryReason.ELIMINATION, [])
        elif st.started >= 2 and len(left) == 1:
            self.end_game(c, FactoryReason.ELIMINATION, left)
        elif c.t >= st.config["turn_limit"]:
            if st.started >= 2:
                ranks = self.standings(st, [])
                top = [p for p, r in ranks if r == 1]
                winners = [p for p in top if st.players[p].next_flag > 1]
            else:
                winners = []
            self.end_game(c, FactoryReason.TURN_LIMIT, winners)

    # ---- resignation and the end (F-8.5 to F-8.7) -------------------------------------------------
    def resign(self, c: Ctx, p: int) -> None:
        """F-8.6: the player is out at once; their robot leaves with the effects of F-7.3."""
        st = c.st
        pl = st.players[p]
        for i in st.bots_of(p):
            if st.bots[i].alive:
                c.log, old = False, c.log
                self.destroy(c, i)
                c.log = old
            st.bots[i].died = False
        pl.robots_left = 0
        pl.out = True
        st.hands = {k: v for k, v in st.hands.items() if st.bots[k].owner != p}
        c.events.append(Event("resign", {"turn": c.t, "seat": pl.seat}))

    def after_resign(self, c: Ctx) -> bool:
        """F-8.6: end the game at once if no player, or (≥2 seats) exactly one, is left."""
        st = c.st
        if not any(e.kind == "resign" for e in c.events):
            return False
        left = [p for p, pl in enumerate(st.players) if not pl.out]
        if not left or (st.started >= 2 and len(left) == 1):
            self.end_game(c, KernelReason.RESIGN, left)
            self.emit_result(c)
            c.t -= 1  # the turn was not played
            return True
        return False

    def standings(self, st: FactoryState, winners: list[int]) -> list[tuple[int, int]]:
        """F-8.5: ``[(player, rank)]`` best first; equal keys share a rank."""
        def hp(p):
            return sum(b.hp for b in st.bots if b.owner == p and b.alive)

        def key(p):
            pl = st.players[p]
            return (0 if p in winners else 1, -(pl.next_flag - 1), 1 if pl.out else 0, -pl.robots_left, -hp(p))
        order = sorted(range(len(st.players)), key=lambda p: (key(p), p))
        out = []
        prev = None
        rank = 0
        for n, p in enumerate(order, 1):
            if key(p) != prev:
                rank = n
                prev = key(p)
            out.append((p, rank))
        return out

    def end_game(self, c: Ctx, reason: FactoryReason | KernelReason, winners: list[int]) -> None:
        """Record the result (F-8.7) and the F-9.10 result table, which :meth:`emit_result` adds
        after the stage or end-of-turn report it follows."""
        st = c.st
        st.winners = list(winners)
        ranks = self.standings(st, winners)
        st.result = {"reason": reason, "standings": [
            {"rank": r, "seat": st.players[p].seat,
             "status": "winner" if p in winners else ("out" if st.players[p].out else "-")} for p, r in ranks]}
        if c.log:
            from botwars.games.factory.report import result_event
            c.result_ev = result_event(self, c, ranks)  # emitted after the report it follows (F-9.1)

    def outcome(self, st: FactoryState) -> Outcome | None:
        """Winner: the single winning seat (``None`` for co-winners or a draw); scores: flags tagged."""
        if st.result is None:
            return None
        seats = list(st.seats)
        w = [st.players[p].seat for p in st.winners]
        ranking: list[list[str]] = []
        last = None
        for row in st.result["standings"]:
            if row["rank"] != last:
                ranking.append([])
                last = row["rank"]
            ranking[-1].append(row["seat"])
        flags = {pl.seat: pl.next_flag - 1 for pl in st.players}
        return Outcome(w[0] if len(w) == 1 else None, {s: float(flags[s]) for s in seats}, st.result["reason"],
                       ranking, {"flags": flags})

    # ---- observation (§14, §15) ---------------------------------------------------------------
    def view(self, st: FactoryState, seat: str | None) -> dict[str, Any]:
        """F-15.3 seat observation (or F-15.4 spectator for ``None``)."""

        def key3(k):
            return f"{sq_str((k[0], k[1]))}{DIRS[k[2]]}"
        players = []
        for p, pl in enumerate(st.players):
            robot = None
            for i in [self.order_robot(st, p)]:
                b = st.bots[i]
                if b.alive and not pl.out:
                    robot = {"square": sq_str(b.sq), "facing": DIRS[b.facing], "hp": b.hp, "mode": b.mode,
                             "rebooting": b.rebooting,
                             "options": [({"code": o["code"], "charges": o["charges"]} if o["code"] == "AA"
                                          else {"code": o["code"]}) for o in b.options],
                             "fused": {str(r): card_str(b.regs[r - 1]) for r in range(1, 6)
                                       if b.fused(r) and b.regs[r - 1] is not None}}
            players.append({"seat": p + 1, "name": pl.name, "colour": pl.colour, "out": pl.out,
                            "robots_left": pl.robots_left, "next_flag": pl.next_flag,
                            "flags": list(range(1, pl.next_flag)), "checkpoint": sq_str(pl.checkpoint),
                            "stations": [sq_str(s) for s in pl.stations], "sets": list(pl.sets), "robot": robot})
        out: dict[str, Any] = {
            "ruleset": "factory", "variant": st.config["variant"], "turn": st.turn if st.over else st.turn + 1,
            "phase": "over" if st.over else "program",
            "deadline_s": None if st.over else st.config["turn_time_s"],
            "board": st.board.text(),
            "config": {k: st.config[k] for k in sorted(st.config) if k != "board"},
            "devices": {"switches": {sq_str(k): v for k, v in st.switches.items()},
                        "eyes": {key3(k): v for k, v in st.eyes.items()},
                        "trapdoors": {sq_str(k): v for k, v in st.trapdoors.items()},
                        "bridges": {sq_str(k): ("lowered" if v else "raised") for k, v in st.bridges.items()},
                        "teleporters": dict(st.teleporters),
                        "blasers": {key3(k): v for k, v in st.blasers.items()}},
            "players": players, "reports": list(st.reports), "result": st.result}
        if seat is not None:
            p = st.player_of(seat)
            i = self.order_robot(st, p)
            out["you"] = p + 1
            out["hand"] = [card_str(x) for x in st.hands.get(i, [])]
            out["program"] = None
            out["standing"] = dict(st.players[p].standing)
            out["reports"] = list(st.reports) + list(st.hand_msgs.get(seat, []))
            b = st.bots[i]
            out["free_registers"] = 0 if (b.rebooting or not b.alive) else self.free_registers(st, i)
        return out

    # ---- tools ---------------------------------------------------------------------------------
    def state_json(self, st: FactoryState) -> dict[str, Any]:
        return st.to_json()

    def turn_number(self, st: FactoryState) -> int:
        return st.turn

    def render_text(self, st: FactoryState, seat: str | None = None) -> str:
        from botwars.games.factory.report import render_board
        return render_board(st)

    def svg(self, st: FactoryState, seat: str | None = None, events: list[Event] | None = None,
            names: dict[str, str] | None = None) -> str:
        """The board as SVG (public state only; see :mod:`botwars.games.factory.svg`);
        ``names``: optional display names by seat, drawn under the robots."""
        from botwars.games.factory.svg import factory_svg
        return factory_svg(st, seat, events, names)

    def legend(self, st: FactoryState, seat: str | None = None) -> str:
        """The legend of the board's drawing: every element on it, drawn by its own symbol, in
        words (public, like the board: the same for every seat)."""
        from botwars.games.factory.svg import legend_svg
        return legend_svg(st)

    def report(self, before: FactoryState, after: FactoryState, events: list[Event]) -> Any:
        """The stage, end, fused and result tables of one resolved turn as Rich renderables,
        followed by the board picture after the turn (F-9.1: platform-defined)."""
        from rich.console import Group
        from rich.text import Text

        from botwars.games.factory.report import render_board, rich_report
        return Group(rich_report(events), Text(render_board(after)))

    def check_board(self, text: str, source: str, entry: bool = False) -> list[str]:
        """``botwars board check FILE --game factory``: one problem per line, ``[]`` when valid."""
        from botwars.games.factory.board import check_board
        return check_board(text, source)

    # ---- simulation helper for bots --------------------------------------------------------------
    def simulate(self, st: FactoryState, programs: dict[int, list[int]], stages: int = 5) -> FactoryState:
        """Run ``stages`` stages silently with the given registers (bots' look-ahead); returns the
        changed copy (no end of turn, no deal)."""
        sim = st.copy()
        for i, prog in programs.items():
            b = sim.bots[i]
            for r, card in enumerate(prog):
                b.regs[r] = card
        c = Ctx(sim, sim.turn + 1, log=False)
        for s in range(1, stages + 1):
            self.stage(c, s)
            if sim.over:
                break
        return sim
