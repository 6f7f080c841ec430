"""Gymnasium spaces from a game's encoding (docs/rl.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


class FlatMaskMultiDiscrete(spaces.MultiDiscrete):
    """A ``MultiDiscrete`` of equal dimensions (one per robot slot) whose ``sample`` also takes the
    flat action mask the environments publish (``len(nvec) * nvec[0]`` entries of 0/1, slot by
    slot), as PettingZoo's tests pass it.

    Sampling with a flat mask is one whole-array draw (a uniform key per entry, the largest
    allowed key per slot wins), not one ``choice`` per slot as Gymnasium's ``MultiDiscrete``
    does: 67 µs per call for the arena's 256 slots against 10.7 ms (benchmarks/rl_throughput.py,
    "masked sampler", process CPU time on one core of the shared machine)."""

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if isinstance(mask, np.ndarray) and probability is None:
            n = len(self.nvec)
            if mask.size != int(np.sum(self.nvec)) or np.any(self.nvec != self.nvec[0]):
                raise ValueError(f"flat mask of {mask.size} entries; expected {int(np.sum(self.nvec))}")
            rows = mask.reshape(n, -1) != 0
            keys = self.np_random.random(rows.shape, dtype=np.float32)
            keys[~rows] = -1.0     # a slot with nothing allowed takes 0, as MultiDiscrete does
            return (np.argmax(keys, axis=1) + self.start).astype(self.dtype)
        return super().sample(mask=mask, probability=probability)


def observation_space(spec: Any) -> spaces.Dict:
    """The ``Dict`` observation space of a game encoding: one ``Box`` per array the encoding
    declares (``spec.obs_space``: name → (shape, low, high, dtype)). The action mask is not in
    it (the environments publish it beside the observation)."""
    boxes = {name: spaces.Box(low=lo, high=hi, shape=tuple(shape), dtype=np.dtype(dt))
             for name, (shape, lo, hi, dt) in spec.obs_space.items()}
    return spaces.Dict(boxes)


def mask_space(spec: Any) -> spaces.Box:
    """The flat ``int8`` action mask's space: ``(sum(nvec),)`` entries of 0/1."""
    return spaces.Box(0, 1, shape=(int(sum(spec.nvec)),), dtype=np.int8)


def action_space(spec: Any) -> spaces.Space[Any]:
    """``Discrete(n)`` for a one-dimensional encoding, else :class:`FlatMaskMultiDiscrete`."""
    nvec = tuple(int(n) for n in spec.nvec)
    if len(nvec) == 1:
        return spaces.Discrete(nvec[0])
    return FlatMaskMultiDiscrete(np.array(nvec, dtype=np.int64))
