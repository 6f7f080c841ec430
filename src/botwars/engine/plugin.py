"""Games as declared plug-ins: what a game offers the platform, and the registry that finds them.

A game package exports one :class:`Game` (by convention ``GAME`` in its ``__init__``) and
names it in the entry-point group ``botwars.games`` of its distribution::

    [project.entry-points."botwars.games"]
    arena = "botwars.games.arena:GAME"

so a game in another installed distribution plugs in exactly like the five shipped ones. The
command line, the server, the web pages and the record tools use a game only through this
object: they never name a game id, and never probe a rule set for optional methods — what a
game can do is declared here (its :class:`Capabilities` and hooks), in the manner of
OpenSpiel's ``GameType`` plus ``register_game``.

**References.** Every hook is a *reference*: a ``"module:qualname"`` string, imported on first
use (so ``botwars games`` lists every game without importing any rules), or the object
itself. Hooks that work on a game are called with the game's rule set instance first, so a
method of the rule set class (``"pkg.rules:MyRuleset.svg"``) is a valid hook as it stands.

**The registry.** :func:`get_game` and :func:`game_ids` see the games of the entry-point
group plus those added with :func:`register_game` (tests; a registered game replaces an
installed one of the same id until :func:`unregister_game`). An entry point that fails to load
does not hide the other games: asking for that id raises :class:`RulesetError` naming the
failure.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import math
import threading
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Mapping

from botwars.engine.agent import Agent, AgentTools
from botwars.engine.errors import BotwarsError, ConfigError, RulesetError

log = logging.getLogger("botwars.plugins")

ENTRY_POINT_GROUP = "botwars.games"
"""The entry-point group in which distributions declare their games (name = game id)."""

Ref = Any
"""A hook reference: a ``"module:qualname"`` string resolved on first use, or the object."""


def resolve(ref: Ref) -> Any:
    """The object a reference names: ``"pkg.mod:Class.attr"`` is imported, anything else is
    returned as it is. Raises :class:`RulesetError` naming the reference when it cannot be
    imported or has no such attribute."""
    if not isinstance(ref, str):
        return ref
    mod, sep, qual = ref.partition(":")
    if not sep or not mod or not qual:
        raise RulesetError(f"bad plug-in reference {ref!r} (expected 'module:name')")
    try:
        obj: Any = importlib.import_module(mod)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise RulesetError(f"plug-in reference {ref!r} cannot be loaded: {type(exc).__name__}: {exc}") from None
    return obj


def _option_value(key: str, text: str, default: int | float | bool, source: str) -> int | float | bool:
    """``text`` parsed to the type of ``default`` (see :meth:`Game.make_builtin`); raises
    :class:`ConfigError` naming ``key`` when it does not parse."""
    t = text.strip()
    if isinstance(default, bool):
        if t.lower() in ("true", "false"):
            return t.lower() == "true"
        raise ConfigError(f"option {key!r} must be true or false, not {text!r}", source=source)
    if isinstance(default, int):
        try:
            return int(t, 10)
        except ValueError:
            raise ConfigError(f"option {key!r} must be a whole number, not {text!r}", source=source) from None
    try:
        val = float(t)
    except ValueError:
        val = math.nan
    if not math.isfinite(val):
        raise ConfigError(f"option {key!r} must be a finite number, not {text!r}", source=source)
    return val


class Turns(str, Enum):
    """How seats take their decisions (OpenSpiel's *dynamics*)."""

    SIMULTANEOUS = "simultaneous"
    """Every decision point awaits every seat still playing; no seat sees the others' orders."""
    ALTERNATING = "alternating"
    """Every decision point awaits exactly one seat."""
    MIXED = "mixed"
    """Some decision points await several seats at once (e.g. a simultaneous setup), others one."""


@dataclass(frozen=True)
class Capabilities:
    """What a game declares about itself, so that nothing has to detect it.

    - ``turns``: :class:`Turns`.
    - ``hidden_information``: some seat may not see everything (hands, fog of war, secret
      setups). Agents of such a game are never given the match seed (they get a one-way
      derivation), and the conformance suite perturbs the hidden facts of other seats.
    - ``finite_legal_orders``: :meth:`Ruleset.legal_orders` enumerates every legal payload at
      the decision points where that set is finite (``None`` at the others); ``False``: it
      always returns ``None``.
    - ``replace_until_resolved``: a later valid submission replaces an earlier one until the
      decision point resolves (factory F-5.5, F-15.1; geeko G-16.1); ``False``: the first
      accepted submission stands.
    - ``counts_refusals``: a refused submission is recorded and counts against the seat, which
      is asked again (submarine S-4.3, S-7.10: :meth:`Ruleset.rejected_orders` returns the
      rule set's marker); ``False``: a refusal changes nothing.
    - ``text_orders``: orders may also be given in the game's text notation, not only as JSON.
    """

    turns: Turns
    hidden_information: bool
    finite_legal_orders: bool = False
    replace_until_resolved: bool = False
    counts_refusals: bool = False
    text_orders: bool = False

    def to_json(self) -> dict[str, Any]:
        """The flags as a JSON object (``turns`` as its string value)."""
        return {"turns": self.turns.value, "hidden_information": self.hidden_information,
                "finite_legal_orders": self.finite_legal_orders,
                "replace_until_resolved": self.replace_until_resolved,
                "counts_refusals": self.counts_refusals, "text_orders": self.text_orders}


@dataclass(frozen=True)
class AgentKind:
    """An agent kind a game adds to the platform's (``builtin:``, ``cmd:``, ``*.py``).

    The spec ``PREFIX:ARGUMENT`` makes the agent ``make(argument, spec, tools)`` where
    ``tools`` is the platform's :class:`~botwars.engine.agent.AgentTools` (sandboxed
    processes). ``make`` raises ``ConfigError`` naming the spec for an unusable argument.

    ``implies``: parameter overrides, as ``(name, value)`` pairs, that a match or tournament
    gets when every seat is an agent of this kind and the user set none of those parameters
    (e.g. the arena's ``rgkit:`` bots play ``rules=robotgame``); ``implies_note`` says so in one
    line for the command line.
    """

    prefix: str
    make: Ref
    doc: str = ""
    implies: tuple[tuple[str, Any], ...] = ()
    implies_note: str = ""

    def build(self, argument: str, spec: str, tools: AgentTools) -> Agent:
        """The agent for ``spec`` (whose text after ``PREFIX:`` is ``argument``)."""
        agent: Agent = resolve(self.make)(argument, spec, tools)
        return agent


@dataclass(frozen=True)
class BoardFormat:
    """A game's board (map, room) file format, checked by ``botwars board check``.

    ``check(rules, text, source, entry)`` returns the problems, one line each (``[]``: valid);
    ``entry`` asks for the game's entry-board acceptance test, which exists only when
    ``entry_test`` is true (geeko G-11). ``suffixes`` are the usual file name endings.
    """

    check: Ref
    doc: str = ""
    suffixes: tuple[str, ...] = ()
    entry_test: bool = False
    editor: Ref | None = None


@dataclass(frozen=True)
class BatchEngine:
    """A batched engine a game declares (issue 26 item 2): many matches of one configuration
    stepped together as whole arrays (the arena's NumPy and JAX engines), for learning
    environments and benchmarks. The platform never probes for one; it reads this declaration.

    - ``name``: the backend's name (``"numpy"``, ``"jax"``), unique within the game;
    - ``engine``: ``engine(config, n)`` builds ``n`` matches from a validated ``config`` (a class
      is a valid hook as it stands); what the engine offers is the game's own affair (its
      docstring), and a test of the game plays it against the referee board for board;
    - ``vector``: ``vector(spec, engine)`` wraps that engine for
      :class:`botwars.rl.vector.BatchVectorEnv` (``spec``: the game's :meth:`Game.rl_spec`): an
      object with ``reset(which)``, ``observe(player)``, ``random_actions(rng, player)``,
      ``legal(actions, player)``, ``step(actions, live)``, ``over``, ``rewards(player)``
      (docs/rl.md); ``None``: this backend serves no vector environment;
    - ``extra``: the optional distribution extra it needs (``"jax"``), or ``None``;
    - ``doc``: one line for listings;
    - ``env``: ``env(spec, config, opponent=..., autoreset_mode=...)`` builds the whole learning
      environment as pure functions (``reset(key)`` / ``step(state, action)`` of one match, for
      ``jax.jit``/``jax.vmap``; issue 29 item 2) that :class:`botwars.rl.vector_jax.JaxVectorEnv`
      puts the Gymnasium vector API on; ``None``: this backend offers none.
    """

    name: str
    engine: Ref
    vector: Ref | None = None
    extra: str | None = None
    doc: str = ""
    env: Ref | None = None


class BoardEditor:
    """The hooks of a game's board editor page (issue 14, ``/editor/GAME``), declared as
    ``BoardFormat(editor=...)`` (an instance, or a class instantiated once). The page knows no
    game: it draws the palette the game describes and shows what the game's checker says.

    - ``spec(rules) -> dict``: ``{"modes": [mode, ...], "tools": [tool, ...]}``. A mode is
      ``{"id", "label", "rows": [min, max], "cols": [min, max], "size": [rows, cols],
      "starts": n, "verdict": bool}`` (``verdict``: the mode has an entry test whose answer is
      ACCEPT/REJECT). A tool is ``{"id", "label", "group", "place", "template", "params",
      "modes", "doc"}``: ``place`` is ``base`` (the square's floor token), ``item`` (a side
      item; ``{side}`` in the template), ``start`` or ``erase``; ``template`` holds
      ``{name}`` fields, one per entry of ``params`` (``{"name", "label", "choices"}`` or
      ``{"name", "label", "pattern"}``); ``modes``: the modes offering it (``None``: all).
    - ``check(rules, text, mode) -> dict``: ``{"parsed", "problems", "verdict", "board",
      "svg", "play"}``: ``problems`` is ``[{"square": "rRcC" | None, "line", "column",
      "message"}]`` (``[]``: valid), ``verdict`` ``"ACCEPT"``/``"REJECT"`` or ``None``,
      ``board`` the parsed grid (``{"id", "name", "rows", "cols", "starts": [[sq, facing]],
      "cells": [[token, ...], ...]}``, north row first) or ``None`` when the text does not
      parse, ``svg`` the game's own drawing of it (or ``None``), ``play`` the match to create
      on it (``{"game", "config"}``) or ``None`` while it has problems. Never reads a file
      named by ``text``; raises :class:`ConfigError` only for an unknown ``mode``.
    """

    def spec(self, rules: Any) -> dict[str, Any]:
        """The modes and the palette (see the class)."""
        raise NotImplementedError

    def check(self, rules: Any, text: str, mode: str) -> dict[str, Any]:
        """The checker's answer for ``text`` in ``mode`` (see the class)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Game:
    """One game as the platform sees it. Declared once, in the game's package.

    - ``id``: the game id (lower case; the entry point's name); ``name``: its title;
      ``seats``: ``(minimum, maximum)`` seat counts; ``summary``: one line for listings.
      ``name`` and ``seats`` must agree with the rule set class (checked when it is loaded).
    - ``rules``: the :class:`~botwars.engine.ruleset.Ruleset` subclass (a reference: imported
      only when a match needs it).
    - ``capabilities``: :class:`Capabilities`.
    - ``bots``: the built-in bots (``builtin:NAME``): a mapping ``{name: factory}``, or
      ``bots(rules)`` returning one; each factory returns an object with ``act(view)`` and
      optionally ``start(game, seat, config, seed)``.
    - ``agent_kinds``: :class:`AgentKind` s the game adds.
    - ``board``: :class:`BoardFormat`, or ``None``.
    - ``scenario``: the game's scenario file format (``botwars scenario run``), a
      :class:`~botwars.engine.scenario.ScenarioFormat` instance (or subclass): the hooks that
      build a position, turn each entry into submissions and check the expectations; the
      kernel's runner plays the decision points. ``None``: no scenario format.
    - ``svg``: ``svg(rules, state, seat, events) -> str`` draws the board as ``seat`` may see
      it (``events``: the last decision point's, already filtered for ``seat``), or ``None``.
      A drawing may take ``names=`` (seat → display name, drawn beside the pieces); it is
      passed only when names are given.
    - ``legend``: ``legend(rules, state, seat) -> str``: an SVG legend of the elements the
      drawing of ``state`` for ``seat`` shows, each drawn by the board's own symbol with its
      meaning in words (the seat page and the published report show it), or ``None``.
    - ``report``: ``report(rules, before, after, events)`` → a Rich renderable or text
      describing one decision point (``botwars replay --report``, the replay page), or ``None``.
    - ``web_entry``: ``"package:file.js"``, the game's page kit (it sets
      ``window.botwarsGames[ID] = {...}``, docs/web.md; the older
      ``window.botwarsEntries[ID] = function (box, view, helpers, ui)`` still works), or ``None``: the page's
      JSON box alone.
    - ``page_helpers``: ``page_helpers(rules, state, seat) -> dict`` of extra facts for that
      script (merged into ``/web/matches/ID/helpers`` while the seat is to move), or ``None``.
    - ``rl``: ``rl(rules, config, seats) -> spec``, the game's encoding of views as fixed-shape
      arrays and of orders as masked discrete actions for learning environments (``botwars.rl``,
      docs/rl.md), or ``None``: the game offers none.
    - ``stages``: ``stages(rules, before, orders, events) -> list[dict] | None``: one resolved
      decision point stage by stage (issue 14: factory and geeko), from the state ``before``
      it, the record line's ``orders`` (seat → payload, ``None``: default orders) and its
      ``events``: report sections ``{"seat", "kind", "stage", "title", "header", "rows",
      "extra", "frames": [{"label", "svg"}]}`` in report order (``seat``: ``None`` for a public
      section, else the only seat that may see it); ``None`` when the point cannot be shown so.
    - ``notation``: ``notation(rules, before, seat, payload) -> str``: one seat's recorded
      orders in the game's own notation (card names, ``F1 East 3``, submarine actions) for
      move lists; ``None``: the payload's JSON.
    - ``reveal_svg``: ``reveal_svg(rules, state, events) -> str``: the board with every hidden
      fact shown, for replays of ended matches (whose full record is public); ``None``: the
      spectator's drawing is already complete.
    - ``plan``: ``plan(rules, view, payload) -> list[dict]``: the path a seat's (partial)
      program would take on the current board, other robots ignored, from the seat's own view
      (the seat page draws it before submitting; :meth:`plan_path`); ``None``: the page draws
      no such path.
    - ``how_to_play``: ``"package:file.md"``, the game's How-to-play page for newcomers
      (Markdown, served at ``/howto/ID``; :meth:`how_to_play_text`): the goal, one turn step
      by step, the pieces, a worked example. A fenced block whose info string is ``position``
      holds a scenario document of the game's own format (plus ``caption`` and ``seat``) that
      the page draws with :meth:`draw_svg` after playing its entries. ``None``: no such page
      (the platform then links no How-to-play).
    - ``rules_page``: ``"package:file.md"``, the game's binding rules as Markdown (numbered
      rules; served at ``/rules/ID``; :meth:`rules_text`), ``None``: no rules page (404).
    - ``rules_variants``: ``"package:file.md"`` sections appended to the rules page, one per
      declared rules variant (a match parameter that swaps rules, e.g. the arena's
      ``rules=robotgame``), each naming its own binding text and the rules it changes.
    - ``variant_of``: the id of the game whose modules this one may import (a declared variant:
      geeko of factory); the generated ``games-independent`` import contract allows exactly that.
    - ``docs``, ``tests``: the game's documentation pages and its test folders (scenario files
      included), as paths relative to the game's project root, the nearest folder above its
      package with a ``pyproject.toml`` (for the shipped games, the repository:
      ``("docs/factory.md",)``, ``("tests/factory", "tests/scenarios/factory")``;
      :meth:`source_paths`).
      Nothing is imported from them; the platform's own tests check that they exist and that no
      test or page of the game lies outside them (docs/plugins.md, "A game is one folder").
    - ``batch``: the game's batched engines (:class:`BatchEngine` s, the first is the default),
      ``()``: none (:meth:`batch_engine`, :meth:`make_batch`).
    """

    id: str
    name: str
    rules: Ref
    capabilities: Capabilities
    seats: tuple[int, int] = (2, 2)
    summary: str = ""
    bots: Ref | None = None
    agent_kinds: tuple[AgentKind, ...] = ()
    board: BoardFormat | None = None
    scenario: Ref | None = None
    svg: Ref | None = None
    report: Ref | None = None
    web_entry: str | None = None
    page_helpers: Ref | None = None
    rl: Ref | None = None
    stages: Ref | None = None
    notation: Ref | None = None
    reveal_svg: Ref | None = None
    plan: Ref | None = None
    legend: Ref | None = None
    how_to_play: str | None = None
    rules_page: str | None = None
    rules_variants: tuple[str, ...] = ()
    variant_of: str | None = None
    docs: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    batch: tuple[BatchEngine, ...] = ()
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_ruleset(cls, rules: Any, capabilities: Capabilities | None = None, **hooks: Any) -> "Game":
        """A game made from a rule set class alone (:func:`botwars.engine.ruleset.register`):
        id, name and seats from the class, bots from its ``builtin_bots``. Without
        ``capabilities`` it is declared :attr:`Turns.MIXED` with hidden information (the
        cautious reading: agents never get the match seed)."""
        caps = capabilities or Capabilities(turns=Turns.MIXED, hidden_information=True)
        hooks.setdefault("bots", rules.builtin_bots)
        return cls(id=rules.id, name=rules.name, rules=rules, capabilities=caps,
                   seats=(rules.min_seats, rules.max_seats), **hooks)

    # ---- the rules ------------------------------------------------------------------------
    def ruleset(self) -> Any:
        """The game's (shared, stateless) rule set instance; raises :class:`RulesetError` when
        the rules cannot be imported or disagree with this declaration (id, name, seats)."""
        inst = self._cache.get("rules")
        if inst is not None:
            return inst
        found = resolve(self.rules)
        if not isinstance(found, type):
            raise RulesetError(f"game {self.id!r}: rules {self.rules!r} is not a class")
        cls: Any = found  # a Ruleset subclass (this module does not import the ruleset module)
        problems = []
        if cls.id != self.id:
            problems.append(f"rules id {cls.id!r}")
        if cls.name != self.name:
            problems.append(f"rules name {cls.name!r} (declared {self.name!r})")
        if (cls.min_seats, cls.max_seats) != self.seats:
            problems.append(f"rules seats {cls.min_seats}-{cls.max_seats} (declared {self.seats[0]}-{self.seats[1]})")
        if problems:
            raise RulesetError(f"game {self.id!r}: its declaration disagrees with its rules: {'; '.join(problems)}")
        inst = cls()
        self._cache["rules"] = inst
        return inst

    def _hook(self, name: str, ref: Ref) -> Any:
        fn = self._cache.get(name)
        if fn is None:
            fn = self._cache[name] = resolve(ref)
        return fn

    # ---- bots and agents -------------------------------------------------------------------
    def builtin_bots(self) -> dict[str, Callable[[], Any]]:
        """Built-in bot factories by name (``{}`` when the game declares none)."""
        if self.bots is None:
            return {}
        found = self._hook("bots", self.bots)
        return dict(found if isinstance(found, Mapping) else found(self.ruleset()))

    def builtin_options(self, name: str, source: str | None = None) -> dict[str, int | float | bool]:
        """The options of built-in bot ``name`` and their defaults, e.g. ``{"simulations": 48,
        "c": 0.5}`` for a search bot: the keyword parameters of its factory whose default is a
        number or a boolean (a declared contract, docs/plugins.md). A parameter defaulting to
        ``None`` (a wall-clock budget such as ``seconds``, which would make a match depend on the
        machine's speed) is not an option. Raises :class:`ConfigError` (naming ``source``,
        default ``builtin:NAME``) for an unknown bot."""
        bots = self.builtin_bots()
        if name not in bots:
            raise ConfigError(f"unknown built-in bot {name!r} for {self.id} (known: {', '.join(sorted(bots))})",
                              source=source or f"builtin:{name}")
        try:
            params = inspect.signature(bots[name]).parameters.values()
        except (TypeError, ValueError):  # pragma: no cover - a factory without a signature
            return {}
        return {p.name: p.default for p in params
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and not p.name.startswith("_")
                and isinstance(p.default, (bool, int, float))}

    def make_builtin(self, name: str, options: Mapping[str, str] | None = None, source: str | None = None) -> Any:
        """A new built-in bot ``name`` with ``options`` (option name -> its text, as written in
        ``builtin:NAME(KEY=VALUE,...)``) parsed to the type of each option's default
        (:meth:`builtin_options`): an integer, a finite number, or ``true``/``false``.

        Raises :class:`ConfigError` (naming ``source``, default ``builtin:NAME``, and the option)
        for an unknown bot, an unknown option (listing the known ones), a value of the wrong type,
        or one the bot refuses (its factory raises ``ValueError``, e.g. ``simulations=0``)."""
        source = source or f"builtin:{name}"
        known = self.builtin_options(name, source)
        kwargs: dict[str, Any] = {}
        for key, text in (options or {}).items():
            if key not in known:
                have = ", ".join(f"{k}={v}" for k, v in known.items()) or "none"
                raise ConfigError(f"built-in bot {name!r} has no option {key!r} (options: {have})", source=source)
            kwargs[key] = _option_value(key, text, known[key], source)
        try:
            return self.builtin_bots()[name](**kwargs)
        except ValueError as exc:
            raise ConfigError(f"built-in bot {name!r}: {exc}", source=source) from None

    def agent_kind(self, prefix: str) -> AgentKind | None:
        """The agent kind this game adds under ``prefix`` (``"rgkit"``), or ``None``."""
        for kind in self.agent_kinds:
            if kind.prefix == prefix:
                return kind
        return None

    # ---- formats, drawings, reports --------------------------------------------------------
    def check_board(self, text: str, source: str, entry: bool = False) -> list[str]:
        """The problems of a board file's ``text`` (``[]``: valid), see :class:`BoardFormat`.
        Raises :class:`ConfigError` when the game has no board format, or no entry test and
        ``entry`` is asked for."""
        if self.board is None:
            raise ConfigError(f"{self.id} has no board file format", source=source)
        if entry and not self.board.entry_test:
            raise ConfigError(f"{self.id} has no entry-board acceptance test", source=source)
        out: list[str] = self._hook("board", self.board.check)(self.ruleset(), text, source, entry)
        return out

    def board_editor(self) -> Any:
        """The game's :class:`BoardEditor` (``BoardFormat.editor``), or ``None``: no editor page."""
        if self.board is None or self.board.editor is None:
            return None
        found = self._hook("editor", self.board.editor)
        if isinstance(found, type):
            found = self._cache["editor"] = found()
        return found

    def editor_spec(self) -> dict[str, Any]:
        """The board editor's modes and palette (:meth:`BoardEditor.spec`); raises
        :class:`ConfigError` when the game has no board editor."""
        ed = self.board_editor()
        if ed is None:
            raise ConfigError(f"{self.id} has no board editor")
        out: dict[str, Any] = ed.spec(self.ruleset())
        return out

    def editor_check(self, text: str, mode: str) -> dict[str, Any]:
        """The board editor's check of ``text`` in ``mode`` (:meth:`BoardEditor.check`);
        raises :class:`ConfigError` when the game has no board editor or no such mode."""
        ed = self.board_editor()
        if ed is None:
            raise ConfigError(f"{self.id} has no board editor")
        out: dict[str, Any] = ed.check(self.ruleset(), text, mode)
        return out

    def run_scenario(self, doc: dict[str, Any], source: str) -> list[str]:
        """Run one scenario document; the failures (``[]``: pass). Raises :class:`ConfigError`
        for a malformed document, or when the game has no scenario format."""
        if self.scenario is None:
            raise ConfigError(f"no scenario format for game {self.id}", source=source)
        out: list[str] = self.scenario_format().run(self.ruleset(), doc, source)
        return out

    def scenario_format(self) -> Any:
        """The game's :class:`~botwars.engine.scenario.ScenarioFormat` instance; raises
        :class:`ConfigError` when the game has none."""
        if self.scenario is None:
            raise ConfigError(f"no scenario format for game {self.id}")
        found = self._hook("scenario", self.scenario)
        return found() if isinstance(found, type) else found

    def draw_svg(self, state: Any, seat: str | None, events: list[Any],
                 names: dict[str, str] | None = None) -> str:
        """The board as an SVG document as ``seat`` may see it (``events`` already filtered
        for ``seat``; ``names``: optional display names by seat, drawn beside the pieces).
        Raises ``NotImplementedError`` when the game declares no drawing."""
        if self.svg is None:
            raise NotImplementedError(f"no SVG drawing for {self.id}")
        hook = self._hook("svg", self.svg)
        out: str = hook(self.ruleset(), state, seat, events, names=names) if names else \
            hook(self.ruleset(), state, seat, events)
        return out

    def draw_legend(self, state: Any, seat: str | None) -> str | None:
        """The legend of the drawing of ``state`` for ``seat`` as an SVG document (see
        ``legend``), ``None`` when the game declares none."""
        if self.legend is None:
            return None
        out: str = self._hook("legend", self.legend)(self.ruleset(), state, seat)
        return out

    def describe(self, before: Any, after: Any, events: list[Any]) -> Any:
        """The report of one decision point (Rich renderable or text), ``None`` when the game
        declares no report."""
        if self.report is None:
            return None
        return self._hook("report", self.report)(self.ruleset(), before, after, events)

    def turn_stages(self, before: Any, orders: dict[str, Any], events: list[Any]) -> list[dict[str, Any]] | None:
        """The decision point stage by stage (see ``stages``); ``None`` when the game declares
        no stages or this point cannot be shown so."""
        if self.stages is None:
            return None
        out: list[dict[str, Any]] | None = self._hook("stages", self.stages)(self.ruleset(), before, orders, events)
        return out

    def plan_path(self, view: dict[str, Any], payload: Any) -> list[dict[str, Any]]:
        """Where the seat's (partial) program would take its robot(s) on the current board,
        other robots ignored (issue 13: the planned path drawn before submitting), computed
        from the seat's own ``view`` only: ``[{"robot", "register", "from", "to", "facing",
        "alive"}]`` (squares in the game's notation). Raises :class:`InvalidOrders` for a
        payload it cannot read, :class:`ConfigError` when the game declares no ``plan``."""
        if self.plan is None:
            raise ConfigError(f"{self.id} draws no planned path")
        return list(self._hook("plan", self.plan)(self.ruleset(), view, payload))

    def order_notation(self, before: Any, seat: str, payload: Any) -> str:
        """One seat's recorded orders as move-list text (see ``notation``); the compact JSON of
        ``payload`` for a game without a notation, ``-`` for default orders (``None``)."""
        if payload is None:
            return "-"
        if self.notation is not None:
            try:
                return str(self._hook("notation", self.notation)(self.ruleset(), before, seat, payload))
            except (BotwarsError, ValueError, KeyError, TypeError, IndexError):  # malformed: shown as it is
                pass
        if isinstance(payload, str):
            return payload
        import json
        return json.dumps(payload, separators=(",", ":"), sort_keys=True)

    def draw_revealed(self, state: Any, events: list[Any]) -> str:
        """The board with every hidden fact shown (see ``reveal_svg``), for ended matches only;
        the spectator's drawing when the game declares none."""
        if self.reveal_svg is None:
            return self.draw_svg(state, None, [e for e in events if e.visible(None)])
        out: str = self._hook("reveal_svg", self.reveal_svg)(self.ruleset(), state, events)
        return out

    # ---- the seat page ---------------------------------------------------------------------
    def _package_text(self, key: str, ref: str) -> str:
        """The text of the package file ``ref`` (``"package:file"``) that field ``key`` declares,
        read once and cached. Raises :class:`RulesetError` when it cannot be read."""
        text = self._cache.get(key)
        if text is None:
            package, _, name = ref.partition(":")
            try:
                import importlib.resources  # here, not at the top: bot hosts import this module
                text = importlib.resources.files(package).joinpath(name).read_text(encoding="utf-8")
            except (ImportError, OSError) as exc:
                raise RulesetError(f"game {self.id!r}: {key} {ref!r} cannot be read: {exc}") from None
            self._cache[key] = text
        return str(text)

    def entry_script(self) -> str | None:
        """The text of the seat page's order-entry script, ``None`` when the game has none."""
        return None if self.web_entry is None else self._package_text("web_entry", self.web_entry)

    def how_to_play_text(self) -> str | None:
        """The Markdown of the game's How-to-play page (``how_to_play``), ``None`` when the game
        declares none. Raises :class:`RulesetError` when the declared file cannot be read."""
        return None if self.how_to_play is None else self._package_text("how_to_play", self.how_to_play)

    # ---- the game's folder (issue 26 item 4) ------------------------------------------------
    def package(self) -> str:
        """The dotted name of the Python package that holds the game (the package of its rules
        module: ``botwars.games.factory``); the module itself when it is not in a package.
        Imports nothing but the package's parents. Raises :class:`RulesetError` when the rules
        module cannot be found."""
        import importlib.util  # here, not at the top: bot hosts import this module
        mod = self.rules.partition(":")[0] if isinstance(self.rules, str) else str(self.rules.__module__)
        try:
            spec = importlib.util.find_spec(mod)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            raise RulesetError(f"game {self.id!r}: its rules module {mod!r} cannot be found")
        if spec.submodule_search_locations is not None or "." not in mod:
            return mod
        return mod.rpartition(".")[0]

    def source_paths(self) -> dict[str, list[str]]:
        """The declared ``docs`` and ``tests`` as absolute paths, resolved against the game's
        project root: the nearest folder above the game's package that holds a
        ``pyproject.toml`` (for the shipped games, the repository). ``{}`` when there is none
        (an installed wheel ships neither). Raises :class:`RulesetError` as :meth:`package`."""
        import importlib.util
        import os
        spec = importlib.util.find_spec(self.package())
        origin = spec.origin if spec is not None else None
        if not origin:
            return {}
        folder = os.path.dirname(os.path.abspath(origin))
        while not os.path.isfile(os.path.join(folder, "pyproject.toml")):
            parent = os.path.dirname(folder)
            if parent == folder:
                return {}
            folder = parent
        return {"docs": [os.path.join(folder, p) for p in self.docs],
                "tests": [os.path.join(folder, p) for p in self.tests]}

    def rules_text(self) -> str | None:
        """The Markdown of the game's binding rules (``rules_page``), ``None`` when the game
        declares none. Raises :class:`RulesetError` when the declared file cannot be read."""
        if self.rules_page is None:
            return None
        text = self._package_text("rules_page", self.rules_page)
        for i, ref in enumerate(self.rules_variants):  # the variants' sections, after the binding rules
            text += "\n" + self._package_text(f"rules_variants[{i}]", ref)
        return text

    def binding_rules_text(self) -> str | None:
        """The binding rules alone (``rules_page``, without the variants' sections), ``None``
        when the game declares none. Raises :class:`RulesetError` when it cannot be read."""
        return None if self.rules_page is None else self._package_text("rules_page", self.rules_page)

    def page_facts(self, state: Any, seat: str) -> dict[str, Any]:
        """Extra facts for the order-entry script while ``seat`` is to move (``{}`` if none)."""
        if self.page_helpers is None:
            return {}
        return dict(self._hook("page_helpers", self.page_helpers)(self.ruleset(), state, seat))

    # ---- learning environments -------------------------------------------------------------
    def rl_spec(self, config: dict[str, Any], seats: list[str]) -> Any:
        """The game's learning-environment encoding for one match set-up (``config`` already
        validated, ``seats`` in order): an object with the methods docs/rl.md lists (used by
        ``botwars.rl``). Raises :class:`ConfigError` when the game declares none."""
        if self.rl is None:
            raise ConfigError(f"{self.id} offers no learning-environment encoding")
        return self._hook("rl", self.rl)(self.ruleset(), config, seats)

    # ---- batched engines (issue 26 item 2) -------------------------------------------------
    def batch_engine(self, name: str | None = None, vector: bool = False, env: bool = False) -> BatchEngine:
        """The declared batched engine ``name`` (``None``: the first declared; with ``vector``,
        the first that serves a vector environment; with ``env``, the first that declares a
        functional environment, :attr:`BatchEngine.env`). Raises :class:`ConfigError` naming the
        game (and the backends it has) when it declares none that fits."""
        fit = [b for b in self.batch if (name is None or b.name == name) and (not vector or b.vector is not None)
               and (not env or b.env is not None)]
        if not fit:
            if env:
                have = ", ".join(b.name + ("" if b.env is not None else " (no functional environment)")
                                 for b in self.batch) or "none"
            else:
                have = ", ".join(b.name + ("" if b.vector is not None or not vector else " (no vector environment)")
                                 for b in self.batch) or "none"
            what = f"batched engine {name!r}" if name else "batched engine"
            kind = " for a vector environment" if vector else " with a functional environment" if env else ""
            raise ConfigError(f"{self.id} declares no {what}{kind} (declared: {have})")
        return fit[0]

    def functional_env(self, spec: Any, config: dict[str, Any], name: str | None = None, **kwargs: Any) -> Any:
        """The functional learning environment of the batched engine ``name`` (the first that
        declares one when ``None``): :attr:`BatchEngine.env` called with ``spec`` (the game's
        :meth:`rl_spec`), the validated ``config`` and ``kwargs``. Raises :class:`ConfigError`
        when the game declares none."""
        eng = self.batch_engine(name, env=True)
        return self._hook(f"batch-env:{eng.name}", eng.env)(spec, config, **kwargs)

    def make_batch(self, config: dict[str, Any], n: int, name: str | None = None) -> Any:
        """``n`` matches of the validated ``config`` on the batched engine ``name`` (see
        :meth:`batch_engine`; raises :class:`ConfigError` without one, :class:`RulesetError`
        naming the reference when its module cannot be imported, e.g. its optional extra is not
        installed)."""
        eng = self.batch_engine(name)
        return self._hook(f"batch:{eng.name}", eng.engine)(config, n)

    def vector_batch(self, spec: Any, config: dict[str, Any], n: int, name: str | None = None) -> Any:
        """``n`` matches on the batched engine ``name`` wrapped for a vector environment
        (:attr:`BatchEngine.vector`; ``spec``: the game's :meth:`rl_spec` for ``config``).
        Raises :class:`ConfigError` when the game declares no such engine."""
        eng = self.batch_engine(name, vector=True)
        return self._hook(f"batch-vector:{eng.name}", eng.vector)(spec, self.make_batch(config, n, eng.name))


