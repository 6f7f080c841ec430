"""Upload flood benchmark of the game-master server (not a test; issue 25 item 4).

Starts ``botwars serve`` on 127.0.0.1 with a fresh SQLite database, creates one match, then
sends ``--uploads`` league uploads at once (each a bot that sleeps before answering, so that
its check runs into the deadlines and takes seconds) while a client asks
``GET /api/matches/{id}`` every ``--interval`` seconds until the uploads have all been
answered (or ``--seconds`` passed). Prints the GET latencies (p50, p99, max, count) and how the
uploads were answered (status counts). Target: p99 under 100 ms with 50 uploads.

    PYTHONPATH=src python benchmarks/upload_flood.py                     # 50 uploads, rate limit lifted
    PYTHONPATH=src python benchmarks/upload_flood.py --rate default      # the server's own rate limit
    PYTHONPATH=src python benchmarks/upload_flood.py --uploads 0 --seconds 30   # baseline: no uploads
    PYTHONPATH=src python benchmarks/upload_flood.py --json

``--rate`` sets ``BOTWARS_UPLOAD_RATE`` for the server (default here ``1000/minute``, so that
every upload reaches the check queue; ``default`` keeps the server's 5 a minute per address,
with which most of the flood is answered 429 at once).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import httpx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _serve import wait_until_up  # noqa: E402  (benchmarks/ is on sys.path when run)

SLOW = ("import json, sys, time\ntime.sleep(30)\n"
        "for line in sys.stdin:\n    print(json.dumps({'orders': []}), flush=True)\n")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def flood(url: str, uploads: int, interval: float, seconds: float) -> dict:
    async with httpx.AsyncClient(timeout=600, limits=httpx.Limits(max_connections=uploads + 10)) as c:
        r = await c.post(url + "/api/matches", json={"game": "arena", "seats": ["remote", "remote"], "seed": 1})
        r.raise_for_status()
        mid = r.json()["match"]
        for _ in range(20):  # warm up the GET path
            await c.get(f"{url}/api/matches/{mid}")

        async def upload(i: int) -> int:
            try:
                r = await c.post(url + "/api/league/bots",
                                 json={"name": f"flood{i}", "game": "arena", "kind": "jsonl-py", "source": SLOW})
                return r.status_code
            except httpx.HTTPError:
                return 0

        tasks = [asyncio.create_task(upload(i)) for i in range(uploads)]
        lat: list[float] = []
        end = time.monotonic() + seconds
        t_start = time.monotonic()
        async with httpx.AsyncClient(timeout=60) as g:  # a connection of its own
            # with no uploads (--uploads 0, the baseline) it asks for --seconds
            while (not tasks or not all(t.done() for t in tasks)) and time.monotonic() < end:
                t0 = time.perf_counter()
                r = await g.get(f"{url}/api/matches/{mid}")
                lat.append((time.perf_counter() - t0) * 1000)
                assert r.status_code == 200, r.text
                await asyncio.sleep(interval)
        statuses: dict[str, int] = {}
        for t in tasks:
            if t.done():
                k = str(t.result())
            else:
                t.cancel()
                k = "unanswered"
            statuses[k] = statuses.get(k, 0) + 1
    lat.sort()
    return {"uploads": uploads, "seconds": round(time.monotonic() - t_start, 1), "gets": len(lat), "p50_ms": round(statistics.median(lat), 1),
            "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))], 1), "max_ms": round(lat[-1], 1),
            "upload_statuses": statuses}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--uploads", type=int, default=50)
    ap.add_argument("--interval", type=float, default=0.05, help="seconds between GETs")
    ap.add_argument("--seconds", type=float, default=120, help="longest run")
    ap.add_argument("--rate", default="1000/minute", help="BOTWARS_UPLOAD_RATE for the server, or 'default'")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = _port()
        env = dict(os.environ, BOTWARS_LEAGUE="off", BOTWARS_DATA_DIR=os.path.join(tmp, "data"))
        if args.rate != "default":
            env["BOTWARS_UPLOAD_RATE"] = args.rate
        log = open(os.path.join(tmp, "server.log"), "w")
        proc = subprocess.Popen([sys.executable, "-m", "botwars.cli", "serve", "--db",
                                 f"sqlite:///{tmp}/bw.db", "--port", str(port)], stdout=log, stderr=log, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            if not wait_until_up(url):
                raise SystemExit("the server did not start (see its log)")
            out = asyncio.run(flood(url, args.uploads, args.interval, args.seconds))
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    out["rate"] = args.rate
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['uploads']} uploads at once (rate {out['rate']}): GET /api/matches/{{id}} "
              f"p50 {out['p50_ms']} ms, p99 {out['p99_ms']} ms, max {out['max_ms']} ms over {out['gets']} requests "
              f"in {out['seconds']} s; "
              f"uploads answered {out['upload_statuses']}")


if __name__ == "__main__":
    main()
