"""Lazy public names of a package (PEP 562), so that importing the package imports nothing
until a name is used (a sandboxed bot host imports one small module, not the whole kernel)."""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_names(package: str, where: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: the public name ``name`` is imported from
    ``package.<where[name]>`` on first use and kept in ``namespace`` (the package's
    ``globals()``). The returned function raises :class:`AttributeError` for any other name."""
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value
    return __getattr__
