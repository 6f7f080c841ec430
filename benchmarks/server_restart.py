"""Restart time of a server that holds a hostile match (not a test; issue 12: one match never
stalls another, and a restart must not stall them all).

Starts ``botwars serve`` on a fresh SQLite database, creates the hostile match of
``server_spectators.py`` (the largest arena map a request may give, every square a spawn point,
``spawn_interval=1``, two ``builtin:swarm`` bots that think for seconds), lets it play for
``--seconds``, kills the server with SIGKILL, starts it again on the same database and prints how
long the new server took to answer ``GET /api/games`` (it loads every unfinished match first)
and where the match is. Usage:

    PYTHONPATH=src python benchmarks/server_restart.py [--seconds 40]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import httpx

from _serve import wait_until_up  # noqa: E402  (benchmarks/ is on sys.path when run)
from server_spectators import hostile_map  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main() -> None:
    ap = argparse.ArgumentParser(description="Restart time of a server holding a hostile match.")
    ap.add_argument("--seconds", type=float, default=40.0, help="how long the hostile match plays before the kill")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bw-restart-")
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src"), "BOTWARS_LEAGUE": "off"}
    log = open(os.path.join(tmp, "server.log"), "a")

    def serve(port: int) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "botwars.cli", "serve", "--db", f"sqlite:///{tmp}/r.db",
                                 "--port", str(port)], stdout=log, stderr=subprocess.STDOUT, env=env)

    port = free_port()
    proc = serve(port)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url)
        r = httpx.post(url + "/api/matches", timeout=60,
                       json={"game": "arena", "seats": ["builtin:swarm", "builtin:swarm"],
                             "config": {"map": hostile_map(8192), "spawn_interval": 1, "max_turns": 100_000}})
        mid = r.json()["match"]
        time.sleep(args.seconds)
        before = httpx.get(f"{url}/api/matches/{mid}", timeout=60).json()["decision"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    time.sleep(2)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    t0 = time.monotonic()
    proc = serve(port)
    try:
        up = wait_until_up(url, tries=6000)
        took = time.monotonic() - t0
        after = httpx.get(f"{url}/api/matches/{mid}", timeout=600).json()["decision"] if up else None
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    print(f"hostile match at decision point {before} when the server was killed; the restarted server "
          f"answered after {took:.1f} s" + (f"; the match is at decision point {after}" if up else " (never)"))


if __name__ == "__main__":
    main()
