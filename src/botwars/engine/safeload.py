"""One safe way to read YAML, JSON and text that came from strangers (issue 25).

Scenario files, records (replays), pools, maps, boards and room sets travel: they are shared,
uploaded, sent over HTTP in a match's ``config``. Everything that reads such data goes through
this module, which bounds what the data can cost before any of it is built:

* **size**: at most :attr:`Limits.max_bytes` bytes (a file is read no further);
* **YAML aliases cost what they stand for** (``*name`` repeats the value anchored ``&name``):
  the document may hold at most :attr:`Limits.max_nodes` values with every alias counted as
  the whole value it repeats, so a "billion laughs" document of a few hundred bytes is refused
  at the alias that crosses the bound, before anything is built;
* **nesting depth**: at most :attr:`Limits.max_depth` levels of lists and mappings;
* **integer digits**: at most :attr:`Limits.max_int_digits` digits (a 5,000-digit integer is
  refused, not a ``ValueError`` traceback); in YAML also a run of more than
  :attr:`Limits.max_text_digits` digits inside a text, which the games' notations would turn into
  an integer (``r99...9c1``).

PyYAML does the parsing (its C parser ``yaml.CSafeLoader`` when built with libyaml, else the
pure-Python ``yaml.SafeLoader``): the document's event stream is checked first, in one pass
that builds nothing, then the same text is loaded. JSON is decoded by the standard library and
then walked without recursion. Every refusal is a :class:`~botwars.engine.errors.ConfigError`
naming the source, and the line and column where known; a quoted value is cut to
:data:`QUOTE_CHARS` characters (:func:`quote`).
"""

from __future__ import annotations

import json
import os
import re
import reprlib
from dataclasses import dataclass
from typing import Any

import yaml

from botwars.engine.errors import ConfigError

__all__ = ["DEFAULT_LIMITS", "Limits", "QUOTE_CHARS", "check_digits", "check_tree", "compose_yaml", "cut", "load_json", "load_yaml",
           "quote", "read_text"]

QUOTE_CHARS = 200
"""The most characters of an offending value an error message quotes."""

_INT_TAG = "tag:yaml.org,2002:int"
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's C parser where built


@dataclass(frozen=True)
class Limits:
    """What one document from a stranger may cost: ``max_bytes`` (bytes of UTF-8 text),
    ``max_depth`` (levels of nested lists and mappings; a scalar alone is depth 0) and
    ``max_int_digits`` (decimal digits of one integer, sign and ``_`` not counted) and, in YAML,
    ``max_text_digits`` (the longest run of digits inside a text: the games' notations turn such
    runs into integers, and Python refuses to convert more than 4,300 digits with a
    ``ValueError``)."""

    max_bytes: int = 1 << 20
    max_depth: int = 64
    max_int_digits: int = 100
    max_text_digits: int = 1000
    max_nodes: int = 100_000


DEFAULT_LIMITS = Limits()
"""1 MiB, 100,000 values, 64 levels, 100 digits (1,000 in a run inside a text): far above every
shipped scenario, pool, map and board."""


_QUOTER = reprlib.Repr()
_QUOTER.maxstring = QUOTE_CHARS
_QUOTER.maxother = QUOTE_CHARS
_QUOTER.maxlong = 60
_QUOTER.maxlist = _QUOTER.maxtuple = _QUOTER.maxset = _QUOTER.maxdict = 12
_QUOTER.maxlevel = 4


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` cut to at most ``limit`` characters (a cut one ends with ``...``).

    Bounded work whatever ``value`` is: nested containers are abbreviated while they are
    written (:mod:`reprlib`), never written whole first, so even a value built from a shared
    structure (a list holding itself a billion times over) quotes in microseconds."""
    return cut(_QUOTER.repr(value), limit)


def cut(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` (already written out, e.g. a list of names) cut to at most ``limit`` characters
    (a cut one ends with ``...``)."""
    return text if len(text) <= limit else text[:max(0, limit - 3)] + "..."


def read_text(path: str, limits: Limits = DEFAULT_LIMITS, what: str = "file") -> str:
    """The UTF-8 text of the file at ``path``, read no further than ``limits.max_bytes`` bytes.

    Raises :class:`ConfigError` with ``source=path`` for a folder, an unreadable file, a file
    over the limit (``/dev/zero`` included: it is refused after ``max_bytes + 1`` bytes) or one
    that is not UTF-8. ``what`` names the kind of file in the messages (``"record"``). The
    message never quotes the file's content."""
    if os.path.isdir(path):
        raise ConfigError(f"is a folder, not a {what}", source=path)
    try:
        with open(path, "rb") as f:
            data = f.read(limits.max_bytes + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or type(exc).__name__}", source=path) from None
    if len(data) > limits.max_bytes:
        raise ConfigError(f"the {what} is over the limit of {limits.max_bytes} bytes", source=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"the {what} is not UTF-8 text", source=path) from None


