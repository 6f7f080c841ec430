"""The Gymnasium vector API on a game's functional JAX environment (issue 29 item 2; docs/rl.md).

A game's batched engine may declare ``env`` (:attr:`botwars.engine.plugin.BatchEngine.env`): a
factory of an object with pure ``reset(key)`` / ``step(state, action)`` functions of one match
and their ``jax.jit(jax.vmap(...))`` forms ``reset_batch`` / ``step_batch`` (the arena's
``games/arena/env_jax.py``). :class:`JaxVectorEnv` steps ``num_envs`` matches through them and
hands back NumPy arrays with the same meaning, shapes, dtypes, info keys and auto-reset modes as
:class:`botwars.rl.vector.BatchVectorEnv`, so either can stand in for the other. A training
loop that stays on the accelerator calls the functional environment itself
(``JaxVectorEnv.functional``) inside its own ``jit``.

Needs ``jax`` (extra ``botwars[jax]``) besides ``gymnasium``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from botwars.rl.core import Core
from botwars.rl.spaces import action_space, observation_space
from botwars.rl.vector import check_batch_actions

_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
          "disabled": AutoresetMode.DISABLED}


class JaxVectorEnv(VectorEnv):  # type: ignore[misc]
    """``num_envs`` matches of ``game`` on the functional environment of its batched engine
    ``engine`` (``None``: the first that declares one; the arena's ``jax``), learner against
    ``opponent`` (the names the game's functional environment takes: the arena's ``random``,
    ``idle``, ``defender``), ``autoreset_mode`` as :class:`~botwars.rl.vector.BatchVectorEnv`.

    ``reset(seed=s)`` seeds the matches with ``jax.random.split(jax.random.PRNGKey(s),
    num_envs)`` (``seed=None``: a seed from the operating system's entropy); ``step(actions)``
    takes ``(num_envs, slots)`` integers and raises ``ValueError`` for malformed ones (as the
    NumPy env), ``RuntimeError`` before the first :meth:`reset`. Observations, rewards
    (``float32``), ``terminated`` / ``truncated`` (``bool``) and ``info`` (``illegal``,
    ``opponent_actions``; ``final_obs`` / ``_final_obs`` in ``same_step`` mode) are NumPy arrays.
    Raises ``ConfigError`` for a game or engine without a functional environment, a bad mode or
    opponent, or bad parameters.
    """

    def __init__(self, game: str, num_envs: int, opponent: str = "random", autoreset_mode: str = "next_step",
                 engine: str | None = None, **config: Any):
        core = Core(game, config)
        self.spec = core.spec
        self.num_envs = int(num_envs)
        self.functional = core.game.functional_env(core.spec, core.config, engine, opponent=opponent,
                                                   autoreset_mode=autoreset_mode)
        self.opponent = opponent
        self.autoreset = _MODES[autoreset_mode]
        self.metadata = {"autoreset_mode": self.autoreset, "render_modes": []}
        self.single_observation_space = observation_space(core.spec)
        self.single_action_space = action_space(core.spec)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.state: Any = None
        self._mask = np.zeros((self.num_envs, int(sum(core.spec.nvec))), dtype=np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        import jax
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2 ** 32))
        else:
            self.action_space.seed(seed)
        keys = jax.random.split(jax.random.PRNGKey(seed), self.num_envs)
        self.state, obs, mask = self.functional.reset_batch(keys)
        self._mask = np.asarray(mask)
        return {k: np.asarray(v) for k, v in obs.items()}, {}

    def action_masks(self) -> np.ndarray:
        """The learner's flat ``int8`` masks ``(num_envs, sum(nvec))`` for the observations last
        returned (sb3-contrib's ``action_masks()`` convention)."""
        return self._mask

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One step of every match (see the class); a match whose actions are not all allowed by
        its mask plays no orders for the learner that turn (``info["illegal"]``)."""
        import jax.numpy as jnp
        if self.state is None:
            raise RuntimeError("step before reset: call reset() first")
        a = check_batch_actions(actions, self.num_envs, self.spec.nvec)
        self.state, obs, mask, reward, term, trunc, info = self.functional.step_batch(
            self.state, jnp.asarray(a, dtype=jnp.int32))
        self._mask = np.asarray(mask)
        infos: dict[str, Any] = {"opponent_actions": np.asarray(info["opponent_actions"]).astype(np.int64),
                                 "illegal": np.asarray(info["illegal"])}
        if "final" in info:
            ended = np.asarray(info["final"])
            if ended.any():
                infos["final_obs"] = {k: np.asarray(v) for k, v in info["final_obs"].items()}
                infos["_final_obs"] = ended
        return ({k: np.asarray(v) for k, v in obs.items()}, np.asarray(reward), np.asarray(term),
                np.asarray(trunc), infos)
