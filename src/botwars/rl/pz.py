"""PettingZoo environments over the referee: AEC and Parallel (docs/rl.md)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector

from botwars.rl.core import Core
from botwars.rl.spaces import action_space, observation_space


def _seed(seed: int | None, rng: np.random.Generator) -> int:
    return int(seed) if seed is not None else int(rng.integers(0, 2**31 - 1))


class _Seats:
    """What both PettingZoo forms share: the game's :class:`~botwars.rl.core.Core`, the seats as
    agents, metadata, and the spaces (the same for every seat)."""

    def _setup(self, game: str, render_mode: str | None, seats: int | None, config: dict[str, Any]) -> None:
        self.core = Core(game, config, seats)
        self.possible_agents = list(self.core.seats)
        self.render_mode = render_mode
        self.metadata = {"name": f"botwars_{self.core.game.id}_v0", "render_modes": ["ansi"],
                         "is_parallelizable": True}
        self._rng = np.random.default_rng()

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent: str) -> Any:
        return observation_space(self.core.spec)

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent: str) -> Any:
        return action_space(self.core.spec)


class BotwarsAEC(_Seats, AECEnv):  # type: ignore[misc]
    """The AEC (agent-environment cycle) form of a botwars game (PettingZoo).

    Agents are the seats (``p1``, ``p2`` ... or the game's names). The agents are stepped in a
    fixed cycle, seat order: the selected seat either has orders to give (its turn, a setup,
    or the next sub-step of a program or action list) or plays the wait action (index 0, the
    only one its mask allows). Observations are the seat's own view as arrays (docs/rl.md) with
    ``action_mask``; rewards are given at the end (+1 win, -1 loss, 0 draw). A masked-out action
    settles the seat with its default orders for that decision point (``info["illegal"]``).
    ``config``: the game's parameters; ``seats``: the number of seats.
    """

    def __init__(self, game: str, render_mode: str | None = None, seats: int | None = None, **config: Any):
        super().__init__()
        self._setup(game, render_mode, seats, config)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.core.reset(_seed(seed, self._rng))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.core.observe(agent, alive=not (self.terminations[agent] or self.truncations[agent]))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = self.core.act(agent, action)
        # the match may end mid-cycle; the seats end together at the end of the cycle (the
        # remaining ones play the wait action), as PettingZoo's aec_to_parallel requires
        if self.core.over and self._selector.is_last():
            self.rewards = self.core.rewards()
            self.terminations = {a: True for a in self.agents}
        else:
            self.rewards = {a: 0.0 for a in self.agents}
        self._accumulate_rewards()
        self.agent_selection = self._selector.next()

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.core.render()
        return None

    def close(self) -> None:
        pass


class BotwarsParallel(_Seats, ParallelEnv):  # type: ignore[misc]
    """The Parallel form of a simultaneous botwars game (PettingZoo): every live seat acts each
    step; a seat with nothing to decide (its program already complete, or out of the game) plays
    the wait action. Same observations, rewards and masked-out handling as :class:`BotwarsAEC`."""

    def __init__(self, game: str, render_mode: str | None = None, seats: int | None = None, **config: Any):
        self._setup(game, render_mode, seats, config)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.core.reset(_seed(seed, self._rng))
        self.agents = list(self.possible_agents)
        return {a: self.core.observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, Any]]:
        infos: dict[str, Any] = {a: {} for a in self.agents}
        for a in self.agents:
            if a in actions:
                infos[a] = self.core.act(a, actions[a])
        over = self.core.over
        rewards = self.core.rewards() if over else {a: 0.0 for a in self.agents}
        obs = {a: self.core.observe(a) for a in self.agents}
        terms = {a: over for a in self.agents}
        truncs = {a: False for a in self.agents}
        rewards = {a: rewards[a] for a in self.agents}
        if over:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.core.render()
        return None

    def close(self) -> None:
        pass