_DIGITS = re.compile(r"\d+")
# the YAML 1.1 integer forms, written so that matching takes one pass (PyYAML's own resolver
# pattern backtracks: 74 ms for 100,000 digits, quadratic beyond)
_INT_LIKE = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|(?=[_:]*[0-9])[0-9_:]+)")


def _long_digit_run(text: str, most: int) -> re.Match[str] | None:
    """The first run of more than ``most`` digits in ``text``, or ``None`` (one pass)."""
    for m in _DIGITS.finditer(text):
        if m.end() - m.start() > most:
            return m
    return None


def check_digits(text: str, source: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise :class:`ConfigError` at the line and column of the first run of more than
    ``limits.max_int_digits`` digits in ``text`` (a board or map text, whose parser turns digit
    runs into integers: ``rows: 99...9``, ``r99...9c1``)."""
    m = _long_digit_run(text, limits.max_int_digits)
    if m is not None:
        start = m.start()
        raise ConfigError(f"a number of more than {limits.max_int_digits} digits", source=source,
                          line=text.count("\n", 0, start) + 1, column=start - text.rfind("\n", 0, start))


def _check_size(text: str | bytes, source: str, limits: Limits) -> None:
    # a str of n characters is at least n bytes of UTF-8; count bytes only when it could matter
    size = len(text)
    if isinstance(text, str) and size <= limits.max_bytes < 4 * size:
        size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise ConfigError(f"over the limit of {limits.max_bytes} bytes", source=source)


def _yaml_error(exc: yaml.YAMLError, source: str) -> ConfigError:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return ConfigError(f"YAML error: {problem}", source=source,
                       line=mark.line + 1 if mark is not None else None,
                       column=mark.column + 1 if mark is not None else None)


def _place(event: Any) -> dict[str, int | None]:
    mark = getattr(event, "start_mark", None)
    return {"line": mark.line + 1 if mark is not None else None,
            "column": mark.column + 1 if mark is not None else None}


def _scan_yaml(text: str, source: str, limits: Limits) -> None:
    """Walk the event stream of ``text`` (nothing is built) and raise :class:`ConfigError` at
    the first point where the document, with every alias counted as the whole value it stands
    for, holds more than ``limits.max_nodes`` values or nests deeper than ``limits.max_depth``,
    at an integer of more than ``limits.max_int_digits`` digits or a run of more than
    ``limits.max_text_digits`` digits in a text. An alias costs what its anchor's value costs,
    so a "billion laughs" is refused at the alias that crosses the bound, after a few thousand
    events, and nothing is ever expanded."""
    loader = _SafeLoader(text)
    open_: list[list[Any]] = []  # per open collection: [anchor, values inside (itself included), height below]
    anchored: dict[str, tuple[int, int]] = {}  # anchor → (values, height) of its node
    total = 0

    def add(ev: Any, weight: int, height: int) -> None:
        nonlocal total
        total += weight
        if total > limits.max_nodes:
            raise ConfigError(f"more than {limits.max_nodes} values once its aliases (*name) are expanded",
                              source=source, **_place(ev))
        if len(open_) + height > limits.max_depth:
            raise ConfigError(f"nested more than {limits.max_depth} levels deep", source=source, **_place(ev))
        if open_:
            open_[-1][1] += weight
            open_[-1][2] = max(open_[-1][2], height)

    try:
        while loader.check_event():
            ev = loader.get_event()
            if isinstance(ev, yaml.AliasEvent):
                if ev.anchor not in anchored:
                    raise ConfigError(f"alias *{cut(str(ev.anchor), 40)} before the end of the value anchored "
                                      "with its name (or no such anchor)", source=source, **_place(ev))
                add(ev, *anchored[ev.anchor])
            elif isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if len(open_) + 1 > limits.max_depth:
                    raise ConfigError(f"nested more than {limits.max_depth} levels deep", source=source, **_place(ev))
                total += 1
                open_.append([ev.anchor, 1, 0])
            elif isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, weight, below = open_.pop()
                if anchor is not None:
                    anchored[anchor] = (weight, below + 1)
                total -= weight  # counted as it was read; added again, whole, to its parent
                add(ev, weight, below + 1)
            elif isinstance(ev, yaml.ScalarEvent):
                if ev.anchor is not None:
                    anchored[ev.anchor] = (1, 0)
                add(ev, 1, 0)
                if len(ev.value) > limits.max_int_digits:
                    plain = ev.implicit[0] and ev.tag in (None, "!")
                    if (plain or ev.tag == _INT_TAG) and _INT_LIKE.fullmatch(ev.value):
                        raise ConfigError(f"an integer of more than {limits.max_int_digits} digits",
                                          source=source, **_place(ev))
                    # a number inside text ("r99...9c1", "FWD1 99...9") meets int() in the games' notations
                    if len(ev.value) > limits.max_text_digits and _long_digit_run(ev.value, limits.max_text_digits):
                        raise ConfigError(f"a run of more than {limits.max_text_digits} digits in a text",
                                          source=source, **_place(ev))
    except yaml.YAMLError as exc:
        if "nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own bound (1000), met first
            mark = getattr(exc, "problem_mark", None)
            raise ConfigError(f"nested more than {limits.max_depth} levels deep", source=source,
                              line=mark.line + 1 if mark is not None else None,
                              column=mark.column + 1 if mark is not None else None) from None
        raise _yaml_error(exc, source) from None
    finally:
        loader.dispose()


def load_yaml(text: str, source: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The value of the single YAML document ``text`` (JSON is YAML), read safely: PyYAML's
    safe constructors only, and the bounds of ``limits`` (size, values with aliases expanded,
    depth, digits). An empty document is ``None``.

    Raises :class:`ConfigError` with ``source`` and, where known, the line and column."""
    _check_size(text, source, limits)
    _scan_yaml(text, source, limits)
    try:
        return yaml.load(text, Loader=_SafeLoader)  # noqa: S506 - a safe loader, checked above
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, source) from None
    except ValueError as exc:  # a constructor's own complaint (a bad date, a bad base64 blob)
        raise ConfigError(f"YAML error: {str(exc)[:QUOTE_CHARS]}", source=source) from None