# ---- the registry ------------------------------------------------------------------------------
_lock = threading.RLock()
_registered: dict[str, Game] = {}
_installed: dict[str, Game] | None = None
_broken: dict[str, str] = {}


def _discover() -> dict[str, Game]:
    global _installed
    with _lock:
        if _installed is not None:
            return _installed
        found: dict[str, Game] = {}
        _broken.clear()
        from importlib.metadata import entry_points  # here: slow to import, and bot hosts never scan
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
            where = f"entry point {ep.name} = {ep.value}"
            if ep.name in found:
                log.warning("%s: game %r is already provided by another distribution; ignored", where, ep.name)
                continue
            try:
                game = ep.load()
            except Exception as exc:  # a broken third-party game must not hide the others
                _broken[ep.name] = f"{where}: {type(exc).__name__}: {exc}"
                continue
            if not isinstance(game, Game):
                _broken[ep.name] = f"{where}: not a botwars.engine.plugin.Game but {type(game).__name__}"
            elif game.id != ep.name:
                _broken[ep.name] = f"{where}: the entry point's name differs from the game id {game.id!r}"
            else:
                found[ep.name] = game
        _installed = found
        return found


def refresh() -> None:
    """Forget the installed games found so far (after installing or removing a distribution
    at run time); the next lookup reads the entry points again."""
    global _installed
    with _lock:
        _installed = None


