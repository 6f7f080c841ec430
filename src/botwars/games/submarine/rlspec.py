"""Submarine's encoding for learning environments (``botwars.rl``, docs/rl.md).

Observation of a seat, from its own view (S-12.3, S-8) only — the fog of war is the view's:

- ``board``: ``float32`` planes ``(7, 7, 7)`` indexed ``[plane, row - 1, column]`` (A = 0):
  0 own subs, 1 own subs' HP / ``hp_max``, 2 own surfaced subs, 3 enemy subs the seat sees, 4 own mines,
  5 destroyed spaces, 6 the seat's home row.
- ``vector``: ``float32`` ``(6,)``: set-up phase, the seat's turn, AP left after the actions
  chosen so far / (``base_ap`` + 1, the most AP a turn gives, S-4.2), score / ``win_points``
  (S-7.5), opponent announced ``announce_points`` (S-7.2), actions chosen / ``max_actions``.
  Every scale comes from the match's parameters.
- ``subs``: ``float32`` ``(5, 2 + S)``: the seat's subs in letter order: alive, plate, and the
  special held (one-hot over the ``S`` specials of the catalog, S-6.2).

Actions (``Discrete``): 0 wait; set-up (S-3.3, ten sub-steps, sub by sub): ``1 + col`` places the
sub on column ``col`` of the home row, ``8 + s`` gives it special ``s`` (the mask keeps columns
and specials distinct); play: ``END`` (= 17) submits the action list chosen so far (S-4.3), and
``18 + sub * A + k`` appends action ``k`` of the table :data:`ACTION_TABLE` for the seat's sub
number ``sub`` (move N E S W, surface, submerge, replace by each special, torpedo N E S W,
depth charge / mine / heal on each of the 49 spaces, sonar, nullify each special but nullify).
The mask allows what S-4.3 accepts: the seat's living subs, at most ``max_actions`` actions,
total AP within the seat's AP. Actions of specials the sub does not hold are legal (skipped at
execution, S-4.5) and left in the mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.games.submarine.state import ACTIONS, SPECIALS

COLS = "ABCDEFG"
SPACES = [f"{c}{r}" for r in range(1, 8) for c in COLS]


def _table() -> list[tuple[str, str | None, Any]]:
    out: list[tuple[str, str | None, Any]] = []
    for name, (_, key) in ACTIONS.items():
        if key is None:
            out.append((name, None, None))
        elif key == "dir":
            out += [(name, "dir", d) for d in "NESW"]
        elif key == "space":
            out += [(name, "space", s) for s in SPACES]
        elif key == "special":
            out += [(name, "special", s) for s in SPECIALS if not (name == "nullify" and s == "nullify")]
    return out


ACTION_TABLE = _table()
"""Per-sub actions: ``(name, parameter key, value)``."""
A = len(ACTION_TABLE)
END = 17
BASE = 18
_COST = np.array([ACTIONS[n][0] for n, _, _ in ACTION_TABLE], dtype=np.int64)


def _space(text: Any) -> tuple[int, int] | None:
    if not isinstance(text, str) or len(text) != 2 or text[0] not in COLS or text[1] not in "1234567":
        return None
    return COLS.index(text[0]), int(text[1]) - 1


class SubmarineSpec:
    """Submarine's encoding for one configuration (``config`` validated)."""

    def __init__(self, rules: Any, config: dict[str, Any], seats: list[str]):
        self.config = config
        self.seats = list(seats)
        self.max_actions = int(config.get("max_actions", 30))
        self.hp_max = max(1, int(config.get("hp_max", 5)))
        self.ap_max = max(1, int(config.get("base_ap", 5)) + 1)   # + Overclock's 1 AP (S-4.2, S-6.2)
        self.win_points = max(1, int(config.get("win_points", 50)))
        self.letters = {seats[0]: "abcde", seats[1]: "vwxyz"}
        self.nvec = (BASE + 5 * A,)
        self.obs_space = {"board": ((7, 7, 7), 0.0, 1.0, "float32"), "vector": ((6,), 0.0, 1.0, "float32"),
                          "subs": ((5, 2 + len(SPECIALS)), 0.0, 1.0, "float32")}

    def _ap_left(self, view: dict[str, Any], partial: tuple[int, ...]) -> int:
        spent = sum(int(_COST[(a - BASE) % A]) for a in partial if a >= BASE)
        return int(view.get("ap") or 0) - spent

    def observe(self, view: dict[str, Any], partial: tuple[int, ...]) -> dict[str, np.ndarray]:
        board = np.zeros((7, 7, 7), dtype=np.float32)
        subs = np.zeros((5, 2 + len(SPECIALS)), dtype=np.float32)
        letters = self.letters.get(view.get("you"), "abcde")
        own = view.get("own_subs") or {}
        for j, lt in enumerate(letters):
            s = own.get(lt)
            if not s:
                continue
            subs[j, 0] = 1
            subs[j, 1] = float(bool(s.get("plate")))
            if s.get("special") in SPECIALS:
                subs[j, 2 + SPECIALS.index(s["special"])] = 1
            t = _space(s.get("space"))
            if t is not None:
                board[0, t[1], t[0]] = 1
                board[1, t[1], t[0]] = min(1.0, s.get("hp", 0) / self.hp_max)
                board[2, t[1], t[0]] = float(bool(s.get("surfaced")))
        for sp in (view.get("visible_enemy_subs") or {}).values():
            t = _space(sp)
            if t is not None:
                board[3, t[1], t[0]] = 1
        for plane, key in ((4, "own_mines"), (5, "destroyed_spaces")):
            for sp in view.get(key) or []:
                t = _space(sp)
                if t is not None:
                    board[plane, t[1], t[0]] = 1
        row = view.get("home_row") or (view.get("home_rows") or {}).get(view.get("you"))   # set-up / play
        if isinstance(row, int) and 1 <= row <= 7:
            board[6, row - 1, :] = 1
        other = [s for s in self.seats if s != view.get("you")]
        ann = view.get("announced_25") or {}
        vec = np.array([float(bool(view.get("setup"))), float(view.get("active") == view.get("you")),
                        max(0, self._ap_left(view, partial)) / self.ap_max,
                        (view.get("score") or 0) / self.win_points,
                        float(bool(other and ann.get(other[0]))), len(partial) / max(1, self.max_actions)],
                       dtype=np.float32)
        return {"board": board, "vector": np.clip(vec, 0, 1), "subs": subs}

    def mask(self, view: dict[str, Any], partial: tuple[int, ...], legal: Any) -> np.ndarray:
        m = np.zeros(self.nvec[0], dtype=np.int8)
        if view.get("setup"):
            if len(partial) % 2 == 0:
                used = {a - 1 for a in partial[0::2]}
                for c in range(7):
                    if c not in used:
                        m[1 + c] = 1
            else:
                used = {a - 8 for a in partial[1::2]}
                for s in range(len(SPECIALS)):
                    if s not in used:
                        m[8 + s] = 1
            return m
        m[END] = 1
        if len(partial) >= self.max_actions:
            return m
        ap = self._ap_left(view, partial)
        ok = (_COST <= ap).astype(np.int8)
        own = view.get("own_subs") or {}
        letters = self.letters.get(view.get("you"), "abcde")
        for j, lt in enumerate(letters):
            if lt in own:
                m[BASE + j * A:BASE + (j + 1) * A] = ok
        return m

    def decide(self, view: dict[str, Any], partial: tuple[int, ...], action: Any,
               legal: Any) -> tuple[tuple[int, ...], Any]:
        a = int(np.asarray(action).reshape(-1)[0])
        letters = self.letters.get(view.get("you"), "abcde")
        if view.get("setup"):
            partial = partial + (a,)
            if len(partial) < 10:
                return partial, None
            row = view.get("home_row")
            place = {letters[j]: f"{COLS[partial[2 * j] - 1]}{row}" for j in range(5)}
            specials = {letters[j]: SPECIALS[partial[2 * j + 1] - 8] for j in range(5)}
            return (), {"type": "setup", "placement": place, "specials": specials}
        if a != END:
            return partial + (a,), None
        actions = []
        for x in partial:
            j, k = divmod(x - BASE, A)
            name, key, value = ACTION_TABLE[k]
            act: dict[str, Any] = {"sub": letters[j], "action": name}
            if key is not None:
                act[key] = value
            actions.append(act)
        return (), {"type": "orders", "actions": actions}

    def robot_actions(self, view: dict[str, Any]) -> int:
        return 1


