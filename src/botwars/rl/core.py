"""The seat-driving core shared by every learning environment: one :class:`Referee` per match.

Every decision goes through :class:`botwars.engine.referee.Referee` by way of the seat driver
(:mod:`botwars.engine.driver`: ``settle`` with its one refusal policy, ``fail``, ``resolve``) and
:meth:`Referee.view`: this module never calls ``Ruleset.resolve``. What a game's arrays
and actions mean comes from the game's own encoding, reached through the ``rl`` hook of its
plug-in declaration (:meth:`botwars.engine.plugin.Game.rl_spec`, docs/rl.md), or for a game
that declares none but enumerates its legal orders, from :mod:`botwars.rl.default`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.engine import driver
from botwars.engine.errors import ConfigError
from botwars.engine.plugin import Game, get_game
from botwars.engine.referee import Referee
from botwars.rl.default import default_spec

ILLEGAL_ACTION = "illegal_action"
"""The key of a step's info that reports a masked-out action (``info["illegal"]``: the action
given). The one rule of every game and decision point, set-up included (docs/rl.md): a
masked-out action is played as the **default action** of the decision, the first action its mask
allows (per robot slot in the arena: 0, no order). It never forfeits and is never refused."""


def check_action(action: Any, nvec: tuple[int, ...]) -> np.ndarray:
    """The action as an ``int64`` array of ``len(nvec)`` choices, each in ``0 .. nvec[i] - 1``.

    Raises ``ValueError`` (naming what is wrong) for a malformed action: ``None``, a non-integer
    (``0.5``, ``"3"``, a float array), the wrong number of choices (a single index where the
    arena takes one per robot slot), or a choice out of range (``-1``, ``10**6``). A well-formed
    action the mask does not allow is *not* malformed (see :data:`ILLEGAL_ACTION`)."""
    if action is None:
        raise ValueError("action is None: give an integer action (see the action space)")
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(f"action {action!r} is a boolean, not an integer action")
    try:
        a = np.asarray(action)
    except Exception as e:  # pragma: no cover - numpy refuses very odd objects
        raise ValueError(f"action {action!r} is not an integer array: {e}") from None
    if a.dtype == object or not (np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"action {action!r} is not made of integers (dtype {a.dtype}); "
                         "give integer indices (see the action space)")
    a = a.reshape(-1).astype(np.int64)
    if a.shape[0] != len(nvec):
        raise ValueError(f"action has {a.shape[0]} choice(s); this game takes {len(nvec)} "
                         f"({'one per robot slot' if len(nvec) > 1 else 'a single index'})")
    top = np.asarray(nvec, dtype=np.int64)
    bad = np.flatnonzero((a < 0) | (a >= top))
    if bad.size:
        i = int(bad[0])
        where = f" in slot {i}" if len(nvec) > 1 else ""
        raise ValueError(f"action {int(a[i])}{where} is out of range: choices are 0 to {int(top[i]) - 1}")
    return a


def default_action(mask: np.ndarray, nvec: tuple[int, ...]) -> np.ndarray:
    """The default action of a decision: per choice the first action its mask allows (0 where
    none is allowed). ``mask``: flat ``int8`` ``(sum(nvec),)`` of equal choices."""
    rows = np.asarray(mask).reshape(len(nvec), -1)
    return np.argmax(rows != 0, axis=1).astype(np.int64)


def outcome_rewards(outcome: Any, seats: list[str]) -> dict[str, float]:
    """Terminal rewards from an :class:`~botwars.engine.Outcome`: +1 for the winner, -1 for every
    other seat when there is a winner, 0 for all on a draw (and in a solo game that ends without
    a winner: the solo shaping, :meth:`Core.rewards`, carries the score)."""
    if outcome is None:
        return {s: 0.0 for s in seats}
    w = outcome.winner
    return {s: (0.0 if w is None else 1.0 if s == w else -1.0) for s in seats}


class Core:
    """One match of ``game`` driven seat by seat, with the game's array encoding.

    ``config``: parameter overrides (validated by the rule set; raises ``ConfigError``);
    ``seats``: number of seats (default: the game's minimum, at least 2 where allowed);
    ``random_opening``: decision points played at every reset by uniform random masked actions
    for every seat, drawn from the match seed, before the agents take over (default 0). Games
    without chance (the arena, DADOED D-1.5) give the same match for every seed without it.
    Each seat builds its orders from discrete actions (several sub-steps for a program or an
    action list); the partial choice of each seat is kept in :attr:`partial`.
    """

    def __init__(self, game: str | Game, config: dict[str, Any] | None = None, seats: int | None = None,
                 random_opening: int = 0):
        if isinstance(random_opening, bool) or not isinstance(random_opening, int) or random_opening < 0:
            raise ConfigError(f"random_opening must be a whole number of decision points ≥ 0, got {random_opening!r}")
        self.random_opening = random_opening
        self.points = 0
        self.game = game if isinstance(game, Game) else get_game(game)
        self.rules = self.game.ruleset()
        self.config = self.rules.validate_config(config or {}, source="config")  # not the CLI's --set
        lo, hi = self.game.seats
        n = seats if seats is not None else max(lo, min(2, hi))
        self.seats = list(self.rules.seat_names(n))
        self.spec = default_spec(self.game, self.config, self.seats)  # the game's own, or by legal orders
        self.finite = bool(self.game.capabilities.finite_legal_orders)
        self.ref: Referee | None = None
        self.partial: dict[str, tuple[int, ...]] = {}
        self._views: dict[str, dict[str, Any]] = {}
        self._legal: dict[str, Any] = {}
        self.illegal = 0
        self._paid = False
        self._phi: dict[str, float] = {}

    # ---- match --------------------------------------------------------------------------
    def reset(self, seed: int) -> None:
        """A new match from ``seed`` (the match seed, as ``botwars match --seed``)."""
        self.ref = Referee(self.rules, self.config, self.seats, int(seed), clock=False, history=False)
        self.partial = {s: () for s in self.seats}
        self._views.clear()
        self._legal.clear()
        self.illegal = 0
        self._paid = False
        self.points = 0
        self.settled()
        if self.random_opening:
            self._open(np.random.default_rng(int(seed)))
        self._phi = {s: self.progress(s) for s in self.seats} if self.solo else {}

    def _open(self, rng: np.random.Generator) -> None:
        """Play :attr:`random_opening` decision points with uniform random masked actions."""
        nvec = self.spec.nvec
        while not self.over and self.points < self.random_opening:
            for s in list(self.referee.awaited()):
                while not self.over and self.deciding(s):
                    rows = self.mask(s).reshape(len(nvec), -1)
                    keys = rng.random(rows.shape)
                    keys[rows == 0] = -1.0
                    a = np.argmax(keys, axis=1)
                    self.act(s, a if len(nvec) > 1 else int(a[0]))
        self.illegal = 0

    @property
    def referee(self) -> Referee:
        assert self.ref is not None, "reset() first"
        return self.ref

    @property
    def over(self) -> bool:
        return self.referee.over

    def deciding(self, seat: str) -> bool:
        """True when ``seat`` has orders to give now (pending and not yet settled)."""
        return seat in self.referee.awaited()

    def view(self, seat: str) -> dict[str, Any]:
        """``seat``'s view (:meth:`Referee.view`), cached until the next submission."""
        v = self._views.get(seat)
        if v is None:
            v = self._views[seat] = self.referee.view(seat)
        return v

    def legal(self, seat: str) -> Any:
        """The rule set's legal orders for ``seat`` where the game enumerates them, else ``None``."""
        if not self.finite or not self.deciding(seat):
            return None
        if seat not in self._legal:
            self._legal[seat] = self.rules.legal_orders(self.referee.state, seat)
        return self._legal[seat]

    # ---- arrays -------------------------------------------------------------------------
    def mask(self, seat: str, alive: bool | None = None) -> np.ndarray:
        """The flat ``int8`` action mask of ``seat``: only the wait action while it has nothing to
        decide, all zeros once the match is over (``alive``: the environment still steps the
        seat, e.g. to the end of an AEC cycle; then the wait action). The wait action is action 0
        of the first choice, unless the game's spec has its own ``wait_mask(alive)``."""
        if self.deciding(seat):
            return self.spec.mask(self.view(seat), self.partial[seat], self.legal(seat))
        alive = not self.over if alive is None else alive
        own = getattr(self.spec, "wait_mask", None)
        if own is not None:  # a game whose wait action is not action 0 of a single choice (arena)
            return own(alive)
        m = np.zeros(self.spec.nvec[0], dtype=np.int8)
        m[0] = 1 if alive else 0
        return m

    def observe(self, seat: str) -> dict[str, np.ndarray]:
        """``seat``'s observation dict: the game's arrays (``spec.obs_space``). The action mask is
        not part of it (:meth:`mask`; the environments publish it as ``action_masks()`` and
        ``info["action_mask"]``)."""
        return self.spec.observe(self.view(seat), self.partial[seat])

    # ---- actions ------------------------------------------------------------------------
    def check(self, action: Any) -> np.ndarray:
        """:func:`check_action` for this game's action space (raises ``ValueError``)."""
        return check_action(action, self.spec.nvec)

    def is_legal(self, mask: np.ndarray, action: Any) -> bool:
        """Is the well-formed ``action`` allowed by the flat ``mask`` (every choice)?"""
        nvec = self.spec.nvec
        a = np.asarray(action).reshape(-1)
        if a.shape[0] != len(nvec) or (a < 0).any() or (a >= np.asarray(nvec)).any():
            return False
        if len(nvec) == 1:
            return bool(mask[int(a[0])])
        return bool(mask.reshape(len(nvec), -1)[np.arange(len(nvec)), a].all())

    def act(self, seat: str, action: Any) -> dict[str, Any]:
        """Apply ``seat``'s action; returns the step's info for the seat (``{}`` normally;
        ``{"illegal": action}`` when the action was masked out and the default action
        (:func:`default_action`) was played instead; ``{"refused": message}`` when the built
        orders were refused, then the seat's default orders apply). A seat with nothing to decide
        plays the wait action. Resolves the decision point through the referee once every
        pending seat is settled. Raises ``ValueError`` for a malformed action
        (:func:`check_action`), ``RuntimeError`` once the match is over."""
        a = self.check(action)
        ref = self.referee
        if ref.over:
            raise RuntimeError("the match is over: reset() before stepping again")
        info: dict[str, Any] = {}
        mask = self.mask(seat)
        if not self.is_legal(mask, a):
            self.illegal += 1
            info["illegal"] = a.tolist() if len(a) > 1 else int(a[0])
            a = default_action(mask, self.spec.nvec)
        if not self.deciding(seat):
            return info
        partial, payload = self.spec.decide(self.view(seat), self.partial[seat],
                                            a if len(a) > 1 else int(a[0]), self.legal(seat))
        if payload is None:
            self.partial[seat] = partial
            return info
        self.partial[seat] = ()
        tk, _ = driver.settle(ref, seat, payload, 0.0)  # refused: default, unless counted (S-7.10)
        if tk.error is not None:
            info["refused"] = tk.error.message
        self.settled()
        return info

    def settled(self) -> None:
        """After submissions: forget cached views, resolve the decision point once every
        pending seat is settled (through the referee), and the points after it that await no
        seat (a point of the rules alone)."""
        ref = self.referee
        self._views.clear()
        self._legal.clear()
        while ref.ready():   # several points may resolve: a point of the rules alone has no
            driver.close_point(ref)  # pending seat (DADOED after max_turns, D-8.4)
            self.points += 1
            self.partial = {s: () for s in self.seats}

    # ---- rewards ------------------------------------------------------------------------
    @property
    def solo(self) -> bool:
        """One seat: the reward carries the score (:meth:`rewards`)."""
        return len(self.seats) == 1

    def progress(self, seat: str) -> float:
        """The seat's standing as one number, the solo shaping potential (the game's
        ``spec.progress(view)``; 0 for a game without one). See docs/rl.md."""
        fn = getattr(self.spec, "progress", None)
        return float(fn(self.view(seat))) if fn is not None else 0.0

    def rewards(self) -> dict[str, float]:
        """Each seat's reward since the previous call (or :meth:`reset`).

        With two or more seats: 0 during the match, then once at the end +1 for the winner, -1
        for the others, 0 on a draw (:func:`outcome_rewards`). In a solo game the reward also
        carries the score: the change of :meth:`progress` (potential-based shaping, so an
        episode's return is the final progress minus the initial one) plus +1 once for a win."""
        out = {s: 0.0 for s in self.seats}
        if self.solo:
            for s in self.seats:
                phi = self.progress(s)
                out[s] += phi - self._phi.get(s, phi)
                self._phi[s] = phi
        if self.over and not self._paid:
            self._paid = True
            for s, r in outcome_rewards(self.referee.outcome, self.seats).items():
                out[s] += r if not self.solo else max(r, 0.0)
        return out

    def score_info(self, seat: str) -> dict[str, Any]:
        """What a step's info carries about the score: ``progress`` (solo games), and once over
        the raw ``score`` (the rule set's :class:`~botwars.engine.Outcome` ``scores[seat]``,
        e.g. geeko's finishing turn, G-9.1) and the end ``reason``."""
        info: dict[str, Any] = {}
        if self.solo:
            info["progress"] = self.progress(seat)
        if self.over and self.referee.outcome is not None:
            oc = self.referee.outcome
            info["score"] = oc.scores.get(seat)
            info["reason"] = str(getattr(oc.reason, "value", oc.reason))
        return info

    def render(self) -> str:
        """The board as text (spectator's view)."""
        return str(self.rules.render_text(self.referee.state, None))
