"""Built-in DADOED bots. Each takes the D-12.2 view and returns a D-12.4 / D-12.5 order dict.

- ``random``: a uniformly random legal order (never resigns); random valid supers. Seeded
  from the match seed and seat.
- ``greedy``: looks one ply ahead: plays every legal order on a copy of the position and
  keeps the best by a material score (a win first; bots on the board and captured bots in
  the reserve; its own bots off the edges), ties broken by its seeded RNG.
- ``mcts``: Monte Carlo tree search (:mod:`botwars.games.dadoed.search`), 48 simulations a move.
"""

from __future__ import annotations

import random as _random
from typing import Any

from botwars.games.dadoed.board import SIZE, parse_tile
from botwars.games.dadoed.engine import Bot, Order, State, apply_order, final_result, iter_legal, other
from botwars.games.dadoed.pool import load_pool

DEFAULT_CONFIG = {"pool": "default", "max_turns": 200, "max_rejections": 3, "blast_radius": 1,
                  "clock_enabled": True, "time_bank_s": 1800, "increment_s": 30, "setup_time_s": 300}


def state_from_view(view: dict[str, Any], config: dict[str, Any]) -> State:
    """Rebuild a playable :class:`State` from a public view (everything is public, D-12.1).

    The log is left empty. ``config`` supplies the pool and the limits.
    """
    pool = load_pool(config.get("pool", "default"))
    bots = {}
    for lb, b in view["bots"].items():
        sup = tuple(b["super"]) if b.get("super") else None
        bots[lb] = Bot(b["owner"], parse_tile(b["tile"]) if b["tile"] else None, bool(b["rooted"]), sup)
    left = {cid: c["left"] for cid, c in view["pool"].items()}
    phase = view.get("phase", "play")
    turn = max(0, int(view["turn"]) - 1) if phase == "play" else int(view["turn"])
    st = State(("blue", "orange"), dict(config), pool, phase, turn,
               {parse_tile(t) for t in view["holes"]}, {parse_tile(t) for t in view["fire"]},
               {parse_tile(t) for t in view["boulders"]}, bots, left, int(view.get("gold_refreshes", 0)),
               int(view.get("rejections", 0)))
    return st


class DadoedBot:
    """Base class: ``start`` keeps the config and seeds the RNG; ``act(view)`` returns an order."""

    supers_choice: tuple[tuple[str, str], tuple[str, str]] = (("charge", "spread_fire"), ("dash", "nudge_boulder"))

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        self.config = {**DEFAULT_CONFIG, **config}
        self.rng = _random.Random(f"{seed}:{seat}:{type(self).__name__}")

    def ensure(self) -> None:
        if not hasattr(self, "config"):
            self.start("dadoed", "blue", {}, 0)

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.ensure()
        if view.get("phase") == "setup":
            return self.setup(view)
        st = state_from_view(view, self.config)
        return self.choose(st, view["you"])

    def setup(self, view: dict[str, Any]) -> dict[str, Any]:
        """Assign this bot's preferred supers (falling back to any valid ones for a custom pool)."""
        me = view["you"]
        mine = sorted(lb for lb, b in view["bots"].items() if b["owner"] == me)
        pool = load_pool(self.config.get("pool", "default"))
        ids = pool.ids()
        blue = [c.id for c in pool.commands if c.colour == "blue"]
        prefs = list(self.supers_choice)
        used: set[str] = set()
        firsts = []
        for i, lb in enumerate(mine):  # distinct blue firsts first (D-3.4a, c)
            want = prefs[i][0] if i < len(prefs) else None
            first = want if want in blue and want not in used else next((c for c in blue if c not in used), blue[0])
            used.add(first)
            firsts.append(first)
        out = {}
        for i, lb in enumerate(mine):
            want = prefs[i][1] if i < len(prefs) else None
            second = want if want in ids and want not in used else next((c for c in ids if c not in used), ids[0])
            used.add(second)
            out[lb] = [firsts[i], second]
        return {"type": "setup", "supers": out}

    def choose(self, st: State, me: str) -> dict[str, Any]:
        raise NotImplementedError


class RandomBot(DadoedBot):
    """A uniformly random legal order (never resigns unless nothing else is legal)."""

    def setup(self, view: dict[str, Any]) -> dict[str, Any]:
        me = view["you"]
        mine = sorted(lb for lb, b in view["bots"].items() if b["owner"] == me)
        pool = load_pool(self.config.get("pool", "default"))
        blue = [c.id for c in pool.commands if c.colour == "blue"]
        ids = pool.ids()
        for _ in range(100):
            used: set[str] = set()
            out = {}
            for lb in mine:
                first = self.rng.choice([c for c in blue if c not in used] or blue)
                used.add(first)
                second = self.rng.choice([c for c in ids if c not in used] or ids)
                used.add(second)
                out[lb] = [first, second]
            if len(used) == 2 * len(mine):
                return {"type": "setup", "supers": out}
        return super().setup(view)

    def choose(self, st: State, me: str) -> dict[str, Any]:
        legal = list(iter_legal(st, me))
        if not legal:
            return {"type": "resign"}
        return self.rng.choice(legal).payload()


def score(st: State, me: str) -> float:
    """Greedy's evaluation of a position for ``me`` (higher is better)."""
    res = final_result(st)
    if res is not None:
        w = res[0]
        return 0.0 if w == "draw" else (1e6 if w == me else -1e6)
    opp = other(me)
    s = 0.0
    for b in st.bots.values():
        sign = 1 if b.owner == me else -1
        if b.tile is None:
            s += 40 * sign  # a bot in one's reserve is a capture
            continue
        s += 100 * sign
        c, r = b.tile
        edge = c in (0, SIZE - 1) or r in (0, SIZE - 1)
        if b.owner == me:
            s -= 6 if edge else 0
            s -= 4 * sum(1 for t in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)) if t in st.holes or t in st.fire)
            s += 3 if b.rooted else 0
    return s


class GreedyBot(DadoedBot):
    """One-ply lookahead: the legal order whose resulting position scores best (:func:`score`)."""

    def choose(self, st: State, me: str) -> dict[str, Any]:
        legal = list(iter_legal(st, me))
        if not legal:
            return {"type": "resign"}
        spent_before = sum(v for v in st.left.values() if v is not None)
        best: list[Order] = []
        best_score = None
        for o in legal:
            after, _ = apply_order(st, o, log=False)
            sc = score(after, me)
            if final_result(after) is None:
                # keep single-use copies for later: prefer supers and repeatable commands
                sc -= 0.5 * (spent_before - sum(v for v in after.left.values() if v is not None))
            if best_score is None or sc > best_score + 1e-9:
                best, best_score = [o], sc
            elif abs(sc - best_score) <= 1e-9:
                best.append(o)
        return self.rng.choice(best).payload()



BUILTIN = {"random": RandomBot, "greedy": GreedyBot}
