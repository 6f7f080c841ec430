"""Durability: a real `botwars serve` process is killed with SIGKILL many times while
concurrent matches are played through its HTTP API (and one by two `botwars connect` clients).

After every restart every match continues from where it was; at the end each record holds
exactly the orders the players were acknowledged (none lost, none applied twice, no seat
charged the downtime), verifies, and equals the record of the same match played without
kills (times aside).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time

import httpx

from server_support import ROOT, free_port, wait_http

ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
TURNS = 15
CFG = {"max_turns": str(TURNS), "turn_time_limit_s": "60"}


def orders_for(k: int, seat: str, n: int) -> str:
    """What player ``seat`` of the k-th match orders at decision ``n`` (a pure function)."""
    d = "NESW"[(n + k) % 4]
    sq = "5:5" if seat == "p1" else "12:12"
    return f"{sq}-M-{d},5:12-A-{'NESW'[n % 4]}#{k}.{seat}.{n}"


class Server:
    def __init__(self, db: str, log_path: str):
        self.db, self.port, self.log_path = db, free_port(), log_path
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self) -> None:
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen([sys.executable, "-m", "botwars.cli", "serve", "--db", self.db,
                                      "--port", str(self.port)], stdout=log, stderr=log, env=ENV)
        wait_http(self.url, 60, self.proc)

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL
        self.proc.wait()


def player(url: str, mid: str, k: int, seat: str, token: str, acks: list, stop: threading.Event) -> None:
    """Poll the seat's view; give orders_for() when awaited; resend until acknowledged."""
    c = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=5)
    while not stop.is_set():
        try:
            v = c.get(f"/api/matches/{mid}/view").json()
            if v["status"] == "ended":
                return
            if v["your_turn"]:
                time.sleep(0.04)  # thinking: keeps the matches running across several kills
                n = v["decision"]
                body = {"decision": n, "orders": orders_for(k, seat, n)}
                r = c.post(f"/api/matches/{mid}/orders", json=body)
                if r.status_code == 200:
                    acks.append((mid, seat, n, body["orders"], r.json()["duplicate"]))
                    continue
                assert r.status_code == 409, r.text  # e.g. resolved meanwhile
            time.sleep(0.03)
        except (httpx.TransportError, ValueError):
            time.sleep(0.05)


