"""Learning environments for every botwars game (issue 16; docs/rl.md).

- :func:`env` — the PettingZoo AEC environment of a game; :func:`parallel_env` — the Parallel
  one. Alternating and mixed games (``Capabilities.turns`` ``alternating``/``mixed``) are AEC
  natively and Parallel through PettingZoo's ``aec_to_parallel``; simultaneous games the other
  way round (``parallel_to_aec``).
- :func:`gym_env` — a Gymnasium single-agent environment: one seat against a built-in bot.
- :func:`vector_env` — a Gymnasium vector environment on a game's batched engine (the arena).

Needs the optional extra ``botwars[rl]`` (``pettingzoo``, ``gymnasium``). Every decision goes
through the kernel's referee; a game's arrays and actions come from its ``rl`` plug-in hook.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.plugin import Turns, get_game


def _simultaneous(game: str) -> bool:
    return get_game(game).capabilities.turns == Turns.SIMULTANEOUS


def env(game: str, **config: Any) -> Any:
    """The PettingZoo AEC environment of ``game`` (``render_mode``, ``seats`` and the game's
    parameters as keywords). Raises ``ConfigError`` for a bad parameter or a game without an
    encoding, ``RulesetError`` for an unknown game."""
    from pettingzoo.utils.conversions import parallel_to_aec

    from botwars.rl.pz import BotwarsAEC, BotwarsParallel
    if _simultaneous(game):
        return parallel_to_aec(BotwarsParallel(game, **config))
    return BotwarsAEC(game, **config)


def parallel_env(game: str, **config: Any) -> Any:
    """The PettingZoo Parallel environment of ``game`` (keywords as :func:`env`)."""
    from pettingzoo.utils.conversions import aec_to_parallel

    from botwars.rl.pz import BotwarsAEC, BotwarsParallel
    if _simultaneous(game):
        return BotwarsParallel(game, **config)
    return aec_to_parallel(BotwarsAEC(game, **config))


def gym_env(game: str, opponent: str = "random", seat: int = 0, **config: Any) -> Any:
    """A Gymnasium environment in which the learner plays seat number ``seat`` (0-based) of
    ``game`` against the built-in bot ``opponent`` (``builtin:NAME`` or ``NAME``) in every other
    seat. See :class:`botwars.rl.gym.SingleAgentEnv`."""
    from botwars.rl.gym import SingleAgentEnv
    return SingleAgentEnv(game, opponent=opponent, seat=seat, **config)


def vector_env(game: str, num_envs: int, **kwargs: Any) -> Any:
    """A Gymnasium vector environment of ``num_envs`` matches on the game's batched engine
    (the arena). See :class:`botwars.rl.vector.BatchVectorEnv`."""
    from botwars.rl.vector import BatchVectorEnv
    return BatchVectorEnv(game, num_envs, **kwargs)


__all__ = ["env", "parallel_env", "gym_env", "vector_env"]
