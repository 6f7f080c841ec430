"""DADOED's encoding for learning environments (``botwars.rl``, docs/rl.md).

Observation of a seat, from its own view (D-12.2) only:

- ``board``: ``float32`` planes ``(8, 8, 8)`` indexed ``[plane, row - 1, column]`` (column A = 0):
  0 own bots, 1 opponent's bots, 2 rooted bots, 3 fire, 4 holes, 5 boulders, 6 bots carrying a
  super, 7 the bots the seat owns (a capture changes it, D-3.7) and may act with now.
- ``vector``: ``float32`` ``(5 + C,)`` with ``C`` pool commands: phase is setup / play / over,
  it is the seat's turn, supers allowed, turn / max_turns, then each command's copies left /
  copies (1 for unlimited).
- ``supers``: ``float32`` ``(4, 2, C)``: bots A-D, the first and second command of their super
  (one-hot; the opponent's stay zero until both set-ups are in, D-3.5).
- ``setup``: ``float32`` ``(4, C)``: the commands chosen so far in the seat's own set-up.

Actions (``Discrete``): 0 wait; ``1 + c`` picks command ``c`` in the set-up (four sub-steps:
first and second command of the seat's first bot, then of its second; the mask enforces D-3.4:
a blue first command, four distinct ids); then one index per possible order of D-12.4 (a
command with its tile, direction and reserve bot; a super with its bot, first direction and
second tile, direction and bot; resign last). The mask allows exactly the orders
:meth:`DadoedRuleset.legal_orders` lists.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_DIRS = (None, "N", "E", "S", "W")
_BOTS = (None, "A", "B", "C", "D")
_LABELS = ("A", "B", "C", "D")


def _tile(text: Any) -> tuple[int, int] | None:
    """``"C3"`` → ``(column 0-7, row 0-7)``; ``None`` for anything else."""
    if not isinstance(text, str) or len(text) < 2 or not text[1:].isdigit():
        return None
    c, r = ord(text[0].upper()) - ord("A"), int(text[1:]) - 1
    return (c, r) if 0 <= c < 8 and 0 <= r < 8 else None


class DadoedSpec:
    """DADOED's encoding for one configuration (``config`` validated, seats blue and orange)."""

    def __init__(self, rules: Any, config: dict[str, Any], seats: list[str]):
        self.config = config
        self.seats = list(seats)
        state = rules.setup(config, list(seats), 0)  # public facts only: the pool of D-4.2
        self.cids = [c.id for c in state.pool.commands]
        self.blue = [c.colour == "blue" for c in state.pool.commands]
        C = len(self.cids)
        self.C = C
        self.base_cmd = 1 + C
        self.n_cmd = C * 64 * 5 * 5
        self.base_super = self.base_cmd + self.n_cmd
        self.n_super = 4 * 5 * 65 * 5 * 5
        self.resign = self.base_super + self.n_super
        self.nvec = (self.resign + 1,)
        self.obs_space = {"board": ((8, 8, 8), 0.0, 1.0, "float32"), "vector": ((5 + C,), 0.0, 1.0, "float32"),
                          "supers": ((4, 2, C), 0.0, 1.0, "float32"), "setup": ((4, C), 0.0, 1.0, "float32")}

    # ---- order <-> index ----------------------------------------------------------------
    def index(self, payload: dict[str, Any]) -> int:
        """The action index of a D-12.4 order payload (``ValueError`` for one outside the table)."""
        kind = payload.get("type")
        if kind == "resign":
            return self.resign
        if kind == "command":
            t = _tile(payload["tile"])
            if t is None:
                raise ValueError(payload)
            k = (((self.cids.index(payload["command"]) * 64 + t[1] * 8 + t[0]) * 5
                  + _DIRS.index(payload.get("direction"))) * 5 + _BOTS.index(payload.get("bot")))
            return self.base_cmd + k
        if kind == "super":
            first, second = payload.get("first") or {}, payload.get("second") or {}
            st = _tile(second.get("tile")) if second.get("tile") is not None else None
            tk = 64 if st is None else st[1] * 8 + st[0]
            k = ((((_LABELS.index(payload["bot"]) * 5 + _DIRS.index(first.get("direction"))) * 65 + tk) * 5
                  + _DIRS.index(second.get("direction"))) * 5 + _BOTS.index(second.get("bot")))
            return self.base_super + k
        raise ValueError(payload)

    def payload(self, a: int) -> dict[str, Any]:
        """The order payload of action index ``a`` (inverse of :meth:`index`)."""
        if a == self.resign:
            return {"type": "resign"}
        if self.base_cmd <= a < self.base_super:
            k = a - self.base_cmd
            k, b = divmod(k, 5)
            k, d = divmod(k, 5)
            c, t = divmod(k, 64)
            out: dict[str, Any] = {"type": "command", "command": self.cids[c],
                                   "tile": f"{chr(ord('A') + t % 8)}{t // 8 + 1}"}
            if _DIRS[d]:
                out["direction"] = _DIRS[d]
            if _BOTS[b]:
                out["bot"] = _BOTS[b]
            return out
        k = a - self.base_super
        k, b = divmod(k, 5)
        k, d2 = divmod(k, 5)
        k, t = divmod(k, 65)
        lb, d1 = divmod(k, 5)
        second: dict[str, Any] = {}
        if t < 64:
            second["tile"] = f"{chr(ord('A') + t % 8)}{t // 8 + 1}"
        if _DIRS[d2]:
            second["direction"] = _DIRS[d2]
        if _BOTS[b]:
            second["bot"] = _BOTS[b]
        return {"type": "super", "bot": _LABELS[lb], "first": {"direction": _DIRS[d1]} if _DIRS[d1] else {},
                "second": second}

    # ---- the interface of botwars.rl.core ------------------------------------------------------
    def _mine(self, view: dict[str, Any]) -> list[str]:
        return sorted(lb for lb, b in view["bots"].items() if b["owner"] == view["you"])

    def observe(self, view: dict[str, Any], partial: tuple[int, ...]) -> dict[str, np.ndarray]:
        board = np.zeros((8, 8, 8), dtype=np.float32)
        supers = np.zeros((4, 2, self.C), dtype=np.float32)
        you = view["you"]
        for lb, b in view["bots"].items():
            t = _tile(b.get("tile"))
            j = _LABELS.index(lb)
            if b.get("super"):
                for k, cid in enumerate(b["super"][:2]):
                    if cid in self.cids:
                        supers[j, k, self.cids.index(cid)] = 1
            if t is None:
                continue
            board[0 if b["owner"] == you else 1, t[1], t[0]] = 1
            board[2, t[1], t[0]] = float(bool(b.get("rooted")))
            board[6, t[1], t[0]] = float(bool(b.get("super")))
            board[7, t[1], t[0]] = float(b["owner"] == you and view.get("active") == you)
        for plane, key in ((3, "fire"), (4, "holes"), (5, "boulders")):
            for s in view.get(key, []):
                t = _tile(s)
                if t is not None:
                    board[plane, t[1], t[0]] = 1
        vec = np.zeros(5 + self.C, dtype=np.float32)
        phase = view.get("phase")
        vec[0] = phase == "setup"
        vec[1] = phase == "play"
        vec[2] = view.get("active") == you
        vec[3] = bool(view.get("super_allowed"))
        vec[4] = min(1.0, view.get("turn", 0) / max(1, view.get("max_turns", 200)))
        for k, cid in enumerate(self.cids):
            p = view["pool"].get(cid, {})
            vec[5 + k] = 1.0 if p.get("copies") is None else (p.get("left") or 0) / max(1, p["copies"])
        setup = np.zeros((4, self.C), dtype=np.float32)
        for j, a in enumerate(partial[:4]):
            setup[j, a - 1] = 1
        return {"board": board, "vector": vec, "supers": supers, "setup": setup}

    def mask(self, view: dict[str, Any], partial: tuple[int, ...], legal: Any) -> np.ndarray:
        m = np.zeros(self.nvec[0], dtype=np.int8)
        if view.get("phase") == "setup":
            used = {a - 1 for a in partial}
            for c in range(self.C):
                if c not in used and (len(partial) % 2 == 1 or self.blue[c]):
                    m[1 + c] = 1
            return m
        for p in legal or []:
            try:
                m[self.index(p)] = 1
            except ValueError:
                continue
        if not m.any():
            m[self.resign] = 1
        return m

    def decide(self, view: dict[str, Any], partial: tuple[int, ...], action: Any,
               legal: Any) -> tuple[tuple[int, ...], Any]:
        a = int(np.asarray(action).reshape(-1)[0])
        if view.get("phase") == "setup":
            partial = partial + (a,)
            mine = self._mine(view)
            if len(partial) < 2 * len(mine):
                return partial, None
            ids = [self.cids[x - 1] for x in partial]
            return (), {"type": "setup", "supers": {lb: ids[2 * j:2 * j + 2] for j, lb in enumerate(mine)}}
        return (), self.payload(a)

    def robot_actions(self, view: dict[str, Any]) -> int:
        return 1


def make(rules: Any, config: dict[str, Any], seats: list[str]) -> DadoedSpec:
    """The ``rl`` hook of DADOED's plug-in declaration."""
    return DadoedSpec(rules, config, seats)
