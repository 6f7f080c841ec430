"""The submarine rules in JAX (issue 29 item 3; optional extra ``botwars[jax]``): one whole turn
of one match as a pure function, :func:`play_turn` ``(config, state, orders, live) -> state``,
for ``jax.jit`` and ``jax.vmap``.

The same rules as :class:`botwars.games.submarine.batch.BatchSubmarine` (S-4.2 to S-4.9, §5,
§6, S-7.1 to S-7.7, S-7.9), written per match: the rows of the action list are a Python loop
(unrolled, at most ``max_actions``), a collision chain is a ``lax.while_loop``, each action's
effect is a ``lax.switch`` branch, and every "if" of the NumPy engine is a select of the whole
state (:func:`_sel`), so that under ``vmap`` nothing depends on another match. The state is
:class:`SubState` (the NumPy engine's arrays of one match, ``int32``/``bool``);
:func:`from_numpy` / :func:`to_numpy` convert a batch. Set-ups (S-3, with the referee's seeded
coin flips) stay with the NumPy engine: a test starts and restarts matches there and copies them
over. ``tests/submarine/test_submarine_batch_jax.py`` plays the NumPy engine's random orders
through both and compares every array after every turn.

Orders must be valid at submission (S-4.3, :meth:`BatchSubmarine.check_orders`): nothing here
checks them. Raises ``ModuleNotFoundError`` at import when ``jax`` is not installed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from botwars.games.submarine.batch import (
    _COLS, _NO_MINE, _OWNER, _RING, _ROWS, _SCORE, ACTION_SPECIAL, ARMOR, COST, DCOL, DEPTH_CHARGE, DROW,
    ELIMINATION, HEAL, MINE, MOVE, MUTUAL, NSUB, NULLIFY, OVERCLOCK, POINTS, RAM, REPLACE, ROUND_CAP, SIZE,
    SONAR, SP_MINE, SP_NULLIFY, SUBMERGE, SURFACE, TORPEDO,
)

FIELDS = ("col", "row", "hp", "alive", "surfaced", "special", "plate", "ramming", "used", "cancelled", "mines",
          "scores", "announced", "until", "rings", "turn", "active", "ap", "over", "winner", "reason")


class SubState(NamedTuple):
    """One match: the :class:`~botwars.games.submarine.batch.BatchSubmarine` arrays of that
    match (subs ``(10,)``, ``mines`` ``(9, 9)`` ``[col, row]``, ``scores`` / ``announced``
    ``(2,)``, ``until`` ``(2, 9)``, scalars ``rings``, ``turn``, ``active``, ``ap``, ``over``,
    ``winner``, ``reason``); a batch under ``vmap``."""

    col: jax.Array
    row: jax.Array
    hp: jax.Array
    alive: jax.Array
    surfaced: jax.Array
    special: jax.Array
    plate: jax.Array
    ramming: jax.Array
    used: jax.Array
    cancelled: jax.Array
    mines: jax.Array
    scores: jax.Array
    announced: jax.Array
    until: jax.Array
    rings: jax.Array
    turn: jax.Array
    active: jax.Array
    ap: jax.Array
    over: jax.Array
    winner: jax.Array
    reason: jax.Array


def from_numpy(engine: Any) -> SubState:
    """The batch state ``(n, ...)`` of a :class:`BatchSubmarine` as JAX arrays (``int32``, ``bool``)."""
    out = {}
    for f in FIELDS:
        a = np.asarray(getattr(engine, f))
        out[f] = jnp.asarray(a if a.dtype == bool else a.astype(np.int32))
    return SubState(**out)


def to_numpy(state: SubState) -> dict[str, np.ndarray]:
    """Field name → NumPy array of a (batch) state."""
    return {f: np.asarray(getattr(state, f)) for f in FIELDS}


def _sel(c: jax.Array, a: SubState, b: SubState) -> SubState:
    """``a`` where ``c`` (a scalar bool) else ``b``, field by field."""
    return jax.tree_util.tree_map(lambda x, y: jnp.where(c, x, y), a, b)


_OWN = jnp.asarray(_OWNER, dtype=jnp.int32)
_IDX = jnp.arange(NSUB, dtype=jnp.int32)


class _Tables:
    def __init__(self) -> None:
        self.ring = jnp.asarray(_RING, dtype=jnp.int32)
        self.score = jnp.asarray(_SCORE, dtype=jnp.int32)
        self.no_mine = jnp.asarray(_NO_MINE)
        self.cols = jnp.asarray(_COLS, dtype=jnp.int32)
        self.rows = jnp.asarray(_ROWS, dtype=jnp.int32)
        self.cost = jnp.asarray(COST, dtype=jnp.int32)
        self.aspec = jnp.asarray(ACTION_SPECIAL, dtype=jnp.int32)
        self.dcol = jnp.asarray(DCOL, dtype=jnp.int32)
        self.drow = jnp.asarray(DROW, dtype=jnp.int32)


def _hurt(st: SubState, which: jax.Array, amount: Any) -> SubState:
    """S-6.6 armor: the subs ``which`` (bool ``(10,)``) take ``amount``, one less with a plate."""
    amount = jnp.broadcast_to(jnp.asarray(amount, jnp.int32), (NSUB,))
    use = which & (amount > 0) & st.plate
    return st._replace(plate=st.plate & ~use, hp=st.hp - jnp.where(which, amount - use.astype(jnp.int32), 0))


def _result(st: SubState, cond: jax.Array, winner: Any, reason: Any) -> SubState:
    """S-4.9: the match ends now where ``cond``."""
    return st._replace(over=st.over | cond, winner=jnp.where(cond, winner, st.winner).astype(jnp.int32),
                       reason=jnp.where(cond, reason, st.reason).astype(jnp.int32), ap=jnp.where(cond, 0, st.ap))


def _end_check(st: SubState, cond: jax.Array) -> SubState:
    """S-7.6 (destroy subs at 0 HP or less), then S-7.3 / S-7.4, where ``cond``."""
    alive = jnp.where(cond, st.alive & (st.hp > 0), st.alive)
    st = st._replace(alive=alive)
    l0, l1 = alive[:5].any(), alive[5:].any()
    done = cond & (~l0 | ~l1)
    both = ~l0 & ~l1
    a, b = st.scores[0], st.scores[1]
    mutual = jnp.where(a > b, 0, jnp.where(b > a, 1, 2))
    return _result(st, done, jnp.where(both, mutual, jnp.where(l0, 0, 1)), jnp.where(both, MUTUAL, ELIMINATION))


def _occupant(st: SubState, c: jax.Array, r: jax.Array) -> jax.Array:
    """The living sub on ``(c, r)`` (-1: none)."""
    hit = st.alive & (st.col == c) & (st.row == r)
    return jnp.where(hit.any(), jnp.argmax(hit), -1).astype(jnp.int32)


def _mine_check(st: SubState, s: jax.Array, cond: jax.Array) -> SubState:
    """S-6.7: sub ``s`` has just entered its space (where ``cond``)."""
    c, r = st.col[s], st.row[s]
    owner = st.mines[c, r]
    fire = cond & (owner > 0) & (owner - 1 != _OWN[s]) & (st.until[jnp.maximum(owner - 1, 0), SP_MINE] == 0)
    st = st._replace(mines=st.mines.at[c, r].set(jnp.where(fire, 0, owner)),
                     surfaced=st.surfaced.at[s].set(st.surfaced[s] | fire))
    st = _hurt(st, (_IDX == s) & fire, 2)
    return _end_check(st, fire & (st.hp[s] <= 0))


def _collide(t: _Tables, st: SubState, x: jax.Array, y: jax.Array, d: jax.Array, cond: jax.Array) -> SubState:
    """S-5.2 collide(X, Y, d), chained pushes included (a ``lax.while_loop`` over the links)."""
    def body(carry: tuple[Any, ...]) -> tuple[Any, ...]:
        st, x, y, d, _ = carry
        st = st._replace(cancelled=st.cancelled.at[x].set(True), surfaced=st.surfaced.at[x].set(True).at[y].set(True))
        ram = st.ramming[x]
        st = _hurt(st, _IDX == x, jnp.where(ram, 0, 1))
        st = _hurt(st, _IDX == y, jnp.where(ram, 3, 2))
        tc, tr = st.col[y] + t.dcol[d], st.row[y] + t.drow[d]
        live = st.alive & (st.hp > 0)
        ends = ~live[:5].any() | ~live[5:].any()
        none = (st.hp[y] <= 0) | ends
        edge = ~none & ((tc < 1) | (tc > SIZE) | (tr < 1) | (tr > SIZE))
        go = ~none & ~edge
        nxt = jnp.where(go, _occupant(st, tc, tr), -1)
        st = _end_check(st, (st.hp[x] <= 0) | (st.hp[y] <= 0))
        ok = ~st.over
        move = ok & go & (nxt < 0)
        st = st._replace(col=st.col.at[y].set(jnp.where(move, tc, st.col[y])),
                         row=st.row.at[y].set(jnp.where(move, tr, st.row[y])))
        st = _mine_check(st, y, move)
        chain = ok & go & (nxt >= 0)
        return st, y, jnp.maximum(nxt, 0), d, chain

    st, *_ = jax.lax.while_loop(lambda c: c[4], body, (st, x, y, d, cond))
    return st


def _torpedo(t: _Tables, st: SubState, c: jax.Array, r: jax.Array, d: jax.Array) -> SubState:
    """S-6.6 torpedo: the first sub within 3 squares in direction ``d`` surfaces and takes 2."""
    target = jnp.int32(-1)
    for k in (1, 2, 3):
        tc, tr = c + k * t.dcol[d], r + k * t.drow[d]
        look = (target < 0) & (tc >= 1) & (tc <= SIZE) & (tr >= 1) & (tr <= SIZE)
        target = jnp.where(look, _occupant(st, tc, tr), target)
    h = target >= 0
    tt = jnp.maximum(target, 0)
    st = st._replace(surfaced=st.surfaced.at[tt].set(st.surfaced[tt] | h))
    st = _hurt(st, (_IDX == tt) & h, 2)
    return _end_check(st, h & (st.hp[tt] <= 0))


def _action(t: _Tables, cfg: dict[str, Any], st: SubState, row: jax.Array, live: jax.Array) -> SubState:
    """S-4.5: one row ``(sub, action, param)`` of the order of a live match."""
    s0, a, p = row[0], row[1], row[2]
    s = jnp.maximum(s0, 0)
    hp_max = int(cfg["hp_max"])
    ok = live & (s0 >= 0) & st.alive[s] & ~st.cancelled[s]
    spc = t.aspec[a]
    seat = _OWN[s]
    ok &= (spc < 0) | ((st.special[s] == spc) & (st.until[seat, jnp.maximum(spc, 0)] == 0) & ~st.used[s])
    c, r = st.col[s], st.row[s]
    d = jnp.clip(p, 0, 3)
    pc, pr = t.cols[jnp.clip(p, 0, SIZE * SIZE - 1)], t.rows[jnp.clip(p, 0, SIZE * SIZE - 1)]
    dist = jnp.abs(pc - c) + jnp.abs(pr - r)
    tc, tr = c + t.dcol[d], r + t.drow[d]
    onb = (tc >= 1) & (tc <= SIZE) & (tr >= 1) & (tr <= SIZE)
    same = (_OWN == seat) & st.alive & (_IDX != s)
    held = (same & (st.special == p)).any()
    tgt = _occupant(st, pc, pr)
    conds = {MOVE: onb, SURFACE: ~st.surfaced[s], SUBMERGE: st.surfaced[s],
             REPLACE: (p != st.special[s]) & ~held, DEPTH_CHARGE: dist <= 3,
             MINE: (dist == 1) & ~t.no_mine[pc, pr],
             HEAL: (dist == 1) & (tgt >= 0) & (_OWN[jnp.maximum(tgt, 0)] == seat), NULLIFY: p != SP_NULLIFY}
    cond = jnp.bool_(True)
    for code, c_ in conds.items():
        cond = jnp.where(a == code, c_, cond)
    ok &= cond
    paid = st._replace(ap=st.ap - t.cost[a], used=st.used.at[s].set(st.used[s] | (spc >= 0)))

    def move(st: SubState) -> SubState:
        occ = _occupant(st, tc, tr)
        free = occ < 0
        st = st._replace(col=st.col.at[s].set(jnp.where(free, tc, c)), row=st.row.at[s].set(jnp.where(free, tr, r)))
        st = _mine_check(st, s, free)
        return _collide(t, st, s, jnp.maximum(occ, 0), d, ~free)

    def surface(st: SubState) -> SubState:
        return st._replace(surfaced=st.surfaced.at[s].set(True))

    def submerge(st: SubState) -> SubState:
        return st._replace(surfaced=st.surfaced.at[s].set(False))

    def replace(st: SubState) -> SubState:
        sp = st.special[s]
        return st._replace(plate=st.plate.at[s].set(st.plate[s] & (sp != ARMOR)),
                           ramming=st.ramming.at[s].set(st.ramming[s] & (sp != RAM)), special=st.special.at[s].set(p))

    def torpedo(st: SubState) -> SubState:
        return _torpedo(t, st, c, r, d)

    def depth_charge(st: SubState) -> SubState:
        near = st.alive & ((jnp.abs(st.col - pc) + jnp.abs(st.row - pr)) <= 1)
        st = _hurt(st._replace(surfaced=st.surfaced | near), near, 1)
        return _end_check(st, (near & (st.hp <= 0)).any())

    def sonar(st: SubState) -> SubState:
        return st

    def mine(st: SubState) -> SubState:
        empty = st.mines[pc, pr] == 0
        return st._replace(mines=st.mines.at[pc, pr].set(jnp.where(empty, seat + 1, st.mines[pc, pr])))

    def heal(st: SubState) -> SubState:
        k = jnp.maximum(tgt, 0)
        return st._replace(hp=st.hp.at[k].set(jnp.minimum(hp_max, st.hp[k] + 2)))

    def nullify(st: SubState) -> SubState:
        opp = 1 - seat
        st = st._replace(until=st.until.at[opp, jnp.clip(p, 0, st.until.shape[1] - 1)].set(st.turn + 1))
        return st._replace(plate=st.plate & ~((p == ARMOR) & (_OWN == opp)))

    branches = [move, surface, submerge, replace, torpedo, depth_charge, sonar, mine, heal, nullify]
    done = jax.lax.switch(jnp.clip(a, 0, len(branches) - 1), branches, paid)
    return _sel(ok, done, st)


def _start_turn(cfg: dict[str, Any], st: SubState, turn: jax.Array, seat: jax.Array) -> SubState:
    """S-4.2 (a)-(c): turn ``turn`` of seat ``seat``."""
    mine = (_OWN == seat) & st.alive
    sp = st.special
    on = mine & (st.until[seat][sp] == 0)
    return st._replace(turn=turn.astype(jnp.int32), active=seat.astype(jnp.int32), used=st.used & ~mine,
                       cancelled=st.cancelled & ~mine, plate=st.plate | (on & (sp == ARMOR)),
                       ramming=st.ramming | (on & (sp == RAM)),
                       ap=(int(cfg["base_ap"]) + (on & (sp == OVERCLOCK)).sum()).astype(jnp.int32))


def _end_turn(t: _Tables, cfg: dict[str, Any], st: SubState, live: jax.Array) -> SubState:
    """S-4.8 steps 1-6 for the active player, then S-4.2 for the other one (where ``live``)."""
    p = st.active
    mine = (_OWN == p) & st.alive
    edge = live & mine & (t.ring[st.col, st.row] <= st.rings)          # 1. destroyed spaces (S-7.7)
    st = _hurt(st, edge, int(cfg["edge_damage"]))
    st = _end_check(st, (edge & (st.hp <= 0)).any())
    g = live & ~st.over
    mine = (_OWN == p) & st.alive
    pts = (mine * t.score[st.col, st.row] * jnp.where(st.surfaced, 2, 1)).sum()     # 2. scoring (S-7.1)
    scores = st.scores.at[p].add(jnp.where(g, pts, 0).astype(jnp.int32))
    st = st._replace(scores=scores)
    won = g & (scores[p] >= int(cfg["win_points"]))
    st = _result(st, won, p, POINTS)
    g = g & ~won
    ann = st.announced.at[p].set(st.announced[p] | (scores[p] >= int(cfg["announce_points"])))   # 3. S-7.2
    u = st.until[p]
    stepped = st._replace(announced=ann, ramming=st.ramming & ~mine,                          # 4. S-6.8
                          until=st.until.at[p].set(jnp.where(u <= st.turn, 0, u)))
    tn = st.turn                                                                               # 5. rings
    rnd = tn // 2
    ri = int(cfg["ring_interval"])
    k = rnd // ri
    ring = (tn % 2 == 0) & (rnd % ri == 0) & (k <= 4) & (k > st.rings)
    stepped = stepped._replace(rings=jnp.where(ring, k, st.rings).astype(jnp.int32))
    st = _sel(g, stepped, st)
    cap = g & (tn % 2 == 0) & (rnd >= int(cfg["max_rounds"]))                                  # 6. S-7.9
    st = _result(st, cap, 2, ROUND_CAP)
    g = g & ~cap
    return _sel(g, _start_turn(cfg, st, st.turn + 1, 1 - p), st)


def play_turn(cfg: dict[str, Any], state: SubState, orders: jax.Array, live: jax.Array) -> SubState:
    """One whole turn of the active player of one match (``vmap`` it for a batch): ``orders``
    ``(K, 3)`` rows ``(sub, action, param)`` (``sub = -1``: unused), valid at submission (S-4.3);
    ``live`` (bool): play it at all (a match over is left as it is). S-4.5 in list order, S-4.8,
    then the other player's S-4.2, as :meth:`BatchSubmarine.play_turn`."""
    t = _Tables()
    live = live & ~state.over
    orders = jnp.asarray(orders, jnp.int32)
    for k in range(orders.shape[0]):
        state = _action(t, cfg, state, orders[k], live & ~state.over)
    return _end_turn(t, cfg, state, live & ~state.over)


