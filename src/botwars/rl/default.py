"""The default learning-environment encoding (issue 26 item 4): any game whose legal orders can
be enumerated (``Capabilities.finite_legal_orders``) and that declares no ``rl`` hook of its own
still gets the PettingZoo and Gymnasium environments, with no line of its own.

- **Actions**: ``Discrete(1 + max_orders)``. Action 0 waits (a seat with nothing to decide);
  action ``k >= 1`` gives the ``k``-th payload of :meth:`Ruleset.legal_orders` at this decision
  point, in the order the rule set lists them. The mask allows exactly ``1..len(legal)``: a
  decision point with more than ``max_orders`` legal orders offers only the first
  ``max_orders`` of them (a game that needs more declares its own encoding).
- **Observation**: ``view``, the seat's own view (:meth:`Referee.view`, so nothing hidden from
  the seat) as its canonical JSON text (keys sorted, no spaces) in UTF-8, ``uint8`` zero-padded
  to ``view_bytes`` bytes; ``length``, ``(1,)`` ``int32``, the text's full length in bytes (more
  than ``view_bytes`` when the text was cut). A learner reads the bytes back with
  ``bytes(obs["view"][:length]).decode()`` when it is not cut.

A game with an encoding of its own (``Game.rl``) uses that one; a game without one whose legal
orders are not enumerable raises ``ConfigError`` naming both ways out.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from botwars.engine.errors import ConfigError

MAX_ORDERS = 256
"""Legal orders offered per decision point by default (actions ``1..MAX_ORDERS``)."""
VIEW_BYTES = 4096
"""Bytes of a view's JSON text the default observation holds."""


class LegalOrdersSpec:
    """The default encoding of one game set-up (see the module): ``nvec``, ``obs_space``,
    ``observe``, ``mask``, ``decide`` as docs/rl.md lists them for a game's own encoding."""

    def __init__(self, game_id: str, max_orders: int = MAX_ORDERS, view_bytes: int = VIEW_BYTES):
        self.game_id = game_id
        self.nvec = (1 + int(max_orders),)
        self.view_bytes = int(view_bytes)
        self.obs_space = {"view": ((self.view_bytes,), 0, 255, "uint8"),
                          "length": ((1,), 0, np.iinfo(np.int32).max, "int32")}

    def observe(self, view: dict[str, Any], partial: tuple[int, ...]) -> dict[str, np.ndarray]:
        """``{"view": uint8 (view_bytes,), "length": int32 (1,)}`` from the seat's ``view``."""
        raw = json.dumps(view, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
        buf = np.zeros(self.view_bytes, dtype=np.uint8)
        cut = raw[:self.view_bytes]
        buf[:len(cut)] = np.frombuffer(cut, dtype=np.uint8)
        return {"view": buf, "length": np.array([len(raw)], dtype=np.int32)}

    def mask(self, view: dict[str, Any], partial: tuple[int, ...], legal: Any) -> np.ndarray:
        """``int8`` ``(1 + max_orders,)``: 1 for actions ``1..len(legal)`` (at most ``max_orders``)."""
        m = np.zeros(self.nvec[0], dtype=np.int8)
        m[1:1 + min(len(legal or ()), self.nvec[0] - 1)] = 1
        return m

    def decide(self, view: dict[str, Any], partial: tuple[int, ...], action: Any,
               legal: Any) -> tuple[tuple[int, ...], Any]:
        """``((), payload)``: the ``action``-th legal payload (the environment has checked the
        mask, so ``1 <= action <= len(legal)``)."""
        a = int(np.asarray(action).reshape(-1)[0])
        return (), list(legal)[a - 1]


def default_spec(game: Any, config: dict[str, Any], seats: list[str]) -> Any:
    """The encoding of ``game`` (a :class:`~botwars.engine.plugin.Game`) for ``config`` and
    ``seats``: its own (``Game.rl``) when it declares one, else :class:`LegalOrdersSpec` when its
    legal orders are enumerable. Raises ``ConfigError`` naming the game otherwise."""
    if game.rl is not None:
        return game.rl_spec(config, seats)
    if game.capabilities.finite_legal_orders:
        return LegalOrdersSpec(game.id)
    raise ConfigError(f"{game.id} offers no learning-environment encoding: declare one (the plug-in's rl hook) "
                      f"or enumerate the legal orders (Capabilities.finite_legal_orders)")
