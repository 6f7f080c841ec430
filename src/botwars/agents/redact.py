"""Messages about a bot without the host's paths in them (issue 25, item 8).

A bot's crash line is the last line it wrote to stderr, or its exception's message; either can
name files of the machine that ran it: the server's virtual environment, its Python, its data
folder (``File "/srv/botwars/.venv/lib/python3.11/site-packages/...``, ``SyntaxError: invalid
syntax (/srv/data/league/bots/b1/v1/bot.py, line 3)``). :func:`hide_paths` rewrites such a line
before anyone else sees it: the bot's own files are named relative to its own file's folder,
every other absolute path by ``…/`` and its last part.
"""

from __future__ import annotations

import os
import re

__all__ = ["hide_paths"]

# an absolute POSIX path: "/" then at least one more part; not the "/" of "a/b", "1/2" or "://"
_ABS_PATH = re.compile(r"(?<![\w.:/~-])/(?:[^\s/'\"(),:;<>\[\]{}]+/)*[^\s/'\"(),:;<>\[\]{}]+")


def hide_paths(text: str, own_file: str | None = None) -> str:
    """``text`` with no absolute path of this machine in it.

    A path inside the folder of ``own_file`` (the bot's program) becomes relative to that folder
    (``bot.py``, ``lib/util.py``); any other absolute path (the server's Python, its virtual
    environment, its data folder) becomes ``…/`` and its last part (``…/pyhost.py``). Text
    without a path comes back unchanged."""
    if own_file:
        own = os.path.dirname(os.path.abspath(own_file))
        if own != os.sep:
            text = text.replace(own + os.sep, "")
    return _ABS_PATH.sub(lambda m: "…/" + m.group(0).rsplit("/", 1)[-1], text)
