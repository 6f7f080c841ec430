"""Submarine's encoding for learning environments (``botwars.rl``, docs/rl.md).

Observation of a seat, from its own view (S-12.3, S-8) only — the fog of war is the view's:

- ``board``: ``float32`` planes ``(7, 7, 7)`` indexed ``[plane, row - 1, column]`` (A = 0):
  0 own subs, 1 own subs' HP / ``hp_max``, 2 own surfaced subs, 3 enemy subs the seat sees, 4 own mines,
  5 destroyed spaces, 6 the seat's home row.
- ``vector``: ``float32`` ``(6,)``: set-up phase, the seat's turn, AP left after the actions
  chosen so far / (``base_ap`` + 1, the most AP a turn gives, S-4.2), score / ``win_points``
  (S-7.5), opponent announced ``announce_points`` (S-7.2), actions chosen / ``max_actions``.
  Every scale comes from the match's parameters.
- ``subs``: ``float32`` ``(5, 2 + S)``: the seat's subs in letter order: alive, plate, and the
  special held (one-hot over the ``S`` specials of the catalog, S-6.2).

Actions (``Discrete``): 0 wait; set-up (S-3.3, ten sub-steps, sub by sub): ``1 + col`` places the
sub on column ``col`` of the home row, ``8 + s`` gives it special ``s`` (the mask keeps columns
and specials distinct); play: ``END`` (= 17) submits the action list chosen so far (S-4.3), and
``18 + sub * A + k`` appends action ``k`` of the table :data:`ACTION_TABLE` for the seat's sub
number ``sub`` (move N E S W, surface, submerge, replace by each special, torpedo N E S W,
depth charge / mine / heal on each of the 49 spaces, sonar, nullify each special but nullify).
The mask allows what S-4.3 accepts: the seat's living subs, at most ``max_actions`` actions,
total AP within the seat's AP. Actions of specials the sub does not hold are legal (skipped at
execution, S-4.5) and left in the mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botwars.games.submarine.state import ACTIONS, SPECIALS

COLS = "ABCDEFG"
SPACES = [f"{c}{r}" for r in range(1, 8) for c in COLS]


def _table() -> list[tuple[str, str | None, Any]]:
    out: list[tuple[str, str | None, Any]] = []
    for name, (_, key) in ACTIONS.items():
        if key is None:
            out.append((name, None, None))
        elif key == "dir":
            out += [(name, "dir", d) for d in "NESW"]
        elif key == "space":
            out += [(name, "space", s) for s in SPACES]
        elif key == "special":
            out += [(name, "special", s) for s in SPECIALS if not (name == "nullify" and s == "nullify")]
    return out


ACTION_TABLE = _table()
"""Per-sub actions: ``(name, parameter key, value)``."""
A = len(ACTION_TABLE)
END = 17
BASE = 18
_COST = np.array([ACTIONS[n][0] for n, _, _ in ACTION_TABLE], dtype=np.int64)


def _space(text: Any) -> tuple[int, int] | None:
    if not isinstance(text, str) or len(text) != 2 or text[0] not in COLS or text[1] not in "1234567":
        return None
    return COLS.index(text[0]), int(text[1]) - 1


class SubmarineSpec:
    """Submarine's encoding for one configuration (``config`` validated)."""

    def __init__(self, rules: Any, config: dict[str, Any], seats: list[str]):
        self.config = config
        self.seats = list(seats)
        self.max_actions = int(config.get("max_actions", 30))
        self.hp_max = max(1, int(config.get("hp_max", 5)))
        self.ap_max = max(1, int(config.get("base_ap", 5)) + 1)   # + Overclock's 1 AP (S-4.2, S-6.2)
        self.win_points = max(1, int(config.get("win_points", 50)))
        self.letters = {seats[0]: "abcde", seats[1]: "vwxyz"}
        self.nvec = (BASE + 5 * A,)
        self.obs_space = {"board": ((7, 7, 7), 0.0, 1.0, "float32"), "vector": ((6,), 0.0, 1.0, "float32"),
                          "subs": ((5, 2 + len(SPECIALS)), 0.0, 1.0, "float32")}

    def _ap_left(self, view: dict[str, Any], partial: tuple[int, ...]) -> int:
        spent = sum(int(_COST[(a - BASE) % A]) for a in partial if a >= BASE)
        return int(view.get("ap") or 0) - spent

    def observe(self, view: dict[str, Any], partial: tuple[int, ...]) -> dict[str, np.ndarray]:
        board = np.zeros((7, 7, 7), dtype=np.float32)
        subs = np.zeros((5, 2 + len(SPECIALS)), dtype=np.float32)
        letters = self.letters.get(view.get("you"), "abcde")
        own = view.get("own_subs") or {}
        for j, lt in enumerate(letters):
            s = own.get(lt)
            if not s:
                continue
            subs[j, 0] = 1
            subs[j, 1] = float(bool(s.get("plate")))
            if s.get("special") in SPECIALS:
                subs[j, 2 + SPECIALS.index(s["special"])] = 1
            t = _space(s.get("space"))
            if t is not None:
                board[0, t[1], t[0]] = 1
                board[1, t[1], t[0]] = min(1.0, s.get("hp", 0) / self.hp_max)
                board[2, t[1], t[0]] = float(bool(s.get("surfaced")))
        for sp in (view.get("visible_enemy_subs") or {}).values():
            t = _space(sp)
            if t is not None:
                board[3, t[1], t[0]] = 1
        for plane, key in ((4, "own_mines"), (5, "destroyed_spaces")):
            for sp in view.get(key) or []:
                t = _space(sp)
                if t is not None:
                    board[plane, t[1], t[0]] = 1
        row = view.get("home_row")
        if isinstance(row, int) and 1 <= row <= 7:
            board[6, row - 1, :] = 1
        other = [s for s in self.seats if s != view.get("you")]
        ann = view.get("announced_25") or {}
        vec = np.array([float(bool(view.get("setup"))), float(view.get("active") == view.get("you")),
                        max(0, self._ap_left(view, partial)) / self.ap_max,
                        (view.get("score") or 0) / self.win_points,
                        float(bool(other and ann.get(other[0]))), len(partial) / max(1, self.max_actions)],
                       dtype=np.float32)
        return {"board": board, "vector": np.clip(vec, 0, 1), "subs": subs}

    def mask(self, view: dict[str, Any], partial: tuple[int, ...], legal: Any) -> np.ndarray:
        m = np.zeros(self.nvec[0], dtype=np.int8)
        if view.get("setup"):
            if len(partial) % 2 == 0:
                used = {a - 1 for a in partial[0::2]}
                for c in range(7):
                    if c not in used:
                        m[1 + c] = 1
            else:
                used = {a - 8 for a in partial[1::2]}
                for s in range(len(SPECIALS)):
                    if s not in used:
                        m[8 + s] = 1
            return m
        m[END] = 1
        if len(partial) >= self.max_actions:
            return m
        ap = self._ap_left(view, partial)
        ok = (_COST <= ap).astype(np.int8)
        own = view.get("own_subs") or {}
        letters = self.letters.get(view.get("you"), "abcde")
        for j, lt in enumerate(letters):
            if lt in own:
                m[BASE + j * A:BASE + (j + 1) * A] = ok
        return m

    def decide(self, view: dict[str, Any], partial: tuple[int, ...], action: Any,
               legal: Any) -> tuple[tuple[int, ...], Any]:
        a = int(np.asarray(action).reshape(-1)[0])
        letters = self.letters.get(view.get("you"), "abcde")
        if view.get("setup"):
            partial = partial + (a,)
            if len(partial) < 10:
                return partial, None
            row = view.get("home_row")
            place = {letters[j]: f"{COLS[partial[2 * j] - 1]}{row}" for j in range(5)}
            specials = {letters[j]: SPECIALS[partial[2 * j + 1] - 8] for j in range(5)}
            return (), {"type": "setup", "placement": place, "specials": specials}
        if a != END:
            return partial + (a,), None
        actions = []
        for x in partial:
            j, k = divmod(x - BASE, A)
            name, key, value = ACTION_TABLE[k]
            act: dict[str, Any] = {"sub": letters[j], "action": name}
            if key is not None:
                act[key] = value
            actions.append(act)
        return (), {"type": "orders", "actions": actions}

    def robot_actions(self, view: dict[str, Any]) -> int:
        return 1


def make(rules: Any, config: dict[str, Any], seats: list[str]) -> SubmarineSpec:
    """The ``rl`` hook of submarine's plug-in declaration."""
    return SubmarineSpec(rules, config, seats)
