"""PettingZoo environments over the referee: AEC and Parallel (docs/rl.md)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector
from pettingzoo.utils.conversions import aec_to_parallel_wrapper, parallel_to_aec_wrapper
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from botwars.engine.errors import ConfigError
from botwars.rl.core import Core
from botwars.rl.spaces import action_space, observation_space


def _seed(seed: int | None, rng: np.random.Generator) -> int:
    return int(seed) if seed is not None else int(rng.integers(0, 2**31 - 1))


class _Seats:
    """What both PettingZoo forms share: the game's :class:`~botwars.rl.core.Core`, the seats as
    agents, metadata, and the spaces (the same for every seat)."""

    def _setup(self, game: str, render_mode: str | None, seats: int | None, max_cycles: int | None,
               config: dict[str, Any]) -> None:
        opening = config.pop("random_opening", 0)
        if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(max_cycles, int)
                                       or max_cycles < 1):
            raise ConfigError(f"max_cycles must be a positive whole number or None, got {max_cycles!r}")
        self.max_cycles = max_cycles
        self.core = Core(game, config, seats, random_opening=opening)
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

    def action_mask(self, agent: str) -> np.ndarray:
        """``agent``'s flat ``int8`` action mask now (also in its info, ``"action_mask"``)."""
        return self.core.mask(agent, alive=self._alive(agent))

    def _alive(self, agent: str) -> bool:
        return agent in self.agents

    def _info(self, agent: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """An agent's info: its action mask, the score facts (:meth:`Core.score_info`) and the
        step's own facts (``illegal``, ``refused``)."""
        info = {"action_mask": self.action_mask(agent), **self.core.score_info(agent)}
        if extra:
            info.update(extra)
        return info


class BotwarsAEC(_Seats, AECEnv):  # type: ignore[misc]
    """The AEC (agent-environment cycle) form of a botwars game (PettingZoo).

    Agents are the seats (``p1``, ``p2`` ... or the game's names). The agents are stepped in a
    fixed cycle, seat order: the selected seat either has orders to give (its turn, a setup,
    or the next sub-step of a program or action list) or plays the wait action (index 0, the
    only one its mask allows). Observations are the seat's own view as arrays (docs/rl.md) with
    the action mask in its info (``"action_mask"``); rewards :meth:`Core.rewards` (+1 win, -1
    loss, 0 draw at the end; solo games also carry the score). A masked-out action plays the
    decision's default action (``info["illegal"]``), a malformed one raises ``ValueError``, and
    stepping once every agent is done raises ``RuntimeError``.
    ``config``: the game's parameters; ``seats``: the number of seats; ``max_cycles``: see
    :class:`_Seats`.
    """

    def __init__(self, game: str, render_mode: str | None = None, seats: int | None = None,
                 max_cycles: int | None = None, **config: Any):
        super().__init__()
        self.agents: list[str] = []
        self._setup(game, render_mode, seats, max_cycles, config)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.core.reset(_seed(seed, self._rng))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._selector.reset()
        self._cycles = 0
        self.infos: dict[str, dict[str, Any]] = {a: self._info(a) for a in self.agents}

    def _alive(self, agent: str) -> bool:
        return agent in self.agents and not (self.terminations[agent] or self.truncations[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.core.observe(agent)

    def step(self, action: Any) -> None:
        if not self.agents:
            raise RuntimeError("every agent is done: reset() before stepping again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if self.core.over:   # the rest of the cycle after the end: the wait action
            self.core.check(action)
            mask = self.action_mask(agent)
            extra = {} if self.core.is_legal(mask, action) else {"illegal": np.asarray(action).tolist()}
        else:
            extra = self.core.act(agent, action)
        last = self._selector.is_last()
        self._cycles += int(last)
        # the match may end mid-cycle; the seats end together at the end of the cycle (the
        # remaining ones play the wait action), as PettingZoo's aec_to_parallel requires
        ended = self.core.over and last
        cut = not self.core.over and last and self.max_cycles is not None and self._cycles >= self.max_cycles
        if self.core.over and not last:
            self.rewards = {a: 0.0 for a in self.agents}   # paid together at the end of the cycle
        else:
            self.rewards = {a: r for a, r in self.core.rewards().items() if a in self.agents}
        if ended:
            self.terminations = {a: True for a in self.agents}
        elif cut:
            self.truncations = {a: True for a in self.agents}
        self.infos = {a: self._info(a, extra if a == agent else None) for a in self.agents}
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
    the wait action. Same observations, masks, rewards, ``max_cycles`` (one cycle per step) and
    action rules as :class:`BotwarsAEC`."""

    def __init__(self, game: str, render_mode: str | None = None, seats: int | None = None,
                 max_cycles: int | None = None, **config: Any):
        self.agents: list[str] = []
        self._setup(game, render_mode, seats, max_cycles, config)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.core.reset(_seed(seed, self._rng))
        self.agents = list(self.possible_agents)
        self._cycles = 0
        return {a: self.core.observe(a) for a in self.agents}, {a: self._info(a) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, Any]]:
        """Every live seat's action (a seat left out plays the wait action). Raises
        ``ValueError`` for a malformed action (before any is applied), ``RuntimeError`` once
        every agent is done."""
        if not self.agents:
            raise RuntimeError("every agent is done: reset() before stepping again")
        for a in self.agents:
            if a in actions:
                self.core.check(actions[a])
        extra: dict[str, Any] = {a: {} for a in self.agents}
        for a in self.agents:
            if a in actions and not self.core.over:
                extra[a] = self.core.act(a, actions[a])
        self._cycles += 1
        over = self.core.over
        cut = not over and self.max_cycles is not None and self._cycles >= self.max_cycles
        rewards = self.core.rewards()
        obs = {a: self.core.observe(a) for a in self.agents}
        terms = {a: over for a in self.agents}
        truncs = {a: cut for a in self.agents}
        rewards = {a: rewards[a] for a in self.agents}
        infos = {a: self._info(a, extra[a]) for a in self.agents}
        if over or cut:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.core.render()
        return None

    def close(self) -> None:
        pass


class CheckedParallelToAEC(parallel_to_aec_wrapper):  # type: ignore[misc]
    """PettingZoo's ``parallel_to_aec`` for a simultaneous game, with the action rules of
    :class:`BotwarsAEC`: a live agent's malformed action raises ``ValueError`` when it is given
    (PettingZoo's own wrapper only stores it until the end of the cycle), and stepping once
    every agent is done raises ``RuntimeError``."""

    def action_mask(self, agent: str) -> np.ndarray:
        return self.env.action_mask(agent)

    def step(self, action: Any) -> None:
        if not self.agents:
            raise RuntimeError("every agent is done: reset() before stepping again")
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            self.env.core.check(action)
        super().step(action)


def simultaneous_aec(par: BotwarsParallel) -> Any:
    """The AEC form of a simultaneous game: :class:`CheckedParallelToAEC` under PettingZoo's
    order-enforcing wrapper (as ``pettingzoo.utils.conversions.parallel_to_aec`` builds it)."""
    return OrderEnforcingWrapper(CheckedParallelToAEC(par))


class CheckedAECToParallel(aec_to_parallel_wrapper):  # type: ignore[misc]
    """PettingZoo's ``aec_to_parallel`` for an alternating or mixed game, with the action rules
    of :class:`BotwarsAEC`: every live agent's action is checked before any is applied
    (``ValueError`` for a malformed one), stepping once every agent is done raises
    ``RuntimeError``; :meth:`action_mask` and :attr:`core` as on :class:`BotwarsParallel`."""

    @property
    def core(self) -> Core:
        return self.aec_env.unwrapped.core  # type: ignore[no-any-return]

    def action_mask(self, agent: str) -> np.ndarray:
        return self.aec_env.unwrapped.action_mask(agent)  # type: ignore[no-any-return]

    def step(self, actions: dict[str, Any]) -> Any:
        if not self.agents:
            raise RuntimeError("every agent is done: reset() before stepping again")
        for a in self.agents:
            if a in actions:
                self.core.check(actions[a])
        return super().step(actions)


def alternating_parallel(aec: BotwarsAEC) -> Any:
    """The Parallel form of an alternating or mixed game (:class:`CheckedAECToParallel`)."""
    return CheckedAECToParallel(aec)
