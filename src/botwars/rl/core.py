"""The seat-driving core shared by every learning environment: one :class:`Referee` per match.

Every decision goes through :class:`botwars.engine.referee.Referee` by way of the seat driver
(:mod:`botwars.engine.driver`: ``settle`` with its one refusal policy, ``fail``, ``resolve``) and
:meth:`Referee.view`: this module never calls ``Ruleset.resolve``. What a game's arrays
and actions mean comes from the game's own encoding, reached through the ``rl`` hook of its
plug-in declaration (:meth:`botwars.engine.plugin.Game.rl_spec`, docs/rl.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.engine import driver
from botwars.engine.plugin import Game, get_game
from botwars.engine.referee import Referee

ILLEGAL_ACTION = "illegal_action"
"""Failure code recorded when an environment is given a masked-out action: the seat's default
orders apply for that decision point (as for any agent that gives unusable orders)."""


def outcome_rewards(outcome: Any, seats: list[str]) -> dict[str, float]:
    """Terminal rewards from an :class:`~botwars.engine.Outcome`: +1 for the winner, -1 for every
    other seat when there is a winner, 0 for all on a draw."""
    if outcome is None:
        return {s: 0.0 for s in seats}
    w = outcome.winner
    return {s: (0.0 if w is None else 1.0 if s == w else -1.0) for s in seats}


class Core:
    """One match of ``game`` driven seat by seat, with the game's array encoding.

    ``config``: parameter overrides (validated by the rule set; raises ``ConfigError``);
    ``seats``: number of seats (default: the game's minimum, at least 2 where allowed).
    Each seat builds its orders from discrete actions (several sub-steps for a program or an
    action list); the partial choice of each seat is kept in :attr:`partial`.
    """

    def __init__(self, game: str | Game, config: dict[str, Any] | None = None, seats: int | None = None):
        self.game = game if isinstance(game, Game) else get_game(game)
        self.rules = self.game.ruleset()
        self.config = self.rules.validate_config(config or {}, source="config")  # not the CLI's --set
        lo, hi = self.game.seats
        n = seats if seats is not None else max(lo, min(2, hi))
        self.seats = list(self.rules.seat_names(n))
        self.spec = self.game.rl_spec(self.config, self.seats)
        self.finite = bool(self.game.capabilities.finite_legal_orders)
        self.ref: Referee | None = None
        self.partial: dict[str, tuple[int, ...]] = {}
        self._views: dict[str, dict[str, Any]] = {}
        self._legal: dict[str, Any] = {}
        self.illegal = 0

    # ---- match --------------------------------------------------------------------------
    def reset(self, seed: int) -> None:
        """A new match from ``seed`` (the match seed, as ``botwars match --seed``)."""
        self.ref = Referee(self.rules, self.config, self.seats, int(seed), clock=False, history=False)
        self.partial = {s: () for s in self.seats}
        self._views.clear()
        self._legal.clear()
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

    def observe(self, seat: str, alive: bool | None = None) -> dict[str, np.ndarray]:
        """``seat``'s observation dict: the game's arrays plus ``action_mask``."""
        obs = self.spec.observe(self.view(seat), self.partial[seat])
        obs["action_mask"] = self.mask(seat, alive)
        return obs

    # ---- actions ------------------------------------------------------------------------
    def is_legal(self, mask: np.ndarray, action: Any) -> bool:
        nvec = self.spec.nvec
        a = np.asarray(action).reshape(-1)
        if a.shape[0] != len(nvec) or (a < 0).any() or (a >= np.asarray(nvec)).any():
            return False
        if len(nvec) == 1:
            return bool(mask[int(a[0])])
        return bool(mask.reshape(len(nvec), -1)[np.arange(len(nvec)), a].all())

    def act(self, seat: str, action: Any) -> dict[str, Any]:
        """Apply ``seat``'s action; returns the step's info for the seat (``{}`` normally;
        ``{"illegal": detail}`` when the action was masked out and default orders applied;
        ``{"refused": message}`` when the built orders were refused). A seat with nothing to
        decide ignores its action (the wait action). Resolves the decision point through the
        referee once every pending seat is settled."""
        ref = self.referee
        if ref.over or not self.deciding(seat):
            return {}
        info: dict[str, Any] = {}
        mask = self.mask(seat)
        if not self.is_legal(mask, action):
            self.illegal += 1
            driver.fail(ref, seat, {"code": ILLEGAL_ACTION,
                                    "detail": f"masked-out action {np.asarray(action).tolist()}"}, 0.0)
            self.partial[seat] = ()
            info["illegal"] = np.asarray(action).tolist()
        else:
            partial, payload = self.spec.decide(self.view(seat), self.partial[seat], action, self.legal(seat))
            if payload is None:
                self.partial[seat] = partial
                return info
            self.partial[seat] = ()
            tk, _ = driver.settle(ref, seat, payload, 0.0)  # refused: default, unless counted (S-7.10)
            if tk.error is not None:
                info["refused"] = tk.error.message
        self.point_changed()
        return info

    def point_changed(self) -> None:
        """Forget cached views and legal orders after a settlement, and resolve the decision
        point once every pending seat is settled (:func:`botwars.engine.driver.resolve`)."""
        self._views.clear()
        self._legal.clear()
        ref = self.referee
        if ref.ready():
            driver.close_point(ref)
            self.partial = {s: () for s in self.seats}

    def rewards(self) -> dict[str, float]:
        """Terminal rewards once over (:func:`outcome_rewards`), else 0 for every seat."""
        return outcome_rewards(self.referee.outcome if self.over else None, self.seats)

    def render(self) -> str:
        """The board as text (spectator's view)."""
        return str(self.rules.render_text(self.referee.state, None))
