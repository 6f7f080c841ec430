"""A Python bot that marks a standard-library module it imports (which a kept host's template
imports beforehand, issue 15 item 5) and reports in its user data (arena P7) whether a mark
of an earlier match was still there when it started, and whether ``fractions`` (which Python's
start-up and the host never import themselves) was already loaded before its own import."""
import sys

PRELOADED = "fractions" in sys.modules
import collections.abc  # noqa: E402
import fractions  # noqa: E402,F401

EARLIER = getattr(collections, "botwars_mark", None)
collections.botwars_mark = "set by a bot"


class Bot:
    def act(self, view):
        return {"orders": [], "user_data": f"earlier={EARLIER} preloaded={PRELOADED}"}
