"""Scenario files: YAML documents that pin down a ruling (``botwars scenario run``).

Every scenario has a ``game`` key; the rest of its format belongs to that game: its plug-in
declares a :class:`ScenarioFormat` (docs/plugins.md) whose hooks build the starting position,
turn each entry into submissions and check the expectations. :func:`run_scenario` is the one
runner: it plays every entry's decision point through one
:class:`~botwars.engine.referee.Referee` and names FILE:LINE:COLUMN for every malformed
entry (:class:`Locator`). The docs of each game describe its format.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from botwars.engine import driver
from botwars.engine.codes import Receipt
from botwars.engine.errors import BotwarsError, ConfigError, InvalidOrders
from botwars.engine.plugin import get_game, resolve
from botwars.engine.referee import NotAwaited, Referee
from botwars.engine.safeload import Limits, load_yaml, read_text
from botwars.engine.yamlschema import locate, validate_doc


SCENARIO_LIMITS = Limits(max_bytes=1 << 20)
"""What one scenario file may cost (1 MiB; the largest shipped one is a few kilobytes)."""


def collect(paths: list[str]) -> list[str]:
    """Expand folders into their ``*.yaml``/``*.yml`` files (sorted); raises for a missing path."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in sorted(os.walk(p)):
                out += [os.path.join(root, f) for f in sorted(files) if f.endswith((".yaml", ".yml"))]
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise ConfigError("no such file or folder", source=p)
    return out


def load(path: str) -> dict[str, Any]:
    """Read one scenario file through :mod:`botwars.engine.safeload` (at most
    :data:`SCENARIO_LIMITS` bytes, no YAML anchors or aliases, bounded depth and integers);
    raises :class:`ConfigError` naming the file and line."""
    doc = load_yaml(read_text(path, SCENARIO_LIMITS, what="scenario file"), path, SCENARIO_LIMITS)
    if not isinstance(doc, dict):
        raise ConfigError("a scenario must be a YAML mapping", source=path, line=1)
    if "game" not in doc:
        raise ConfigError("missing key 'game'", source=path, line=1)
    return doc


def check_file(path: str) -> list[str]:
    """Run one scenario; returns failure messages (empty list = pass).

    Raises :class:`ConfigError` (file, line, problem) when the file itself is malformed.
    """
    doc = load(path)
    return get_game(str(doc["game"])).run_scenario(doc, path)


# ---- where a key is in the file ----------------------------------------------------------------
class Locator:
    """Finds the line and column of a key path in a scenario file, for error messages.

    ``path`` elements are mapping keys and sequence indexes (``("turns", 2, "orders", "1a")``).
    """

    def __init__(self, source: str):
        self.source = source

    def line(self, *path: Any) -> int | None:
        """1-based line of the deepest node of ``path`` that exists (``None`` if unknown)."""
        return self.place(*path)[0]

    def place(self, *path: Any) -> tuple[int | None, int | None]:
        """1-based ``(line, column)`` of the deepest node of ``path`` that exists (a mapping key
        is placed at the key); ``(None, None)`` if the file is not readable YAML."""
        return locate(self.source, tuple(path), at_key=True)

    def error(self, msg: str, *path: Any) -> ConfigError:
        """A :class:`ConfigError` with ``msg`` placed at ``path`` (the file's start if empty)."""
        line, column = self.place(*path)
        return ConfigError(msg, source=self.source, line=line, column=column)

    def placed(self, exc: ConfigError, *path: Any) -> ConfigError:
        """``exc`` itself when it names a line already or another file (a map, a pool), else the
        same message placed at ``path``; without a path, at the key its message names: a
        configuration parameter (``parameter turn_limit: ...``: ``config.turn_limit``) or a
        top-level key (``reserves: ...``)."""
        if exc.line is not None or exc.source not in (None, self.source):
            return exc
        if not path:
            param = re.match(r"(?:unknown )?parameter '?([\w.-]+)'?", exc.message)
            head = exc.message.split(":", 1)[0].strip()
            if param:
                path = ("config", param.group(1))
            elif head and head.isidentifier():
                path = (head,)
        return self.error(exc.message, *path)


# ---- one runner for every game -----------------------------------------------------------------
class _Unchecked:
    def __repr__(self) -> str:
        return "UNCHECKED"


UNCHECKED: Any = _Unchecked()
"""A :attr:`Submission.refusal` that the kernel does not check (the game's ``check`` looks at
:attr:`Played.refused` itself, e.g. arena's ``malformed`` expectation)."""


