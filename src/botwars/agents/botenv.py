"""What a bot program or host reads from its environment, kept in a module of its own that
imports nothing of botwars (a sandboxed host imports it at every start)."""

from __future__ import annotations

import json
import os
from typing import Any


def read_config_from_env() -> dict[str, Any]:
    """For bot programs and hosts: the match configuration the engine passed (``{}`` if none):
    ``BOTWARS_CONFIG`` (JSON text) or the file named by ``BOTWARS_CONFIG_FILE``.
    Raises ``ValueError`` when the text is not JSON, ``OSError`` when the file cannot be read."""
    raw = os.environ.get("BOTWARS_CONFIG")
    if raw is None and os.environ.get("BOTWARS_CONFIG_FILE"):
        with open(os.environ["BOTWARS_CONFIG_FILE"], encoding="utf-8") as f:
            raw = f.read()
    return json.loads(raw) if raw else {}
