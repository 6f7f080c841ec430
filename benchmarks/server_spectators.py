"""Spectators and hostile matches against order acknowledgements (issue 12; not a test).

Starts ``botwars serve`` on 127.0.0.1 with a fresh SQLite database and plays two ordinary
arena matches, A and B (two remote seats each, both seats' orders for every decision point, a
short think time between decision points), through the HTTP API, measuring for every order the
time from submission to acknowledgement. Three phases, at the same moment on the same machine:

1. ``quiet``: A and B alone;
2. ``watched``: ``--spectators`` WebSocket spectators (from a separate client process) watch A;
3. ``hostile``: as well, a hostile match: the largest arena map a request may give (the
   server's ``max_board_chars``), every open square a spawn point, ``spawn_interval=1``, two
   ``builtin:swarm`` bots (played by the server's bot pool), plus the 999 × 999 map of the
   issue (refused).

Prints one Markdown row per phase and match: orders, p50, p99, max in ms. The server runs with
``--ws-per-address`` raised to fit all spectators (they come from one address; the default
limit is 64 per address), which the table says.

    PYTHONPATH=src python benchmarks/server_spectators.py --spectators 2000 --turns 150
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import httpx

from _serve import wait_until_up  # noqa: E402  (benchmarks/ is on sys.path when run)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def orders_for(seat: str, n: int) -> dict:
    """A valid arena orders payload (no robot moves: the cost measured is the server's)."""
    return {"orders": []}


async def play(client: httpx.AsyncClient, made: dict, first: int, turns: int, think: float, lat: list[float],
               errors: list[str]) -> None:
    """Play decision points ``first .. first + turns - 1`` of one match; append ack latencies."""
    mid = made["match"]
    toks = {s["seat"]: s["token"] for s in made["seats"]}

    async def give(seat: str, n: int) -> None:
        t0 = time.perf_counter()
        r = await client.post(f"/api/matches/{mid}/orders", json={"decision": n, "orders": orders_for(seat, n)},
                              headers={"Authorization": f"Bearer {toks[seat]}"})
        lat.append(time.perf_counter() - t0)
        if r.status_code != 200:
            errors.append(f"{mid} {seat} {n}: {r.status_code} {r.text[:120]}")

    for n in range(first, first + turns):
        await asyncio.sleep(think)
        await asyncio.gather(give("p1", n), give("p2", n))


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its threads so far (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def stats(lat: list[float]) -> dict:
    lat = sorted(lat)
    q = statistics.quantiles(lat, n=100, method="inclusive")
    return {"orders": len(lat), "p50_ms": round(q[49] * 1000, 1), "p95_ms": round(q[94] * 1000, 1),
            "p99_ms": round(q[98] * 1000, 1),
            "max_ms": round(lat[-1] * 1000, 1)}


def hostile_map(max_chars: int) -> str:
    """The largest square arena map within ``max_chars`` characters: all spawn points, a
    player-1 and a player-2 half."""
    side = 3
    while (side + 1) * (side + 2) <= max_chars:
        side += 1
    rows = []
    for y in range(side):
        rows.append("".join("1" if x < side // 2 else "2" for x in range(side)))
    return "\n".join(rows) + "\n"


async def spectators_main(url: str, mid: str, n: int) -> None:
    """Spectator process: open ``n`` sockets on ``mid``, say ``ready``, count messages until
    stdin closes, then print the count."""
    import websockets
    ws_url = url.replace("http", "ws", 1) + f"/api/matches/{mid}/ws"
    count = 0
    refused = 0

    async def one() -> None:
        nonlocal count, refused
        try:
            async with websockets.connect(ws_url, max_size=None, open_timeout=120, ping_interval=None) as ws:
                async for _ in ws:
                    count += 1
        except Exception:
            refused += 1

    tasks = []
    for i in range(n):
        tasks.append(asyncio.ensure_future(one()))
        if i % 100 == 99:
            await asyncio.sleep(0.05)
    while count < n and refused + count < n:
        await asyncio.sleep(0.1)
    print(f"ready {count} {refused}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    print(f"messages {count} refused {refused}", flush=True)
    for t in tasks:
        t.cancel()


async def run(url: str, spectators: int, turns: int, think: float, max_chars: int, server_pid: int) -> list[tuple]:
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    rows = []
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        made = {}
        for name in ("A", "B"):
            r = await client.post("/api/matches", json={"game": "arena", "config": {
                "max_turns": 3 * turns + 10, "turn_time_limit_s": 600}})
            r.raise_for_status()
            made[name] = r.json()
        errors: list[str] = []
        n = 1

        others: list[int] = []

        async def phase(label: str) -> None:
            nonlocal n
            lat = {"A": [], "B": []}
            c0, t0 = cpu_s(server_pid), time.perf_counter()
            o0 = sum(cpu_s(p) for p in others) + time.process_time()
            await asyncio.gather(*(play(client, made[k], n, turns, think, lat[k], errors) for k in ("A", "B")))
            n += turns
            cpu, wall = cpu_s(server_pid) - c0, time.perf_counter() - t0
            ocpu = sum(cpu_s(p) for p in others) + time.process_time() - o0
            for k in ("A", "B"):
                rows.append((label, k, {**stats(lat[k]), "server_cpu": round(cpu / wall, 2),
                             "client_cpu": round(ocpu / wall, 2)}))

        await phase("quiet")
        proc = subprocess.Popen([sys.executable, __file__, "--spectator-worker", url, made["A"]["match"],
                                 str(spectators)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        others.append(proc.pid)
        ready = await asyncio.get_running_loop().run_in_executor(None, proc.stdout.readline)
        print(f"spectators: {ready.strip()}", file=sys.stderr)
        await phase(f"watched by {spectators}")
        big = "1" + "." * 998 + "\n" + ("." * 999 + "\n") * 997 + "." * 998 + "2\n"
        r = await client.post("/api/matches", json={"game": "arena", "seats": ["builtin:swarm", "builtin:swarm"],
                                                    "config": {"map": big}})
        print(f"999 x 999 map: {r.status_code} {r.json()['message'][:100]}", file=sys.stderr)
        r = await client.post("/api/matches", json={"game": "arena", "seats": ["builtin:swarm", "builtin:swarm"],
                                                    "config": {"map": hostile_map(max_chars), "spawn_interval": 1,
                                                               "max_turns": 100_000}})
        print(f"hostile match: {r.status_code}", file=sys.stderr)
        hostile = r.json()["match"]
        await asyncio.sleep(2)
        await phase("+ hostile match")
        h = (await client.get(f"/api/matches/{hostile}")).json()
        rec = (await client.get(f"/api/matches/{hostile}/view")).json()
        print(f"hostile match after the phase: decision {h['decision']}, "
              f"{len(rec['view'].get('robots', []))} robots", file=sys.stderr)
        proc.stdin.close()
        print(f"spectators: {proc.stdout.readline().strip()}", file=sys.stderr)
        proc.wait(timeout=60)
        if errors:
            print(f"{len(errors)} errors, e.g. {errors[:3]}", file=sys.stderr)
    return rows


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--spectator-worker":
        asyncio.run(spectators_main(sys.argv[2], sys.argv[3], int(sys.argv[4])))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spectators", type=int, default=2000)
    ap.add_argument("--turns", type=int, default=150, help="decision points per match and phase")
    ap.add_argument("--think-ms", type=float, default=20.0, help="pause between decision points")
    ap.add_argument("--max-board-chars", type=int, default=None,
                    help="the server's --max-board-chars (default: the server's default)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from botwars.server.app import MAX_BOARD_CHARS
    max_chars = args.max_board_chars or MAX_BOARD_CHARS
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
        log = open(os.path.join(tmp, "server.log"), "w")
        cmd = [sys.executable, "-m", "botwars.cli", "serve", "--db", f"sqlite:///{tmp}/spec.db", "--port", str(port),
               "--ws-per-address", str(args.spectators + 100), "--max-board-chars", str(max_chars)]
        if os.environ.get("BENCH_SERVER"):  # e.g. a profiling wrapper: BENCH_SERVER="python prof.py {db} {port} {wpa}"
            cmd = os.environ["BENCH_SERVER"].format(db=f"sqlite:///{tmp}/spec.db", port=port,
                                                   wpa=args.spectators + 100).split()
        proc = subprocess.Popen(cmd, stdout=log, stderr=log, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(url)
            rows = asyncio.run(run(url, args.spectators, args.turns, args.think_ms / 1000, max_chars,
                                   proc.pid))
        finally:
            proc.send_signal(signal.SIGINT)  # graceful (and lets a profiling wrapper write its file)
            proc.wait(timeout=30)
    if args.json:
        print(json.dumps([{"phase": p, "match": m, **s} for p, m, s in rows]))
    print("| phase | match | orders | p50 ms | p95 ms | p99 ms | max ms | server CPU (cores) | clients' CPU (cores) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p, m, s in rows:
        print(f"| {p} | {m} | {s['orders']} | {s['p50_ms']} | {s['p95_ms']} | {s['p99_ms']} | {s['max_ms']} | {s['server_cpu']} | {s['client_cpu']} |")


if __name__ == "__main__":
    main()