def make(rules: Any, config: dict[str, Any], seats: list[str]) -> SubmarineSpec:
    """The ``rl`` hook of submarine's plug-in declaration."""
    return SubmarineSpec(rules, config, seats)


# ---- the vector environment's wrapper of the batched engine (issue 29 item 3) -------------------
def _table_codes() -> tuple[np.ndarray, np.ndarray]:
    from botwars.games.submarine.batch import ACTION_NAMES
    acts, pars = [], []
    for name, key, value in ACTION_TABLE:
        acts.append(ACTION_NAMES.index(name))
        if key == "dir":
            pars.append("NESW".index(value))
        elif key == "space":
            pars.append(SPACES.index(value))      # (col - 1) + 7 * (row - 1), the engine's space index
        elif key == "special":
            pars.append(SPECIALS.index(value))
        else:
            pars.append(0)
    return np.array(acts, dtype=np.int64), np.array(pars, dtype=np.int64)


class SubmarineBatch:
    """The batched engine (:class:`~botwars.games.submarine.batch.BatchSubmarine`, ``n`` matches)
    for :class:`botwars.rl.vector.BatchVectorEnv`: the learner is ``p1`` (``seats[0]``, subs
    a-e) and makes one decision per vector step in :class:`SubmarineSpec`'s encoding (its ten
    set-up picks, then its action list one action at a time, ``END`` playing the turn); the
    opponent, ``p2``, plays whole set-ups and turns inside the step that hands it the move,
    so every observation is the learner's own decision point. It is the ``vector`` hook of the
    ``numpy`` engine submarine declares.

    Observations and masks are :meth:`SubmarineSpec.observe` / :meth:`SubmarineSpec.mask` of the
    learner's view, stacked (a test compares them with the referee's view); the final
    observation is all zeros, as the scalar encoding of the S-12.5 view. Opponents: ``"random"``
    (:meth:`random_actions` hands the generator over: uniform set-ups and
    :meth:`BatchSubmarine.random_orders` turns) and ``"idle"`` (a fixed set-up, columns 1-5 and
    the first five specials, then empty orders, S-4.10); a callable opponent is refused
    (``ValueError``): it would need one decision per sub-step of its own turns. Match seeds
    (S-3.2's coin flips) are ``seed``, ``seed + 1``, ... from :meth:`seed` (default 0), one per
    match started. Every method is a whole-array operation over the batch (the only loops run
    over the rows of an action list inside the engine)."""

    def __init__(self, spec: SubmarineSpec, engine: Any):
        from botwars.games.submarine.batch import coin_flips
        self.spec = spec
        self.engine = engine
        self.n = n = engine.n
        self._flips = coin_flips
        self._tab_act, self._tab_par = _table_codes()
        self._next_seed = 0
        self.seeds = np.zeros(n, dtype=np.int64)
        self.setup = np.ones(n, dtype=bool)
        self.picks = np.zeros((n, 10), dtype=np.int64)
        self.plen = np.zeros(n, dtype=np.int64)          # picks or actions chosen so far
        self.partial = np.zeros((n, max(1, spec.max_actions)), dtype=np.int64)
        self.home_row = np.ones(n, dtype=np.int64)
        self.first = np.zeros(n, dtype=np.int64)
        self._rng: np.random.Generator | None = None
        self.opponent_orders = np.full((n, 1, 3), -1, dtype=np.int64)
        """The opponent's last orders per match (``(n, K, 3)``, engine rows; for tests and logs)."""
        self.opponent_setups = (np.zeros((n, 10), np.int64), np.zeros((n, 10), np.int64))
        """The opponent's set-ups ``(cols, specials)``, engine layout (columns 5-9 are p2's)."""

    def seed(self, seed: int) -> None:
        """Match seeds of the following starts: ``seed``, ``seed + 1``, ..."""
        self._next_seed = int(seed)

    def reset(self, which: np.ndarray | None = None) -> None:
        """Every match (``which=None``) or the marked ones back to the learner's set-up, with the
        next match seeds (S-3.2 coin flips now: the home row is in the first observation)."""
        w = np.ones(self.n, bool) if which is None else np.array(which, bool)
        idx = np.flatnonzero(w)
        self.seeds[idx] = self._next_seed + np.arange(len(idx))
        self._next_seed += len(idx)
        flips = [self._flips(int(s), self.engine.config) for s in self.seeds[idx]]
        self.home_row[idx] = [f[0] for f in flips]
        self.first[idx] = [f[1] for f in flips]
        self.setup[idx] = True
        self.plen[idx] = 0
        self.picks[idx] = 0

    @property
    def over(self) -> np.ndarray:
        return self.engine.over & ~self.setup

    def _ap_left(self) -> np.ndarray:
        k = np.arange(self.partial.shape[1])[None, :] < self.plen[:, None]
        cost = _COST[(self.partial - BASE) % A]
        return self.engine.ap - np.where(k & ~self.setup[:, None], cost, 0).sum(1)

    def observe(self, player: int) -> dict[str, np.ndarray]:
        """The learner's (``player`` 1) observations ``board`` ``(n, 7, 7, 7)``, ``vector``
        ``(n, 6)``, ``subs`` ``(n, 5, 11)`` and ``action_mask`` ``(n, 898)``; raises
        ``ValueError`` for player 2 (the opponent is played inside the step)."""
        if player != 1:
            raise ValueError("submarine's vector env observes the learner (player 1) only")
        e, n, sp = self.engine, self.n, self.spec
        play = ~self.setup & ~e.over
        live = e.alive[:, :5] & play[:, None]
        g, j = np.nonzero(live)
        board = np.zeros((n, 7, 7, 7), dtype=np.float32)
        r, c = e.row[g, j] - 1, e.col[g, j] - 1
        board[g, 0, r, c] = 1
        board[g, 1, r, c] = np.minimum(1.0, e.hp[g, j] / sp.hp_max)
        board[g, 2, r, c] = e.surfaced[g, j]
        ge, je = np.nonzero(e.alive[:, 5:] & e.surfaced[:, 5:] & play[:, None])
        board[ge, 3, e.row[ge, je + 5] - 1, e.col[ge, je + 5] - 1] = 1
        board[:, 4] = ((e.mines[:, 1:8, 1:8] == 1) & play[:, None, None]).transpose(0, 2, 1)
        from botwars.games.submarine.batch import _RING
        board[:, 5] = ((_RING[None, 1:8, 1:8] <= e.rings[:, None, None]) & play[:, None, None]).transpose(0, 2, 1)
        hr = ~e.over | self.setup
        board[np.flatnonzero(hr), 6, self.home_row[hr] - 1, :] = 1
        subs = np.zeros((n, 5, 2 + len(SPECIALS)), dtype=np.float32)
        subs[:, :, 0] = live
        subs[:, :, 1] = e.plate[:, :5] & live
        subs[g, j, 2 + e.special[g, j]] = 1
        plen = np.where(e.over & ~self.setup, 0, self.plen)
        vec = np.stack([self.setup.astype(np.float32), play.astype(np.float32),
                        np.where(play, np.maximum(0, self._ap_left()), 0) / sp.ap_max,
                        np.where(play, e.scores[:, 0], 0) / sp.win_points,
                        (play & e.announced[:, 1]).astype(np.float32),
                        plen / max(1, sp.max_actions)], axis=1).astype(np.float32)
        return {"board": board, "vector": np.clip(vec, 0, 1), "subs": subs, "action_mask": self._mask()}

    def _mask(self) -> np.ndarray:
        e, n = self.engine, self.n
        m = np.zeros((n, self.spec.nvec[0]), dtype=np.int8)
        g = np.flatnonzero(self.setup)
        if len(g):
            cols = self.plen[g] % 2 == 0
            ks = np.arange(10)[None, :] < self.plen[g, None]
            used_c = np.zeros((len(g), 7), bool)
            used_s = np.zeros((len(g), len(SPECIALS)), bool)
            pk = self.picks[g]
            gi, ki = np.nonzero(ks & (np.arange(10)[None, :] % 2 == 0))
            used_c[gi, pk[gi, ki] - 1] = True
            gi, ki = np.nonzero(ks & (np.arange(10)[None, :] % 2 == 1))
            used_s[gi, pk[gi, ki] - 8] = True
            m[g, 1:8] = cols[:, None] & ~used_c
            m[g, 8:8 + len(SPECIALS)] = ~cols[:, None] & ~used_s
        play = ~self.setup & ~e.over
        m[:, END] = play
        room = play & (self.plen < self.spec.max_actions)
        ok = (_COST[None, :] <= self._ap_left()[:, None])            # (n, A)
        per = ok[:, None, :] & (e.alive[:, :5] & room[:, None])[:, :, None]
        m[:, BASE:] = per.reshape(n, -1)
        return m

    def random_actions(self, rng: np.random.Generator, player: int) -> np.ndarray:
        """Player 1: uniform over its masks, ``(n, 1)``. Player 2 (the opponent): hands ``rng``
        to the step, which draws the opponent's set-ups and whole turns from it when they come
        (its orders can only be drawn once the learner's turn is played); returns ``(n, 1)`` of
        ``-1`` (no sub-step action)."""
        if player == 2:
            self._rng = rng
            return np.full((self.n, 1), -1, dtype=np.int64)
        m = self._mask()
        u = rng.random(m.shape, dtype=np.float32)
        u[m == 0] = -1.0
        return np.argmax(u, axis=1).astype(np.int64)[:, None]

    def legal(self, actions: np.ndarray, player: int) -> np.ndarray:
        """Per match: is the learner's action allowed by its mask?"""
        a = np.asarray(actions).reshape(self.n, -1)[:, 0]
        ok = (a >= 0) & (a < self.spec.nvec[0])
        return ok & (self._mask()[np.arange(self.n), np.clip(a, 0, self.spec.nvec[0] - 1)] == 1)

    def step(self, actions: dict[int, np.ndarray], live: np.ndarray | None = None) -> None:
        """One learner decision in every ``live`` match (``actions[1]`` ``(n, 1)``; 0, never
        allowed to the learner, plays the default action: the mask's first allowed one, as in
        the scalar environments), then the opponent's whole set-up or turns where it has the move
        (``actions[2]``: ``-1`` from :meth:`random_actions`, or 0 for ``"idle"``; anything else
        raises ``ValueError``)."""
        e, n = self.engine, self.n
        live = np.ones(n, bool) if live is None else np.asarray(live, bool).copy()
        live &= ~self.over
        opp = np.asarray(actions.get(2, 0)).reshape(n, -1)[:, 0] if np.ndim(actions.get(2, 0)) else np.full(n, actions.get(2, 0))
        if (opp[live] > 0).any() or ((opp[live] < 0).any() and self._rng is None):
            raise ValueError("submarine's vector env plays its opponent's whole turns: use opponent "
                             "'random' or 'idle', not a callable")
        randomly = opp < 0
        a = np.asarray(actions[1]).reshape(n, -1)[:, 0].copy()
        m = self._mask()
        first = np.argmax(m, axis=1)
        a = np.where(a == 0, first, a)
        # set-up picks
        s = live & self.setup
        gs = np.flatnonzero(s)
        self.picks[gs, self.plen[gs]] = a[gs]
        self.plen[gs] += 1
        done = s & (self.plen >= 10)
        if done.any():
            cols = np.zeros((n, 10), np.int64)
            sps = np.zeros((n, 10), np.int64)
            cols[:, :5] = self.picks[:, 0::2]
            sps[:, :5] = self.picks[:, 1::2] - 8
            cols[:, 5:] = np.arange(1, 6)
            sps[:, 5:] = np.arange(5)
            if (done & randomly).any():
                assert self._rng is not None
                rc, rs = e.random_setups(self._rng)
                pick = randomly[:, None]
                cols[:, 5:] = np.where(pick, rc[:, 5:], cols[:, 5:])
                sps[:, 5:] = np.where(pick, rs[:, 5:], sps[:, 5:])
            self.opponent_setups[0][done], self.opponent_setups[1][done] = cols[done], sps[done]
            e.reset(self.seeds, cols, sps, which=done)
            self.setup[done] = False
            self.plen[done] = 0
            self._opponent_turns(done & (e.active == 1), randomly)
        # action list
        p = live & ~s
        add = p & (a != END)
        ga = np.flatnonzero(add)
        self.partial[ga, self.plen[ga]] = a[ga]
        self.plen[ga] += 1
        end = p & (a == END)
        if end.any():
            k = self.partial.shape[1]
            x = self.partial - BASE
            j, t = x // A, x % A
            used = (np.arange(k)[None, :] < self.plen[:, None]) & end[:, None]
            orders = np.stack([np.where(used, j, -1), self._tab_act[t], self._tab_par[t]], axis=2)
            e.play_turn(orders, live=end)
            self.plen[end] = 0
            self._opponent_turns(end & ~e.over, randomly)

    def _opponent_turns(self, which: np.ndarray, randomly: np.ndarray) -> None:
        e = self.engine
        if not which.any():
            return
        if (which & randomly).any():
            assert self._rng is not None
            orders = e.random_orders(self._rng)
            orders[~randomly, :, 0] = -1
        else:
            orders = np.full((self.n, 1, 3), -1, dtype=np.int64)
        self.opponent_orders = orders
        e.play_turn(orders, live=which)

    def rewards(self, player: int) -> np.ndarray:
        """+1 / -1 / 0 (draw) for ``player`` in the matches that are over (S-7.11), 0 elsewhere."""
        w = self.engine.winner
        me = player - 1
        r = np.where(w == me, 1.0, np.where((w == 1 - me), -1.0, 0.0))
        return np.where(self.over, r, 0.0).astype(np.float32)

    def robots(self, player: int) -> np.ndarray:
        """One decision per match and step."""
        return np.ones(self.n, dtype=np.int64)
