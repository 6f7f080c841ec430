"""The kernel's closed vocabularies, spelled once: failure codes, clock statuses, outcome
reasons the kernel itself produces, and submission receipts.

Every enum is a :class:`enum.StrEnum`, so its members are the very strings written to records
and sent over HTTP (``FailureCode.TIMEOUT == "timeout"``).
"""

from __future__ import annotations

from enum import StrEnum


class FailureCode(StrEnum):
    """Why a seat's agent produced no orders at a decision point (its default orders apply).

    ``timeout``: no reply within the seat's deadline; ``crash``: the program died or raised;
    ``memory``: it exceeded its memory limit; ``malformed``: its reply could not be read as an
    orders payload at all (not JSON, not UTF-8, too long).
    """

    TIMEOUT = "timeout"
    CRASH = "crash"
    MEMORY = "memory"
    MALFORMED = "malformed"

    @classmethod
    def parse(cls, value: object) -> "FailureCode":
        """The member named by ``value``; raises :class:`ValueError` naming the known codes."""
        try:
            return cls(str(value))
        except ValueError:
            raise ValueError(f"unknown failure code {value!r} (known: {', '.join(m.value for m in cls)})") from None


class ClockStatus(StrEnum):
    """What charging a decision to a seat's clock did (:meth:`botwars.engine.Clock.spend`).

    ``ok``; ``expired``: the seat had no orders within ``move limit + bank`` (its default orders
    apply, or it loses, per the time control's ``on_expiry``); ``depleted`` (increment clocks,
    DADOED D-8.3): the charge emptied the bank; the orders stand and the seat loses after this
    resolution.
    """

    OK = "ok"
    EXPIRED = "expired"
    DEPLETED = "depleted"


class OnExpiry(StrEnum):
    """What happens to a seat whose time ran out: its default orders apply (arena P10), or it
    loses the match (DADOED D-8.3, submarine S-7.8)."""

    DEFAULT = "default"
    LOSS = "loss"


class KernelReason(StrEnum):
    """Outcome reasons the referee itself produces (games add their own, e.g. ``wipeout``).

    ``time``: a seat lost on time; ``resign``: a seat resigned; ``refused``: a seat reached its
    rule set's refusal limit (submarine S-7.10).
    """

    TIME = "time"
    RESIGN = "resign"
    REFUSED = "refused"


class Receipt(StrEnum):
    """What :meth:`botwars.engine.referee.Referee.submit` did with a submission.

    ``accepted``: the seat's orders for the open decision point; ``replaced``: a later valid
    submission replaced an earlier one (factory F-5.5, geeko G-16.1); ``refused``: invalid, the
    seat may submit again (a refusal is told to that seat only, S-8.6); ``too_late``: the seat's
    time had run out (its expiry applied instead).
    """

    ACCEPTED = "accepted"
    REPLACED = "replaced"
    REFUSED = "refused"
    TOO_LATE = "too_late"
