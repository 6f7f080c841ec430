"""Gymnasium single-agent environment: one seat against built-in bots (docs/rl.md)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from botwars.engine.agent import CallableAgent
from botwars.engine.driver import SeatDriver
from botwars.engine.errors import ConfigError
from botwars.rl.core import Core
from botwars.rl.spaces import action_space, observation_space


def _no_time() -> float:
    """The bots' time source: an environment's match has no clock."""
    return 0.0


class SingleAgentEnv(gymnasium.Env):  # type: ignore[misc]
    """The learner plays seat number ``seat`` (0-based) of ``game``; every other seat is played
    by the game's built-in bot ``opponent`` (``builtin:NAME`` or ``NAME``), started with the seed
    the platform gives an agent (:meth:`Ruleset.agent_seed` of the match seed). Observations,
    actions are the seat's (docs/rl.md); the action mask is beside the observation, as
    sb3-contrib's ``MaskablePPO`` expects: :meth:`action_masks` and ``info["action_mask"]``. The
    reward is :meth:`Core.rewards` (+1 / -1 / 0 at the end; a solo game also carries the
    score, with the raw ``score`` in the final info). The opponent's orders go through the same
    referee; a refused one gets its default orders. A masked-out action plays the default action
    (``info["illegal"]``); :meth:`step` raises ``ValueError`` for a malformed action and
    ``RuntimeError`` after the end. Raises ``ConfigError`` for an unknown bot or parameter."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str, opponent: str = "random", seat: int = 0, render_mode: str | None = None,
                 seats: int | None = None, random_opening: int = 0, **config: Any):
        self.core = Core(game, config, seats, random_opening=random_opening)
        name = opponent.removeprefix("builtin:")
        bots = self.core.game.builtin_bots()
        if name not in bots:
            raise ConfigError(f"{self.core.game.id} has no built-in bot {name!r} (known: {', '.join(sorted(bots))})")
        if not 0 <= seat < len(self.core.seats):
            raise ConfigError(f"seat must be 0 to {len(self.core.seats) - 1}, got {seat}")
        self._factory = bots[name]
        self.seat = self.core.seats[seat]
        self.render_mode = render_mode
        self.observation_space = observation_space(self.core.spec)
        self.action_space = action_space(self.core.spec)
        self._bots: dict[str, Any] = {}
        self._done = True

    def action_masks(self) -> np.ndarray:
        """The learner's flat ``int8`` action mask now (``sum(nvec)`` entries; sb3-contrib's
        ``MaskablePPO`` reads it through this method)."""
        return self.core.mask(self.seat)

    def _info(self, extra: dict[str, Any]) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), **self.core.score_info(self.seat), **extra}

    def _play_others(self) -> None:
        """Let the bots play until the learner has to decide or the match is over (the seat
        driver: a refused bot gets its default orders unless the rules count refusals)."""
        core = self.core
        drv = SeatDriver(core.referee, {s: CallableAgent(b) for s, b in self._bots.items()},
                         time_source=_no_time, parallel=False)
        while not core.over and not core.deciding(self.seat):
            drv.play_point()  # the bots' point, resolved by the driver
            core.points += 1
            core.partial = {s: () for s in core.seats}
            core.settled()  # caches forgotten; points of the rules alone after it resolved too

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        match_seed = int(self.np_random.integers(0, 2**31 - 1))
        self.core.reset(match_seed)
        self._bots = {}
        for s in self.core.seats:
            if s == self.seat:
                continue
            bot = self._factory()
            if hasattr(bot, "start"):
                bot.start(self.core.game.id, s, dict(self.core.config), self.core.rules.agent_seed(match_seed, s))
            self._bots[s] = bot
        self._play_others()
        self.core.rewards()   # the shaping starts from the learner's first decision
        self._done = self.core.over
        return self.core.observe(self.seat), self._info({})

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over: reset() before stepping again")
        info = self.core.act(self.seat, action)
        self._play_others()
        over = self.core.over
        reward = self.core.rewards()[self.seat]
        self._done = over
        return self.core.observe(self.seat), float(reward), over, False, self._info(info)

    def render(self) -> str | None:
        return self.core.render() if self.render_mode == "ansi" else None
