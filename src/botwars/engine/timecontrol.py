"""Time control: a per-move limit plus a time bank per seat, enforced by :class:`Match`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from botwars.engine.codes import ClockStatus, OnExpiry


@dataclass(frozen=True)
class TimeControl:
    """How thinking time is charged, in seconds.

    - ``move_limit_s``: free seconds per decision (``None`` = no limit at all).
    - ``bank_s``: reserve for the whole match, spent by time beyond ``move_limit_s``.
    - ``increment_s``: if set, each charge is rounded up to whole increments with at least one
      increment charged per decision (DADOED D-8.3: 0.4 s costs 30 s).
    - ``on_expiry``: :attr:`OnExpiry.DEFAULT` — the seat's default orders apply this decision
      (arena P10); :attr:`OnExpiry.LOSS` — the seat loses the match (DADOED D-8.3, submarine
      S-7.8). Its string (``"default"``, ``"loss"``) is accepted and made the member; anything
      else raises :class:`ValueError`.
    """

    move_limit_s: float | None = None
    bank_s: float = 0.0
    increment_s: float | None = None
    on_expiry: OnExpiry = OnExpiry.DEFAULT

    def __post_init__(self) -> None:
        object.__setattr__(self, "on_expiry", OnExpiry(self.on_expiry))

    def charge(self, used_s: float) -> float:
        """Seconds taken from the bank for a decision that took ``used_s`` seconds."""
        if self.move_limit_s is None:
            return 0.0
        excess = max(0.0, used_s - self.move_limit_s)
        if self.increment_s:
            steps = max(1, math.ceil(round(excess / self.increment_s, 9)))
            return steps * self.increment_s
        return excess

    def deadline(self, bank_left_s: float) -> float | None:
        """Longest a decision may take before the seat has run out (``None``: unlimited)."""
        if self.move_limit_s is None:
            return None
        return self.move_limit_s + max(0.0, bank_left_s)


def span_words(seconds: float) -> str:
    """A length of time in words for people: ``"30 seconds"``, ``"1 hour"``, ``"24 hours"``,
    ``"5 days"``, ``"2 hours 30 minutes"`` (whole units, the two largest; ``seconds`` ≥ 0)."""
    s = int(round(seconds))
    if s % 86_400 == 0 and s >= 172_800 or s >= 30 * 86_400:
        n = round(s / 86_400)
        return f"{n} day{'' if n == 1 else 's'}"
    parts = []
    for k, word in ((3_600, "hour"), (60, "minute"), (1, "second")):
        n, s = divmod(s, k)
        if n:
            parts.append(f"{n} {word}{'' if n == 1 else 's'}")
    return " ".join(parts[:2]) or "0 seconds"


def time_control_words(tc: TimeControl) -> str:
    """A time control as one sentence for people choosing a clock (issue 23 item 5): the time a
    turn, the bank for the whole game, the increment, and what running out does, e.g. "24
    hours a turn, then a reserve of 5 minutes for the whole game; running out loses the game"
    (submarine S-7.8) or "a bank of 30 days for the whole game, each turn costing at least 30
    seconds; running out loses the game" (dadoed D-8.3)."""
    if tc.move_limit_s is None:
        return "no time limit"
    if tc.move_limit_s > 0:
        out = f"{span_words(tc.move_limit_s)} a turn"
        if tc.bank_s > 0:
            out += f", then a reserve of {span_words(tc.bank_s)} for the whole game"
    else:
        out = f"a bank of {span_words(tc.bank_s)} for the whole game"
    if tc.increment_s:
        out += f", each turn costing at least {span_words(tc.increment_s)}"
    if tc.on_expiry is OnExpiry.LOSS:
        return out + "; running out loses the game"
    return out + "; a turn not given in time plays the default orders"


@dataclass
class Clock:
    """Mutable per-seat clock state: seconds left in each seat's bank."""

    control: TimeControl
    bank_left: dict[str, float]

    @classmethod
    def start(cls, control: TimeControl, seats: list[str]) -> "Clock":
        """A clock for ``seats`` with every bank full (``control.bank_s`` seconds)."""
        return cls(control, {s: float(control.bank_s) for s in seats})

    def deadline(self, seat: str) -> float | None:
        """Seconds ``seat`` may take for its next decision (``None``: unlimited)."""
        return self.control.deadline(self.bank_left[seat])

    def spend(self, seat: str, used_s: float) -> ClockStatus:
        """Charge ``used_s`` seconds to ``seat``.

        Returns :attr:`ClockStatus.OK`; :attr:`ClockStatus.EXPIRED` if the decision took longer
        than the seat had (its orders were not in time: the default orders or a loss apply, per
        ``on_expiry``); or :attr:`ClockStatus.DEPLETED` (increment clocks only, DADOED D-8.3) if
        the charge emptied the bank: the order stands but the seat loses after this resolution.
        """
        c = self.control
        if c.move_limit_s is None:
            return ClockStatus.OK
        bank = self.bank_left[seat]
        if c.increment_s:
            if used_s - c.move_limit_s >= bank:
                self.bank_left[seat] = 0.0
                return ClockStatus.EXPIRED
            bank -= c.charge(used_s)
            self.bank_left[seat] = max(0.0, bank)
            return ClockStatus.DEPLETED if bank <= 0 else ClockStatus.OK
        if used_s > c.move_limit_s + bank + 1e-9:
            self.bank_left[seat] = 0.0
            return ClockStatus.EXPIRED
        self.bank_left[seat] = max(0.0, bank - c.charge(used_s))
        return ClockStatus.OK

    def to_json(self) -> dict[str, Any]:
        """``{"move_limit_s", "bank_left_s": {seat: seconds}, "increment_s", "on_expiry"}``."""
        return {"move_limit_s": self.control.move_limit_s, "bank_left_s": dict(self.bank_left),
                "increment_s": self.control.increment_s, "on_expiry": self.control.on_expiry}
