"""The whole arena learning environment in JAX (issue 29 item 2; docs/rl.md, "JAX environment").

Pure functions of one match, for ``jax.jit`` and ``jax.vmap``: :meth:`ArenaJaxEnv.reset`
``(key) -> (state, obs, mask)`` and :meth:`ArenaJaxEnv.step` ``(state, action) -> (state, obs,
mask, reward, terminated, truncated, info)``, with the observations, the action masks, the
rewards, the built-in opponent's policy and the auto-reset of the NumPy vector environment
(:class:`botwars.rl.vector.BatchVectorEnv` on :class:`~botwars.games.arena.rlspec.ArenaBatch`):

- the learner is player 1, the opponent player 2; arrays are :class:`ArenaSpec`'s encoding
  (``board`` ``float32`` ``(7, h, w)``, ``vector`` ``float32`` ``(2,)``, mask ``int8``
  ``(h * w * 11,)``), built from tables that the NumPy functions themselves computed
  (``ArenaSpec.vector`` over every turn, the HP fractions of ``ArenaSpec.planes``), so the bits
  agree on any device (no float division runs in XLA);
- the rules are :class:`~botwars.games.arena.batch_jax.JaxArena`'s (R12-R27) on a batch of one;
- a masked-out action (any slot not allowed; docs/rl.md, "One rule for actions") plays the default action, no
  orders for the learner that turn, and ``info["illegal"]`` is true;
- the reward is +1 / -1 / 0 for the learner when its match ends (R28: robots, then HP), else 0;
  ``truncated`` is always false (R26's turn limit is a termination, as in the NumPy env);
- opponents: ``"random"`` (each of player 2's robots one of the 11 slot actions, uniformly,
  drawn with ``jax.random`` from the state's key: ``jax.random.split`` once per step), ``"idle"``
  (no orders), ``"defender"`` (every robot defends, the built-in ``defender`` bot's
  orders, :class:`~botwars.games.arena.bots.DefenderBot`) and ``"hunter"`` (the built-in
  ``hunter`` bot's orders, :class:`~botwars.games.arena.bots.HunterBot`, through
  :func:`~botwars.games.arena.bots_batch.hunter_actions`, the NumPy env's own definition);
- ``autoreset_mode``: ``"next_step"`` (Gymnasium's default: the step after the end restarts
  the match, ignoring the action, reward 0), ``"same_step"`` (the ending step returns the new
  match's first observation; the last one in ``info["final_obs"]`` and ``info["final_mask"]``) or
  ``"disabled"`` (a finished match stays over).

The arena has no chance (R7: every match starts the same), so the key only drives the random
opponent. The NumPy environment draws its random opponent from a NumPy generator instead; the
test (``tests/arena/test_arena_env_jax.py``) feeds this environment's draws
(``info["opponent_actions"]``) to the NumPy environment as its opponent and compares every
array exactly; the ``idle`` and ``defender`` opponents are compared directly.

Raises ``ModuleNotFoundError`` at import when ``jax`` is not installed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from botwars.engine.errors import ConfigError
from botwars.games.arena.batch import DEFEND
from botwars.games.arena.batch_jax import JaxArena
from botwars.games.arena.bots_batch import hunter_actions
from botwars.games.arena.rlspec import N_ACTIONS, ArenaSpec

OPPONENTS = ("random", "idle", "defender", "hunter")
MODES = ("next_step", "same_step", "disabled")


class ArenaState(NamedTuple):
    """One match (a batch of them under ``vmap``): ``owner`` ``int8`` ``(h + 2, w + 2)`` (0 empty,
    1 learner, 2 opponent; a wall border as in :class:`~botwars.games.arena.batch.BatchArena`),
    ``hp`` ``int32`` (same shape), ``turns`` ``int32`` (the last turn resolved), ``over`` ``bool``,
    ``needs_reset`` ``bool`` (``next_step`` mode: the next step restarts), ``key`` (the random
    opponent's PRNG key)."""

    owner: jax.Array
    hp: jax.Array
    turns: jax.Array
    over: jax.Array
    needs_reset: jax.Array
    key: jax.Array


class ArenaJaxEnv:
    """The arena's functional environment for ``config`` (validated), learner against
    ``opponent`` (:data:`OPPONENTS`), with ``autoreset_mode`` (:data:`MODES`).

    :meth:`reset` and :meth:`step` are pure (one match, no batch axis); :meth:`reset_batch` and
    :meth:`step_batch` are ``jax.jit(jax.vmap(...))`` of them. It is the ``env`` hook of the
    arena's ``jax`` :class:`~botwars.engine.plugin.BatchEngine`. Raises ``ConfigError`` for an
    unknown opponent or mode.
    """

    def __init__(self, spec: ArenaSpec, config: dict[str, Any], opponent: str = "random",
                 autoreset_mode: str = "next_step"):
        if opponent not in OPPONENTS:
            raise ConfigError(f"the JAX arena environment's opponent must be one of {', '.join(OPPONENTS)}, "
                              f"got {opponent!r}")
        if autoreset_mode not in MODES:
            raise ConfigError(f"autoreset_mode must be one of {', '.join(MODES)}, got {autoreset_mode!r}")
        self.spec = spec
        self.config = config
        self.opponent = opponent
        self.autoreset_mode = autoreset_mode
        self.rules = JaxArena(config, 1)
        self.height, self.width = spec.height, spec.width
        self.slots = spec.slots
        ihp = int(config["initial_hp"])
        self._ihp = ihp
        # the NumPy encoding's own values, as tables (bit-identical on every device)
        hp_frac = np.divide(np.minimum(np.arange(ihp + 1), ihp), np.float32(ihp), dtype=np.float32)
        self._hp_frac = jnp.asarray(hp_frac)
        self._vec = jnp.asarray(spec.vector(np.arange(int(config["max_turns"]) + 2)))
        self._static = jnp.asarray(spec._static[1])                          # (3, h, w) walls, spawns
        self._mask_rows = jnp.asarray(np.array([[1] + [0] * (N_ACTIONS - 1), [1] * N_ACTIONS], dtype=np.int8))
        self._spawn = self.rules._spawn                                     # (h + 2, w + 2) int8
        self._start_hp = jnp.where(self._spawn > 0, ihp, 0).astype(jnp.int32)
        self._open = jnp.asarray(spec.wall == 0)
        self._spawns = jnp.asarray((spec.spawn[1] + spec.spawn[2]) > 0)
        self.reset_batch = jax.jit(jax.vmap(self.reset))
        self.step_batch = jax.jit(jax.vmap(self.step))

    # ---- pieces ------------------------------------------------------------------------------
    def observe(self, owner: jax.Array, hp: jax.Array, turns: jax.Array, over: jax.Array
                ) -> tuple[dict[str, jax.Array], jax.Array]:
        """The learner's observation ``{"board": (7, h, w), "vector": (2,)}`` (``float32``) and
        flat mask (``int8``, ``(h * w * 11,)``) of one match (:class:`ArenaSpec`)."""
        o, h = owner[1:-1, 1:-1], hp[1:-1, 1:-1]
        own, enemy = o == 1, o == 2
        frac = self._hp_frac[jnp.clip(h, 0, self._ihp)]
        zero = jnp.float32(0)
        board = jnp.concatenate([self._static, jnp.stack([
            own.astype(jnp.float32), jnp.where(own, frac, zero),
            enemy.astype(jnp.float32), jnp.where(enemy, frac, zero)])], axis=0)
        turn = jnp.where(over, turns, turns + 1)
        vector = self._vec[jnp.clip(turn, 0, self._vec.shape[0] - 1)]
        mask = jnp.where(own.reshape(-1, 1), self._mask_rows[1], self._mask_rows[0]).reshape(-1)
        return {"board": board, "vector": vector}, mask

    def opponent_actions(self, owner: jax.Array, hp: jax.Array, turns: jax.Array, key: jax.Array) -> jax.Array:
        """Player 2's slot actions ``(h * w,)`` ``int32`` (0 on squares without one of its robots)
        on the board ``owner``/``hp`` whose last resolved turn is ``turns``."""
        own2 = (owner[1:-1, 1:-1] == 2).reshape(-1)
        if self.opponent == "hunter":
            return hunter_actions(jnp, owner[1:-1, 1:-1], hp[1:-1, 1:-1], turns + 1, 2, self._open, self._spawns,
                                  int(self.config["spawn_interval"]), _fixed_point).reshape(-1)
        if self.opponent == "random":
            draw = jax.random.randint(key, (self.slots,), 0, N_ACTIONS, dtype=jnp.int32)
            return jnp.where(own2, draw, 0)
        if self.opponent == "defender":
            return jnp.where(own2, DEFEND, 0).astype(jnp.int32)
        return jnp.zeros(self.slots, dtype=jnp.int32)

    def rewards(self, owner: jax.Array, hp: jax.Array) -> jax.Array:
        """+1 / -1 / 0 for the learner by R28 (robots, then HP), ``float32``."""
        r1, r2 = (owner == 1).sum(), (owner == 2).sum()
        h1, h2 = jnp.where(owner == 1, hp, 0).sum(), jnp.where(owner == 2, hp, 0).sum()
        win = (r1 > r2) | ((r1 == r2) & (h1 > h2))
        lose = (r2 > r1) | ((r1 == r2) & (h2 > h1))
        return win.astype(jnp.float32) - lose.astype(jnp.float32)

    def _restart(self, which: jax.Array, owner: jax.Array, hp: jax.Array, turns: jax.Array, over: jax.Array
                 ) -> tuple[jax.Array, ...]:
        return (jnp.where(which, self._spawn, owner), jnp.where(which, self._start_hp, hp),
                jnp.where(which, 0, turns).astype(jnp.int32), over & ~which)

    # ---- the pure environment ----------------------------------------------------------------
    def reset(self, key: jax.Array) -> tuple[ArenaState, dict[str, jax.Array], jax.Array]:
        """Turn 0 (R7) of one match: ``(state, obs, mask)``; ``key`` seeds the random opponent."""
        state = ArenaState(self._spawn, self._start_hp, jnp.int32(0), jnp.bool_(False), jnp.bool_(False), key)
        obs, mask = self.observe(state.owner, state.hp, state.turns, state.over)
        return state, obs, mask

    def step(self, state: ArenaState, action: jax.Array) -> tuple[Any, ...]:
        """One turn of one match: ``action`` is the learner's ``(h * w,)`` slot actions (integers
        0-10; the Gymnasium layer checks the range). Returns ``(state, obs, mask, reward
        (float32), terminated (bool), truncated (bool), info)``; ``info`` holds ``illegal``
        (a masked-out action was replaced by no orders), ``opponent_actions`` ``(h * w,)`` and,
        in ``same_step`` mode, ``final_obs`` / ``final_mask`` (the observation the match ended
        on; the returned one is the new match's) and ``final`` (the match ended)."""
        action = jnp.asarray(action).astype(jnp.int32).reshape(-1)
        owner, hp, turns, over = state.owner, state.hp, state.turns, state.over
        restarting = state.needs_reset if self.autoreset_mode == "next_step" else jnp.bool_(False)
        owner, hp, turns, over = self._restart(restarting, owner, hp, turns, over)
        key, sub = jax.random.split(state.key)
        opp = self.opponent_actions(owner, hp, turns, sub)
        before = over
        live = ~restarting & ~before
        own1 = (owner[1:-1, 1:-1] == 1).reshape(-1)
        legal = (((action == 0) | own1) & (action >= 0) & (action < N_ACTIONS)).all()
        acts = jnp.where(legal, action, 0)
        shape = (self.height, self.width)
        o_in = owner[1:-1, 1:-1]
        codes = jnp.where(o_in == 1, acts.reshape(shape), jnp.where(o_in == 2, opp.reshape(shape), 0))
        codes = jnp.zeros_like(owner).at[1:-1, 1:-1].set(codes.astype(jnp.int8))
        n_owner, n_hp, n_turns, n_over = self.rules._step_impl(owner[None], hp[None], turns[None], over[None],
                                                               codes[None])
        owner = jnp.where(live, n_owner[0], owner)
        hp = jnp.where(live, n_hp[0], hp)
        turns = jnp.where(live, n_turns[0], turns).astype(jnp.int32)
        over = jnp.where(live, n_over[0], over)
        ended = over & ~before & live
        reward = jnp.where(ended, self.rewards(owner, hp), jnp.float32(0))
        info: dict[str, jax.Array] = {"illegal": ~legal & live, "opponent_actions": opp}
        needs_reset = jnp.bool_(False)
        if self.autoreset_mode == "same_step":
            final_obs, final_mask = self.observe(owner, hp, turns, over)
            info["final_obs"], info["final_mask"], info["final"] = final_obs, final_mask, ended
            owner, hp, turns, over = self._restart(ended, owner, hp, turns, over)
        elif self.autoreset_mode == "next_step":
            needs_reset = ended
        obs, mask = self.observe(owner, hp, turns, over)
        state = ArenaState(owner, hp, turns, over, needs_reset, key)
        return state, obs, mask, reward, ended, jnp.bool_(False), info

    # ---- a rollout for benchmarks ------------------------------------------------------------
    def random_rollout(self, num_envs: int, steps: int) -> Any:
        """A jit-compiled ``run(state, mask, key) -> (state, mask, key, checksum)`` that plays
        ``steps`` steps of ``num_envs`` matches (``state``, ``mask`` from :meth:`reset_batch`),
        the learner uniform over its mask (the 11 actions where the mask allows them, 0
        elsewhere, read from the mask itself), inside one ``lax.scan``. ``checksum``
        (``float32``) sums every step's observations, masks and rewards, so that XLA cannot skip
        building them (the benchmark's "with observations and masks")."""
        step = jax.vmap(self.step)
        slots = self.slots

        def run(state: ArenaState, mask: jax.Array, key: jax.Array) -> tuple[Any, ...]:
            def body(carry: tuple[Any, ...], _: Any) -> tuple[tuple[Any, ...], None]:
                state, mask, key, acc = carry
                key, sub = jax.random.split(key)
                draw = jax.random.randint(sub, (num_envs, slots), 0, N_ACTIONS, dtype=jnp.int32)
                allowed = mask.reshape(num_envs, slots, N_ACTIONS)[:, :, 1] > 0
                state, obs, mask, reward, _, _, _ = step(state, jnp.where(allowed, draw, 0))
                acc = (acc + obs["board"].sum() + obs["vector"].sum()
                       + mask.sum(dtype=jnp.int32).astype(jnp.float32) + reward.sum())
                return (state, mask, key, acc), None
            (state, mask, key, acc), _ = jax.lax.scan(body, (state, mask, key, jnp.float32(0)), None, length=steps)
            return state, mask, key, acc

        return jax.jit(run)


def _fixed_point(f: Any, x: jax.Array) -> jax.Array:
    """Iterate ``x = f(x)`` until it stops changing (``lax.while_loop``)."""
    def body(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        y = f(carry[0])
        return y, jnp.any(y != carry[0])
    return jax.lax.while_loop(lambda c: c[1], body, (x, jnp.bool_(True)))[0]


def make(spec: ArenaSpec, config: dict[str, Any], opponent: str = "random",
         autoreset_mode: str = "next_step") -> ArenaJaxEnv:
    """The ``env`` hook: :class:`ArenaJaxEnv` (same arguments)."""
    return ArenaJaxEnv(spec, config, opponent=opponent, autoreset_mode=autoreset_mode)
