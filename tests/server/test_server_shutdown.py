"""SIGTERM stops a real ``botwars serve`` within 10 s while a league match is being played, and
the match is played again after a restart, stored exactly once (issue 25 item 10).

The uploaded bot sleeps on every decision, so its ladder match takes about 20 s: long enough
that the signal arrives in the middle of it (the server used to wait for it to finish).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest

from server_support import ROOT, free_port, wait_http

SLOW_BOT = """
import time


class Bot:
    def act(self, view):
        time.sleep(0.2)
        return {"orders": []}
"""


def _bot_processes(marker: str) -> list[int]:
    """Pids of the processes whose command line names ``marker`` (the bot's stored file)."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        out.append(int(pid))
            except OSError:
                pass
    return out


def _wait(pred, what: str, timeout: float):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.slow
def test_sigterm_stops_the_server_within_10_s_and_the_league_match_is_played_after_a_restart(tmp_path):
    db = tmp_path / "bw.db"
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src"), "BOTWARS_DATA_DIR": str(data),
           "BOTWARS_LEAGUE_WORKERS": "1"}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "botwars.cli", "serve", "--db", f"sqlite:///{db}", "--port", str(port)]
    log = open(tmp_path / "serve.log", "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, env=env)
    try:
        wait_http(url, 240, proc)
        r = httpx.post(url + "/api/league/bots", json={"name": "sleepy", "game": "arena", "kind": "py",
                                                         "source": SLOW_BOT}, timeout=120)
        assert r.status_code == 201, r.text
        bot_id = r.json()["bot"]
        marker = f"{bot_id}/v1/bot.py"
        # the upload woke the scheduler: its first ladder match is being played
        _wait(lambda: _bot_processes(marker), "the ladder match to start", 60)
        time.sleep(2.0)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        took = time.monotonic() - t0
        assert took < 10.0, f"the server took {took:.1f} s to stop"
        assert proc.returncode in (0, -signal.SIGTERM)  # uvicorn ends by re-raising the signal it handled
        assert "Traceback" not in (tmp_path / "serve.log").read_text()
        _wait(lambda: not _bot_processes(marker), "the bot processes to end", 10)
        with sqlite3.connect(db) as con:  # nothing of the interrupted match was stored
            assert con.execute("SELECT count(*) FROM league_matches").fetchone()[0] == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    proc = subprocess.Popen(cmd, stdout=log, stderr=log, env=env)
    try:
        wait_http(url, 240, proc)

        def played():
            with sqlite3.connect(db) as con:
                return con.execute("SELECT match_id, seq, status, turns FROM league_matches WHERE seq = 1").fetchall()
        rows = _wait(played, "the ladder match played after the restart", 180)
        assert len(rows) == 1  # stored once
        mid, seq, status, turns = rows[0]
        assert status == "ok" and turns > 0, rows
        with sqlite3.connect(db) as con:
            (agents,) = con.execute("SELECT agents FROM league_matches WHERE match_id = ?", (mid,)).fetchone()
        assert f"bot:{bot_id}@v1" in agents
        assert httpx.get(f"{url}/api/league/matches/{mid}", timeout=10).json()["status"] == "ok"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()
