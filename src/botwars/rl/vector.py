"""A Gymnasium vector environment on a game's batched engine (the arena's NumPy engine).

The learner plays player 1 (the first seat) of ``num_envs`` matches stepped together; the
opponent, player 2, plays ``opponent``: ``"random"`` (uniform legal slot actions from a NumPy
generator seeded by ``reset(seed=...)``), ``"idle"`` (no orders), a scripted bot the vector hook
offers in batch (its optional ``bots`` names and ``bot_actions(name, player)``; the arena's
``"defender"``) or a callable
``opponent(obs) -> actions`` given player 2's batched observation (with its masks under
``"action_mask"``). The learner's masks are beside its observations: :meth:`BatchVectorEnv.action_masks`.
Arrays are the game's
scalar encoding stacked (docs/rl.md), so a policy trained here plays the PettingZoo and
single-agent environments unchanged; a test checks both agree step for step.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from botwars.engine.errors import ConfigError
from botwars.rl.core import Core, check_action
from botwars.rl.spaces import action_space, observation_space


def random_slot_actions(rng: np.random.Generator, mask: np.ndarray, nvec: tuple[int, ...]) -> np.ndarray:
    """Uniform legal actions ``(n, slots)`` from flat masks ``(n, slots * k)`` (the largest of
    ``k`` uniform keys over the allowed entries of each slot; whole-array, no loop over games).
    A slot with no allowed entry gets 0."""
    n = mask.shape[0]
    m = mask.reshape(n, len(nvec), -1)
    u = rng.random(m.shape, dtype=np.float32)
    u[m == 0] = -1.0
    return np.argmax(u, axis=2).astype(np.int64)


def check_batch_actions(actions: Any, num_envs: int, nvec: tuple[int, ...]) -> np.ndarray:
    """``(num_envs, slots)`` ``int64`` actions; ``ValueError`` for malformed ones (as
    :func:`botwars.rl.core.check_action`: ``None``, not integers, wrong size, out of range)."""
    if actions is None:
        raise ValueError("actions is None: give (num_envs, slots) integer actions")
    a = np.asarray(actions)
    if a.dtype == object or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"actions are not integers (dtype {a.dtype})")
    slots = len(nvec)
    if a.size != num_envs * slots:
        raise ValueError(f"actions have {a.size} entries; expected num_envs × slots = "
                         f"{num_envs} × {slots} (shape {(num_envs, slots)})")
    a = a.reshape(num_envs, slots).astype(np.int64)
    top = np.asarray(nvec, dtype=np.int64)
    bad = (a < 0) | (a >= top)
    if bad.any():
        g = int(np.nonzero(bad)[0][0])
        check_action(a[g], nvec)   # raises with the slot and the range
    return a


class BatchVectorEnv(VectorEnv):  # type: ignore[misc]
    """``num_envs`` matches of ``game`` on the batched engine its plug-in declaration names
    (``Game.batch``, the first that serves a vector environment, or ``engine=NAME``; the arena's
    NumPy engine).

    ``autoreset_mode``: ``"next_step"`` (Gymnasium's default: the step after a match ends
    returns the first observation of a new one, ignoring the actions), ``"same_step"`` (the
    ending step already returns the new match's first observation; the last one is in
    ``info["final_obs"]``) or ``"disabled"`` (finished matches stay over until :meth:`reset`).
    Rewards: +1 / -1 / 0 for player 1 when its match ends (R28). ``info["opponent_actions"]``:
    player 2's actions of the step. Raises ``ConfigError`` for a game that declares no batched
    engine for a vector environment, a bad mode or bad parameters.
    """

    def __init__(self, game: str, num_envs: int, opponent: str | Callable[[dict[str, np.ndarray]], Any] = "random",
                 autoreset_mode: str = "next_step", engine: str | None = None, **config: Any):
        core = Core(game, config)
        core.game.batch_engine(engine, vector=True)  # ConfigError before anything is built
        modes = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                 "disabled": AutoresetMode.DISABLED}
        if autoreset_mode not in modes:
            raise ConfigError(f"autoreset_mode must be one of {', '.join(modes)}, got {autoreset_mode!r}")
        self.spec = core.spec
        self.num_envs = int(num_envs)
        self.batch = core.game.vector_batch(core.spec, core.config, self.num_envs, engine)
        bots = tuple(getattr(self.batch, "bots", ()))   # optional hook: scripted bots in batch
        if not callable(opponent) and opponent not in ("random", "idle") + bots:
            raise ConfigError(f"opponent must be 'random', 'idle', {''.join(b + ', ' for b in bots)}"
                              f"or a callable, got {opponent!r}")
        self.opponent = opponent
        self.autoreset = modes[autoreset_mode]
        self.metadata = {"autoreset_mode": self.autoreset, "render_modes": []}
        self.single_observation_space = observation_space(core.spec)
        self.single_action_space = action_space(core.spec)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._rng = np.random.default_rng()
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)
        self._mask = np.zeros((self.num_envs, int(sum(core.spec.nvec))), dtype=np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.action_space.seed(seed)
            if hasattr(self.batch, "seed"):   # optional hook: the match seeds of a game with chance at set-up
                self.batch.seed(seed)
        self.batch.reset()
        self._needs_reset[:] = False
        return self._observe(), {}

    def _observe(self) -> dict[str, np.ndarray]:
        obs = self.batch.observe(1)
        self._mask = obs.pop("action_mask")
        return obs

    def action_masks(self) -> np.ndarray:
        """The learner's flat ``int8`` masks ``(num_envs, sum(nvec))`` for the observations last
        returned (sb3-contrib's ``action_masks()`` convention)."""
        return self._mask

    def _check(self, actions: Any) -> np.ndarray:
        """``(num_envs, slots)`` ``int64`` actions (:func:`check_batch_actions`)."""
        return check_batch_actions(actions, self.num_envs, self.spec.nvec)

    def _opponent_actions(self) -> np.ndarray:
        if self.opponent == "random":
            return self.batch.random_actions(self._rng, 2)
        if self.opponent == "idle":
            return np.zeros((self.num_envs, len(self.spec.nvec)), dtype=np.int64)
        if isinstance(self.opponent, str):
            return self.batch.bot_actions(self.opponent, 2)
        return self._check(self.opponent(self.batch.observe(2)))  # type: ignore[operator]

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One turn of every live match (whole-array operations on the batch; no loop over
        matches). ``actions``: ``(num_envs, slots)``; a match whose actions are not all allowed
        by its mask plays the default action, no orders for player 1 that turn
        (``info["illegal"]``; docs/rl.md). Raises ``ValueError`` for malformed actions."""
        actions = self._check(actions)
        if self.autoreset == AutoresetMode.NEXT_STEP and self._needs_reset.any():
            restarting = self._needs_reset.copy()
            self.batch.reset(restarting)
        else:
            restarting = np.zeros(self.num_envs, dtype=bool)
        opp = self._opponent_actions()
        before = self.batch.over
        live = ~restarting & ~before
        legal = self.batch.legal(actions, 1)
        acts = np.where(legal[:, None], actions, 0)   # a masked-out action: no orders that turn (default)
        if live.any():
            self.batch.step({1: acts, 2: opp}, live)
        ended = self.batch.over & ~before & live
        if ended.any():
            rewards = np.where(ended, self.batch.rewards(1), 0.0).astype(np.float32)
        else:
            rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = ended
        truncated = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {"opponent_actions": opp, "illegal": ~legal & live}
        if self.autoreset == AutoresetMode.SAME_STEP and ended.any():
            final = self.batch.observe(1)
            final.pop("action_mask")
            infos["final_obs"] = final
            infos["_final_obs"] = ended
            self.batch.reset(ended)
        elif self.autoreset == AutoresetMode.NEXT_STEP:
            self._needs_reset = ended.copy()
        return self._observe(), rewards, terminated, truncated, infos
