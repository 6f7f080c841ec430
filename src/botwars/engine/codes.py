"""The kernel's closed vocabularies, spelled once: failure codes, clock statuses, outcome
reasons the kernel itself produces, refusal codes, submission receipts and the reasons a
submission is not awaited.

Every enum is a :class:`enum.StrEnum`, so its members are the very strings written to records
and sent over HTTP (``FailureCode.TIMEOUT == "timeout"``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


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


NO_FAILURE_STATED: Final = "default"
"""The error code a seat's default orders are recorded with when a stored entry (a record
line, a stored order row) names no failure at all: a hand-written record, never a live match."""


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


class RefusalCode(StrEnum):
    """The usual codes of a refusal (:class:`botwars.engine.InvalidOrders`; a rule set may add
    its own, e.g. dadoed's ``turn`` and ``unknown``).

    ``malformed``: the payload is not an orders payload of the game's format (wrong JSON shape,
    unknown key, bad type); ``illegal``: well-formed orders the rules forbid now.
    """

    MALFORMED = "malformed"
    ILLEGAL = "illegal"


class KernelReason(StrEnum):
    """Outcome reasons the referee itself produces (games add their own, e.g. ``wipeout``).

    ``time``: a seat lost on time; ``resign``: a seat resigned; ``refused``: a seat reached its
    rule set's refusal limit (submarine S-7.10); ``adjudicated``: the game master ended the match
    with a result; ``aborted``: the game master aborted it (no winner).
    """

    TIME = "time"
    RESIGN = "resign"
    REFUSED = "refused"
    ADJUDICATED = "adjudicated"
    ABORTED = "aborted"


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


class NotAwaitedCode(StrEnum):
    """Why a submission has no open part of the decision point to settle
    (:class:`botwars.engine.referee.NotAwaited`; the server answers 409 with this code).

    ``match_ended``; ``not_your_turn``: the seat is not pending (or unknown); ``already_submitted``:
    its part is settled and the rules do not allow replacing it; ``not_ready``: resolution was
    asked for while a pending seat is unsettled.
    """

    MATCH_ENDED = "match_ended"
    NOT_YOUR_TURN = "not_your_turn"
    ALREADY_SUBMITTED = "already_submitted"
    NOT_READY = "not_ready"
