"""The Ruleset contract and the registry of rule sets.

A rule set is a class registered under its id. Its instances are pure rules: all match data
lives in the state object it returns from :meth:`Ruleset.setup`, and :meth:`Ruleset.resolve`
returns a new state (it never mutates the one it was given).
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

from botwars.engine.errors import ConfigError, RulesetError
from botwars.engine.events import Event, Outcome
from botwars.engine.timecontrol import TimeControl

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True)
class Param:
    """One row of a rule set's parameter table.

    ``type`` is one of ``int``, ``float``, ``bool``, ``str``; ``minimum``/``maximum`` bound
    numbers; ``choices`` restricts strings; ``check`` is an extra validator that raises
    ``ValueError`` with a message.

    ``kind="file"`` marks a parameter whose value may name a file (a map, board, room set or
    pool): it is then a shipped name (``names()`` lists them), the text itself (any value with
    a line break), or a file path. Paths are accepted only where the caller allows them
    (:meth:`Ruleset.validate_config` with ``allow_paths=True``, the command line); the server
    refuses them without looking at the file system (issue 12).
    """

    name: str
    type: type
    default: Any
    doc: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    check: Callable[[Any], None] | None = None
    kind: str = "value"
    names: Callable[[], list[str]] | None = None

    def is_path(self, value: Any) -> bool:
        """True when ``value`` for this ``kind="file"`` parameter would be read as a file path:
        text without a line break that is not a shipped name. Looks at no file."""
        if self.kind != "file" or not isinstance(value, str) or "\n" in value:
            return False
        return value not in (self.names() if self.names is not None else ())

    def coerce(self, value: Any, source: str = "--set") -> Any:
        """Convert ``value`` (a string from ``--set`` or a YAML/JSON value) to this type.

        Raises :class:`ConfigError` naming the parameter and the problem.
        """
        name = self.name
        v = value
        try:
            if self.type is bool:
                if isinstance(v, bool):
                    pass
                elif isinstance(v, str) and v.strip().lower() in _TRUE | _FALSE:
                    v = v.strip().lower() in _TRUE
                else:
                    raise ValueError(f"expected true or false, got {value!r}")
            elif self.type is int:
                if isinstance(v, bool) or isinstance(v, float):
                    raise ValueError(f"expected an integer, got {value!r}")
                v = int(str(v).strip(), 10) if isinstance(v, str) else int(v)
            elif self.type is float:
                if isinstance(v, bool):
                    raise ValueError(f"expected a number, got {value!r}")
                v = float(v)
                if v != v or v in (float("inf"), float("-inf")):
                    raise ValueError(f"expected a finite number, got {value!r}")
            elif self.type is str:
                if not isinstance(v, str):
                    raise ValueError(f"expected text, got {value!r}")
            else:  # pragma: no cover - programming error
                raise ValueError(f"unsupported parameter type {self.type}")
        except ValueError as exc:
            msg = str(exc)
            if "invalid literal" in msg or "could not convert" in msg:
                msg = f"expected {'an integer' if self.type is int else 'a number'}, got {value!r}"
            raise ConfigError(f"parameter {name}: {msg}", source=source) from None
        if self.minimum is not None and v < self.minimum:
            raise ConfigError(f"parameter {name}: must be at least {self.minimum:g}, got {v!r}", source=source)
        if self.maximum is not None and v > self.maximum:
            raise ConfigError(f"parameter {name}: must be at most {self.maximum:g}, got {v!r}", source=source)
        if self.choices is not None and v not in self.choices:
            raise ConfigError(f"parameter {name}: must be one of {', '.join(self.choices)}, got {v!r}",
                              source=source)
        if self.check is not None:
            try:
                self.check(v)
            except ValueError as exc:
                raise ConfigError(f"parameter {name}: {exc}", source=source) from None
        return v


def parse_set_options(items: list[str] | None) -> dict[str, str]:
    """Parse ``--set key=value`` strings into a dict; raises :class:`ConfigError` on a bad item."""
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise ConfigError(f"expected key=value, got {item!r}", source="--set")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k:
            raise ConfigError(f"empty parameter name in {item!r}", source="--set")
        out[k] = v
    return out


def canonical_json(obj: Any) -> str:
    """Canonical JSON text (sorted keys, no spaces): the basis of digests and records."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(obj: Any) -> str:
    """A short SHA-256 digest of the canonical JSON of ``obj``."""
    return hashlib.sha256(canonical_json(obj).encode()).hexdigest()[:16]


