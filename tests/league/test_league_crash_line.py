"""An upload's crash message names no server path (issue 25, item 8): the bot's last stderr line
used to come back as written, naming the server's Python, its virtual environment and the bot's
private folder; now the bot's own files are named relative to its own file and every other
absolute path by its last part."""

from __future__ import annotations

import os
import re
import sys
import warnings

import pytest

from tests.league.test_league_server import league, upload  # noqa: F401

warnings.filterwarnings("ignore", message=".*httpx2.*")

CRASHER = ("import json, os, sys\n"
           "sys.stderr.write(f'{__file__} gave up: {os.__file__} {json.__file__} {sys.executable}\\n')\n"
           "sys.exit(3)\n")


@pytest.mark.slow
def test_an_uploads_crash_line_names_its_own_file_and_no_server_path(league):
    c, lg = league
    r = upload(c, "crasher", "jsonl-py", source=CRASHER)
    assert r.status_code == 422 and r.json()["error"] == "bot_refused", r.text
    msg = r.json()["message"]
    assert "exit status 3" in msg and "gave up" in msg
    assert re.search(r"(?<![\w/…])bot\.py gave up", msg), msg  # relative to its own file
    assert "…/os.py" in msg and "…/__init__.py" in msg, msg  # the host's files by their last part only
    for secret in {sys.prefix, sys.base_prefix, os.path.dirname(os.__file__), lg.data_dir, "/league/bots/"}:
        assert secret not in msg, (secret, msg)
    assert not re.search(r"(?<![\w.…])/\w", msg), msg  # no absolute path at all


def test_hide_paths_keeps_the_bots_own_names_and_cuts_the_rest():
    from botwars.agents.redact import hide_paths
    bot = "/srv/data/league/bots/b1/v3/bot.py"
    line = ('SyntaxError: invalid syntax (/srv/data/league/bots/b1/v3/bot.py, line 3) in '
            '/srv/data/league/bots/b1/v3/lib/util.py; File "/opt/venv/lib/python3.11/site-packages/x/y.py"')
    assert hide_paths(line, bot) == ('SyntaxError: invalid syntax (bot.py, line 3) in lib/util.py; '
                                     'File "…/y.py"')
    assert hide_paths("exit status 1: 3/4 done, see https://example.org/a/b and a/b/c") == (
        "exit status 1: 3/4 done, see https://example.org/a/b and a/b/c")
    assert hide_paths("cannot open /etc/passwd: denied") == "cannot open …/passwd: denied"
