"""Learning environments for every botwars game (issue 16; docs/rl.md).

- :func:`env` — the PettingZoo AEC environment of a game; :func:`parallel_env` — the Parallel
  one. Alternating and mixed games (``Capabilities.turns`` ``alternating``/``mixed``) are AEC
  natively and Parallel through PettingZoo's ``aec_to_parallel``; simultaneous games the other
  way round (``parallel_to_aec``).
- :func:`gym_env` — a Gymnasium single-agent environment: one seat against a built-in bot.
- :func:`vector_env` — a Gymnasium vector environment on a game's batched engine (the arena, submarine).
- :func:`register_envs` — Gymnasium ids ``botwars/<game>-v0`` for every game with an encoding
  (run on import of this package): ``gymnasium.make("botwars/arena-v0", opponent="random")``,
  or without importing first ``gymnasium.make("botwars.rl:botwars/arena-v0")``.

Needs the optional extra ``botwars[rl]`` (``pettingzoo``, ``gymnasium``). Every decision goes
through the kernel's referee; a game's arrays and actions come from its ``rl`` plug-in hook.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.plugin import Turns, get_game


ENV_VERSION = 0
"""The version in the Gymnasium ids (``botwars/<game>-v0``); bumped when an encoding changes."""


def env_id(game: str) -> str:
    """The Gymnasium id of ``game``'s single-agent environment: ``botwars/<game>-v0``."""
    return f"botwars/{game}-v{ENV_VERSION}"


def register_envs() -> list[str]:
    """Register ``botwars/<game>-v0`` with Gymnasium for every plugged-in game that declares an
    ``rl`` encoding (the entry point is :func:`gym_env`; ``gymnasium.make`` keywords go to it:
    ``opponent``, ``seat``, ``seats``, ``random_opening``, ``render_mode`` and the game's
    parameters); ``gymnasium.make`` returns the :class:`~botwars.rl.gym.SingleAgentEnv` itself,
    unwrapped, so ``action_masks()`` is on it. Returns the ids, in game order. Registering again replaces nothing (ids already there are kept)."""
    import gymnasium

    from botwars.engine.plugin import games
    out = []
    for gid, game in games().items():
        if game.rl is None:
            continue
        eid = env_id(gid)
        if eid not in gymnasium.registry:
            # no wrappers: ``action_masks()`` stays on the env sb3-contrib sees, and the env
            # enforces the order itself (step before reset or after the end raises)
            gymnasium.register(id=eid, entry_point="botwars.rl:gym_env", kwargs={"game": gid},
                               disable_env_checker=True, order_enforce=False)
        out.append(eid)
    return out


def _simultaneous(game: str) -> bool:
    return get_game(game).capabilities.turns == Turns.SIMULTANEOUS


def env(game: str, **config: Any) -> Any:
    """The PettingZoo AEC environment of ``game`` (``render_mode``, ``seats``, ``max_cycles``,
    ``random_opening`` and the game's parameters as keywords; docs/rl.md). Raises ``ConfigError`` for a bad parameter or a game without an
    encoding, ``RulesetError`` for an unknown game."""
    from botwars.rl.pz import BotwarsAEC, BotwarsParallel, simultaneous_aec
    if _simultaneous(game):
        return simultaneous_aec(BotwarsParallel(game, **config))
    return BotwarsAEC(game, **config)


def parallel_env(game: str, **config: Any) -> Any:
    """The PettingZoo Parallel environment of ``game`` (keywords as :func:`env`)."""
    from botwars.rl.pz import BotwarsAEC, BotwarsParallel, alternating_parallel
    if _simultaneous(game):
        return BotwarsParallel(game, **config)
    return alternating_parallel(BotwarsAEC(game, **config))


def gym_env(game: str, opponent: str = "random", seat: int = 0, **config: Any) -> Any:
    """A Gymnasium environment in which the learner plays seat number ``seat`` (0-based) of
    ``game`` against the built-in bot ``opponent`` (``builtin:NAME`` or ``NAME``) in every other
    seat. See :class:`botwars.rl.gym.SingleAgentEnv`."""
    from botwars.rl.gym import SingleAgentEnv
    return SingleAgentEnv(game, opponent=opponent, seat=seat, **config)


def vector_env(game: str, num_envs: int, **kwargs: Any) -> Any:
    """A Gymnasium vector environment of ``num_envs`` matches on the game's batched engine
    (the arena, submarine: the games whose declaration names one). See :class:`botwars.rl.vector.BatchVectorEnv`;
    ``engine="jax"`` (the arena) gives :class:`botwars.rl.vector_jax.JaxVectorEnv`, the same API on
    the game's functional JAX environment (an engine that declares ``env`` and no ``vector`` hook)."""
    from botwars.rl.vector import BatchVectorEnv
    engine = kwargs.get("engine")
    if engine is not None:
        decl = get_game(game).batch_engine(engine)
        if decl.vector is None and decl.env is not None:   # a functional (JAX) environment
            from botwars.rl.vector_jax import JaxVectorEnv
            return JaxVectorEnv(game, num_envs, **kwargs)
    return BatchVectorEnv(game, num_envs, **kwargs)


__all__ = ["env", "parallel_env", "gym_env", "vector_env", "register_envs", "env_id"]

try:  # the rl extra installed: the Gymnasium ids exist as soon as botwars.rl is imported
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # pragma: no cover - without the extra only the factories' errors remain
    pass
else:
    register_envs()
