"""Factory's encoding for learning environments (``botwars.rl``, docs/rl.md).

Observation of a seat, from its own view (F-15) only:

- ``board``: ``float32`` planes ``(len(FEATURES) + 6, rows, cols)`` indexed
  ``[plane, row - 1, col - 1]``, sized from the match's board (F-3: ``gauntlet`` 24 × 24,
  ``foundry`` 16 × 20, ``assembly-hall`` 12 × 12; nothing is cut, so the seat's own robot is
  always on its planes while on the board): one plane per floor-feature class of the board
  file's cell token (:data:`FEATURES`: ``.`` floor, ``W`` wrench, ``F`` flag, ``CB``/``CY``
  conveyor belts, ``PT`` pit, ``UP``/``GR``/``GL``/``GU`` ..., ``other``), one for a wall or
  device suffix (``/...``), then the seat's own robot facing N, E, S, W (4 planes), and the
  other players' robots (1 plane).
- ``vector``: ``float32`` ``(8,)``: own HP / ``max_hp``, robots left / ``robots``, next flag /
  the board's flags, free registers / ``registers``, turn / ``turn_limit``, players out / seats,
  flags tagged / the board's flags, program cards chosen so far / ``registers`` (every scale
  from the match's parameters and board).

Solo shaping (:meth:`FactorySpec.progress`, docs/rl.md): flags tagged / flags + 0.1 × robots
left / ``robots``; a solo win (all flags, F-8.1) adds +1.
- ``hand``: ``float32`` ``(HAND, len(TYPES) + 2)``: per hand slot a one-hot card type, the
  priority / 1000, and 1 when the slot is already in the program being built.

Actions (``Discrete(HAND + 2)``): 0 wait (only while the seat has nothing to decide); ``1 + k``
puts hand slot ``k`` in the next free register; ``HAND + 1`` declares a reboot (F-9, only as the
first sub-step). The program is built card by card: once as many cards as free registers are
chosen, the seat's order ``{"type": "program", "cards": [...], "reboot": ...}`` goes to the referee.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.games.factory.cards import TYPES

FEATURES = (".", "W", "F", "CB", "CY", "PT", "UP", "GR", "GL", "GU", "SR", "TP", "TD", "SG", "DB", "BZ", "CR",
            "GT", "other")
SIZE = 16
HAND = 10
_DIRS = "NESW"


def parse_sq(text: str) -> tuple[int, int] | None:
    """``"r3c5"`` → ``(3, 5)`` (``None`` for anything else)."""
    if not isinstance(text, str) or not text.startswith("r") or "c" not in text:
        return None
    r, _, c = text[1:].partition("c")
    return (int(r), int(c)) if r.isdigit() and c.isdigit() else None


def board_planes(text: str, rows: int = SIZE, cols: int = SIZE) -> np.ndarray:
    """Feature planes ``(len(FEATURES) + 1, rows, cols)`` of a board file's text (F-2, F-3).

    Raises ``ValueError`` for a cell outside ``rows`` × ``cols`` (never a silent crop)."""
    out = np.zeros((len(FEATURES) + 1, rows, cols), dtype=np.float32)
    grid = False
    for line in text.splitlines():
        s = line.strip()
        if s == "grid:":
            grid = True
            continue
        if not grid or not s.startswith("r") or s == "end":
            continue
        parts = s.split()
        if not parts[0][1:].isdigit():
            continue
        r = int(parts[0][1:])
        for c, tok in enumerate(parts[1:], start=1):
            if not (1 <= r <= rows and 1 <= c <= cols):
                raise ValueError(f"board square r{r}c{c} is outside the observation's {rows} × {cols} squares")
            base, _, suffix = tok.partition("/")
            head = "".join(ch for ch in base if ch.isalpha() or ch == ".")[:2]
            k = FEATURES.index(head) if head in FEATURES else (FEATURES.index(head[:1]) if head[:1] in FEATURES
                                                              else len(FEATURES) - 1)
            out[k, r - 1, c - 1] = 1
            if suffix:
                out[len(FEATURES), r - 1, c - 1] = 1
    return out


def hand_rows(hand: list[str], chosen: tuple[int, ...], n: int) -> np.ndarray:
    """``(n, len(TYPES) + 2)``: card type one-hot, priority / 1000, chosen flag per hand slot."""
    out = np.zeros((n, len(TYPES) + 2), dtype=np.float32)
    for k, card in enumerate(hand[:n]):
        t, _, pr = str(card).partition(" ")
        if t in TYPES:
            out[k, TYPES.index(t)] = 1
        out[k, len(TYPES)] = min(int(pr) / 1000.0, 1.0) if pr.isdigit() else 0.0
        out[k, len(TYPES) + 1] = 1.0 if k in chosen else 0.0
    return out


def card_of(hand: list[str], k: int) -> int:
    """The priority number of hand slot ``k`` (cards are named by priority, F-15.1)."""
    return int(str(hand[k]).split()[-1])


class FactorySpec:
    """Factory's encoding for one configuration (``config`` validated): the board planes are
    ``rows`` × ``cols`` of the configured board (F-3)."""

    hand_size = HAND

    def __init__(self, rules: Any, config: dict[str, Any], seats: list[str]):
        self.config = config
        self.seats = list(seats)
        self.nvec = (self.hand_size + 2,)
        board = rules.make_board(config)
        self.rows, self.cols = int(board.rows), int(board.cols)
        self.n_flags = max(1, len(board.flags()))
        nplanes = len(FEATURES) + 1 + 5
        self.obs_space = {"board": ((nplanes, self.rows, self.cols), 0.0, 1.0, "float32"),
                          "vector": ((8,), 0.0, 1.0, "float32"),
                          "hand": ((self.hand_size, len(TYPES) + 2), 0.0, 1.0, "float32")}
        self._board_cache: dict[str, np.ndarray] = {}

    def _board(self, text: str) -> np.ndarray:
        b = self._board_cache.get(text)
        if b is None:
            b = self._board_cache[text] = board_planes(text, self.rows, self.cols)
        return b

    @staticmethod
    def _cards(partial: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(a - 1 for a in partial if a >= 1 and a != FactorySpec.hand_size + 1)

    def observe(self, view: dict[str, Any], partial: tuple[int, ...]) -> dict[str, np.ndarray]:
        cfg = view.get("config", self.config)
        planes = np.zeros(self.obs_space["board"][0], dtype=np.float32)
        nf = len(FEATURES) + 1
        planes[:nf] = self._board(view.get("board", ""))
        me = view.get("you")
        out_count = 0
        mine: dict[str, Any] = {}
        for p in view.get("players", []):
            out_count += bool(p.get("out"))
            rb = p.get("robot") or {}
            sq = parse_sq(rb.get("square", ""))
            if p.get("seat") == me:
                mine = p
            if sq is None:
                continue
            if not (1 <= sq[0] <= self.rows and 1 <= sq[1] <= self.cols):
                raise ValueError(f"robot square {rb.get('square')} is outside the {self.rows} × {self.cols} board")
            if p.get("seat") == me:
                f = rb.get("facing", "N")
                planes[nf + (_DIRS.index(f) if f in _DIRS else 0), sq[0] - 1, sq[1] - 1] = 1
            else:
                planes[nf + 4, sq[0] - 1, sq[1] - 1] = 1
        rb = mine.get("robot") or {}
        regs = max(1, int(cfg.get("registers", 5)))
        chosen = self._cards(partial)
        vec = np.array([rb.get("hp", 0) / max(1, cfg.get("max_hp", 10)),
                        mine.get("robots_left", 0) / max(1, cfg.get("robots", 1)),
                        mine.get("next_flag", 0) / self.n_flags, (view.get("free_registers") or 0) / regs,
                        view.get("turn", 0) / max(1, cfg.get("turn_limit", 50)),
                        out_count / max(1, len(self.seats)), len(mine.get("flags", [])) / self.n_flags,
                        len(chosen) / regs], dtype=np.float32)
        return {"board": planes, "vector": np.clip(vec, 0, 1),
                "hand": hand_rows(list(view.get("hand") or []), chosen, self.hand_size)}

    def progress(self, view: dict[str, Any]) -> float:
        """The solo shaping potential (docs/rl.md): flags tagged / the board's flags + 0.1 ×
        robots left / ``robots`` (F-8.5's standing keys: flags first, then robots)."""
        me = view.get("you")
        mine = next((p for p in view.get("players", []) if p.get("seat") == me), {})
        robots = max(1, int(self.config.get("robots", 1)))
        return len(mine.get("flags", [])) / self.n_flags + 0.1 * (mine.get("robots_left", 0) / robots)

    def mask(self, view: dict[str, Any], partial: tuple[int, ...], legal: Any) -> np.ndarray:
        m = np.zeros(self.nvec[0], dtype=np.int8)
        hand = list(view.get("hand") or [])
        chosen = self._cards(partial)
        for k in range(min(len(hand), self.hand_size)):
            if k not in chosen:
                m[1 + k] = 1
        if not partial:
            m[self.hand_size + 1] = 1
        if not m.any():
            m[0] = 1  # nothing to choose: the wait action submits the (empty) program
        return m

    def decide(self, view: dict[str, Any], partial: tuple[int, ...], action: Any,
               legal: Any) -> tuple[tuple[int, ...], Any]:
        partial = partial + (int(np.asarray(action).reshape(-1)[0]),)
        need = int(view.get("free_registers") or 0)
        hand = list(view.get("hand") or [])
        chosen = self._cards(partial)
        room = len([k for k in range(min(len(hand), self.hand_size)) if k not in chosen])
        if len(chosen) >= need or room == 0 or partial[-1] == 0:
            return (), {"type": "program", "cards": [card_of(hand, k) for k in chosen],
                        "reboot": self.hand_size + 1 in partial}
        return partial, None

    def robot_actions(self, view: dict[str, Any]) -> int:
        return 1


def make(rules: Any, config: dict[str, Any], seats: list[str]) -> FactorySpec:
    """The ``rl`` hook of factory's plug-in declaration."""
    return FactorySpec(rules, config, seats)