@dataclass
class Start:
    """Where a scenario starts: the validated ``config``, the ``seats`` in the rule set's order,
    the position ``state`` (``None``: :meth:`Ruleset.setup` with ``seed``) and ``ctx``, anything
    the game wants back in its later hooks (robot labels, player indexes)."""

    config: dict[str, Any]
    seats: list[str]
    state: Any = None
    seed: int = 0
    ctx: Any = None


@dataclass
class Submission:
    """One seat's part of a scenario entry, given to the referee.

    Exactly one of: ``payload`` (a player's submission, JSON value or text, through
    :meth:`Referee.submit`), ``parsed`` (orders the game built from its own notation,
    :meth:`Referee.settle_parsed`), ``failure`` (a failure code such as ``timeout``: the seat's
    default orders, :meth:`Referee.default`). ``refusal``: ``None`` (the submission must be
    accepted), a text the refusal message (or its code) must contain, or :data:`UNCHECKED`.
    ``on_refusal``: ``"wait"`` (the seat stays awaited; the point resolves only when every
    pending seat is settled) or ``"default"`` (its default orders apply, P10).
    ``label``: how failure lines name it (``"orders of p1"``)."""

    seat: str
    payload: Any = None
    parsed: Any = None
    failure: str | None = None
    refusal: Any = None
    on_refusal: str = "wait"
    label: str = ""


@dataclass
class Step:
    """What the game makes of one scenario entry: the ``submissions`` in order, whether the
    point is resolved once ready (``resolve``; seats still awaited then get their default
    orders), ``where`` (the entry's name in failure lines), ``failures`` found before play
    (a hand that is not the expected one) and ``stop`` (end the scenario here, unplayed)."""

    submissions: list[Submission] = field(default_factory=list)
    where: str = ""
    resolve: bool = True
    fill_defaults: bool = True
    failures: list[str] = field(default_factory=list)
    stop: bool = False


@dataclass
class Played:
    """What happened at one entry's decision point, for the game's ``check``: the state
    ``before``, the ``events`` of every point resolved (empty when none was), ``resolved``,
    the ``settled`` orders of each seat at resolution (:class:`~botwars.engine.referee.Settled`),
    the ``refused`` seats (seat → last :class:`InvalidOrders`) and the ``warnings`` (error
    entries of accepted orders) by seat."""

    before: Any
    events: list[Any] = field(default_factory=list)
    resolved: bool = False
    settled: dict[str, Any] = field(default_factory=dict)
    refused: dict[str, InvalidOrders] = field(default_factory=dict)
    warnings: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


@dataclass
class Case:
    """One variant of a scenario document (arena's ``cases``): ``name`` prefixes its failure
    lines (``None``: the document itself), ``doc`` is the merged document and ``at`` a function
    from a key path of ``doc`` to the path in the file (so errors point into the case)."""

    name: str | None
    doc: dict[str, Any]
    at: Callable[..., tuple[Any, ...]] = lambda *path: tuple(path)


