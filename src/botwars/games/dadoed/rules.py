"""The DADOED rule set (shared/rules/dadoed.md, rules version 1) on the botwars kernel.

Seats are named ``blue`` and ``orange`` (H1). Decision points: one setup decision in which both
seats submit their supers (D-3.4, D-3.5; repeated for a seat whose submission was rejected),
then one decision per turn for the active seat (D-5.1). A refused order is a decision of its
own that counts toward ``max_rejections`` (D-5.8). The rules themselves live in
:mod:`botwars.games.dadoed.engine`; this module parses, validates and presents.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from botwars.engine.codes import OnExpiry, RefusalCode
from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.ruleset import Param, Ruleset
from botwars.engine.timecontrol import TimeControl
from botwars.games.dadoed.board import (DIR_NAMES, LABELS, check_board_text, parse_dir, parse_tile, tile_str,
                                        tiles_sorted)
from botwars.games.dadoed.engine import (PLAYERS, Bot, DadoedReason, Order, State, apply_ending, apply_order,
                                         command_problem, has_legal, iter_legal, other, super_problem)
from botwars.games.dadoed.pool import load_pool, pool_names


def _pool_check(value: str) -> None:
    try:
        load_pool(value)
    except ConfigError as exc:
        raise ValueError(exc.one_line()) from None


def _tiles_check(value: str) -> None:
    parse_tile_list(value)


def _bots_check(value: str) -> None:
    parse_bot_list(value)


def parse_tile_list(value: str) -> list[tuple[int, int]]:
    """``"C3,F3"`` → tiles; empty text → no tiles. Raises ``ValueError``."""
    out = []
    for part in str(value).replace(" ", "").split(","):
        if part:
            t = parse_tile(part)
            if t in out:
                raise ValueError(f"tile {part} listed twice")
            out.append(t)
    return out


def parse_bot_list(value: str) -> dict[str, tuple[int, int]]:
    """``"A:A1,B:H1,C:A8,D:H8"`` → label → tile (A, B are Blue's, C, D Orange's, D-3.1)."""
    out: dict[str, tuple[int, int]] = {}
    for part in str(value).replace(" ", "").split(","):
        if not part:
            continue
        label, sep, t = part.partition(":")
        label = label.upper()
        if not sep or label not in LABELS:
            raise ValueError(f"{part!r}: expected LABEL:TILE with label A-D, e.g. A:A1")
        if label in out:
            raise ValueError(f"bot {label} listed twice")
        out[label] = parse_tile(t)
    return out


PARAMS = (
    Param("board_size", int, 8, "Fixed: columns A-H, rows 1-8 (D-2.1)", minimum=8, maximum=8),
    Param("initial_bots", str, "A:A1,B:H1,C:A8,D:H8", "Where the bots start: A and B are Blue's, C and D Orange's; A:A1 puts bot A on A1 (D-3.1)",
          check=_bots_check),
    Param("initial_boulders", str, "C3,F3,C6,F6", "Boulder tiles at the start (D-3.2)", check=_tiles_check),
    Param("initial_fire", str, "D4,E5", "Fire tiles at the start (D-3.2)", check=_tiles_check),
    Param("pool", str, "default", "Command pool: default, a YAML/JSON file or its text (D-4.2, D-4.7)",
          check=_pool_check, kind="file", names=pool_names),
    Param("blast_radius", int, 1, "Tiles around a Self Destruct that it destroys (Chebyshev radius, D-7.4)", minimum=0, maximum=7),
    Param("clock_enabled", bool, True, "Time banks on (D-8.3)"),
    Param("time_bank_s", int, 1800, "Time bank per player, seconds (D-8.3)", minimum=1, maximum=2_592_000),
    Param("increment_s", int, 30, "Charge granularity, seconds (D-8.3)", minimum=1, maximum=86_400),
    Param("setup_time_s", int, 300, "Super submission deadline, not charged (D-3.5)", minimum=1, maximum=2_592_000),
    Param("max_rejections", int, 3, "Consecutive refused orders before losing (refused, D-5.8)", minimum=1, maximum=1000),
    Param("max_turns", int, 200, "Total turns before a draw (D-8.4)", minimum=1, maximum=100_000),
)


def _malformed(msg: str, part: Any = None) -> InvalidOrders:
    return InvalidOrders(msg, code=RefusalCode.MALFORMED, part=part)


class DadoedRuleset(Ruleset):
    """DADOED (shared/rules/dadoed.md): two players, alternating turns, one command per turn."""

    id = "dadoed"
    name = "Do Androids Dream of Electric Deathmatches?"
    rules_version = 1
    params = PARAMS
    min_seats = 2
    max_seats = 2

    # ---- configuration ----------------------------------------------------------------------
    def seat_names(self, n: int) -> list[str]:
        """Blue moves first (H1)."""
        return ["blue", "orange"][:n]

    def check_config(self, config: dict[str, Any]) -> None:
        """The initial layout must be a legal position (D-2.3): one object per tile, no fire under a
        boulder or a bot."""
        try:
            bots = parse_bot_list(config["initial_bots"])
            boulders = parse_tile_list(config["initial_boulders"])
            fire = parse_tile_list(config["initial_fire"])
        except ValueError as exc:
            raise ConfigError(str(exc), source="config") from None
        if not any(lb in bots for lb in "AB") or not any(lb in bots for lb in "CD"):
            raise ConfigError("initial_bots: each player needs a bot on the board (A or B, C or D)", source="config")
        taken = list(bots.values()) + boulders
        if len(set(taken)) != len(taken):
            raise ConfigError("initial layout: two objects on one tile (D-2.3)", source="config")
        if set(fire) & set(taken):
            raise ConfigError("initial layout: fire under a bot or a boulder (D-2.3)", source="config")

    def time_control(self, config: dict[str, Any]) -> TimeControl:
        """D-8.3: bank ``time_bank_s``, every turn charged in ``increment_s`` steps (at least one),
        running out loses. ``clock_enabled = false``: no clock."""
        if not config.get("clock_enabled", True):
            return TimeControl()
        return TimeControl(move_limit_s=0, bank_s=float(config["time_bank_s"]),
                           increment_s=float(config["increment_s"]), on_expiry=OnExpiry.LOSS)

    def clock_settings(self, per_turn_s: float) -> dict[str, Any]:
        """D-8.3, D-3.5: a bank of 60 turns of the preset's seconds (the seed's 1,800 s over
        30 s increments), at most 30 days, and a setup deadline of one such turn; the increment
        stays 30 s."""
        s = int(min(per_turn_s, 2_592_000))
        return {"time_bank_s": min(60 * s, 2_592_000), "setup_time_s": s}

    def clock_exempt(self, state: State) -> float | None:
        """D-3.5 / D-8.3: setup is not charged; its deadline is ``setup_time_s``, never shorter
        than one increment of the match's clock (``increment_s``; issue 24 item 6)."""
        if state.phase != "setup":
            return None
        return float(max(state.config["setup_time_s"], state.config["increment_s"]))

    def clock_view(self, view: dict[str, Any], bank_left: dict[str, float]) -> dict[str, Any]:
        """Show both banks (seconds left) in the observation (D-12.2)."""
        view = dict(view)
        banks = list(bank_left.values())  # in seat order: Blue's seat first
        view["clock"] = {"enabled": True, **{p: (banks[i] if i < len(banks) else None) for i, p in enumerate(PLAYERS)}}
        return view

    # ---- setup (D-3) -------------------------------------------------------------------------
    def setup(self, config: dict[str, Any], seats: list[str], seed: int) -> State:
        """The D-3.1 / D-3.2 position (or the layout parameters) in the ``setup`` phase.

        ``seed`` is unused: the game has no randomness after setup (D-1.5).
        """
        if len(seats) != 2:
            raise ConfigError(f"dadoed needs exactly 2 seats, got {len(seats)}")
        pool = load_pool(config["pool"])
        bots = {lb: Bot("blue" if lb in "AB" else "orange", t) for lb, t in parse_bot_list(config["initial_bots"]).items()}
        return State(tuple(seats), dict(config), pool, "setup", 0, set(),
                     set(parse_tile_list(config["initial_fire"])), set(parse_tile_list(config["initial_boulders"])),
                     bots, pool.initial_left())

    def pending(self, state: State) -> list[str]:
        if state.phase == "setup":
            return [state.seat_of(p) for p in PLAYERS if p not in state.submitted]
        if state.phase == "play":
            return [state.seat_of(state.active)]
        return []

    # ---- orders (D-5.3, D-12.4, D-12.7) ---------------------------------------------------------
    def parse_orders(self, state: State, seat: str, payload: Any) -> Order:
        """A D-12.4 JSON order (dict, or its JSON text) or a D-2.5 text order → :class:`Order`.

        Raises :class:`InvalidOrders`: code ``malformed`` (bad shape), ``unknown`` (unknown
        command), ``used_up`` (no copies left), ``turn`` (not this seat's decision) or
        ``illegal`` (a failed condition, named in the message). Never changes ``state``.
        """
        if seat not in state.seats:
            raise InvalidOrders(f"unknown seat {seat!r}", code="turn")
        if seat not in self.pending(state):
            raise InvalidOrders("it is not your turn" if state.phase == "play" else "no order is awaited from you",
                                code="turn")
        player = state.player_of(seat)
        if isinstance(payload, str) and payload.strip().startswith("{"):
            try:
                payload = json.loads(payload)
            except json.JSONDecodeError as exc:
                raise _malformed(f"not JSON: {exc.msg}") from None
        if state.phase == "setup":
            return self._parse_setup(state, player, payload)
        if isinstance(payload, str):
            return self._parse_text(state, player, payload)
        if isinstance(payload, dict):
            return self._parse_json(state, player, payload)
        raise _malformed(f"an order is a JSON object or a text order, got {type(payload).__name__}")

    def _parse_setup(self, state: State, player: str, payload: Any) -> Order:
        """D-3.4 / D-12.5 setup order."""
        if not isinstance(payload, dict) or payload.get("type") != "setup" or not isinstance(payload.get("supers"), dict):
            raise _malformed("a setup order names a super for each of your bots: a blue command, then any other "
                             "command (D-3.4; the order's format: D-12.5)")
        extra = set(payload) - {"type", "supers"}
        if extra:
            raise _malformed(f"unknown field(s) {', '.join(sorted(extra))} in the setup order")
        mine = sorted(lb for lb, b in state.bots.items() if b.owner == player)
        supers = payload["supers"]
        if sorted(map(str, supers)) != mine:
            missing = [lb for lb in mine if lb not in supers]
            if missing:
                raise InvalidOrders(f"Pick a super for bot {' and '.join(missing)}: give one super for each of "
                                    f"your bots {', '.join(mine)} (D-3.4)", code=RefusalCode.ILLEGAL)
            raise InvalidOrders(f"give supers to your own bots {', '.join(mine)} only, not to "
                                f"{', '.join(sorted(str(x) for x in supers if x not in mine))} (D-3.4)",
                                code=RefusalCode.ILLEGAL)
        ids: list[str] = []
        out = []
        for lb in mine:
            pair = supers[lb]
            if isinstance(pair, list) and len(pair) == 2 and None in pair:  # a pick still missing (the page's partial orders)
                raise InvalidOrders(f"Pick a {'first' if pair[0] is None else 'second'} command for bot {lb} (D-3.4)",
                                    code=RefusalCode.ILLEGAL)
            if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
                raise _malformed(f"super of {lb} must be a list [first, second] of command ids")
            for cid in pair:
                if state.pool.get(cid) is None:
                    raise InvalidOrders(f"super of {lb}: unknown command {cid!r}", code="unknown")
            if state.pool.get(pair[0]).colour != "blue":
                raise InvalidOrders(f"super of {lb}: the first command must be blue, {pair[0]} is "
                                    f"{state.pool.get(pair[0]).colour} (D-3.4a)", code=RefusalCode.ILLEGAL)
            ids += pair
            out.append((lb, (pair[0], pair[1])))
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise InvalidOrders(f"the ids of your supers must be pairwise distinct; repeated: {', '.join(dup)} "
                                "(D-3.4c)", code=RefusalCode.ILLEGAL)
        return Order("setup", supers=tuple(out))

    def _parse_json(self, state: State, player: str, p: dict[str, Any]) -> Order:
        kind = p.get("type")
        if kind == "resign":
            return Order("resign")
        if kind == "command":
            extra = set(p) - {"type", "command", "tile", "direction", "bot"}
            if extra:
                raise _malformed(f"unknown field(s) {', '.join(sorted(extra))} in a command order")
            cid = p.get("command")
            if not isinstance(cid, str):
                raise _malformed("a command order needs 'command' (a command id)")
            tile = self._tile(p.get("tile"), "tile")
            d = self._dir(p.get("direction"))
            bot = p.get("bot")
            if bot is not None and (not isinstance(bot, str) or bot.upper() not in LABELS):
                raise _malformed(f"'bot' must be a label A-D, got {bot!r}")
            return self._check_command(state, player, cid, tile, d, bot.upper() if bot else None)
        if kind == "super":
            extra = set(p) - {"type", "bot", "first", "second"}
            if extra:
                raise _malformed(f"unknown field(s) {', '.join(sorted(extra))} in a super order")
            label = p.get("bot")
            if not isinstance(label, str) or label.upper() not in LABELS:
                raise _malformed(f"a super order needs 'bot' (a label A-D), got {label!r}")
            first = p.get("first") or {}
            second = p.get("second") or {}
            if not isinstance(first, dict) or not isinstance(second, dict):
                raise _malformed("'first' and 'second' must be objects")
            if set(first) - {"direction"}:
                raise _malformed("'first' takes only 'direction'")
            if set(second) - {"tile", "direction", "bot"}:
                raise _malformed("'second' takes only 'tile', 'direction' and 'bot'")
            d1 = self._dir(first.get("direction"))
            s_tile = self._tile(second.get("tile"), "second.tile") if second.get("tile") is not None else None
            s_bot = second.get("bot")
            if s_bot is not None and (not isinstance(s_bot, str) or s_bot.upper() not in LABELS):
                raise _malformed(f"second 'bot' must be a label A-D, got {s_bot!r}")
            return self._check_super(state, player, label.upper(), d1,
                                     (s_tile, self._dir(second.get("direction")), s_bot.upper() if s_bot else None))
        raise _malformed(f"unknown order type {kind!r} (command, super or resign)")

    @staticmethod
    def _tile(v: Any, name: str):
        if v is None:
            raise _malformed(f"missing '{name}'")
        try:
            return parse_tile(v)
        except ValueError as exc:
            raise _malformed(f"'{name}': {exc}") from None

    @staticmethod
    def _dir(v: Any) -> str | None:
        if v is None:
            return None
        try:
            return parse_dir(v)
        except ValueError as exc:
            raise _malformed(str(exc)) from None

    def _check_command(self, state: State, player: str, cid: str, tile, d, bot) -> Order:
        cmd = state.pool.get(cid)
        if cmd is None:
            raise InvalidOrders(f"unknown command {cid!r} (pool: {', '.join(state.pool.ids())})", code="unknown",
                                part=cid)
        prob = command_problem(state, player, cid, tile, d, bot)
        if prob:
            code = "used_up" if "no copies left" in prob else "illegal"
            raise InvalidOrders(f"{command_label(cid, tile, d, bot)}: {prob}", code=code, part=cid)
        if cmd.colour == "blue" and cmd.direction is not None:
            d = cmd.direction
        return Order("command", cid, tile, d, bot)

    def _check_super(self, state: State, player: str, label: str, d1, second) -> Order:
        b = state.bots.get(label)
        if b is not None and b.super is not None:
            c1 = state.pool.get(b.super[0])
            if c1 is not None and c1.direction is not None:
                if d1 is not None and d1 != c1.direction:
                    raise InvalidOrders(f"super {label}: {c1.id} always moves {DIR_NAMES[c1.direction]}",
                                        code=RefusalCode.ILLEGAL)
                d1 = c1.direction
        prob, after = super_problem(state, player, label, d1, second)
        if prob:
            raise InvalidOrders(prob, code=RefusalCode.ILLEGAL, part=label)
        if after.result is not None:  # the first component ends the game: the second never runs (D-5.4)
            return Order("super", bot=label, direction=d1, second=(None, None, None))
        c2 = state.pool.get(b.super[1])
        s_tile, s_dir, s_bot = second
        if c2.bot_executed:  # it acts from the bot's tile after the first component (D-12.4)
            s_tile = None
        if c2.colour == "blue" and c2.direction is not None:
            s_dir = c2.direction
        return Order("super", bot=label, direction=d1, second=(s_tile, s_dir, s_bot))

    def _parse_text(self, state: State, player: str, text: str) -> Order:
        """D-2.5 text: ``dash B2 East 3``, ``super B: stride B2 North 2 + ignite B4 East``,
        ``resign``, or the seed style without an id (``F1 East 3``, D-12.7 / H15)."""
        s = text.strip()
        if not s:
            raise _malformed("empty order")
        words = s.split()
        head = words[0].lower()
        if head == "resign" and len(words) == 1:
            return Order("resign")
        if head == "super" or head.startswith("super"):
            return self._parse_super_text(state, player, s)
        if state.pool.get(head) is not None:
            cid, tile, d, amount, bot = self._component(state, s)
            self._check_amount(state, cid, amount)
            return self._check_command(state, player, cid, tile, d, bot)
        try:
            parse_tile(words[0])
        except ValueError:
            raise InvalidOrders(f"unknown command {words[0]!r} (pool: {', '.join(state.pool.ids())}; or super, "
                                "resign)", code="unknown", part=words[0]) from None
        return self._parse_seed_style(state, player, s)

    def _component(self, state: State, s: str, need_id: bool = True, need_tile: bool = True):
        words = s.split()
        cid = words[0] if need_id else None
        rest = words[1:] if need_id else words
        if not rest and not need_tile:
            return cid, None, None, None, None
        if not rest:
            raise _malformed(f"{s!r}: missing the acting tile")
        try:
            tile = parse_tile(rest[0])
        except ValueError as exc:
            raise _malformed(f"{s!r}: {exc}") from None
        d = amount = bot = None
        for w in rest[1:]:
            if w.isdigit() and amount is None and bot is None:
                amount = int(w)
                continue
            if d is None and amount is None and bot is None:
                try:
                    d = parse_dir(w)
                    continue
                except ValueError:
                    pass
            if bot is None and w.upper() in LABELS and len(w) == 1:
                bot = w.upper()
                continue
            raise _malformed(f"{s!r}: unexpected {w!r} (expected: command tile [Direction] [amount] [bot])")
        return cid, tile, d, amount, bot

    @staticmethod
    def _check_amount(state: State, cid: str, amount: int | None) -> None:
        cmd = state.pool.get(cid)
        if amount is None:
            return
        if cmd.colour != "blue":
            raise _malformed(f"{cid} takes no amount (only blue commands, D-2.5)")
        if amount != cmd.distance:
            raise InvalidOrders(f"{cid} always walks {cmd.distance}, not {amount} (D-2.5)", code=RefusalCode.ILLEGAL)

    def _parse_super_text(self, state: State, player: str, s: str) -> Order:
        body = s[5:].strip() if s.lower().startswith("super") else s
        label, sep, comps = body.partition(":")
        label = label.strip().upper()
        if not sep or label not in LABELS:
            raise _malformed("a super is written 'super B: stride B2 North 2 + ignite B4 East' (D-2.5)")
        parts = [c.strip() for c in comps.split("+")]
        if len(parts) != 2 or not all(parts):
            raise _malformed("a super has two components joined by '+' (D-2.5)")
        b = state.bots.get(label)
        if b is None or b.super is None:
            raise InvalidOrders(f"bot {label} has no super", code=RefusalCode.ILLEGAL)
        c1 = self._component(state, parts[0])
        c2 = self._component(state, parts[1], need_tile=False)
        for (cid, *_), want, which in ((c1, b.super[0], "first"), (c2, b.super[1], "second")):
            if cid != want:
                raise InvalidOrders(f"super {label}: the {which} component is {want}, not {cid}",
                                    code=RefusalCode.ILLEGAL)
        self._check_amount(state, c1[0], c1[3])
        self._check_amount(state, c2[0], c2[3])
        if b.tile is not None and c1[1] != b.tile:
            raise InvalidOrders(f"super {label}: the first component acts from {label}'s tile {tile_str(b.tile)}, "
                                f"not {tile_str(c1[1])}", code=RefusalCode.ILLEGAL)
        return self._check_super(state, player, label, c1[2], (c2[1], c2[2], c2[4]))

    def _parse_seed_style(self, state: State, player: str, s: str) -> Order:
        """D-12.7 / H15: accepted only when exactly one legal pool order has this notation."""
        _, tile, d, amount, bot = self._component(state, s, need_id=False)
        matches = []
        for o in iter_legal(state, player, supers=False):
            cmd = state.pool.get(o.command)
            if o.tile != tile or o.direction != d or o.bot != bot:
                continue
            if (cmd.distance if cmd.colour == "blue" else None) != amount:
                continue
            matches.append(o)
        if len(matches) == 1:
            return matches[0]
        names = ", ".join(sorted({o.command for o in matches})) or "none"
        raise InvalidOrders(f"{s!r} names no command id and matches {len(matches)} legal pool orders: {names} "
                            "(D-12.7: write the command id)", code=RefusalCode.ILLEGAL)

    def legal_orders(self, state: State, seat: str) -> list[dict[str, Any]] | None:
        """Every legal order payload (D-12.4) of ``seat`` now, ``resign`` last; ``[]`` when it is not
        this seat's turn; ``None`` during setup (the super assignments are not enumerated)."""
        if state.phase == "setup":
            return None
        if state.phase != "play" or seat != state.seat_of(state.active):
            return []
        return [o.payload() for o in iter_legal(state, state.active)] + [{"type": "resign"}]

    def twin_state(self, state: State, seat: str | None, rng: random.Random) -> State:
        """The state with the other player's accepted but unrevealed supers changed (D-3.5: secret
        until both are in; the supers are swapped between its bots, or their order reversed when
        it has one bot). Nothing else is hidden (D-12.2), so outside set-up the twin is a copy."""
        st = state.copy()
        if st.phase != "setup":
            return st
        you = state.player_of(seat) if seat in state.seats else None
        for p, supers in state.submitted.items():
            if p == you:
                continue
            labels = sorted(supers)
            pairs = [supers[lb] for lb in labels]
            if len(pairs) > 1 and len(set(pairs)) > 1:
                k = rng.randrange(1, len(pairs))
                pairs = pairs[k:] + pairs[:k]
            else:
                pairs = [(b, a) for a, b in pairs]
            st.submitted = {**st.submitted, p: dict(zip(labels, pairs))}
        return st

    def default_orders(self, state: State, seat: str) -> Order:
        """A refused or missing order counts as a rejection (D-5.8, D-3.5)."""
        return Order("rejected")

    def orders_json(self, orders: Order) -> Any:
        return orders.payload()

    # ---- resolution -----------------------------------------------------------------------------
    def resolve(self, state: State, orders: dict[str, Order]) -> tuple[State, list[Event]]:
        """One decision point: the setup submissions, or the active seat's order (D-5.5 - D-5.7)."""
        if state.phase == "setup":
            return self._resolve_setup(state, orders)
        if state.phase == "ending":
            return apply_ending(state)
        if state.phase != "play":
            return state, []
        order = orders.get(state.seat_of(state.active)) or Order("rejected")
        return apply_order(state, order)

    def _resolve_setup(self, state: State, orders: dict[str, Order]) -> tuple[State, list[Event]]:
        """D-3.5: accepted submissions are kept secret until both are in; ``max_rejections``
        refused submissions in a row forfeit (``setup_forfeit``; both at once: a draw)."""
        st = state.copy()
        events: list[Event] = []
        forfeit = []
        for p in PLAYERS:
            if p in st.submitted:
                continue
            o = orders.get(st.seat_of(p)) or Order("rejected")
            if o.kind == "setup":
                st.submitted[p] = dict(o.supers)
                st.setup_rejections[p] = 0
            else:
                st.setup_rejections[p] += 1
                events.append(Event("rejected", {"player": p, "count": st.setup_rejections[p]}))
                if st.setup_rejections[p] >= st.config.get("max_rejections", 3):
                    forfeit.append(p)
        if forfeit:
            winner = "draw" if len(forfeit) == 2 else other(forfeit[0])
            st.result = (winner, DadoedReason.SETUP_FORFEIT)
            st.phase = "over"
            events.append(Event("result", {"winner": winner, "reason": DadoedReason.SETUP_FORFEIT}))
            return st, events
        if len(st.submitted) == 2:
            for p in PLAYERS:
                for lb, pair in st.submitted[p].items():
                    st.bots[lb] = Bot(st.bots[lb].owner, st.bots[lb].tile, st.bots[lb].rooted, tuple(pair))
            st.phase = "play"
            events.append(Event("supers", {lb: list(st.bots[lb].super) for lb in sorted(st.bots)}))
            if not has_legal(st, st.active):
                st.result = (other(st.active), DadoedReason.NO_LEGAL_ORDER)
                st.phase = "over"
                events.append(Event("result", {"winner": st.result[0], "reason": DadoedReason.NO_LEGAL_ORDER}))
        return st, events

    # ---- observation (D-12) --------------------------------------------------------------------------
    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """The D-12.2 observation; identical for both seats except ``you`` and, before both setup
        submissions are accepted, the other player's supers (``null``)."""
        you = state.player_of(seat) if seat in state.seats else None
        bots = {}
        for lb in sorted(state.bots):
            b = state.bots[lb]
            sup = list(b.super) if b.super else None
            if state.phase == "setup" and you is not None and you in state.submitted and lb in state.submitted[you]:
                sup = list(state.submitted[you][lb])
            bots[lb] = {"owner": b.owner, "tile": tile_str(b.tile) if b.tile else None, "rooted": b.rooted,
                        "super": sup}
        cfg = state.config
        pool = {c.id: {"copies": c.copies, "left": state.left.get(c.id)} for c in state.pool.commands}
        if state.phase in ("over", "ending"):
            turn = state.turn
            active = None
        else:
            turn = state.turn + 1 if state.phase == "play" else 0
            active = state.active if state.phase == "play" else None
        return {
            "ruleset": "dadoed", "you": you, "phase": state.phase, "turn": turn, "active": active,
            "board": state.board_lines(),
            "holes": tiles_sorted(state.holes), "fire": tiles_sorted(state.fire),
            "boulders": tiles_sorted(state.boulders), "bots": bots,
            "reserves": {p: state.reserve(p) for p in PLAYERS},
            "pool": pool, "gold_refreshes": state.gold_refreshes,
            "super_allowed": state.phase == "play" and state.turn > 0,
            "clock": {"enabled": bool(cfg.get("clock_enabled", True)),
                      **{p: cfg.get("time_bank_s", 1800) for p in PLAYERS}},
            "rejections": state.rejections,
            "max_turns": cfg.get("max_turns", 200),
            "log": copy.deepcopy(list(state.log)),  # a bot may mutate its view; never the state
            "result": {"winner": state.result[0], "reason": state.result[1]} if state.result else None,
        }

    def outcome(self, state: State) -> Outcome | None:
        """D-8.5: winner ``blue``/``orange`` (as seats) or a draw, with the reason."""
        if state.result is None:
            return None
        w, reason = state.result
        s1, s2 = state.seats
        if w == "draw":
            return Outcome(None, {s1: 0.5, s2: 0.5}, reason, [[s1, s2]])
        ws = state.seat_of(w)
        ls = state.seat_of(other(w))
        return Outcome(ws, {ws: 1.0, ls: 0.0}, reason, [[ws], [ls]])

    def turn_number(self, state: State) -> int:
        """Turns played so far (the turn in which the game ended counts)."""
        return state.turn

    # ---- serialisation and tools ---------------------------------------------------------------------
    def state_json(self, state: State) -> dict[str, Any]:
        """The complete state, deterministic (sorted tiles and labels)."""
        return {
            "phase": state.phase, "turn": state.turn, "pool_source": state.pool.source,
            "holes": tiles_sorted(state.holes), "fire": tiles_sorted(state.fire),
            "boulders": tiles_sorted(state.boulders),
            "bots": {lb: {"owner": b.owner, "tile": tile_str(b.tile) if b.tile else None, "rooted": b.rooted,
                          "super": list(b.super) if b.super else None} for lb, b in sorted(state.bots.items())},
            "left": {c.id: state.left.get(c.id) for c in state.pool.commands},
            "gold_refreshes": state.gold_refreshes, "rejections": state.rejections,
            "setup_rejections": dict(sorted(state.setup_rejections.items())),
            "submitted": {p: {lb: list(v) for lb, v in sorted(s.items())} for p, s in sorted(state.submitted.items())},
            "result": list(state.result) if state.result else None,
            "pending_end": list(state.pending_end) if state.pending_end else None,
            "log": [dict(e) for e in state.log],
        }

    def render_text(self, state: State, seat: str | None = None) -> str:
        """The D-2.6 board plus bots (tile, rooted, super), reserves, pool left and the result."""
        from botwars.games.dadoed.report import render_state
        return render_state(self, state, seat)

    def svg(self, state: State, seat: str | None = None, events: list[Event] | None = None,
            names: dict[str, str] | None = None) -> str:
        """The board as an SVG string (issue 8), drawn from ``seat``'s observation (D-12.1: the
        opponent's supers stay hidden during setup). ``events``: the last decision point's events
        to highlight (``None``: those of the view's last log entry); ``names``: optional display
        names by seat. The pool's commands (public, D-4.2) are drawn as icons with their names.
        See :mod:`botwars.games.dadoed.svg`."""
        from botwars.games.dadoed.svg import dadoed_svg
        commands = {c.id: (c.name, c.colour) for c in state.pool.commands}
        return dadoed_svg(self.view(state, seat), events, seat, commands, names)

    def report(self, before: State, after: State, events: list[Event]) -> str:
        """``botwars replay --report``: the order of one decision, its events and the board after."""
        from botwars.games.dadoed.report import report
        return report(self, before, after, events)

    def check_board(self, text: str, source: str, entry: bool = False) -> list[str]:
        """``botwars board check --game dadoed``: a D-2.6 text board's problems."""
        return check_board_text(text, source)


def command_label(cid: str, tile, d, bot) -> str:
    """Short text of a command for error messages."""
    parts = [cid, tile_str(tile)]
    if d:
        parts.append(DIR_NAMES[d])
    if bot:
        parts.append(bot)
    return " ".join(parts)