class Ruleset:
    """Base class of every rule set (the kernel contract; see docs/DESIGN.md).

    Subclasses set ``id``, ``name``, ``rules_version``, ``params`` and seat bounds, and
    implement the abstract methods. Everything a rule set computes must be deterministic:
    randomness comes only from an RNG kept in the state and seeded from the match seed.
    """

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    rules_version: ClassVar[int] = 1
    params: ClassVar[tuple[Param, ...]] = ()
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2

    # ---- configuration -------------------------------------------------------------
    def param_table(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    def validate_config(self, overrides: dict[str, Any] | None, source: str = "--set",
                        allow_paths: bool = True) -> dict[str, Any]:
        """Full config: defaults updated by ``overrides`` (strings or typed values).

        ``allow_paths=False`` (the server): a ``kind="file"`` parameter must be a shipped name or
        the text itself; anything else is refused before any file is looked at, with a message
        that does not depend on the file system.
        Raises :class:`ConfigError` for an unknown key (naming the known ones) or a bad value.
        """
        table = self.param_table()
        if not allow_paths:
            self.refuse_paths(overrides, source)
        cfg = {p.name: p.default for p in self.params}
        for k, v in (overrides or {}).items():
            if k not in table:
                known = ", ".join(sorted(table))
                raise ConfigError(f"unknown parameter {k!r} for {self.id} (known: {known})", source=source)
            cfg[k] = table[k].coerce(v, source=source)
        self.check_config(cfg)
        return cfg

    def refuse_paths(self, overrides: dict[str, Any] | None, source: str = "config") -> None:
        """Raise :class:`ConfigError` if an override of a ``kind="file"`` parameter would be read
        as a file path (:meth:`Param.is_path`). Touches no file, so the message says nothing
        about the server's file system (issue 12)."""
        table = self.param_table()
        for k, v in (overrides or {}).items():
            p = table.get(k)
            if p is not None and p.is_path(v):
                shipped = ", ".join(p.names()) if p.names is not None else ""
                raise ConfigError(f"parameter {k}: give a shipped name ({shipped}) or the text itself "
                                  "(with its line breaks); file paths are not accepted here", source=source)

    def check_config(self, config: dict[str, Any]) -> None:
        """Cross-parameter checks (e.g. load a map); raise :class:`ConfigError`."""

    def seat_names(self, n: int) -> list[str]:
        """The seat names of an ``n``-seat match (default ``p1``, ``p2``, ...)."""
        return [f"p{i + 1}" for i in range(n)]

    def time_control(self, config: dict[str, Any]) -> TimeControl:
        """The match clock this rule set prescribes (default: none)."""
        return TimeControl()

    def clock_exempt(self, state: Any) -> float | None:
        """Seconds allowed for the coming decision when it is not charged to the clock (e.g. the
        DADOED setup, D-3.5), or ``None`` when it is charged normally (the default)."""
        return None

    def clock_view(self, view: dict[str, Any], bank_left: dict[str, float]) -> dict[str, Any]:
        """The view with the match clock shown (``bank_left``: seconds per seat). Default: unchanged."""
        return view

    # ---- the contract ----------------------------------------------------------------
    def setup(self, config: dict[str, Any], seats: list[str], seed: int) -> Any:
        """A new game state. ``config`` is already validated."""
        raise NotImplementedError

    def pending(self, state: Any) -> list[str]:
        """Seats whose orders are awaited now, in seat order (empty when the game is over)."""
        raise NotImplementedError

    def parse_orders(self, state: Any, seat: str, payload: Any) -> Any:
        """Validated orders from a JSON payload (or the game's text notation).

        Raises :class:`InvalidOrders`; never partially applies anything.
        """
        raise NotImplementedError

    def rejected_orders(self, state: Any, seat: str, error: Any) -> Any:
        """The orders applied when ``seat``'s payload was refused with ``error`` (an
        :class:`InvalidOrders`). Default: :meth:`default_orders`. A rule set that lets a player
        resubmit after a rejection (submarine S-4.3, S-7.10) returns a marker its
        :meth:`resolve` treats as "count the rejection, same seat to move again"."""
        return self.default_orders(state, seat)

    def agent_seed(self, seed: int, seat: str) -> int:
        """The seed a seat's agent is started with. Default: the match seed. A rule set whose
        match seed is secret (submarine S-8.1: knowing it, a player could re-run the opponent's
        seeded bot) returns a value derived from it per seat instead."""
        return seed

    def legal_orders(self, state: Any, seat: str) -> list[Any] | None:
        """Every legal orders payload for ``seat`` where that set is finite, else ``None``."""
        return None

    def default_orders(self, state: Any, seat: str) -> Any:
        """The orders a seat gets when it submits nothing valid in time."""
        raise NotImplementedError

    def resolve(self, state: Any, orders: dict[str, Any]) -> tuple[Any, list[Event]]:
        """Apply one decision point; returns the new state and its events."""
        raise NotImplementedError

    def view(self, state: Any, seat: str | None) -> dict[str, Any]:
        """The observation for ``seat`` (``None`` = spectator): exactly what it may know."""
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else ``None``."""
        raise NotImplementedError

    def timeout_outcome(self, state: Any, seat: str, reason: str = "time") -> Outcome:
        """The outcome when ``seat`` loses on time (clocks with ``on_expiry="loss"``) or resigns."""
        seats = [s for s in self.seats_of(state)]
        others = [s for s in seats if s != seat]
        winner = others[0] if len(others) == 1 else None
        return Outcome(winner, {s: (0.0 if s == seat else 1.0) for s in seats}, reason,
                       [others, [seat]] if others else [[seat]])

    def seats_of(self, state: Any) -> list[str]:
        """Seat names of a state (states keep a ``seats`` attribute by convention)."""
        return list(state.seats)

    # ---- serialisation, text and tools ----------------------------------------------------
    def state_json(self, state: Any) -> dict[str, Any]:
        """The complete state as JSON (for digests, god views of finished games, debugging)."""
        raise NotImplementedError

    def orders_json(self, orders: Any) -> Any:
        """Accepted orders as JSON (public once resolved)."""
        return orders

    def render_text(self, state: Any, seat: str | None = None) -> str:
        """The board as text for the terminal (``seat`` limits it to that seat's view)."""
        return json.dumps(self.view(state, seat), indent=1)

    def turn_number(self, state: Any) -> int:
        """The game's own turn counter for reports (``state.turn`` by convention)."""
        return int(getattr(state, "turn", 0))

    def run_scenario(self, doc: dict[str, Any], source: str) -> list[str]:
        """Run one scenario document; return failure messages (empty = pass)."""
        raise ConfigError(f"no scenario format for game {self.id}", source=source)

    def builtin_bots(self) -> dict[str, Callable[[], Any]]:
        """Built-in bot factories by name (each returns an object with ``act(view)``)."""
        return {}


_REGISTRY: dict[str, str | type[Ruleset]] = {
    "arena": "botwars.games.arena.rules:ArenaRuleset",
    "dadoed": "botwars.games.dadoed.rules:DadoedRuleset",
    "factory": "botwars.games.factory.rules:FactoryRuleset",
    "geeko": "botwars.games.geeko.rules:GeekoRuleset",
    "submarine": "botwars.games.submarine.rules:SubmarineRuleset",
}
_INSTANCES: dict[str, Ruleset] = {}


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Class decorator: register a rule set under ``cls.id``."""
    _REGISTRY[cls.id] = cls
    _INSTANCES.pop(cls.id, None)
    return cls


def ruleset_ids() -> list[str]:
    """Registered rule set ids, sorted."""
    return sorted(_REGISTRY)


def get_ruleset(ruleset_id: str) -> Ruleset:
    """The (shared, stateless) instance of a registered rule set; raises :class:`RulesetError`."""
    if ruleset_id in _INSTANCES:
        return _INSTANCES[ruleset_id]
    entry = _REGISTRY.get(ruleset_id)
    if entry is None:
        raise RulesetError(f"unknown game {ruleset_id!r} (known: {', '.join(ruleset_ids())})")
    if isinstance(entry, str):
        mod, _, name = entry.partition(":")
        entry = getattr(importlib.import_module(mod), name)
    inst = entry()
    _INSTANCES[ruleset_id] = inst
    return inst
