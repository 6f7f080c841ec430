"""Geek-o's encoding for learning environments (``botwars.rl``, docs/rl.md); the board planes
and hand rows are factory's (:mod:`botwars.games.factory.rlspec`, geeko being its declared variant).

Observation of a seat, from its own view (G-16) only:

- ``board``: ``float32`` ``(len(FEATURES) + 1 + 8, rows, cols)``: the current room's feature
  planes (as factory), then robot A facing N, E, S, W (4 planes) and robot B likewise (4
  planes); ``rows`` × ``cols`` is the largest room of the configured room set (G-2.3; a smaller
  room sits at the top left, zero beyond it).
- ``vector``: ``float32`` ``(10,)``: room / 5, turn / ``turn_limit``, HP / ``max_hp`` and free
  registers / ``registers`` of A and of B, robots lost / ``robots``, other players finished /
  seats, program length chosen / ``registers``, cards chosen so far / (2 × ``registers``).

Solo shaping (:meth:`GeekoSpec.progress`, docs/rl.md): rooms completed / 5 + 0.1 × robots not
lost / ``robots``; finishing (G-9.1, a win) adds +1. The raw score (the finishing turn, 0 when
unfinished) is ``info["score"]`` at the end.
- ``hand``: ``float32`` ``(HAND, len(TYPES) + 2)`` as factory.

Actions (``Discrete(1 + HAND + 9)``): 0 wait; ``1 + k`` hand slot ``k``; ``1 + HAND + (L - 1)``
chooses the program length ``L`` (G-4.5, the first sub-step: 1 to the smallest free register
count of the robots that need cards). Then ``L`` cards for A and ``L`` for B (robots that need
cards, G-4.5), after which ``{"type": "program", "length": L, "A": [...], "B": [...]}`` goes to
the referee. When no robot needs cards, the wait action submits the ``length`` 0 order. The
optional reboot declaration (G-8.1) is not offered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.games.factory.cards import TYPES
from botwars.games.factory.rlspec import FEATURES, board_planes, card_of, hand_rows, parse_sq

HAND = 20
REGS = 9
_DIRS = "NESW"


class GeekoSpec:
    """Geek-o's encoding for one configuration (``config`` validated)."""

    def __init__(self, rules: Any, config: dict[str, Any], seats: list[str]):
        self.config = config
        self.seats = list(seats)
        self.nvec = (1 + HAND + REGS,)
        rooms = rules.rooms(config)
        self.rows = max(int(r.rows) for r in rooms)
        self.cols = max(int(r.cols) for r in rooms)
        self.regs = max(1, int(config.get("registers", REGS)))
        self.obs_space = {"board": ((len(FEATURES) + 1 + 8, self.rows, self.cols), 0.0, 1.0, "float32"),
                          "vector": ((10,), 0.0, 1.0, "float32"),
                          "hand": ((HAND, len(TYPES) + 2), 0.0, 1.0, "float32")}
        self._boards: dict[str, np.ndarray] = {}

    @staticmethod
    def _need(view: dict[str, Any]) -> list[str]:
        out = []
        for letter in ("A", "B"):
            r = (view.get("robots") or {}).get(letter) or {}
            if r.get("square") and not r.get("rebooting") and int(r.get("free") or 0) >= 1:
                out.append(letter)
        return out

    @staticmethod
    def _split(partial: tuple[int, ...]) -> tuple[int, list[int]]:
        """(chosen length, chosen hand slots) of a partial program."""
        length = 0
        cards = []
        for a in partial:
            if a > HAND:
                length = a - HAND
            elif a >= 1:
                cards.append(a - 1)
        return length, cards

    def observe(self, view: dict[str, Any], partial: tuple[int, ...]) -> dict[str, np.ndarray]:
        cfg = view.get("config", self.config)
        nf = len(FEATURES) + 1
        planes = np.zeros(self.obs_space["board"][0], dtype=np.float32)
        text = view.get("board") or ""
        if text not in self._boards:
            self._boards[text] = board_planes(text, self.rows, self.cols)
        planes[:nf] = self._boards[text]
        vec = np.zeros(10, dtype=np.float32)
        for j, letter in enumerate(("A", "B")):
            r = (view.get("robots") or {}).get(letter) or {}
            sq = parse_sq(r.get("square") or "")
            if sq is not None:
                if not (1 <= sq[0] <= self.rows and 1 <= sq[1] <= self.cols):
                    raise ValueError(f"robot {letter} at {r.get('square')} is outside the {self.rows} × {self.cols} rooms")
                f = r.get("facing", "N")
                planes[nf + 4 * j + (_DIRS.index(f) if f in _DIRS else 0), sq[0] - 1, sq[1] - 1] = 1
            vec[2 + 2 * j] = r.get("hp", 0) / max(1, cfg.get("max_hp", 10))
            vec[3 + 2 * j] = int(r.get("free") or 0) / self.regs
        length, cards = self._split(partial)
        vec[0] = (view.get("room") or 0) / 5.0
        vec[1] = view.get("turn", 0) / max(1, cfg.get("turn_limit", 60))
        vec[6] = (view.get("lost") or 0) / max(1, cfg.get("robots", 2))
        vec[7] = sum(bool(o.get("finished")) for o in view.get("others") or []) / max(1, len(self.seats))
        vec[8] = length / self.regs
        vec[9] = len(cards) / (2 * self.regs)
        return {"board": planes, "vector": np.clip(vec, 0, 1),
                "hand": hand_rows(list(view.get("hand") or []), tuple(cards), HAND)}

    def progress(self, view: dict[str, Any]) -> float:
        """The solo shaping potential (docs/rl.md): rooms completed / 5 + 0.1 × robots not lost
        / ``robots`` (G-9.3's standing keys: rooms first, then robots destroyed)."""
        done = 5 if view.get("finished") else max(0, int(view.get("room") or 1) - 1)
        robots = max(1, int(self.config.get("robots", 2)))
        return done / 5.0 + 0.1 * (robots - min(robots, int(view.get("lost") or 0))) / robots

    def mask(self, view: dict[str, Any], partial: tuple[int, ...], legal: Any) -> np.ndarray:
        m = np.zeros(self.nvec[0], dtype=np.int8)
        need = self._need(view)
        hand = list(view.get("hand") or [])[:HAND]
        if not need:
            m[0] = 1
            return m
        length, cards = self._split(partial)
        if not length:
            top = min(int(view["robots"][x]["free"]) for x in need)
            top = min(top, REGS, len(hand) // len(need))
            for L in range(1, top + 1):
                m[HAND + L] = 1
            if not m.any():
                m[0] = 1
            return m
        for k in range(len(hand)):
            if k not in cards:
                m[1 + k] = 1
        return m

    def decide(self, view: dict[str, Any], partial: tuple[int, ...], action: Any,
               legal: Any) -> tuple[tuple[int, ...], Any]:
        a = int(np.asarray(action).reshape(-1)[0])
        need = self._need(view)
        if a == 0:
            return (), {"type": "program", "length": 0}
        partial = partial + (a,)
        length, cards = self._split(partial)
        if len(cards) < length * len(need):
            return partial, None
        hand = list(view.get("hand") or [])
        out: dict[str, Any] = {"type": "program", "length": length}
        for j, letter in enumerate(need):
            out[letter] = [card_of(hand, k) for k in cards[j * length:(j + 1) * length]]
        return (), out

    def robot_actions(self, view: dict[str, Any]) -> int:
        return max(1, len(self._need(view)))


def make(rules: Any, config: dict[str, Any], seats: list[str]) -> GeekoSpec:
    """The ``rl`` hook of geeko's plug-in declaration."""
    return GeekoSpec(rules, config, seats)
