"""The submarine rule set (shared/rules/submarine.md, rules version 1): parameters, setup, order
parsing (S-4.3, S-12), resolution (delegated to :mod:`.engine`), views (:mod:`.view`), outcome.

Design of the secret setup (S-3.3): setup is the first decision point, with both seats pending at
once (simultaneous and secret). Each seat's view at that point holds only public facts (home rows,
first player), so neither can learn the other's choice; the accepted payloads are recorded like any
other order, so a record re-simulates from its header and orders alone. A refused setup counts as a
rejection and that seat alone is asked again; a seat with no accepted setup by its deadline (its
default order) forfeits (``setup_forfeit``).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from botwars.engine.codes import KernelReason, OnExpiry, RefusalCode
from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.events import SPECTATOR, Event, Outcome
from botwars.engine.ruleset import Param, Ruleset
from botwars.engine.timecontrol import TimeControl
from botwars.games.submarine import view as _view
from botwars.games.submarine.board import (ALL_SPACES, DIRS, NO_MINE, SUBS_OF, Space, dist, name, on_board,
                                           other, parse_space, step)
from botwars.games.submarine.engine import GameEnded, Resolver, SubmarineReason
from botwars.games.submarine.state import (ACTIONS, CATALOG, PASSIVE, SPECIALS, Action, Forfeit, Rejected,
                                           SetupOrders, SubState, TurnOrders)

PARAMS = (
    Param("board_size", int, 7, "Fixed: A-G x 1-7 (S-2.1)", minimum=7, maximum=7),
    Param("p1_home_row", str, "random", "Red's home row: 1, 7 or random (seeded coin flip, S-3.2)",
          choices=("1", "7", "random")),
    Param("first_player", str, "random", "Who moves first: Red, Blue or random (seeded coin flip after the home rows, S-3.2)",
          choices=("p1", "p2", "random")),
    Param("base_ap", int, 5, "AP per turn before passives (S-4.2)", minimum=0, maximum=100),
    Param("hp_max", int, 5, "Starting and maximum HP (S-2.6)", minimum=1, maximum=100),
    Param("catalog", str, "default", "The specials to choose from: the rules' nine (S-6.2)",
          choices=("default",)),
    Param("win_points", int, 50, "Points that win at the end of the owner's turn (S-7.5)", minimum=1, maximum=1_000_000),
    Param("announce_points", int, 25, "Score announced publicly once reached (S-7.2)", minimum=1, maximum=1_000_000),
    Param("ring_interval", int, 10, "Rounds between ring destructions (S-7.7)", minimum=1, maximum=10_000),
    Param("edge_damage", int, 1, "Damage per end of owner's turn on a destroyed space (S-7.7)", minimum=0, maximum=100),
    Param("turn_time_s", float, 90.0, "Seconds per turn before the reserve is used (S-7.8)", minimum=0.001, maximum=2_592_000),
    Param("reserve_time_s", float, 300.0, "Reserve for the whole game (S-7.8)", minimum=0, maximum=2_592_000),
    Param("setup_time_s", float, 300.0, "Setup deadline, not charged to the clock (S-3.3)", minimum=0.001, maximum=2_592_000),
    Param("clock_enabled", bool, True, "The rules' clock: a turn time and a reserve, running out loses (S-7.8); no: no time limit"),
    Param("max_actions", int, 30, "Most actions per order (S-4.3)", minimum=0, maximum=1000),
    Param("max_rejections", int, 3, "Refused orders per turn before the player loses (S-7.10)", minimum=1, maximum=1000),
    Param("max_rounds", int, 60, "Round cap: draw when this round ends (S-7.9)", minimum=1, maximum=10_000),
)

def _values(act: str) -> list[tuple[Any, Any]]:
    key = ACTIONS[act][1]
    if key == "dir":
        return [(d, d) for d in DIRS]
    if key == "space":
        return [(name(sp), sp) for sp in ALL_SPACES]
    if key == "special":
        return [(x, x) for x in SPECIALS if not (act == "nullify" and x == "nullify")]
    return [(None, None)]


#: Per action: the (JSON value, parsed value) pairs of its parameter, for :meth:`legal_actions`.
_PARAM_VALUES: dict[str, list[tuple[Any, Any]]] = {a: _values(a) for a in ACTIONS}

PARAM_KEY_NAMES = {"dir": "a direction N, E, S or W", "space": "a space A1..G7", "special": "a special id"}


def _bad(msg: str, part: Any = None, code: str = RefusalCode.MALFORMED) -> InvalidOrders:
    return InvalidOrders(msg, code=code, part=part)


def parse_text_orders(text: str) -> dict[str, Any]:
    """S-2.7 text notation → an S-12.2 payload. Actions are separated by ``;`` or new lines:
    ``"d move N; d submerge; c mine B4"``; ``"resign"`` resigns; ``""`` is the empty order."""
    items = [t.strip() for t in text.replace("\n", ";").split(";") if t.strip()]
    if items == ["resign"]:
        return {"type": "resign"}
    actions = []
    for i, it in enumerate(items):
        parts = it.split()
        if len(parts) not in (2, 3):
            raise _bad(f"action {i}: expected '<sub> <action> [<param>]', got {it!r}", it)
        a: dict[str, Any] = {"sub": parts[0], "action": parts[1]}
        if len(parts) == 3:
            spec = ACTIONS.get(parts[1])
            if spec is not None:  # unknown names are reported by the action check
                if spec[1] is None:
                    raise _bad(f"action {i}: {parts[1]!r} takes no parameter, got {parts[2]!r}", it)
                a[spec[1]] = parts[2]
        actions.append(a)
    return {"type": "orders", "actions": actions}


class SubmarineRuleset(Ruleset):
    """Submarine Warfare (shared/rules/submarine.md): two players, alternating AP turns, fog of war."""

    id = "submarine"
    name = "Submarine Warfare: hidden fleets, action points, specials"
    rules_version = 1
    params = PARAMS
    min_seats = 2
    max_seats = 2

    # ---- configuration and clock ----------------------------------------------------------
    def time_control(self, config: dict[str, Any]) -> TimeControl:
        """S-7.8: ``turn_time_s`` per turn plus ``reserve_time_s``; running out loses (``time``).
        With ``clock_enabled`` false: no limits (S-4.10)."""
        if not config["clock_enabled"]:
            return TimeControl()
        return TimeControl(float(config["turn_time_s"]), float(config["reserve_time_s"]), None, OnExpiry.LOSS)

    def clock_settings(self, per_turn_s: float) -> dict[str, Any]:
        """S-7.8, S-3.3: the preset's seconds per turn, and the same for the setup deadline;
        the reserve is three such turns, never less than the rules' 300 s (a newcomer read "24
        hours a turn, then a reserve of 5 minutes" under a daily clock as a trap: one late
        evening lost the game). Blitz keeps 300 s; daily gives 3 days; PBEM 15 days."""
        s = float(min(per_turn_s, 2_592_000))
        return {"turn_time_s": s, "setup_time_s": s, "reserve_time_s": float(min(max(300.0, 3 * s), 2_592_000))}

    def clock_exempt(self, state: SubState) -> float | None:
        """S-3.3, S-7.8: setup is not charged; it has its own deadline, ``setup_time_s``, never
        shorter than one turn of the match's clock (``turn_time_s``): a match of day-long
        turns does not lose a seat in a 300 s setup (issue 24 item 6)."""
        if state.phase != "setup":
            return None
        return max(float(state.config["setup_time_s"]), float(state.config["turn_time_s"]))

    def clock_view(self, view: dict[str, Any], bank_left: dict[str, float]) -> dict[str, Any]:
        """Put the live reserves (``bank_left``, seconds per seat) into the view's public
        ``clock`` (S-8.2, S-12.3); also inside a final observation's ``state``."""
        c = view.get("clock") if isinstance(view, dict) else None
        if isinstance(c, dict) and c.get("enabled"):
            for s in ("p1", "p2"):
                if s in bank_left:
                    c[f"{s}_reserve_s"] = round(float(bank_left[s]), 3)
        if isinstance(view, dict) and isinstance(view.get("state"), dict):
            self.clock_view(view["state"], bank_left)
        return view

    def agent_seed(self, seed: int, seat: str) -> int:
        """S-8.1: the match seed is hidden from the players, so each seat's agent gets a one-way
        derivation of it (a player that knew the match seed could re-run the opponent's seeded
        built-in bot and learn its hidden moves)."""
        h = hashlib.sha256(f"submarine-agent:{seed}:{seat}".encode()).hexdigest()
        return int(h[:12], 16)

    # ---- setup (S-3) ------------------------------------------------------------------------
    def setup(self, config: dict[str, Any], seats: list[str], seed: int) -> SubState:
        """S-3.2: home rows, then first player, from seeded coin flips where ``random``."""
        if list(seats) != ["p1", "p2"]:
            raise ConfigError(f"submarine needs the seats p1 and p2, got {list(seats)}")
        rng = random.Random(f"submarine:{seed}")
        h = config["p1_home_row"]
        p1_row = (1 if rng.random() < 0.5 else 7) if h == "random" else int(h)
        fp = config["first_player"]
        first = ("p1" if rng.random() < 0.5 else "p2") if fp == "random" else fp
        return SubState(("p1", "p2"), dict(config), "setup", {"p1": p1_row, "p2": 8 - p1_row}, first)

    def pending(self, state: SubState) -> list[str]:
        if state.phase == "setup":
            return [s for s in ("p1", "p2") if s not in state.setups and s not in state.forfeited]
        if state.phase == "play" and state.active:
            return [state.active]
        return []

    # ---- orders (S-4.3, S-12) ---------------------------------------------------------------
    def parse_orders(self, state: SubState, seat: str, payload: Any) -> SetupOrders | TurnOrders:
        """An S-12.1 setup, an S-12.2 order (also a bare action list or S-2.7 text), or a
        resignation. Raises :class:`InvalidOrders` naming the first problem; the check uses only
        the seat's own state (S-4.3, S-8.6), so a refusal never tells anything about the enemy."""
        if seat not in self.pending(state):
            raise _bad("it is not your turn to submit" if state.phase != "over" else "the game is over",
                       code=RefusalCode.ILLEGAL)
        if state.phase == "setup":
            return self.parse_setup(state, seat, payload)
        if isinstance(payload, str):
            payload = parse_text_orders(payload)
        elif isinstance(payload, list):
            payload = {"type": "orders", "actions": payload}
        if not isinstance(payload, dict):
            raise _bad("an order must be a JSON object {\"type\": \"orders\", \"actions\": [...]}")
        kind = payload.get("type")
        if kind == "resign":
            return TurnOrders(resign=True)
        if kind != "orders":
            raise _bad(f"unknown order type {kind!r} (expected 'orders' or 'resign')", kind)
        raw = payload.get("actions")
        if not isinstance(raw, list):
            raise _bad("'actions' must be a list")
        cfg = state.config
        if len(raw) > cfg["max_actions"]:
            raise _bad(f"{len(raw)} actions listed, at most {cfg['max_actions']} allowed", len(raw), "illegal")
        own = [s.letter for s in state.living(seat)]
        out = []
        total = 0
        for i, a in enumerate(raw):
            act = self._parse_action(i, a, own)
            total += ACTIONS[act.action][0]
            out.append(act)
        if total > state.ap:
            raise _bad(f"the actions cost {total} AP, you have {state.ap}", total, "illegal")
        return TurnOrders(tuple(out))

    @staticmethod
    def _parse_action(i: int, a: Any, own: list[str]) -> Action:
        if not isinstance(a, dict):
            raise _bad(f"action {i}: must be an object with 'sub' and 'action'", a)
        sub = a.get("sub")
        if not isinstance(sub, str) or sub not in own:
            raise _bad(f"action {i}: {sub!r} is not one of your living submarines "
                       f"({', '.join(own) or 'none'})", sub, "illegal")
        act = a.get("action")
        if not isinstance(act, str) or act not in ACTIONS:
            if isinstance(act, str) and act in PASSIVE:
                raise _bad(f"action {i}: {act!r} is a passive special, not an action", act)
            raise _bad(f"action {i}: unknown action {act!r} (known: {', '.join(ACTIONS)})", act)
        key = ACTIONS[act][1]
        param: Any = None
        if key is not None:
            v = a.get(key)
            if key == "dir":
                if not isinstance(v, str) or v.strip().upper() not in DIRS:
                    raise _bad(f"action {i}: {act} needs 'dir': {PARAM_KEY_NAMES['dir']}, got {v!r}", v)
                param = v.strip().upper()
            elif key == "space":
                param = parse_space(v)
                if param is None:
                    raise _bad(f"action {i}: {act} needs 'space': {PARAM_KEY_NAMES['space']}, got {v!r}", v)
            else:
                if v not in SPECIALS:
                    raise _bad(f"action {i}: {act} needs 'special', one of {', '.join(SPECIALS)}; got {v!r}", v)
                if act == "nullify" and v == "nullify":
                    raise _bad(f"action {i}: nullify cannot name nullify", v)
                param = v
        return Action(sub, act, param)

    def parse_setup(self, state: SubState, seat: str, payload: Any) -> SetupOrders:
        """S-3.3 / S-12.1: five distinct home-row spaces and five distinct specials."""
        if not isinstance(payload, dict) or payload.get("type") != "setup":
            raise _bad("expected a setup: {\"type\": \"setup\", \"placement\": {...}, \"specials\": {...}}")
        letters = SUBS_OF[seat]
        row = state.home_rows[seat]
        pl, sp = payload.get("placement"), payload.get("specials")
        if not isinstance(pl, dict) or sorted(map(str, pl)) != list(letters) or not all(isinstance(k, str) for k in pl):
            raise _bad(f"'placement' must give a space for each of {', '.join(letters)}", pl)
        if not isinstance(sp, dict) or sorted(map(str, sp)) != list(letters) or not all(isinstance(k, str) for k in sp):
            raise _bad(f"'specials' must give a special for each of {', '.join(letters)}", sp)
        placement: dict[str, Space] = {}
        for k in letters:
            s = parse_space(pl[k])
            if s is None or s[1] != row:
                raise _bad(f"placement of {k}: {pl[k]!r} is not a space of your home row {row}", pl[k])
            placement[k] = s
        if len(set(placement.values())) != 5:
            raise _bad("placement: two submarines on the same space")
        for k in letters:
            if sp[k] not in SPECIALS:
                raise _bad(f"special of {k}: unknown special {sp[k]!r} (known: {', '.join(SPECIALS)})", sp[k])
        if len(set(sp.values())) != 5:
            raise _bad("specials: two of your submarines have the same special")
        return SetupOrders(placement, {k: sp[k] for k in letters})

    def refusal_limit(self, state: SubState, seat: str) -> int:
        """S-4.3 / S-3.3: a refused submission may be resubmitted (the clock keeps running, S-7.8);
        S-7.10: after ``max_rejections`` refusals in one turn (or in set-up) the player loses."""
        return int(state.config["max_rejections"])

    def rejected_orders(self, state: SubState, seat: str, error: Any) -> Rejected:
        """S-7.10: the marker :meth:`resolve` treats as the loss (``refused``), or in set-up as a
        forfeit (S-3.3)."""
        return Rejected(getattr(error, "message", str(error)))

    def default_orders(self, state: SubState, seat: str) -> TurnOrders | Forfeit:
        """S-4.10: the empty action list; during setup, no accepted setup in time (S-3.3)."""
        if state.phase == "setup":
            return Forfeit()
        return TurnOrders(())

    def twin_state(self, state: SubState, seat: str | None, rng: random.Random) -> SubState:
        """A copy of ``state`` that differs from it only in facts hidden from ``seat`` (S-8.1): the
        enemy's submerged positions, every enemy HP, special, plate, ramming and per-turn flag, the
        enemy's mines, score (at least 25 once announced, S-7.2), rejection count and secret
        setup. ``seat`` None: both sides' hidden facts."""
        t = state.clone()
        enemies = ("p1", "p2") if seat is None else tuple(s for s in ("p1", "p2") if s != seat)
        occupied = {s.space for s in t.subs.values()}
        empty = [sp for sp in ALL_SPACES if sp not in occupied]
        rng.shuffle(empty)
        for e in enemies:
            for s in t.living(e):
                s.hp = rng.randint(1, 9)
                s.special = rng.choice(SPECIALS)
                s.plate = rng.random() < 0.5
                s.ramming = rng.random() < 0.5
                s.used_special = rng.random() < 0.5
                s.cancelled = rng.random() < 0.5
                if not s.surfaced and empty:
                    new = empty.pop()
                    empty.append(s.space)
                    s.space = new
            t.mines = {sp: o for sp, o in t.mines.items() if o != e}
            for sp in rng.sample(ALL_SPACES, rng.randint(0, 4)):
                if sp not in t.mines:
                    t.mines[sp] = e
            t.scores[e] = rng.randint(0, 49) if not t.announced[e] else rng.randint(25, 49)
            t.rejections[e] = rng.randint(0, 2)
            if e in t.setups:
                su = t.setups[e]
                t.setups[e] = SetupOrders(dict(reversed(list(su.placement.items()))), dict(su.specials))
        return t

    def legal_orders(self, state: SubState, seat: str) -> None:
        """Orders are lists of up to ``max_actions`` actions: not enumerated; see
        :meth:`legal_actions` for every single legal action."""
        return None

    def legal_actions(self, state: SubState, seat: str, useful: bool = False) -> list[dict[str, Any]]:
        """Every action (S-12.2 dict) that ``seat`` may list in its order now (S-4.3): its own
        living subs, known names, well-formed parameters, cost within its AP; empty when it is not
        that seat's turn. With ``useful`` true, only those that would also be valid at execution
        if run first (S-4.4, S-6.2 conditions, judged from the seat's own subs only, never from
        hidden state; an action into a hidden enemy stays listed). Any order made of listed
        actions whose costs sum to at most the AP is accepted."""
        if state.phase != "play" or state.active != seat:
            return []
        out: list[dict[str, Any]] = []
        mine = state.living(seat)
        for s in mine:
            for act, (cost, key) in ACTIONS.items():
                if cost > state.ap:
                    continue
                for v, raw in _PARAM_VALUES[act]:
                    if useful and not self._useful(state, s, act, raw, mine):
                        continue
                    d = {"sub": s.letter, "action": act}
                    if key is not None:
                        d[key] = v
                    out.append(d)
        return out

    @staticmethod
    def _useful(state: SubState, s: Any, act: str, v: Any, mine: list[Any]) -> bool:
        if s.cancelled:
            return False
        if act in CATALOG and (s.special != act or s.used_special or state.is_suppressed(s.owner, act)):
            return False
        if act == "move":
            return on_board(step(s.space, v))
        if act == "surface":
            return not s.surfaced
        if act == "submerge":
            return s.surfaced
        if act == "replace":
            return v != s.special and not any(o.special == v for o in mine if o is not s)
        if act in ("depth_charge", "mine", "heal"):
            sp = v
            if act == "depth_charge":
                return dist(s.space, sp) <= 3
            if act == "mine":
                return dist(s.space, sp) == 1 and sp not in NO_MINE
            return dist(s.space, sp) == 1 and any(o.space == sp for o in mine if o is not s)
        return True

    # ---- resolution ---------------------------------------------------------------------------
    def resolve(self, state: SubState, orders: dict[str, Any]) -> tuple[SubState, list[Event]]:
        """One decision point: the setup submissions, or the active player's whole turn (its
        actions, S-4.8, and the next turn's S-4.2). Never changes ``state``."""
        st = state.clone()
        r = Resolver(st)
        try:
            if st.phase == "setup":
                self._resolve_setup(st, r, orders)
            elif st.phase == "play":
                seat = st.active
                assert seat is not None
                o = orders.get(seat, TurnOrders(()))
                if isinstance(o, Rejected):  # S-7.10: out of refusals this turn
                    r.result(other(seat), KernelReason.REFUSED)
                elif isinstance(o, TurnOrders) and o.resign:
                    r.result(other(seat), KernelReason.RESIGN)
                else:
                    r.play_turn(o.actions if isinstance(o, TurnOrders) else ())
        except GameEnded:
            pass
        if r.evs:
            st.prev, st.last = st.last, tuple(r.evs)
            st.history = st.history + tuple(ev[0] for ev in r.evs)
        return st, kernel_events(r.evs)

    def _resolve_setup(self, st: SubState, r: Resolver, orders: dict[str, Any]) -> None:
        forfeited = list(st.forfeited)
        for seat in self.pending(st):
            o = orders.get(seat)
            if isinstance(o, SetupOrders):
                st.setups[seat] = o
            elif isinstance(o, Rejected):  # S-3.3 / S-7.10: out of refusals in set-up
                forfeited.append(seat)
            else:
                forfeited.append(seat)
        st.forfeited = tuple(sorted(forfeited))
        if st.forfeited and all(s in st.setups or s in st.forfeited for s in ("p1", "p2")):
            winners = [s for s in ("p1", "p2") if s not in st.forfeited]
            r.result(winners[0] if winners else None, SubmarineReason.SETUP_FORFEIT)
        if len(st.setups) == 2:
            st.rejections = {"p1": 0, "p2": 0}
            r.begin_game()

    # ---- views and outcome ---------------------------------------------------------------------
    def view(self, state: SubState, seat: str | None) -> dict[str, Any]:
        """The observation (S-12.3 / S-8.8 / S-12.5; setup: see docs/submarine.md)."""
        return _view.observation(state, seat)

    def outcome(self, state: SubState) -> Outcome | None:
        """S-7.11 result: winner seat (``None`` for a draw), both scores, the reason."""
        if state.result is None:
            return None
        w = state.result["winner"]
        winner = None if w == "draw" else w
        scores = {s: float(v) for s, v in state.result["scores"].items()}
        ranking = [["p1", "p2"]] if winner is None else [[winner], [other(winner)]]
        return Outcome(winner, scores, state.result["reason"], ranking)

    def timeout_outcome(self, state: SubState, seat: str, reason: str = KernelReason.TIME) -> Outcome:
        """S-7.8: ``seat`` ran out of time and loses at once; scores as they stand."""
        w = other(seat)
        return Outcome(w, {s: float(v) for s, v in state.scores.items()}, reason, [[w], [seat]])

    def state_json(self, state: SubState) -> dict[str, Any]:
        """The complete state (digests of records): every field of :class:`SubState` except the
        event lists, whose contents the record digests cover decision by decision; their lengths
        are included."""
        return {
            "phase": state.phase, "home_rows": state.home_rows, "first_player": state.first_player,
            "setups": {s: {"placement": {k: name(v) for k, v in o.placement.items()}, "specials": o.specials}
                       for s, o in sorted(state.setups.items())},
            "forfeited": list(state.forfeited), "rejections": state.rejections, "turn": state.turn,
            "active": state.active, "ap": state.ap,
            "subs": {k: {"owner": s.owner, "space": name(s.space), "hp": s.hp, "surfaced": s.surfaced,
                         "special": s.special, "plate": s.plate, "ramming": s.ramming,
                         "used_special": s.used_special, "cancelled": s.cancelled}
                     for k, s in sorted(state.subs.items())},
            "destroyed": state.destroyed, "mines": {name(k): v for k, v in sorted(state.mines.items())},
            "scores": state.scores, "announced": state.announced, "rings": state.rings,
            "suppressed": state.suppressed, "result": state.result,
            "events": [len(state.prev), len(state.last), len(state.history)],
        }

    def orders_json(self, orders: Any) -> Any:
        if isinstance(orders, SetupOrders):
            return {"type": "setup", "placement": {k: name(v) for k, v in orders.placement.items()},
                    "specials": dict(orders.specials)}
        if isinstance(orders, TurnOrders):
            if orders.resign:
                return {"type": "resign"}
            acts = []
            for a in orders.actions:
                d = {"sub": a.sub, "action": a.action}
                key = ACTIONS[a.action][1]
                if key is not None:
                    d[key] = name(a.param) if key == "space" else a.param
                acts.append(d)
            return {"type": "orders", "actions": acts}
        return None

    def render_text(self, state: SubState, seat: str | None = None) -> str:
        """S-2.8 rendering; ``seat`` None on a finished game shows everything."""
        return _view.render(state, seat)

    def svg(self, state: SubState, seat: str | None = None, events: list[Event] | None = None,
            names: dict[str, str] | None = None) -> str:
        """The board as an SVG string (issue 8) as ``seat`` (``None``: a spectator) may see it.

        Drawn only from :meth:`view` (the seat's observation, S-8) and from ``events`` filtered
        again for ``seat`` (S-8.4), never from the hidden state; ``events`` ``None``: the events of
        the observation. A finished game's drawing reveals everything (S-12.5, H22). ``names``:
        optional display names by seat (public), shown beside the colour names. See
        :mod:`botwars.games.submarine.svg`."""
        from botwars.engine.events import filter_events
        from botwars.games.submarine.svg import submarine_svg
        return submarine_svg(self.view(state, seat), None if events is None else filter_events(events, seat), names)

    def report(self, before: SubState, after: SubState, events: list[Event]) -> str:
        """``botwars replay --report``: the referee's account of one decision point (full forms,
        one readable line each, S-2.7 words), then the board with every sub (lower case:
        submerged). Only for records of ended matches, which are public; never sent to a
        player during the game."""
        from botwars.games.submarine.notation import history_text
        n = len(after.history) - len(before.history)
        lines = [f"turn {before.turn} ({before.active or 'setup'})"]
        lines += ["  " + history_text(e) for e in after.history[len(after.history) - n:]]
        lines.append(_view.render(after, None, reveal=True))
        return "\n".join(x for x in lines if x)

    def reveal_svg(self, state: SubState, events: list[Event]) -> str:
        """The board with every sub, mine and special shown (S-8.6: replays of finished games
        only; the caller guarantees the match has ended), with this step's events."""
        from botwars.games.submarine.svg import submarine_svg
        view = {"ruleset": "submarine", "you": None, "turn": state.turn, "round": state.round,
                "active": state.active, "home_rows": dict(state.home_rows), "setup": state.phase == "setup",
                "result": dict(state.result) if state.result else None, "state": _view.full_state(state)}
        return submarine_svg(view, list(events))




def kernel_events(evs: list[Any]) -> list[Event]:
    """Logical events → kernel :class:`Event` records: one public record when every recipient
    gets the same form, else one for the acting player and one for the other player and
    spectators (S-8.8) — a recipient with no form gets no record at all."""
    out: list[Event] = []
    from botwars.games.submarine.view import _copy
    for full, actor, aform, oform in evs:
        t = full["type"]
        aform, oform = _copy(aform), _copy(oform)
        if actor is None or aform == oform:
            if oform is not None:
                out.append(Event(t, {k: v for k, v in oform.items() if k != "type"}, None))
            continue
        if aform is not None:
            out.append(Event(t, {k: v for k, v in aform.items() if k != "type"}, frozenset({actor})))
        if oform is not None:
            out.append(Event(t, {k: v for k, v in oform.items() if k != "type"},
                             frozenset({other(actor), SPECTATOR})))
    return out
