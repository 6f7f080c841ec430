"""Scenario files: YAML documents that pin down a ruling (``botwars scenario run``).

Every scenario has a ``game`` key; the rest of its format belongs to that game (the
``scenario`` hook its plug-in declares, docs/plugins.md); the README documents each format.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from botwars.engine.errors import BotwarsError, ConfigError
from botwars.engine.plugin import get_game


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
    """Read one scenario file; raises :class:`ConfigError` naming the file and line."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", source=path) from None
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", source=path) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"YAML error: {problem}", source=path,
                          line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None) from None
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


def run_file(path: str) -> list[str]:
    """Run one scenario; returns failure messages (empty list = pass). Bad files fail too."""
    try:
        return check_file(path)
    except ConfigError as exc:
        return [exc.one_line()]
    except BotwarsError as exc:
        return [f"{path}: {exc}"]