class ScenarioFormat:
    """A game's scenario format: the hooks the kernel runner (:func:`run_scenario`) calls.

    A game subclasses it and names an instance in its plug-in's ``scenario`` field. Every hook
    gets the game's rule set ``rules`` and a :class:`Locator` ``loc`` of the file; a malformed
    document raises ``loc.error(message, *key_path)`` so the error names FILE:LINE:COLUMN.
    """

    #: stop the scenario at a refusal nobody expected, or an acceptance where one was
    stop_on_surprise: bool = False

    def run(self, rules: Any, doc: dict[str, Any], source: str) -> list[str]:
        """:func:`run_scenario` of this format (the kernel's runner; not a hook to override)."""
        return run_scenario(self, rules, doc, source)
    #: the top-level keys of the format (``None``: the schema alone says)
    known_keys: frozenset[str] | None = None
    #: the Pydantic model of the document (:class:`~botwars.engine.yamlschema.Strict`), or a
    #: reference ``"pkg.mod:Model"`` imported when first needed; ``None``: no shape check
    schema: Any = None

    def check_shape(self, doc: dict[str, Any], source: str) -> None:
        """Refuse keys not in :attr:`known_keys` (at the first unknown key), then validate keys
        and types against :attr:`schema` (:func:`~botwars.engine.yamlschema.validate_doc`);
        raises :class:`ConfigError` with file, line and column."""
        if self.known_keys is not None:
            unknown = sorted(str(k) for k in doc if k not in self.known_keys)
            if unknown:
                raise Locator(source).error(f"unknown key(s) {', '.join(unknown)} "
                                            f"(known: {', '.join(sorted(self.known_keys))})", unknown[0])
        if self.schema is not None:
            validate_doc(resolve(self.schema), doc, source)

    def special(self, rules: Any, doc: dict[str, Any], loc: Locator) -> list[str] | None:
        """Run a part of the format that is not a list of decision points (submarine ``clock``,
        factory and geeko ``play`` stages) and return its failures, or ``None`` (the default)."""
        return None

    def cases(self, doc: dict[str, Any], loc: Locator) -> list[Case]:
        """The variants of ``doc`` to run, each from its own starting position."""
        return [Case(None, doc)]

    def start(self, rules: Any, case: Case, loc: Locator) -> Start:
        """Build the starting position of ``case``; raises :class:`ConfigError`."""
        raise NotImplementedError

    def entries(self, case: Case, loc: Locator) -> list[tuple[tuple[Any, ...], Any]]:
        """The entries to play in order, each with its key path in the file."""
        raise NotImplementedError

    def step(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], start: Start,
             loc: Locator) -> Step:
        """Turn one entry into submissions (the referee's open point is the entry's)."""
        raise NotImplementedError

    def follow(self, rules: Any, ref: Referee) -> bool:
        """True when the point just opened needs nobody's choice and is played at once with
        the pending seats' default orders (DADOED's ending point). Default: ``False``."""
        return False

    def check(self, rules: Any, ref: Referee, entry: Any, path: tuple[Any, ...], played: Played,
              start: Start, loc: Locator, where: str) -> list[str]:
        """Compare the entry's expectations with the position now (``ref.state``) and what
        happened (``played``); returns failure lines (the kernel prefixes nothing)."""
        return []

    def finish(self, rules: Any, ref: Referee, case: Case, start: Start, loc: Locator) -> list[str]:
        """Expectations of the whole case after its last entry (a top-level ``expect``);
        returns failure lines. Not called when the case stopped early. Default: none."""
        return []


def _refusal_lines(sub: Submission, where: str, exc: InvalidOrders | None) -> tuple[list[str], bool]:
    """Failure lines for one submission's refusal against its expectation, and whether it was
    a surprise (refused though it should be accepted, or accepted though it should be refused)."""
    label = sub.label or f"orders of {sub.seat}"
    want = sub.refusal
    if want is UNCHECKED:
        return [], False
    if exc is None:
        if want is None:
            return [], False
        return [f"{where}: {label} accepted, expected a refusal containing {want!r}"], True
    if want is None:
        return [f"{where}: {label} refused: {exc.message}"], True
    if str(want) not in exc.message and str(want) != exc.code:
        return [f"{where}: {label}: expected a refusal containing {want!r}, got {exc.message!r} ({exc.code})"], False
    return [], False


def _play(fmt: ScenarioFormat, rules: Any, ref: Referee, step: Step, where: str) -> tuple[Played, list[str], bool]:
    """Play one entry's submissions through ``ref``; returns what happened, failure lines and
    whether the scenario stops here."""
    played = Played(before=ref.state)
    out: list[str] = []
    stop = False
    for sub in step.submissions:
        if sub.failure is not None:
            driver.fail(ref, sub.seat, {"code": sub.failure, "detail": "scenario"}, 0.0)
            played.failed[sub.seat] = sub.failure
            continue
        if sub.parsed is not None:
            ref.settle_parsed(sub.seat, sub.parsed)
            continue
        check_state = sub.refusal is not None and sub.refusal is not UNCHECKED
        before = rules.state_json(ref.state) if check_state else None
        tk = ref.submit(sub.seat, sub.payload, 0.0)
        exc = tk.error if tk.receipt == Receipt.REFUSED else None
        if exc is not None:
            played.refused[sub.seat] = exc
            if check_state and rules.state_json(ref.state) != before:
                out.append(f"{where}: a refused order changed the state")
            if sub.on_refusal == "default" and ref.settled(sub.seat) is None and sub.seat in ref.awaited():
                driver.fail(ref, sub.seat, {"code": exc.code, "detail": exc.message}, 0.0)
        else:
            played.refused.pop(sub.seat, None)
            played.warnings[sub.seat] = list(tk.warnings)
        lines, surprise = _refusal_lines(sub, where, exc)
        out += lines
        if surprise and fmt.stop_on_surprise:
            stop = True
    if stop:
        return played, out, True
    if step.resolve and not ref.over:
        if step.fill_defaults:
            for seat in ref.awaited():
                driver.fail(ref, seat, {"code": "default", "detail": "no orders given"}, 0.0)
        if ref.ready():
            played.settled = {s: ref.settled(s) for s in ref.pending()}
            played.events = list(driver.close_point(ref))
            played.resolved = True
            while not ref.over and fmt.follow(rules, ref):
                for seat in ref.awaited():
                    driver.fail(ref, seat, {"code": "default", "detail": "no orders given"}, 0.0)
                played.events += list(driver.close_point(ref))
    return played, out, False


