"""A batched submarine engine: many matches resolved at once with NumPy arrays (issue 29 item 3).

The reference engine (:mod:`botwars.games.submarine.engine`) resolves one match at a time through
the kernel contract; this module plays ``n`` matches together for throughput (learning
environments, bulk simulation, benchmarks). It implements the same rules —
shared/rules/submarine.md S-3.4, S-4.2 to S-4.9, §5, §6, S-7.1 to S-7.7 and S-7.9 — as whole-array
operations over the batch: the loops run over the *position in the action list* (at most
``max_actions``), over the links of one collision chain and over the three squares of a torpedo
run, never over matches. ``tests/submarine/test_submarine_batch.py`` plays seeded random legal
orders through this engine and through the referee and compares every sub, mine, score, window
and result after every turn.

What it does not do (the referee's part, never a silent difference): it keeps no clock (S-7.8:
the learning environments run with the clock off), takes no resignation and no refused order
(S-7.10: orders given to :meth:`BatchSubmarine.play_turn` must be valid at submission, S-4.3;
:meth:`BatchSubmarine.check_orders` says which are not), emits no events (S-12.4; the state is
the same, the event texts are not built) and takes both setups at once (S-3.3: no forfeit).

Encodings (all ``(n, ...)`` arrays, ``n`` matches):

- subs are indexed 0-9 = letters ``a``-``e`` (seat 0, ``p1``) then ``v``-``z`` (seat 1, ``p2``);
  a space is ``(col, row)``, both 1..7 (S-2.1);
- specials are indices into :data:`SPECIALS` (S-6.2 order: torpedo, depth_charge, sonar, mine,
  heal, nullify, armor, ram, overclock);
- an order is an ``int64`` array ``(n, K, 3)`` of ``(sub, action, param)`` rows, ``sub = -1``
  for an unused row; ``action`` indexes :data:`ACTION_NAMES` (move, surface, submerge, replace,
  then the six active specials); ``param`` is a direction 0-3 (N, E, S, W) for move/torpedo, a
  space index ``(col - 1) + 7 * (row - 1)`` for depth_charge/mine/heal, a special index for
  replace/nullify, and ignored otherwise.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from botwars.engine.errors import ConfigError
from botwars.games.submarine.state import ACTIONS, CATALOG, SPECIALS

SIZE = 7
NSUB = 10
#: Action codes of an order row (S-4.4 default actions, then S-6.2's active specials).
ACTION_NAMES: tuple[str, ...] = ("move", "surface", "submerge", "replace",
                                 "torpedo", "depth_charge", "sonar", "mine", "heal", "nullify")
MOVE, SURFACE, SUBMERGE, REPLACE, TORPEDO, DEPTH_CHARGE, SONAR, MINE, HEAL, NULLIFY = range(10)
#: AP cost per action code (S-4.4, S-6.2).
COST = np.array([ACTIONS[a][0] for a in ACTION_NAMES], dtype=np.int64)
#: Special index per action code (-1: a default action).
ACTION_SPECIAL = np.array([SPECIALS.index(a) if a in CATALOG else -1 for a in ACTION_NAMES], dtype=np.int64)
ARMOR, RAM, OVERCLOCK = SPECIALS.index("armor"), SPECIALS.index("ram"), SPECIALS.index("overclock")
SP_MINE, SP_NULLIFY = SPECIALS.index("mine"), SPECIALS.index("nullify")
DCOL = np.array([0, 1, 0, -1], dtype=np.int64)   # N E S W (S-2.2)
DROW = np.array([1, 0, -1, 0], dtype=np.int64)
#: Winner codes: 0 ``p1``, 1 ``p2``, 2 draw, -1 none yet. Reason codes (S-7.11):
REASONS: tuple[str, ...] = ("elimination", "points", "mutual_destruction", "round_cap")
ELIMINATION, POINTS, MUTUAL, ROUND_CAP = range(4)

_c, _r = np.meshgrid(np.arange(1, SIZE + 1), np.arange(1, SIZE + 1))
_COLS, _ROWS = _c.reshape(-1), _r.reshape(-1)   # space index → col, row
#: S-2.4 ring of every square, padded board (9 × 9, index [col, row]; the border is ring 0).
_RING = np.zeros((SIZE + 2, SIZE + 2), dtype=np.int64)
for _x in range(1, SIZE + 1):
    for _y in range(1, SIZE + 1):
        _RING[_x, _y] = 1 + min(_x - 1, SIZE - _x, _y - 1, SIZE - _y)
#: S-2.5 scoring values, padded board [col, row].
_SCORE = np.zeros((SIZE + 2, SIZE + 2), dtype=np.int64)
for (_x, _y), _v in {(4, 4): 4, (4, 3): 2, (3, 4): 2, (5, 4): 2, (4, 5): 2,
                     (3, 3): 1, (5, 3): 1, (3, 5): 1, (5, 5): 1}.items():
    _SCORE[_x, _y] = _v
#: S-6.2 mine: the spaces a mine may never be placed on (D4, D3, C4, E4, D5).
_NO_MINE = np.zeros((SIZE + 2, SIZE + 2), dtype=bool)
for _x, _y in ((4, 4), (4, 3), (3, 4), (5, 4), (4, 5)):
    _NO_MINE[_x, _y] = True
_OWNER = np.array([0] * 5 + [1] * 5, dtype=np.int64)   # seat index of each sub


def coin_flips(seed: int, config: dict[str, Any]) -> tuple[int, int]:
    """S-3.2: ``(p1's home row, first player's seat index)`` for match ``seed``, the referee's
    seeded coin flips (home rows first, then the first player)."""
    rng = random.Random(f"submarine:{seed}")
    h = config["p1_home_row"]
    row = (1 if rng.random() < 0.5 else 7) if h == "random" else int(h)
    fp = config["first_player"]
    first = ("p1" if rng.random() < 0.5 else "p2") if fp == "random" else fp
    return row, 0 if first == "p1" else 1


class BatchSubmarine:
    """``n`` submarine matches with one validated ``config``, played together.

    State (``(n, 10)`` per sub unless noted): ``col``, ``row`` (squares 1..7), ``hp`` (HP),
    ``alive``, ``surfaced``, ``special`` (index), ``plate``, ``ramming``, ``used``
    (``used_special``), ``cancelled``; ``mines`` ``(n, 9, 9)`` (``[game, col, row]``, 0 none,
    1 ``p1``'s, 2 ``p2``'s); ``scores`` ``(n, 2)``; ``announced`` ``(n, 2)``; ``rings``, ``turn``,
    ``active`` (seat index 0/1), ``ap`` (AP), ``home_row`` (p1's), ``first`` (seat index),
    ``over``, ``winner`` (0, 1, 2 = draw, -1), ``reason`` (index into :data:`REASONS`, -1) per
    match; ``until`` ``(n, 2, 9)``: per seat and special the last turn of the Nullify window
    against that seat (S-6.8; 0 = none).

    Matches start with :meth:`reset` (coin flips from match seeds, both set-ups, S-3.2 to S-3.5)
    and advance one whole turn of the active player per :meth:`play_turn`. Raises
    ``ConfigError`` for a configuration it cannot batch (a ``board_size`` other than 7, a
    catalog other than ``default``).
    """

    def __init__(self, config: dict[str, Any], n: int):
        if config.get("board_size", 7) != SIZE or config.get("catalog", "default") != "default":
            raise ConfigError("the batched submarine engine plays the 7 × 7 board with the default "
                              "catalog only (board_size 7, catalog 'default')")
        self.config = config
        self.n = n
        self.hp_max = int(config["hp_max"])
        self.max_actions = int(config["max_actions"])
        z = (n, NSUB)
        self.col = np.zeros(z, np.int64)
        self.row = np.zeros(z, np.int64)
        self.hp = np.zeros(z, np.int64)
        self.alive = np.zeros(z, bool)
        self.surfaced = np.zeros(z, bool)
        self.special = np.zeros(z, np.int64)
        self.plate = np.zeros(z, bool)
        self.ramming = np.zeros(z, bool)
        self.used = np.zeros(z, bool)
        self.cancelled = np.zeros(z, bool)
        self.mines = np.zeros((n, SIZE + 2, SIZE + 2), np.int64)
        self.scores = np.zeros((n, 2), np.int64)
        self.announced = np.zeros((n, 2), bool)
        self.until = np.zeros((n, 2, len(SPECIALS)), np.int64)
        self.rings = np.zeros(n, np.int64)
        self.turn = np.zeros(n, np.int64)
        self.active = np.zeros(n, np.int64)
        self.ap = np.zeros(n, np.int64)
        self.home_row = np.ones(n, np.int64)
        self.first = np.zeros(n, np.int64)
        self.over = np.ones(n, bool)
        self.winner = np.full(n, -1, np.int64)
        self.reason = np.full(n, -1, np.int64)
        self._g = np.arange(n)

    # ---- set-up (S-3) ----------------------------------------------------------------------
    def reset(self, seeds: Any, cols: np.ndarray, specials: np.ndarray, which: Any = None) -> None:
        """Start the matches ``which`` (bool ``(n,)``, ``None``: all): coin flips from ``seeds``
        (``(n,)`` match seeds, the referee's S-3.2 draws), then both set-ups at once (S-3.3,
        S-3.4): ``cols`` ``(n, 10)`` each sub's column 1..7 on its home row, ``specials``
        ``(n, 10)`` special indices. Raises ``ValueError`` for a set-up S-3.3 rejects (two subs
        of a seat on one space or with one special, a column off the board)."""
        w = np.ones(self.n, bool) if which is None else np.array(which, bool)   # a copy: ``which`` may be ``self.over``
        idx = np.flatnonzero(w)
        cols = np.asarray(cols, np.int64)[idx]
        sps = np.asarray(specials, np.int64)[idx]
        for s in (slice(0, 5), slice(5, 10)):
            if ((cols[:, s] < 1) | (cols[:, s] > SIZE)).any() or ((sps[:, s] < 0) | (sps[:, s] >= len(SPECIALS))).any():
                raise ValueError("set-up: columns must be 1..7 and specials indices 0..8 (S-3.3)")
            for arr, what in ((cols[:, s], "space"), (sps[:, s], "special")):
                srt = np.sort(arr, axis=1)
                if (srt[:, 1:] == srt[:, :-1]).any():
                    raise ValueError(f"set-up: two subs of one seat share a {what} (S-3.3)")
        seeds = np.asarray(seeds).reshape(-1)[idx] if np.ndim(seeds) else np.full(len(idx), int(seeds))
        flips = [coin_flips(int(s), self.config) for s in seeds]
        self.home_row[idx] = [f[0] for f in flips]
        self.first[idx] = [f[1] for f in flips]
        home = np.where(_OWNER[None, :] == 0, self.home_row[idx, None], SIZE + 1 - self.home_row[idx, None])
        self.col[idx], self.row[idx] = cols, home
        self.hp[idx] = self.hp_max
        self.alive[idx] = True
        self.surfaced[idx] = True   # S-3.4
        self.special[idx] = sps
        for a in (self.plate, self.ramming, self.used, self.cancelled):
            a[idx] = False
        self.mines[idx] = 0
        self.scores[idx] = 0
        self.announced[idx] = False
        self.until[idx] = 0
        self.rings[idx] = 0
        self.over[idx] = False
        self.winner[idx] = -1
        self.reason[idx] = -1
        self._start_turn(w, np.ones(self.n, np.int64), self.first.copy())

    # ---- helpers ---------------------------------------------------------------------------
    def _hurt(self, g: np.ndarray, s: np.ndarray, amount: Any) -> None:
        """S-6.6 armor: subs ``(g, s)`` take ``amount``, one less with a plate (used up)."""
        amount = np.broadcast_to(np.asarray(amount, np.int64), g.shape).copy()
        use = (amount > 0) & self.plate[g, s]
        amount -= use
        self.plate[g, s] &= ~use
        self.hp[g, s] -= amount

    def _end_check(self, g: np.ndarray) -> None:
        """S-7.6 destroy every sub at 0 HP or less in matches ``g``, then S-7.3 / S-7.4."""
        if not len(g):
            return
        self.alive[g] &= self.hp[g] > 0
        left = np.stack([self.alive[g, :5].any(1), self.alive[g, 5:].any(1)], 1)
        done = ~left[:, 0] | ~left[:, 1]
        if not done.any():
            return
        gd, ld = g[done], left[done]
        both = ~ld[:, 0] & ~ld[:, 1]
        a, b = self.scores[gd, 0], self.scores[gd, 1]
        mutual = np.where(a > b, 0, np.where(b > a, 1, 2))
        self._result(gd, np.where(both, mutual, np.where(ld[:, 0], 0, 1)), np.where(both, MUTUAL, ELIMINATION))

    def _result(self, g: np.ndarray, winner: Any, reason: Any) -> None:
        """S-4.9: matches ``g`` end now (their remaining actions and steps are not run)."""
        self.over[g] = True
        self.winner[g] = winner
        self.reason[g] = reason
        self.ap[g] = 0

    def _occupant(self, g: np.ndarray, c: np.ndarray, r: np.ndarray) -> np.ndarray:
        """The living sub on ``(c, r)`` in each match of ``g`` (-1: none)."""
        hit = self.alive[g] & (self.col[g] == c[:, None]) & (self.row[g] == r[:, None])
        return np.where(hit.any(1), hit.argmax(1), -1)

    def _mine_check(self, g: np.ndarray, s: np.ndarray) -> None:
        """S-6.7: subs ``(g, s)`` have just entered their space."""
        c, r = self.col[g, s], self.row[g, s]
        owner = self.mines[g, c, r]
        fire = (owner > 0) & (owner - 1 != _OWNER[s]) & (self.until[g, np.maximum(owner - 1, 0), SP_MINE] == 0)
        if not fire.any():
            return
        g, s, c, r = g[fire], s[fire], c[fire], r[fire]
        self.mines[g, c, r] = 0
        self.surfaced[g, s] = True
        self._hurt(g, s, 2)
        self._end_check(g[self.hp[g, s] <= 0])

    def _collide(self, g: np.ndarray, x: np.ndarray, y: np.ndarray, d: np.ndarray) -> None:
        """S-5.2 collide(X, Y, d) in matches ``g``, chained pushes included (one loop turn per
        link of the chains, all matches together)."""
        while len(g):
            self.cancelled[g, x] = True
            self.surfaced[g, x] = True
            self.surfaced[g, y] = True
            ram = self.ramming[g, x]
            self._hurt(g, x, np.where(ram, 0, 1))
            self._hurt(g, y, np.where(ram, 3, 2))
            tc, tr = self.col[g, y] + DCOL[d], self.row[g, y] + DROW[d]
            live = self.alive[g] & (self.hp[g] > 0)
            ends = ~live[:, :5].any(1) | ~live[:, 5:].any(1)
            none = (self.hp[g, y] <= 0) | ends
            edge = ~none & ((tc < 1) | (tc > SIZE) | (tr < 1) | (tr > SIZE))
            go = ~none & ~edge
            nxt = np.full(len(g), -1)
            if go.any():
                nxt[go] = self._occupant(g[go], tc[go], tr[go])
            dead = (self.hp[g, x] <= 0) | (self.hp[g, y] <= 0)
            self._end_check(g[dead])
            ok = ~self.over[g]
            move = ok & go & (nxt < 0)
            if move.any():
                gm, ym = g[move], y[move]
                self.col[gm, ym], self.row[gm, ym] = tc[move], tr[move]
                self._mine_check(gm, ym)
            chain = ok & go & (nxt >= 0)
            g, x, y, d = g[chain], y[chain], nxt[chain], d[chain]

    # ---- one turn (S-4) -------------------------------------------------------------------
    def check_orders(self, orders: np.ndarray) -> np.ndarray:
        """S-4.3 per match: ``True`` where ``orders`` ``(n, K, 3)`` would be accepted from the
        active player (its own subs living at turn start, codes and parameters in range, at most
        ``max_actions`` rows, the listed AP costs within its AP)."""
        o = np.asarray(orders, np.int64)
        sub, act, par = o[..., 0], o[..., 1], o[..., 2]
        used = sub >= 0
        si = np.clip(sub, 0, NSUB - 1)
        own = (_OWNER[si] == self.active[:, None]) & np.take_along_axis(self.alive, si, 1)
        okact = (act >= 0) & (act < len(ACTION_NAMES))
        ai = np.clip(act, 0, len(ACTION_NAMES) - 1)
        top = np.select([np.isin(ai, (MOVE, TORPEDO)), np.isin(ai, (DEPTH_CHARGE, MINE, HEAL)),
                         np.isin(ai, (REPLACE, NULLIFY))], [4, SIZE * SIZE, len(SPECIALS)], 1)
        okpar = ((par >= 0) & (par < top)) | np.isin(ai, (SURFACE, SUBMERGE, SONAR))
        okpar &= ~((ai == NULLIFY) & (par == SP_NULLIFY))
        row_ok = ~used | (own & okact & okpar)
        cost = np.where(used, COST[ai], 0).sum(1)
        return row_ok.all(1) & (used.sum(1) <= self.max_actions) & (cost <= self.ap) & ~self.over

    def play_turn(self, orders: np.ndarray, live: Any = None) -> None:
        """One whole turn of the active player in every match of ``live`` (bool ``(n,)``,
        ``None``: every match not over): S-4.5 execution of ``orders`` ``(n, K, 3)`` in list
        order, S-4.8's end of turn, then the other player's S-4.2 start of turn. Raises
        ``ValueError`` if a live match's order would be rejected at submission (S-4.3,
        :meth:`check_orders`)."""
        o = np.asarray(orders, np.int64)
        live = ~self.over if live is None else np.asarray(live, bool) & ~self.over
        bad = live & ~self.check_orders(o)
        if bad.any():
            raise ValueError(f"orders of match {int(np.flatnonzero(bad)[0])} would be rejected at submission (S-4.3)")
        for k in range(o.shape[1]):
            self._action(o[:, k], live & ~self.over)
        self._end_turn(live & ~self.over)

    def _action(self, row: np.ndarray, live: np.ndarray) -> None:
        """S-4.5: the ``k``-th row of every live match's order."""
        g = np.flatnonzero(live & (row[:, 0] >= 0))
        if not len(g):
            return
        s, a, p = row[g, 0], row[g, 1], row[g, 2]
        ok = self.alive[g, s] & ~self.cancelled[g, s]
        spc = ACTION_SPECIAL[a]
        isp = spc >= 0
        seat = _OWNER[s]
        ok &= ~isp | ((self.special[g, s] == spc) & ~self.until[g, seat, np.maximum(spc, 0)].astype(bool)
                      & ~self.used[g, s])
        c, r = self.col[g, s], self.row[g, s]
        d = np.clip(p, 0, 3)
        pc, pr = _COLS[np.clip(p, 0, SIZE * SIZE - 1)], _ROWS[np.clip(p, 0, SIZE * SIZE - 1)]
        dist = np.abs(pc - c) + np.abs(pr - r)
        tc, tr = c + DCOL[d], r + DROW[d]
        onb = (tc >= 1) & (tc <= SIZE) & (tr >= 1) & (tr <= SIZE)
        # S-4.4 / S-6.2 conditions at execution
        same = (_OWNER[None, :] == seat[:, None]) & self.alive[g] & (np.arange(NSUB)[None, :] != s[:, None])
        held = (same & (self.special[g] == p[:, None])).any(1)
        tgt = self._occupant(g, pc, pr)
        cond = np.select(
            [a == MOVE, a == SURFACE, a == SUBMERGE, a == REPLACE, a == DEPTH_CHARGE, a == MINE, a == HEAL,
             a == NULLIFY],
            [onb, ~self.surfaced[g, s], self.surfaced[g, s], (p != self.special[g, s]) & ~held, dist <= 3,
             (dist == 1) & ~_NO_MINE[pc, pr], (dist == 1) & (tgt >= 0) & (_OWNER[np.maximum(tgt, 0)] == seat),
             p != SP_NULLIFY], True)
        ok &= cond
        g, s, a, p, seat, c, r, d, pc, pr, tc, tr, tgt = (v[ok] for v in (g, s, a, p, seat, c, r, d, pc, pr,
                                                                          tc, tr, tgt))
        self.ap[g] -= COST[a]
        self.used[g[ACTION_SPECIAL[a] >= 0], s[ACTION_SPECIAL[a] >= 0]] = True
        m = a == MOVE
        if m.any():
            gm, sm = g[m], s[m]
            occ = self._occupant(gm, tc[m], tr[m])
            free = occ < 0
            self.col[gm[free], sm[free]], self.row[gm[free], sm[free]] = tc[m][free], tr[m][free]
            self._mine_check(gm[free], sm[free])
            self._collide(gm[~free], sm[~free], occ[~free], d[m][~free])
        self.surfaced[g[a == SURFACE], s[a == SURFACE]] = True
        self.surfaced[g[a == SUBMERGE], s[a == SUBMERGE]] = False
        m = a == REPLACE
        if m.any():
            gm, sm = g[m], s[m]
            self.plate[gm, sm] &= self.special[gm, sm] != ARMOR
            self.ramming[gm, sm] &= self.special[gm, sm] != RAM
            self.special[gm, sm] = p[m]
        m = a == TORPEDO
        if m.any():
            self._torpedo(g[m], c[m], r[m], d[m])
        m = a == DEPTH_CHARGE
        if m.any():
            gm = g[m]
            near = self.alive[gm] & ((np.abs(self.col[gm] - pc[m, None]) + np.abs(self.row[gm] - pr[m, None])) <= 1)
            self.surfaced[gm] |= near
            hit_g, hit_s = np.nonzero(near)
            self._hurt(gm[hit_g], hit_s, 1)
            self._end_check(np.unique(gm[hit_g][self.hp[gm[hit_g], hit_s] <= 0]))
        m = (a == MINE) & (self.mines[g, pc, pr] == 0)
        self.mines[g[m], pc[m], pr[m]] = seat[m] + 1
        m = a == HEAL
        self.hp[g[m], tgt[m]] = np.minimum(self.hp_max, self.hp[g[m], tgt[m]] + 2)
        m = a == NULLIFY
        if m.any():
            gm, opp = g[m], 1 - seat[m]
            self.until[gm, opp, p[m]] = self.turn[gm] + 1
            arm = p[m] == ARMOR
            for o in (0, 1):
                ga = gm[arm & (opp == o)]
                self.plate[ga, 5 * o:5 * o + 5] = False

    def _torpedo(self, g: np.ndarray, c: np.ndarray, r: np.ndarray, d: np.ndarray) -> None:
        """S-6.6 torpedo: the first sub within 3 squares in ``d`` surfaces and takes 2."""
        target = np.full(len(g), -1)
        for k in (1, 2, 3):
            tc, tr = c + k * DCOL[d], r + k * DROW[d]
            look = (target < 0) & (tc >= 1) & (tc <= SIZE) & (tr >= 1) & (tr <= SIZE)
            if look.any():
                target[look] = self._occupant(g[look], tc[look], tr[look])
        h = target >= 0
        g, t = g[h], target[h]
        self.surfaced[g, t] = True
        self._hurt(g, t, 2)
        self._end_check(g[self.hp[g, t] <= 0])

    def _end_turn(self, live: np.ndarray) -> None:
        """S-4.8 steps 1-6 for the active player of every live match, then S-4.2."""
        g = np.flatnonzero(live)
        if not len(g):
            return
        cfg = self.config
        p = self.active[g]
        mine = (_OWNER[None, :] == p[:, None]) & self.alive[g]
        # 1. destroyed-space damage (S-7.7, H11)
        edge = mine & (_RING[self.col[g], self.row[g]] <= self.rings[g, None])
        eg, es = np.nonzero(edge)
        self._hurt(g[eg], es, int(cfg["edge_damage"]))
        self._end_check(np.unique(g[eg][self.hp[g[eg], es] <= 0]))
        g, p = g[~self.over[g]], p[~self.over[g]]
        mine = (_OWNER[None, :] == p[:, None]) & self.alive[g]
        # 2. scoring (S-7.1, S-7.5)
        pts = (mine * _SCORE[self.col[g], self.row[g]] * np.where(self.surfaced[g], 2, 1)).sum(1)
        self.scores[g, p] += pts
        won = self.scores[g, p] >= int(cfg["win_points"])
        self._result(g[won], p[won], POINTS)
        g, p, mine = g[~won], p[~won], mine[~won]
        # 3. announcement (S-7.2)
        self.announced[g, p] |= self.scores[g, p] >= int(cfg["announce_points"])
        # 4. ramming cleared; windows against p ending now expire (S-6.8)
        self.ramming[g] &= ~mine
        u = self.until[g, p]
        self.until[g, p] = np.where(u <= self.turn[g, None], 0, u)
        # 5. ring destruction (S-7.7)
        t = self.turn[g]
        rnd = t // 2
        k = rnd // int(cfg["ring_interval"])
        ring = (t % 2 == 0) & (rnd % int(cfg["ring_interval"]) == 0) & (k <= 4) & (k > self.rings[g])
        self.rings[g[ring]] = k[ring]
        # 6. round cap (S-7.9)
        cap = (t % 2 == 0) & (rnd >= int(cfg["max_rounds"]))
        self._result(g[cap], 2, ROUND_CAP)
        g, p = g[~cap], p[~cap]
        w = np.zeros(self.n, bool)
        w[g] = True
        nxt = self.turn.copy()
        nxt[g] += 1
        seat = self.active.copy()
        seat[g] = 1 - p
        self._start_turn(w, nxt, seat)

    def _start_turn(self, w: np.ndarray, turn: np.ndarray, seat: np.ndarray) -> None:
        """S-4.2 (a)-(c) for the matches ``w``: turn ``turn`` of seat ``seat``."""
        g = np.flatnonzero(w)
        self.turn[g] = turn[g]
        p = seat[g]
        self.active[g] = p
        mine = (_OWNER[None, :] == p[:, None]) & self.alive[g]
        self.used[g] &= ~mine
        self.cancelled[g] &= ~mine
        sp = self.special[g]
        on = mine & ~np.take_along_axis(self.until[g, p], sp, 1).astype(bool)
        self.plate[g] |= on & (sp == ARMOR)
        self.ramming[g] |= on & (sp == RAM)
        self.ap[g] = int(self.config["base_ap"]) + (on & (sp == OVERCLOCK)).sum(1)

    # ---- random play (benchmarks, bulk simulation) ------------------------------------------
    def random_setups(self, rng: np.random.Generator, which: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Uniform valid set-ups (S-3.3) for every match: ``(cols, specials)``, both ``(n, 10)``
        (five distinct columns 1..7 and five distinct specials per seat), for :meth:`reset`."""
        cols = np.argsort(rng.random((self.n, 2, SIZE)), axis=2)[:, :, :5] + 1
        sps = np.argsort(rng.random((self.n, 2, len(SPECIALS))), axis=2)[:, :, :5]
        return cols.reshape(self.n, NSUB), sps.reshape(self.n, NSUB)

    def random_orders(self, rng: np.random.Generator, rows: int = 8) -> np.ndarray:
        """Random orders ``(n, rows, 3)`` valid at submission (S-4.3) for the active player of
        every match: each row names one of its subs living at turn start and a uniform action
        code with a uniform parameter in range; a row whose cost would take the listed total
        over the player's AP is left unused (``sub = -1``). Whole-array draws, no loop over
        matches."""
        n = self.n
        own = self.alive.reshape(n, 2, 5)[self._g, self.active]              # (n, 5)
        k = np.where(own[:, None, :], rng.random((n, rows, 5)), -1.0).argmax(2)         # a living sub (if any)
        sub = k + 5 * self.active[:, None]
        act = rng.integers(0, len(ACTION_NAMES), (n, rows))
        top = np.select([np.isin(act, (MOVE, TORPEDO)), np.isin(act, (DEPTH_CHARGE, MINE, HEAL)),
                         act == NULLIFY, act == REPLACE], [4, SIZE * SIZE, len(SPECIALS) - 1, len(SPECIALS)], 1)
        par = (rng.random((n, rows)) * top).astype(np.int64)
        par = np.where((act == NULLIFY) & (par >= SP_NULLIFY), par + 1, par)   # never nullify 'nullify'
        cost = np.where(own.any(1)[:, None], COST[act], 1 << 20)
        fits = np.cumsum(cost, 1) <= self.ap[:, None]      # a prefix: costs are non-negative
        rows_ok = fits & (np.arange(rows)[None, :] < self.max_actions)
        return np.stack([np.where(rows_ok, sub, -1), act, par], axis=2)
