"""The Ruleset contract and the registry of rule sets.

A rule set is a class registered under its id. Its instances are pure rules: all match data
lives in the state object it returns from :meth:`Ruleset.setup`, and :meth:`Ruleset.resolve`
returns a new state (it never mutates the one it was given).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from botwars.engine.codes import KernelReason
from botwars.engine.errors import ConfigError, InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.plugin import Game, game_ids, get_game, register_game, unregister_game
from botwars.engine.safeload import DEFAULT_LIMITS, QUOTE_CHARS, cut, quote, read_text
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
                    raise ValueError(f"expected true or false, got {quote(value)}")
            elif self.type is int:
                if isinstance(v, bool) or isinstance(v, float):
                    raise ValueError(f"expected an integer, got {quote(value)}")
                if isinstance(v, str) and len(v.strip().lstrip("+-")) > DEFAULT_LIMITS.max_int_digits:
                    raise ValueError(f"expected an integer of at most {DEFAULT_LIMITS.max_int_digits} digits, "
                                     f"got {quote(value)}")
                v = int(str(v).strip(), 10) if isinstance(v, str) else int(v)
            elif self.type is float:
                if isinstance(v, bool):
                    raise ValueError(f"expected a number, got {quote(value)}")
                v = float(v)
                if v != v or v in (float("inf"), float("-inf")):
                    raise ValueError(f"expected a finite number, got {quote(value)}")
            elif self.type is str:
                if not isinstance(v, str):
                    raise ValueError(f"expected text, got {quote(value)}")
            else:  # pragma: no cover - programming error
                raise ValueError(f"unsupported parameter type {self.type}")
        except (ValueError, TypeError, OverflowError) as exc:  # int([1]), float(None), float(10**400)
            msg = str(exc)
            if not isinstance(exc, ValueError) or "invalid literal" in msg or "could not convert" in msg:
                msg = f"expected {'an integer' if self.type is int else 'a number'}, got {quote(value)}"
            raise ConfigError(f"parameter {name}: {msg}", source=source) from None
        if self.minimum is not None and v < self.minimum:
            raise ConfigError(f"parameter {name}: must be at least {self.minimum:g}, got {quote(v)}", source=source)
        if self.maximum is not None and v > self.maximum:
            raise ConfigError(f"parameter {name}: must be at most {self.maximum:g}, got {quote(v)}", source=source)
        if self.choices is not None and v not in self.choices:
            raise ConfigError(f"parameter {name}: must be one of {', '.join(self.choices)}, got {quote(v)}",
                              source=source)
        if self.check is not None:
            try:
                self.check(v)
            except ValueError as exc:
                raise ConfigError(f"parameter {name}: {cut(str(exc), 2 * QUOTE_CHARS)}", source=source) from None
        return v


def file_text(path: str) -> str:
    """The text of the file a ``kind="file"`` parameter names, read through
    :func:`botwars.engine.safeload.read_text` (bounded), with a line break at its end if it has
    none, so that the text is taken as text and never as a path again (:meth:`Param.is_path`).
    Raises :class:`ConfigError` naming the file."""
    text = read_text(path)
    return text if "\n" in text else text + "\n"


def parse_set_options(items: list[str] | None) -> dict[str, str]:
    """Parse ``--set key=value`` strings into a dict; raises :class:`ConfigError` on a bad item."""
    out: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise ConfigError(f"expected key=value, got {quote(item)}", source="--set")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k:
            raise ConfigError(f"empty parameter name in {quote(item)}", source="--set")
        out[k] = v
    return out


def canonical_json(obj: object) -> str:
    """Canonical JSON text (sorted keys, no spaces): the basis of digests and records."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def derived_seed(seed: int, seat: str) -> int:
    """A one-way per-seat seed (32 bits) from the match seed (SHA-256 of ``seed:seat``)."""
    return int.from_bytes(hashlib.sha256(f"botwars-agent:{seed}:{seat}".encode()).digest()[:4], "big")