def batch_play_turn(cfg: dict[str, Any]) -> Any:
    """``jax.jit(jax.vmap(play_turn))`` for ``cfg`` (a validated configuration):
    ``(state, orders (n, K, 3), live (n,)) -> state``."""
    return jax.jit(jax.vmap(lambda s, o, l: play_turn(cfg, s, o, l)))


class JaxSubmarine:
    """``n`` submarine matches whose turns run in JAX (:func:`play_turn` under ``jit``/``vmap``);
    the set-ups (S-3.2's seeded coin flips, S-3.3, S-3.4) run on a
    :class:`~botwars.games.submarine.batch.BatchSubmarine` (``numpy``) and are copied over. The
    ``jax`` engine of the game's declaration (``engine(config, n)``).

    ``state`` is the batch :class:`SubState`; :meth:`numpy_state` gives its arrays. Raises
    ``ConfigError`` as :class:`BatchSubmarine` does (a board other than 7 × 7, another catalog).
    """

    def __init__(self, config: dict[str, Any], n: int):
        from botwars.games.submarine.batch import BatchSubmarine
        self.config = config
        self.n = n
        self.numpy = BatchSubmarine(config, n)
        self._play = batch_play_turn(config)
        self.state = from_numpy(self.numpy)

    def _sync(self) -> None:
        for f, a in to_numpy(self.state).items():
            getattr(self.numpy, f)[...] = a

    def reset(self, seeds: Any, cols: np.ndarray, specials: np.ndarray, which: Any = None) -> None:
        """Start the matches ``which`` (``None``: all) as :meth:`BatchSubmarine.reset` does (same
        arguments; ``ValueError`` for a set-up S-3.3 rejects); the others keep their state."""
        self._sync()
        self.numpy.reset(seeds, cols, specials, which)
        self.state = from_numpy(self.numpy)

    def play_turn(self, orders: np.ndarray, live: Any = None) -> None:
        """One whole turn of the active player of every match of ``live`` (``None``: all not
        over), as :meth:`BatchSubmarine.play_turn`; raises ``ValueError`` if a live match's
        order would be rejected at submission (S-4.3)."""
        self._sync()
        o = np.asarray(orders, np.int64)
        live_ = ~self.numpy.over if live is None else np.asarray(live, bool) & ~self.numpy.over
        bad = live_ & ~self.numpy.check_orders(o)
        if bad.any():
            raise ValueError(f"orders of match {int(np.flatnonzero(bad)[0])} would be rejected at submission (S-4.3)")
        self.state = self._play(self.state, jnp.asarray(o, jnp.int32), jnp.asarray(live_))

    def numpy_state(self) -> dict[str, np.ndarray]:
        """Field name → NumPy array (:data:`FIELDS`)."""
        return to_numpy(self.state)