def run_scenario(fmt: ScenarioFormat, rules: Any, doc: dict[str, Any], source: str) -> list[str]:
    """Run one scenario document of the format ``fmt`` with the game's rule set ``rules``:
    validate its shape, build the starting position, play every entry's decision point through
    one :class:`~botwars.engine.referee.Referee`, check the expected refusals, ask the game to
    check the rest. (:meth:`botwars.engine.plugin.Game.run_scenario` calls it, through
    :meth:`ScenarioFormat.run`.)

    Returns failure lines (``[]``: pass). Raises :class:`ConfigError` naming FILE:LINE:COLUMN
    when the document is malformed (an error a hook raises without a place gets the place of
    the entry, or key, it concerns)."""
    loc = Locator(source)
    if not isinstance(doc, dict):
        raise loc.error("a scenario must be a YAML mapping")
    fmt.check_shape(doc, source)
    try:
        special = fmt.special(rules, doc, loc)
    except ConfigError as exc:
        raise loc.placed(exc) from None
    if special is not None:
        return special
    failures: list[str] = []
    for case in fmt.cases(doc, loc):
        out = _run_case(fmt, rules, case, loc)
        failures += out if case.name is None else [f"[{case.name}] {line}" for line in out]
    return failures


def _run_case(fmt: ScenarioFormat, rules: Any, case: Case, loc: Locator) -> list[str]:
    try:
        start = fmt.start(rules, case, loc)
    except ConfigError as exc:
        raise loc.placed(exc) from None
    ref = Referee(rules, start.config, start.seats, start.seed, clock=False, state=start.state, history=False)
    failures: list[str] = []
    for path, entry in fmt.entries(case, loc):
        try:
            step = fmt.step(rules, ref, entry, path, start, loc)
            failures += step.failures
            if step.stop:
                break
            where = step.where
            try:
                played, lines, stop = _play(fmt, rules, ref, step, where)
            except NotAwaited as exc:
                raise loc.error(f"{where}: {exc}", *path) from None
            failures += lines
            if stop:
                break
            failures += fmt.check(rules, ref, entry, path, played, start, loc, where)
        except ConfigError as exc:
            raise loc.placed(exc, *path) from None
    else:
        try:
            failures += fmt.finish(rules, ref, case, start, loc)
        except ConfigError as exc:
            raise loc.placed(exc) from None
    return failures


def run_file(path: str) -> list[str]:
    """Run one scenario; returns failure messages (empty list = pass). Bad files fail too."""
    try:
        return check_file(path)
    except ConfigError as exc:
        return [exc.one_line()]
    except BotwarsError as exc:
        return [f"{path}: {exc}"]


def play_position(fmt: ScenarioFormat, rules: Any, doc: dict[str, Any], source: str,
                  play: bool = True) -> tuple[Any, list[Any]]:
    """The position a scenario document describes, after its entries are played (``play``;
    ``False``: the starting position, the entries neither read nor required): ``(state,
    events)`` with ``events`` those of the last decision point resolved (``[]`` when no entry
    resolved one). Used for pictures (the How-to-play pages draw such positions with the
    game's own drawing); expectations are not checked and refusals are ignored.

    Only the document's first case is played. Raises :class:`ConfigError` (naming ``source``)
    for a malformed document or a format without positions (a ``special`` one, e.g. a factory
    ``play`` document without ``turns``: give it ``turns: []``)."""
    loc = Locator(source)
    if not isinstance(doc, dict):
        raise loc.error("a scenario must be a YAML mapping")
    fmt.check_shape(doc, source)
    cases = fmt.cases(doc, loc)
    if not cases:
        raise loc.error("the scenario has no case to draw")
    case = cases[0]
    try:
        start = fmt.start(rules, case, loc)
    except ConfigError as exc:
        raise loc.placed(exc) from None
    ref = Referee(rules, start.config, start.seats, start.seed, clock=False, state=start.state, history=False)
    events: list[Any] = []
    for path, entry in fmt.entries(case, loc) if play else []:
        try:
            step = fmt.step(rules, ref, entry, path, start, loc)
            if step.stop:
                break
            played, _, stop = _play(fmt, rules, ref, step, step.where)
        except ConfigError as exc:
            raise loc.placed(exc, *path) from None
        except NotAwaited as exc:
            raise loc.error(f"{exc}", *path) from None
        if played.resolved:
            events = played.events
        if stop or ref.over:
            break
    return ref.state, events