def compose_yaml(text: str, source: str, limits: Limits = DEFAULT_LIMITS) -> yaml.Node | None:
    """The node tree of the single YAML document ``text`` (for line and column look-ups), with
    the checks of :func:`load_yaml`; ``None`` for an empty document. Raises :class:`ConfigError`."""
    _check_size(text, source, limits)
    _scan_yaml(text, source, limits)
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=_SafeLoader)
        return node
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, source) from None


def check_tree(value: Any, source: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise :class:`ConfigError` if the JSON-like ``value`` (dicts, lists, scalars) nests deeper
    than ``limits.max_depth`` or holds an integer of more than ``limits.max_int_digits`` digits.
    Iterative: any depth is walked without recursion, each container once."""
    bound = 10 ** limits.max_int_digits
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth >= limits.max_depth:
                raise ConfigError(f"nested more than {limits.max_depth} levels deep", source=source)
            items = v.values() if isinstance(v, dict) else v
            stack.extend((x, depth + 1) for x in items if isinstance(x, (dict, list, int)))
        elif isinstance(v, int) and not isinstance(v, bool) and not -bound < v < bound:
            raise ConfigError(f"an integer of more than {limits.max_int_digits} digits", source=source)


def load_json(text: str | bytes, source: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The value of the JSON text ``text``, read safely (the standard library's decoder, then
    :func:`check_tree`).

    Raises :class:`ConfigError` naming ``source`` and, for a syntax error, the line and column."""
    _check_size(text, source, limits)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not JSON: {exc.msg}", source=source, line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise ConfigError(f"nested more than {limits.max_depth} levels deep", source=source) from None
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", source=source) from None
    except ValueError as exc:  # the interpreter's own bound on integer digits (int_max_str_digits)
        if "digits" in str(exc):
            raise ConfigError(f"an integer of more than {limits.max_int_digits} digits", source=source) from None
        raise ConfigError(f"not JSON: {str(exc)[:QUOTE_CHARS]}", source=source) from None
    check_tree(value, source, limits)
    return value

