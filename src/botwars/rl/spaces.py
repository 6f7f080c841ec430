"""Gymnasium spaces from a game's encoding (docs/rl.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


class FlatMaskMultiDiscrete(spaces.MultiDiscrete):
    """A ``MultiDiscrete`` of equal dimensions (one per robot slot) whose ``sample`` also takes the
    flat action mask the environments publish (``len(nvec) * nvec[0]`` entries of 0/1, slot by
    slot), as PettingZoo's tests pass it."""

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if isinstance(mask, np.ndarray):
            mask = tuple(np.ascontiguousarray(m, dtype=np.int8) for m in mask.reshape(len(self.nvec), -1))
        return super().sample(mask=mask, probability=probability)


def observation_space(spec: Any) -> spaces.Dict:
    """The ``Dict`` observation space of a game encoding: one ``Box`` per array the encoding
    declares (``spec.obs_space``: name → (shape, low, high, dtype)) plus ``action_mask``."""
    boxes = {name: spaces.Box(low=lo, high=hi, shape=tuple(shape), dtype=np.dtype(dt))
             for name, (shape, lo, hi, dt) in spec.obs_space.items()}
    boxes["action_mask"] = spaces.Box(0, 1, shape=(int(sum(spec.nvec)),), dtype=np.int8)
    return spaces.Dict(boxes)


def action_space(spec: Any) -> spaces.Space[Any]:
    """``Discrete(n)`` for a one-dimensional encoding, else :class:`FlatMaskMultiDiscrete`."""
    nvec = tuple(int(n) for n in spec.nvec)
    if len(nvec) == 1:
        return spaces.Discrete(nvec[0])
    return FlatMaskMultiDiscrete(np.array(nvec, dtype=np.int64))