def register_game(game: Game) -> Game:
    """Add ``game`` to the registry (it replaces an installed game of the same id until
    :func:`unregister_game`). Returns ``game``."""
    if not isinstance(game, Game):
        raise TypeError(f"register_game expects a Game, got {type(game).__name__}")
    with _lock:
        _registered[game.id] = game
    return game


def unregister_game(game_id: str) -> None:
    """Remove a game added with :func:`register_game` (installed games stay)."""
    with _lock:
        _registered.pop(game_id, None)


def games() -> dict[str, Game]:
    """Every available game by id, sorted by id."""
    with _lock:
        both = {**_discover(), **_registered}
    return {k: both[k] for k in sorted(both)}


def game_ids() -> list[str]:
    """The ids of every available game, sorted."""
    return list(games())


def get_game(game_id: str) -> Game:
    """The game with this id; raises :class:`RulesetError` for an unknown id (naming the known
    ones) or a game whose entry point cannot be loaded (naming the failure)."""
    with _lock:
        game = _registered.get(game_id)
        if game is None:
            game = _discover().get(game_id)
        broken = _broken.get(game_id)
    if game is not None:
        return game
    if broken is not None:
        raise RulesetError(f"game {game_id!r} cannot be loaded: {broken}")
    raise RulesetError(f"unknown game {game_id!r} (known: {', '.join(game_ids()) or 'none'})")


def agent_prefixes() -> dict[str, list[str]]:
    """Every agent-kind prefix games add, with the ids of the games that add it."""
    out: dict[str, list[str]] = {}
    for gid, game in games().items():
        for kind in game.agent_kinds:
            out.setdefault(kind.prefix, []).append(gid)
    return out
