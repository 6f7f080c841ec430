"""Events (what happened, and who may know it) and match outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable


SPECTATOR = "*spectator*"
"""Pseudo-seat name: an event whose ``visible_to`` contains it is also shown to spectators
(seat ``None``). Lets a rule set give spectators one form of an event and a player another
(submarine S-8.8) without making the event public."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened during a resolution.

    ``kind`` is a short name (``move``, ``attack``, ``spawn``...), ``data`` a JSON-able dict,
    ``visible_to`` ``None`` for public events or a frozenset of seat names allowed to see it
    (include :data:`SPECTATOR` to let spectators see a non-public event).
    """

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    visible_to: frozenset[str] | None = None

    def visible(self, seat: str | None) -> bool:
        """True if ``seat`` (``None`` = spectator) may see this event."""
        if self.visible_to is None:
            return True
        if seat is None:
            return SPECTATOR in self.visible_to
        return seat in self.visible_to

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, **self.data}
        if self.visible_to is not None:
            out["visible_to"] = sorted(self.visible_to)
        return out


def filter_events(events: Iterable[Event], seat: str | None) -> list[Event]:
    """The events ``seat`` may see (``None`` = spectator: public events only)."""
    return [e for e in events if e.visible(seat)]


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``winner``: seat name or ``None`` for a draw (or no single winner); ``scores``: a number
    per seat (what the rule set ranks by); ``reason``: short code (``turn_limit``, ``wipeout``,
    ``elimination``, ``time``...); ``ranking``: seats best first, ties grouped.
    """

    winner: str | None
    scores: dict[str, float]
    reason: str
    ranking: list[list[str]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "scores": self.scores, "reason": self.reason,
                "ranking": self.ranking, "details": self.details}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Outcome":
        return cls(d.get("winner"), dict(d.get("scores", {})), d.get("reason", ""),
                   [list(g) for g in d.get("ranking", [])], dict(d.get("details", {})))
