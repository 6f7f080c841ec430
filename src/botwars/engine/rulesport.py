"""The rules port: every call the :class:`~botwars.engine.referee.Referee` and the seat driver
(:mod:`botwars.engine.driver`) make on a rule set once a match is under way.

A :class:`~botwars.engine.ruleset.Ruleset` is one (in this process). The server's rules pool
(``botwars.server.rulespool.RemoteRules``) is another: it answers for a state kept in a worker
process (a heavy match, issue 12), each of these calls written out, nothing proxied by name.
Set-up (:meth:`Ruleset.setup`, :meth:`Ruleset.time_control`) happens before a referee has a
port, and :meth:`Ruleset.resolve` is reached only through the referee's ``resolver``
(:func:`~botwars.engine.referee.resolve_local` or the pool's own), so neither is part of it.

States are opaque here (``Any``): the port never says what one holds.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from botwars.engine.codes import KernelReason
from botwars.engine.errors import InvalidOrders
from botwars.engine.events import Outcome

__all__ = ["RULES_PORT_CALLS", "RulesPort"]


@runtime_checkable
class RulesPort(Protocol):
    """What a referee asks of its rules during a match (docs/kernel.md, "The contract").

    ``id``/``rules_version``: the game and its rules' version (record header);
    ``replaces_submissions``: a later valid submission replaces an earlier one (factory F-5.5,
    geeko G-16.1); ``native_observations``: :meth:`native_view` is offered (trusted in-process
    bots only).
    """

    @property
    def id(self) -> str: ...

    @property
    def rules_version(self) -> int: ...

    @property
    def replaces_submissions(self) -> bool: ...

    @property
    def native_observations(self) -> bool: ...

    def pending(self, state: Any) -> list[str]:
        """Seats whose orders the point needs, in seat order; empty once over."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else ``None``."""
        ...

    def clock_exempt(self, state: Any) -> float | None:
        """Seconds allowed for a point the clock does not charge (DADOED D-3.5), or ``None``."""
        ...

    def turn_number(self, state: Any) -> int:
        """The game's own turn counter."""
        ...

    def parse_orders(self, state: Any, seat: str, payload: Any) -> Any:
        """Parsed orders; raises :class:`InvalidOrders`."""
        ...

    def order_warnings(self, orders: Any) -> list[dict[str, Any]]:
        """Ignored parts of accepted orders (``{"code", "detail"}``)."""
        ...

    def refusal_limit(self, state: Any, seat: str) -> int | None:
        """Refusals after which the seat's orders become :meth:`rejected_orders` (S-7.10), or
        ``None``: not counted."""
        ...

    def rejected_orders(self, state: Any, seat: str, error: InvalidOrders) -> Any:
        """The orders of a seat out of refusals (S-7.10)."""
        ...

    def default_orders(self, state: Any, seat: str) -> Any:
        """What a seat does when it gives nothing valid in time (arena P10)."""
        ...

    def orders_json(self, orders: Any) -> Any:
        """Accepted orders back as a payload :meth:`parse_orders` accepts."""
        ...

    def view(self, state: Any, seat: str | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may know."""
        ...

    def clock_view(self, view: dict[str, Any], bank_left: dict[str, float]) -> dict[str, Any]:
        """``view`` with the clocks (seconds of bank left per seat) where the game shows them."""
        ...

    def native_view(self, state: Any, seat: str) -> Any:
        """The seat's observation as the rule set's own read-only objects."""
        ...

    def timeout_outcome(self, state: Any, seat: str, reason: KernelReason = KernelReason.TIME) -> Outcome:
        """The outcome when ``seat`` loses on time, refusals or resignation."""
        ...

    def agent_seed(self, seed: int, seat: str) -> int:
        """The one-way seed a seat's agent is started with (never ``seed`` itself)."""
        ...


RULES_PORT_CALLS: tuple[str, ...] = (
    "id", "rules_version", "replaces_submissions", "native_observations", "pending", "outcome", "clock_exempt",
    "turn_number", "parse_orders", "order_warnings", "refusal_limit", "rejected_orders", "default_orders",
    "orders_json", "view", "clock_view", "native_view", "timeout_outcome", "agent_seed")
"""The names of :class:`RulesPort`'s members (a test checks it against the protocol and every
implementation)."""
