"""Validate a YAML document (a scenario file) against a Pydantic model, and say where it is wrong.

Every game's scenario loader checks the shape and types of its document with a Pydantic model
(strict: YAML's ``1`` is not the text ``"1"``, extra keys are refused) before it uses it, so a
wrongly typed field (``turns: [1]``) is a one-line :class:`ConfigError` naming the file, the
line and column of the offending value and its key path (``turns[0]``), never a traceback.
"""

from __future__ import annotations

import os
import re
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from botwars.engine.errors import ConfigError
from botwars.engine.safeload import compose_yaml, quote, read_text


class Strict(BaseModel):
    """Base of scenario models: strict types, unknown keys refused, names kept as in the file."""

    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=True)


def absent() -> Any:
    """The default of an optional key: left out means ``None`` to the loader, but an explicit
    ``null`` in the file is refused like any other wrong type (the loaders read ``key in doc``)."""
    return Field(default=None)


class ScenarioHeader(Strict):
    """The keys every scenario file has: ``game`` (each game's model narrows it to its own id),
    and the optional ``name``, ``rules`` (the rule numbers it pins down), ``description`` and
    ``config`` (the game's parameters)."""

    game: str
    name: str = absent()
    rules: list[str] = absent()
    description: str = absent()
    config: dict[str, Any] = absent()


def _compose(source: str) -> yaml.Node | None:
    """The node tree of the scenario file ``source`` read through :mod:`~botwars.engine.safeload`
    (the bounds of its loader), or ``None`` when it is not a readable, safe YAML file (a document
    built in memory): no position is known then."""
    if not os.path.isfile(source):
        return None
    try:
        return compose_yaml(read_text(source), source)
    except ConfigError:
        return None


def locate(source: str, path: tuple[Any, ...], at_key: bool = False) -> tuple[int | None, int | None]:
    """1-based ``(line, column)`` in the YAML file ``source`` of the node at key ``path`` (keys
    of mappings and indexes of sequences), or with ``at_key`` of the last key itself; the
    deepest existing node when the path leaves the document (a missing key points at its
    mapping).  ``(None, None)`` if ``source`` is not a readable YAML file."""
    node = _compose(source)
    if node is None:
        return None, None
    best = node.start_mark
    for n, key in enumerate(path):
        nxt = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if str(k.value) == str(key):
                    nxt = v
                    if at_key and n == len(path) - 1:
                        return k.start_mark.line + 1, k.start_mark.column + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            nxt = node.value[key]
        if nxt is None:
            break
        node = nxt
        best = node.start_mark
    return best.line + 1, best.column + 1


def _key_text(key: Any) -> str:
    """A key as written in a message: plain when it is a plain word, else quoted (``'a\\nb'``)."""
    text = str(key)
    return text if re.fullmatch(r"[\w .:+-]+", text) else repr(key)


def _path_text(path: tuple[Any, ...]) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{_key_text(key)}" if out else _key_text(key))
    return out or "the document"


def _clean_loc(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Pydantic's error location without its union-member and dict-key markers."""
    out: list[Any] = []
    for part in loc:
        if isinstance(part, str) and (part == "[key]" or "[" in part or part.startswith(("function-", "literal["))):
            continue
        out.append(part)
    return tuple(out)


def _known_keys(model: Any, path: tuple[Any, ...]) -> list[str]:
    """The field names (as written in files) of the model found at ``path`` inside ``model``;
    ``[]`` when the path does not lead to one model."""
    import typing
    cur: Any = model
    for key in path:
        if isinstance(cur, type) and issubclass(cur, BaseModel):
            field = next((f for n, f in cur.model_fields.items() if (f.alias or n) == str(key)), None)
            if field is None:
                return []
            cur = field.annotation
        else:  # dict[K, V] / list[V] / Optional[...]: step into the value type
            args = [a for a in typing.get_args(cur) if a is not type(None)]
            cur = args[-1] if args else None
        while typing.get_origin(cur) is typing.Union or type(cur).__name__ == "UnionType":
            args = [a for a in typing.get_args(cur) if a is not type(None)]
            if len(args) > 1:
                args = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            if len(args) != 1:
                return []
            cur = args[0]
    if isinstance(cur, type) and issubclass(cur, BaseModel):
        return sorted((f.alias or n) for n, f in cur.model_fields.items())
    return []


def _short(value: Any) -> str:
    return quote(value, 60)


def validate_doc(model: type[BaseModel], doc: Any, source: str) -> Any:
    """``model.model_validate(doc)``; raises :class:`ConfigError` (file, line, column, key path,
    what was expected and what was found) for the first problem.  Returns the model instance."""
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        # a value that fits no member of a union gets one error per member: report the deepest
        err = max(errors, key=lambda e: (e["loc"][:1] == errors[0]["loc"][:1], len(_clean_loc(tuple(e["loc"])))))
        path = _clean_loc(tuple(err["loc"]))
        line, column = locate(source, path, at_key=err["type"] == "extra_forbidden" or "[key]" in err["loc"])
        msg = err["msg"]
        if err["type"] == "value_error":  # a format check of ours: its own message
            msg = str(err.get("ctx", {}).get("error", msg))
        msg = re.sub(r" or instance of \w+", "", msg[0].lower() + msg[1:])
        if err["type"] == "missing":
            text = f"{_path_text(path)}: missing key"
        elif err["type"] == "extra_forbidden":
            known = _known_keys(model, path[:-1])
            text = (f"{_path_text(path[:-1]) + ': ' if path[:-1] else ''}unknown key(s) {_key_text(path[-1])}"
                    + (f" (known: {', '.join(known)})" if known else ""))
        elif err["type"] == "value_error":
            text = f"{_path_text(path)}: {msg}"
        else:
            text = f"{_path_text(path)}: {msg}, got {_short(err.get('input'))}"
        raise ConfigError(text, source=source, line=line, column=column) from None