def create(url: str, seats: list[str], seed: int) -> dict:
    r = httpx.post(url + "/api/matches", json={"game": "arena", "seats": seats, "config": CFG, "seed": seed},
                   timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def play_all(server: Server, tmp_path, kills: int) -> tuple[list[list[dict]], list]:
    specs = [["remote", "remote"]] * 2 + [["remote", "builtin:random"], ["builtin:swarm", "remote"]]
    made = [create(server.url, s, seed=10 + k) for k, s in enumerate(specs)]
    acks: list = []
    stop = threading.Event()
    threads = []
    for k, m in enumerate(made):
        for s in m["seats"]:
            if s["agent"] == "remote":
                t = threading.Thread(target=player, args=(server.url, m["match"], k, s["seat"], s["token"], acks, stop),
                                     daemon=True)
                t.start()
                threads.append(t)
    cm = create(server.url, ["remote", "remote"], seed=99)  # played by two `botwars connect` processes
    clients = [subprocess.Popen([sys.executable, "-m", "botwars.cli", "connect", server.url, s["token"], a],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
               for s, a in zip(cm["seats"], ["builtin:hunter", "builtin:random"])]
    rng = random.Random(7)
    running_at_kill = []
    for _ in range(kills):
        time.sleep(rng.uniform(0.1, 0.4))
        running_at_kill.append(len(httpx.get(server.url + "/api/matches?status=running", timeout=10).json()))
        server.kill()
        server.start()
    assert all(running_at_kill[:2]), f"the first kills found no match running: {running_at_kill}"
    for t in threads:
        t.join(timeout=90)
    stop.set()
    outs = []
    for p in clients:
        try:
            outs.append(p.communicate(timeout=90))
        except subprocess.TimeoutExpired:
            p.kill()
            outs.append(p.communicate())
            raise AssertionError(f"a `botwars connect` client hung: {outs}")
    assert all(p.returncode == 0 for p in clients), outs
    results = [json.loads(o[0].strip().splitlines()[-1]) for o in outs]
    recs = []
    for m in made + [cm]:
        text = httpx.get(f"{server.url}/api/matches/{m['match']}/record", timeout=10).text
        recs.append([json.loads(x) for x in text.splitlines()])
    return recs, acks, results


def strip_times(rec):
    return [{k: v for k, v in x.items() if k != "time_s"} for x in rec if x["type"] != "header"]


class _Seeded:
    """An agent started with the seed `botwars connect` gives it (Match would pass the match seed)."""

    def __init__(self, agent, game, seat, config, seed):
        from botwars.agents.base import AgentFailure  # noqa: F401
        self.agent = agent
        agent.start(game, seat, config, seed)
        self.spec = agent.spec

    def start(self, *a):
        pass

    def act(self, view, deadline):
        return self.agent.act(view, None)

    def close(self):
        self.agent.close()


def uninterrupted(tmp_path, i: int, header: dict) -> list[dict]:
    """The same match played locally by the kernel's Match, without any server."""
    from botwars.agents.base import CallableAgent
    from botwars.agents.spec import make_agent
    from botwars.engine.match import Match
    from botwars.engine.ruleset import get_ruleset

    rs = get_ruleset("arena")
    seed = header["seed"]
    agents = {}
    for s in header["seats"]:
        seat, spec = s["seat"], s["agent"]
        if spec.startswith("builtin:"):
            agents[seat] = make_agent(spec, "arena")
        elif seed == 99:  # the `botwars connect` match: hunter vs random, seeded as connect seeds them
            bot = "builtin:hunter" if seat == "p1" else "builtin:random"
            agents[seat] = _Seeded(make_agent(bot, "arena"), "arena", seat, header["config"], rs.agent_seed(seed, seat))
        else:
            agents[seat] = CallableAgent(lambda view, k=i, st=seat: orders_for(k, st, view["turn"]), "remote")
    path = str(tmp_path / f"calm{i}.jsonl")
    # native=False: the server's bot pool hands built-in bots the JSON view, so the record holds
    # their JSON payloads; a local match's native path would record the same orders as P5 text
    Match(rs, header["config"], agents, seed, record=path, clock=False, native=False).run()
    return [json.loads(x) for x in open(path)]


def test_sigkill_many_times_loses_no_acknowledged_order_and_applies_none_twice(tmp_path):
    from botwars.engine.record import read_record, verify_record

    server = Server(f"sqlite:///{tmp_path}/kill.db", str(tmp_path / "server.log"))
    server.start()
    try:
        recs, acks, results = play_all(server, tmp_path, kills=4)
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill()
    assert acks, "no order was acknowledged"
    for i, rec in enumerate(recs):
        assert rec[-1]["type"] == "outcome", f"match {i} did not end"
        decisions = [x for x in rec if x["type"] == "decision"]
        assert [d["n"] for d in decisions] == list(range(1, TURNS + 1))
        for d in decisions:
            for seat, errs in d["errors"].items():
                assert all(e["code"] not in ("timeout", "crash", "malformed") for e in errs), (i, d)
        p = tmp_path / f"r{i}.jsonl"
        p.write_text("".join(json.dumps(x) + "\n" for x in rec))
        ok, msg = verify_record(read_record(str(p)))
        assert ok, msg
        assert strip_times(rec) == strip_times(uninterrupted(tmp_path, i, rec[0])), \
            f"match {i} differs from the same match played without kills"
    for mid, seat, n, payload, _dup in acks:  # every acknowledged order is in the record, as sent
        k = int(payload.split("#")[1].split(".")[0])
        assert recs[k][n]["orders"][seat] == payload
    assert results[0]["winner"] == results[1]["winner"] == recs[-1][-1]["winner"]
