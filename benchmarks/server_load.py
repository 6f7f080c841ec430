"""Load benchmark of the game-master server (not a test).

Starts ``botwars serve`` on 127.0.0.1 with a fresh database, creates N arena matches with two
remote seats each, and plays them all at once through the HTTP API from one asyncio client:
every match gives both seats' orders for a decision point at the same time, waits ``--think-ms``
(a bot's thinking time) and goes on. It measures, for every order, the time from submission to
acknowledgement, and at the end fetches every record and checks that each holds exactly the
orders that were sent: none lost, none duplicated.

    PYTHONPATH=src python benchmarks/server_load.py --matches 500 --turns 20 --db sqlite
    PYTHONPATH=src python benchmarks/server_load.py --matches 500 --turns 20 --db postgres

``--db postgres`` uses ``scripts/ensure-postgres.sh`` (a fresh database on that server);
``--db URL`` uses any SQLAlchemy URL. Prints one Markdown table row (and ``--json``: a JSON object).

Several workers (issue 27 item 7): ``--workers 1,2`` runs once per count, each on a fresh
database, starting that many ``botwars serve`` processes on their own ports over the one
database (the "several machines" form) and spreading the matches over them round-robin (match k
is created and played on worker k mod N); ``--cross`` sends each order to the next worker
instead, which needs workers that answer for any match (the core of issue 27). More than one
worker needs PostgreSQL (``--db postgres``): SQLite is one process.

    PYTHONPATH=src python benchmarks/server_load.py --db postgres --workers 1,2 --matches 50 --turns 30

Spectators across workers (issue 27 item 7): ``--spectators S`` opens S spectator WebSockets
before the play starts, spread over the matches, each at a worker other than the one the
match's orders go to (with one worker: that one), so every live update a spectator gets crossed
from the worker that resolved the turn (``LISTEN/NOTIFY``). After the last turn each spectator
must have seen its match end; the row adds how many did, the snapshots received, and the
delay from the last acknowledged order of a match to each of its spectators' end snapshot
(p50/p99). The servers get ``--ws-per-address`` above S (all spectators come from one address).

    PYTHONPATH=src python benchmarks/server_load.py --db postgres --workers 1,2 --matches 50 --turns 30 --spectators 2000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import aiohttp
import httpx

from _serve import wait_until_up  # noqa: E402  (benchmarks/ is on sys.path when run)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def orders_for(k: int, seat: str, n: int) -> str:
    sq = "5:5" if seat == "p1" else "12:12"
    return f"{sq}-M-{'NESW'[(n + k) % 4]},5:12-A-{'NESW'[n % 4]}#{k}.{n}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database(kind: str, tmp: str) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp}/load.db"
    if kind == "postgres":
        url = subprocess.run(["bash", os.path.join(ROOT, "scripts", "ensure-postgres.sh")], check=True,
                             capture_output=True, text=True).stdout.strip()
        import sqlalchemy as sa
        name = "bwload_" + secrets.token_hex(4)
        eng = sa.create_engine(url, isolation_level="AUTOCOMMIT")
        with eng.connect() as c:
            c.execute(sa.text(f"CREATE DATABASE {name}"))
        eng.dispose()
        return url.rsplit("/", 1)[0] + "/" + name
    return kind


async def play(clients: list, k: int, made: dict, turns: int, think: float, lat: list[float],
               acks: dict, errors: list[str]) -> None:
    mid = made["match"]
    toks = {s["seat"]: s["token"] for s in made["seats"]}

    async def give(seat: str, n: int) -> None:
        body = {"decision": n, "orders": orders_for(k, seat, n)}
        while True:
            t0 = time.perf_counter()
            client = clients[(k + n + (seat == "p2")) % len(clients)] if CROSS else clients[k % len(clients)]
            try:
                async with client.post(f"/api/matches/{mid}/orders", json=body,
                                       headers={"Authorization": f"Bearer {toks[seat]}"}) as r:
                    status, text = r.status, await r.text()
            except aiohttp.ClientError as exc:
                errors.append(f"{mid} {seat} {n}: {type(exc).__name__}")
                continue
            lat.append(time.perf_counter() - t0)
            if status != 200:
                errors.append(f"{mid} {seat} {n}: {status} {text[:100]}")
                return
            a = json.loads(text)
            acks[(mid, seat, n)] = acks.get((mid, seat, n), 0) + (0 if a["duplicate"] else 1)
            return

    for n in range(1, turns + 1):
        if think:
            await asyncio.sleep(think * (0.5 + ((k * 7919 + n * 104729) % 1000) / 1000))
        await asyncio.gather(give("p1", n), give("p2", n))


CROSS = False  # --cross: each order to the next worker (needs the core of issue 27)
SPECTATORS = 0  # --spectators


async def spectate(url: str, mid: str, key: int, seen: dict, ended_at: dict, stop: asyncio.Event) -> None:
    """Spectator ``key``'s WebSocket on ``url`` for match ``mid``: counts the snapshots in
    ``seen[key]``, and notes in ``ended_at[key]`` when the one saying the match ended arrived."""
    import websockets
    seen[key] = 0
    ws_url = url.replace("http", "ws", 1) + f"/api/matches/{mid}/ws"
    try:
        async with websockets.connect(ws_url, open_timeout=60, max_size=None) as ws:
            while not stop.is_set():
                try:
                    msg = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except asyncio.TimeoutError:
                    continue
                seen[key] += 1
                if json.loads(msg).get("status") == "ended":
                    ended_at[key] = (mid, time.perf_counter())
                    return
    except Exception as exc:  # noqa: BLE001 - a refused or dropped spectator counts as one that missed the end
        seen[key] = -1
        ended_at.pop(key, None)
        print(f"spectator of {mid}: {type(exc).__name__}: {exc}"[:200], file=sys.stderr)


async def run(urls: list[str], matches: int, turns: int, think: float) -> dict:
    """One measurement against the servers at ``urls``. The orders go through aiohttp (its C
    HTTP parser): with httpx the one client process spent about twice the server's CPU per
    order, and on a 2-core machine the figure measured the client, not the server (measured
    with py-spy, 2026-11-29); httpx makes the matches and reads the records."""
    limits = httpx.Limits(max_connections=2 * matches, max_keepalive_connections=2 * matches)
    clients = [httpx.AsyncClient(base_url=u, timeout=120, limits=limits) for u in urls]
    fast = [aiohttp.ClientSession(base_url=u, connector=aiohttp.TCPConnector(limit=2 * matches),
                                  timeout=aiohttp.ClientTimeout(total=120)) for u in urls]
    try:
        return await _run(clients, fast, matches, turns, think)
    finally:
        for c in clients:
            await c.aclose()
        for f in fast:
            await f.close()


async def _run(clients: list, fast: list, matches: int, turns: int, think: float) -> dict:
    made = []
    for k in range(matches):
        client = clients[k % len(clients)]
        r = await client.post("/api/matches", json={"game": "arena", "seed": k, "config": {
            "max_turns": turns, "turn_time_limit_s": 600}})
        r.raise_for_status()
        made.append(r.json())
    lat: list[float] = []
    acks: dict = {}
    errors: list[str] = []
    seen: dict = {}
    ended_at: dict = {}
    last_ack: dict = {}
    stop = asyncio.Event()
    urls = [str(c.base_url).rstrip("/") for c in clients]
    watchers = [asyncio.create_task(spectate(urls[(j + 1) % len(urls)] if len(urls) > 1 else urls[0],
                                             made[j % matches]["match"], j, seen, ended_at, stop))
                for j in range(SPECTATORS)]
    while watchers and len(seen) < SPECTATORS:  # every socket opened before the first order
        await asyncio.sleep(0.05)
    if watchers:
        await asyncio.sleep(1.0)

    async def play_and_note(k: int, m: dict) -> None:
        await play(fast, k, m, turns, think, lat, acks, errors)
        last_ack[m["match"]] = time.perf_counter()
    t0 = time.perf_counter()
    await asyncio.gather(*(play_and_note(k, m) for k, m in enumerate(made)))
    wall = time.perf_counter() - t0
    if watchers:
        await asyncio.wait(watchers, timeout=30)
        stop.set()
        await asyncio.gather(*watchers, return_exceptions=True)
    lost = dup = 0
    for k, m in enumerate(made):
        text = (await clients[k % len(clients)].get(f"/api/matches/{m['match']}/record")).text
        lines = [json.loads(x) for x in text.splitlines()]
        dec = [x for x in lines if x["type"] == "decision"]
        if [d["n"] for d in dec] != list(range(1, turns + 1)):
            lost += 1
            continue
        for d in dec:
            for seat in ("p1", "p2"):
                if d["orders"].get(seat) != orders_for(k, seat, d["n"]):
                    lost += 1
    dup = sum(1 for v in acks.values() if v != 1)
    lat.sort()
    q = statistics.quantiles(lat, n=100, method="inclusive")
    return {"matches": matches, "turns": turns, "think_ms": think * 1000, "orders": len(lat),
            "wall_s": round(wall, 2), "orders_per_s": round(len(lat) / wall, 1),
            "p50_ms": round(q[49] * 1000, 2), "p99_ms": round(q[98] * 1000, 2), "max_ms": round(lat[-1] * 1000, 1),
            "lost": lost, "duplicated": dup, "errors": len(errors), "workers": len(clients),
            **(_spectator_figures(seen, ended_at, last_ack) if SPECTATORS else {})}


def _spectator_figures(seen: dict, ended_at: dict, last_ack: dict) -> dict:
    """The spectators' row: how many saw their match end, snapshots received, and the delay
    from a match's last acknowledged order to each spectator's end snapshot (ms)."""
    delays = sorted(max(0.0, t - last_ack[mid]) for mid, t in ended_at.values() if mid in last_ack)
    q = statistics.quantiles(delays, n=100, method="inclusive") if len(delays) > 1 else delays * 99
    return {"spectators": len(seen), "spectators_saw_end": len(ended_at),
            "spectator_snapshots": sum(v for v in seen.values() if v > 0),
            "end_delay_p50_ms": round(q[49] * 1000, 1) if q else None,
            "end_delay_p99_ms": round(q[98] * 1000, 1) if q else None}


def _cpu(procs: list) -> float:
    """CPU seconds (user + system) used so far by the server processes and their children."""
    import psutil
    total = 0.0
    for proc in procs:
        try:
            p = psutil.Process(proc.pid)
            for q in [p, *p.children(recursive=True)]:
                t = q.cpu_times()
                total += t.user + t.system
        except psutil.Error:  # a process that just ended: its time is no longer counted
            continue
    return total


def serve(db: str, workers: int, tmp: str, spectators: int = 0) -> tuple[list, list[str]]:
    """Start ``workers`` ``botwars serve`` processes on their own ports over ``db``; returns the
    processes and their base URLs, once all answer."""
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
    procs, urls = [], []
    for i in range(workers):
        port = free_port()
        log = open(os.path.join(tmp, f"server{i}.log"), "w")
        caps = ["--ws-per-address", str(spectators + 64), "--ws-per-match", str(spectators + 64)] if spectators else []
        procs.append(subprocess.Popen([sys.executable, "-m", "botwars.cli", "serve", "--db", db, "--port", str(port),
                                       *caps], stdout=log, stderr=log, env=env))
        urls.append(f"http://127.0.0.1:{port}")
        wait_until_up(urls[-1])  # one at a time: the first migrates the database
    return procs, urls


def main() -> None:
    global CROSS, SPECTATORS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=500)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--think-ms", type=float, default=0.0, help="mean bot thinking time between decisions")
    ap.add_argument("--db", default="sqlite", help="sqlite, postgres or a SQLAlchemy URL")
    ap.add_argument("--workers", default="1", help="worker counts to measure, e.g. 1,2 (more than 1: PostgreSQL)")
    ap.add_argument("--cross", action="store_true", help="send each order to the next worker (needs issue 27's core)")
    ap.add_argument("--spectators", type=int, default=0,
                    help="spectator WebSockets, each at another worker than its match's orders (issue 27 item 7)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    CROSS = args.cross
    SPECTATORS = max(0, args.spectators)
    try:
        counts = [int(x) for x in args.workers.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--workers: a comma-separated list of counts, e.g. 1,2 (got {args.workers!r})")
    if not counts or min(counts) < 1 or (max(counts) > 1 and args.db == "sqlite"):
        ap.error("--workers: counts of at least 1; more than one worker needs --db postgres (SQLite is one process)")
    print("| db | workers | matches | turns | think ms | orders | orders/s | p50 ms | p99 ms | lost | duplicated |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in counts:
        with tempfile.TemporaryDirectory() as tmp:
            db = database(args.db, tmp)
            procs, urls = serve(db, n, tmp, SPECTATORS)
            try:
                cpu0, own0 = _cpu(procs), time.process_time()
                res = asyncio.run(run(urls, args.matches, args.turns, args.think_ms / 1000))
                # where the CPU went, per acknowledged order: the servers (all their processes)
                # and this client; on a small machine their sum bounds what more workers can add
                res["server_cpu_ms_per_order"] = round((_cpu(procs) - cpu0) * 1000 / max(1, res["orders"]), 2)
                res["client_cpu_ms_per_order"] = round((time.process_time() - own0) * 1000 / max(1, res["orders"]), 2)
            finally:
                for proc in procs:
                    proc.terminate()
                for proc in procs:
                    proc.wait(timeout=30)
        res["db"] = args.db if args.db in ("sqlite", "postgres") else db.split(":")[0]
        if args.json:
            print(json.dumps(res))
        print(f"| {res['db']} | {n} | {res['matches']} | {res['turns']} | {res['think_ms']:g} | {res['orders']} | "
              f"{res['orders_per_s']} | {res['p50_ms']} | {res['p99_ms']} | {res['lost']} | {res['duplicated']} |",
              flush=True)
        print(f"|   CPU per order: servers {res['server_cpu_ms_per_order']} ms, this client "
              f"{res['client_cpu_ms_per_order']} ms ({os.cpu_count()} CPUs) |", flush=True)
        if SPECTATORS:
            print(f"|   spectators: {res['spectators_saw_end']} of {res['spectators']} saw their match end "
                  f"({res['spectator_snapshots']} snapshots); end delay p50 {res['end_delay_p50_ms']} ms, "
                  f"p99 {res['end_delay_p99_ms']} ms |", flush=True)


if __name__ == "__main__":
    main()
