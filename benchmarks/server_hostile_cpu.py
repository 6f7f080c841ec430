"""Server-process CPU per decision point of a hostile match (issue 12, item 6; not a test).

``botwars serve`` with nothing but the hostile match of ``server_spectators.py`` (the largest
arena map a request may give: every square a spawn point, ``spawn_interval=1``, two
``builtin:swarm`` bots that overrun their 2 s limit every decision). After ``--warm-up``
seconds, the server process's user + system CPU (``/proc/PID/stat``, all its threads; the bot
and rules workers are other processes) is read over ``--seconds`` together with the decision
points the match advanced: the ratio is the GIL time one decision point of that match costs
every other match on the server (also given above the CPU of the idle server over the same
window before the match is made: clock and heartbeat threads). Insensitive to the machine's
load (CPU time, not wall time).

    PYTHONPATH=src python benchmarks/server_hostile_cpu.py --seconds 30
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

import httpx

from _serve import wait_until_up  # noqa: E402  (benchmarks/ is on sys.path when run)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_spectators import ROOT, cpu_s, free_port, hostile_map  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="measuring window")
    ap.add_argument("--warm-up", type=float, default=15.0, help="seconds before the window")
    args = ap.parse_args()
    from botwars.server.app import MAX_BOARD_CHARS
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
        log = open(os.path.join(tmp, "server.log"), "w")
        cmd = [sys.executable, "-m", "botwars.cli", "serve", "--db", f"sqlite:///{tmp}/h.db", "--port", str(port)]
        if os.environ.get("BENCH_SERVER"):  # a profiling wrapper, as in server_spectators.py ({db}, {port})
            cmd = os.environ["BENCH_SERVER"].format(db=f"sqlite:///{tmp}/h.db", port=port).split()
        proc = subprocess.Popen(cmd, stdout=log, stderr=log, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(url)
            i0 = cpu_s(proc.pid)
            time.sleep(args.seconds)
            idle = cpu_s(proc.pid) - i0  # the same window with no match: clock and heartbeat
            r = httpx.post(url + "/api/matches", timeout=60,
                           json={"game": "arena", "seats": ["builtin:swarm", "builtin:swarm"],
                                 "config": {"map": hostile_map(MAX_BOARD_CHARS), "spawn_interval": 1,
                                            "max_turns": 100_000}})
            mid = r.json()["match"]
            time.sleep(args.warm_up)
            d0 = httpx.get(f"{url}/api/matches/{mid}", timeout=60).json()["decision"]
            c0 = cpu_s(proc.pid)
            time.sleep(args.seconds)
            c1 = cpu_s(proc.pid)
            d1 = httpx.get(f"{url}/api/matches/{mid}", timeout=60).json()["decision"]
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
    pts = d1 - d0
    print(f"decision points {d0} -> {d1} ({pts}) in {args.seconds:g} s; server CPU {c1 - c0:.2f} s "
          f"(idle server, same window: {idle:.2f} s); {(c1 - c0) / max(pts, 1) * 1000:.1f} ms per decision point, "
          f"{(c1 - c0 - idle) / max(pts, 1) * 1000:.1f} ms above idle")


if __name__ == "__main__":
    main()
