"""A Python bot that marks a standard-library module it imports (which a kept host's template
imports beforehand, issue 15 item 5) and reports in its user data (arena P7) whether a mark
of an earlier match was still there when it started."""
import collections.abc

EARLIER = getattr(collections, "botwars_mark", None)
collections.botwars_mark = "set by a bot"


class Bot:
    def act(self, view):
        return {"orders": [], "user_data": f"earlier={EARLIER} loaded={'collections' in __import__('sys').modules}"}
