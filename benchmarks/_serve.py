"""Shared by the server benchmarks (not a benchmark): waiting for a ``botwars serve`` to answer."""

from __future__ import annotations

import time

import httpx


def wait_until_up(url: str, tries: int = 600) -> bool:
    """Poll ``GET url/api/games`` until it answers 200 (about 0.1 s between tries); returns
    whether it did within ``tries`` tries."""
    for _ in range(tries):
        try:
            if httpx.get(url + "/api/games", timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            time.sleep(0.1)
    return False