def digest(obj: object) -> str:
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
    replaces_submissions: ClassVar[bool] = False
    #: True when :meth:`native_view` is implemented: a built-in bot with ``act_native`` then
    #: skips the JSON view and the payload parsing (the per-match loop's speed, docs/kernel.md).
    native_observations: ClassVar[bool] = False
    """True when a later valid submission replaces a seat's earlier one until the decision point
    resolves (factory F-5.5, geeko G-16.1); False: the first accepted orders stand."""

    # ---- configuration -------------------------------------------------------------
    def param_table(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    def validate_config(self, overrides: dict[str, Any] | None, source: str = "--set",
                        allow_paths: bool = True) -> dict[str, Any]:
        """Full config: defaults updated by ``overrides`` (strings or typed values).

        ``allow_paths=False`` (the server, a record's header, a scenario file): a ``kind="file"``
        parameter must be a shipped name or the text itself; anything else is refused before any
        file is looked at, with a message that does not depend on the file system. With
        ``allow_paths=True`` (the caller's own command line) a path is read (bounded, issue 25)
        and the config holds the file's text in its place, so a record written from it names no
        file and replays anywhere.
        Raises :class:`ConfigError` for an unknown key (naming the known ones) or a bad value.
        """
        table = self.param_table()
        if not allow_paths:
            self.refuse_paths(overrides, source)
        cfg = {p.name: p.default for p in self.params}
        for k, v in (overrides or {}).items():
            if k not in table:
                known = ", ".join(sorted(table))
                raise ConfigError(f"unknown parameter {quote(k)} for {self.id} (known: {known})", source=source)
            cfg[k] = table[k].coerce(v, source=source)
            if allow_paths and table[k].is_path(cfg[k]):
                cfg[k] = file_text(cfg[k])
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

    def clock_settings(self, per_turn_s: float) -> dict[str, Any]:
        """Parameter overrides that give this game a clock of about ``per_turn_s`` seconds a
        turn (a clock preset: blitz 30 s, daily 86,400 s, PBEM 432,000 s; issue 24 item 6),
        setup deadlines included, each within its parameter's range. Default: ``{}`` (the game
        has no time parameters)."""
        return {}

    def private_summary(self, state: Any, seat: str) -> dict[str, Any]:
        """A few facts of ``seat``'s own position for its turn notices (issue 24 item 8), drawn
        from what ``seat`` may see and nothing else, e.g. ``{"hp": 7, "robots_left": 2,
        "hand_size": 9}`` (keys in the field's terms; numbers). Default: ``{}``."""
        return {}

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

    def order_warnings(self, orders: Any) -> list[dict[str, Any]]:
        """Parts of accepted ``orders`` that were ignored, as ``{"code", "detail"}`` (arena P14:
        ``no_robot``, ``duplicate``); the record lists them with the seat's errors. Default: none."""
        return []

    def refusal_limit(self, state: Any, seat: str) -> int | None:
        """Refused submissions of ``seat`` at one decision point after which its orders become
        :meth:`rejected_orders` (submarine S-7.10: ``max_rejections``), or ``None`` (the
        default): refusals are not counted, the seat may submit again until its deadline."""
        return None

    def rejected_orders(self, state: Any, seat: str, error: InvalidOrders) -> Any:
        """The orders a seat gets when it reaches :meth:`refusal_limit` (``error``: the last
        :class:`InvalidOrders`). Default: :meth:`default_orders`. Submarine returns a marker its
        :meth:`resolve` treats as the S-7.10 loss (or, in set-up, a forfeit, S-3.3)."""
        return self.default_orders(state, seat)

    def agent_seed(self, seed: int, seat: str) -> int:
        """The seed a seat's agent is started with: a one-way derivation of the match seed per
        seat (:func:`derived_seed`), never the match seed itself (it would reveal deals and
        hidden facts). A rule set may derive it otherwise, but never return ``seed``."""
        return derived_seed(seed, seat)

    def legal_orders(self, state: Any, seat: str) -> list[Any] | None:
        """Every legal orders payload for ``seat`` where that set is finite, else ``None``."""
        return None

    def twin_state(self, state: Any, seat: str | None, rng: random.Random) -> Any:
        """A new state that differs from ``state`` only in facts hidden from ``seat`` (``None``:
        hidden from spectators, i.e. every seat's secrets), drawn with ``rng``; ``state`` itself
        is not changed. Returns ``None`` when the game has no hidden information (the default).

        The conformance suite (tests/engine) checks non-interference with it: the seat's view,
        refusal messages and accepted orders are the same in ``state`` and in its twin. A twin
        equal to ``state`` is allowed where nothing is hidden from ``seat`` at the moment."""
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

    def native_view(self, state: Any, seat: str) -> Any:
        """The observation of ``seat`` as the rule set's own read-only objects, for trusted
        in-process bots (the built-in bots) that answer with parsed orders
        (:meth:`Referee.submit_parsed`): exactly the information of :meth:`view`, nothing more,
        and nothing a bot can change the match through. Only called when
        :attr:`native_observations` is true; the default raises :class:`NotImplementedError`."""
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else ``None``."""
        raise NotImplementedError

    def timeout_outcome(self, state: Any, seat: str, reason: KernelReason = KernelReason.TIME) -> Outcome:
        """The outcome when ``seat`` loses on time (:attr:`KernelReason.TIME`, clocks with
        ``on_expiry`` :attr:`~botwars.engine.codes.OnExpiry.LOSS`) or resigns
        (:attr:`KernelReason.RESIGN`)."""
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
        """Accepted orders (from :meth:`parse_orders`) as an orders payload (JSON value or the
        game's text notation) that :meth:`parse_orders` accepts in the same position and turns
        into the same orders: payload → orders → payload is stable (checked for every game by
        the conformance suite, tests/engine). The default returns ``orders`` unchanged, which
        suits a game whose parsed orders are the payload itself."""
        return orders

    def render_text(self, state: Any, seat: str | None = None) -> str:
        """The board as text for the terminal (``seat`` limits it to that seat's view)."""
        return json.dumps(self.view(state, seat), indent=1)

    def turn_number(self, state: Any) -> int:
        """The game's own turn counter for reports (``state.turn`` by convention)."""
        return int(getattr(state, "turn", 0))

    def builtin_bots(self) -> dict[str, Callable[[], Any]]:
        """Built-in bot factories by name (each returns an object with ``act(view)``), for a rule
        set registered by itself with :func:`register`; a game's plug-in declares its bots."""
        return {}


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Register a rule set class as a game by itself (tests, scripts): a
    :class:`~botwars.engine.plugin.Game` made with :meth:`Game.from_ruleset
    <botwars.engine.plugin.Game.from_ruleset>`. Games proper are declared plug-ins found through
    the ``botwars.games`` entry points (docs/plugins.md). Usable as a class decorator."""
    register_game(Game.from_ruleset(cls))
    return cls


def unregister(ruleset_id: str) -> None:
    """Undo :func:`register` (installed games stay)."""
    unregister_game(ruleset_id)


def ruleset_ids() -> list[str]:
    """Ids of every available game, sorted."""
    return game_ids()


def get_ruleset(ruleset_id: str) -> Ruleset:
    """The (shared, stateless) rule set instance of a game; raises :class:`RulesetError`."""
    rs: Ruleset = get_game(ruleset_id).ruleset()
    return rs
