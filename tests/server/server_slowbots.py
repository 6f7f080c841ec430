"""Built-in bots for the bot-pool tests (issue 12): importable by the pool's worker processes.

``servertoy-bots`` is the server toy game (:mod:`server_toygame`) with three built-in bots:
``one`` (always adds 1), ``sleepy`` (never answers in time) and ``env`` (crashes, telling in
its error which environment variables it can see).
"""

from __future__ import annotations

import os
import time

from server_toygame import OneBot, ToyRuleset


class SleepyBot:
    """Sleeps for an hour on every decision: only being stopped ends its turn."""

    def act(self, view):
        time.sleep(3600)
        return {"add": 3}


class EnvBot:
    """Fails every decision with the names of the environment variables it can see."""

    def act(self, view):
        raise RuntimeError(f"env={sorted(os.environ)}")


class BotsToy(ToyRuleset):
    id = "servertoy-bots"

    def builtin_bots(self):
        return {"one": OneBot, "sleepy": SleepyBot, "env": EnvBot}
