"""Where a sandboxed trivial turn's CPU goes (issue 28 item 3; not a test).

guardbot vs randombot (rgkit's two trivial bots: no bot work to speak of) play ``--games``
games on rgkit's board (``tournament_throughput.rgkit_board``) as ``rgkit:`` bots with kept
hosts, once per variant, each variant's CPU counted for every process (``_cpu.CpuAccount``:
cgroup v2 ``cpu.stat`` or v1 ``cpuacct``), split into the engine's process (its own
``process_time``) and the rest (the sandboxed hosts, their match children, bubblewrap):

- ``full``: the machine's sandbox (bubblewrap, seccomp, Landlock, pids cgroup);
- ``no-seccomp``, ``no-landlock``, ``no-cgroup``: the same without that one layer;
- ``no-bwrap``: a plain child process (rlimits only; no namespaces, seccomp or Landlock);
- ``in-process``: the same protocol and adapter code called in the engine's process (no
  process at all: ``tournament_throughput.InProcessProtocol``).

Each line gives CPU per turn (both seats) for the whole run and for the turns only (the first
decision of every match, with the match child's fork and bot load, counted apart as
``per match``). Last, :func:`adapter_cost`: the rgkit host's own work per decision with
``game.robots`` built lazily and eagerly, side by side. Usage (root for the cgroup accounting,
as the throughput benchmark):

    PYTHONPATH=src python benchmarks/trivial_turn_profile.py [--games 10] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _cpu import CpuAccount, NoAccounting  # noqa: E402
import tournament_throughput as tt  # noqa: E402

VARIANTS = ("full", "no-seccomp", "no-landlock", "no-cgroup", "no-bwrap", "in-process")


@contextlib.contextmanager
def layers(variant: str):
    """The sandbox as :func:`botwars.agents.sandbox.probe` found it, less one layer."""
    from botwars.agents import sandbox
    real = sandbox.probe()
    changed = {"no-seccomp": {"seccomp": None}, "no-landlock": {"landlock": False}, "no-cgroup": {"cgroup": None},
               "no-bwrap": {"bwrap": None, "seccomp": None, "landlock": False}}.get(variant, {})
    sandbox._probe_cache = dataclasses.replace(real, **changed)
    try:
        yield
    finally:
        sandbox._probe_cache = real


def run(variant: str, games: int, account: CpuAccount) -> dict:
    """``games`` guardbot-vs-randombot matches in ``variant``; CPU per turn and per match."""
    from botwars.agents import reuse_hosts
    from botwars.agents.base import CallableAgent
    from botwars.agents.spec import make_agent
    from botwars.engine.match import Match
    from botwars.engine.ruleset import get_ruleset

    rs = get_ruleset("arena")
    cfg = rs.validate_config(tt.rgkit_board())

    def agent(name: str):
        if variant == "in-process":
            return CallableAgent(tt.InProcessProtocol(tt.bot_file(name)))
        return make_agent(f"rgkit:{tt.bot_file(name)}", "arena")

    turns = 0
    start_cpu = start_engine = 0.0
    c0, e0, w0 = account.seconds(), time.process_time(), time.perf_counter()
    with layers(variant), (reuse_hosts() if variant != "in-process" else contextlib.nullcontext()):
        for g in range(games):
            a, b = ("guardbot", "randombot") if g % 2 == 0 else ("randombot", "guardbot")
            m = Match(rs, cfg, {"p1": agent(a), "p2": agent(b)}, seed=g)
            s0, se0 = account.seconds(), time.process_time()
            m.start_agents()
            m.step()  # the first decision: the match child's fork and the bot's load
            start_cpu += account.seconds() - s0
            start_engine += time.process_time() - se0
            try:
                while m.outcome() is None:
                    m.step()
                    turns += 1
            finally:
                for ag in m.agents.values():
                    ag.close()
    total, engine, wall = account.seconds() - c0, time.process_time() - e0, time.perf_counter() - w0
    turn_cpu, turn_engine = total - start_cpu, engine - start_engine
    return {"variant": variant, "games": games, "turns": turns, "wall_s": round(wall, 3),
            "us_per_turn": round(turn_cpu / turns * 1e6, 1),
            "engine_us_per_turn": round(turn_engine / turns * 1e6, 1),
            "hosts_us_per_turn": round((turn_cpu - turn_engine) / turns * 1e6, 1),
            "ms_per_match_start": round(start_cpu / games * 1e3, 2),
            "us_per_turn_all_in": round(total / (turns + games) * 1e6, 1)}


def adapter_cost(bots: tuple[str, ...] = ("guardbot", "randombot", "team_15"), decisions: int = 4000) -> list[dict]:
    """The rgkit host's own work per decision, in this process (``pyhost.answer``: read the view
    line, the adapter, encode the reply), with ``game.robots`` built at the first read (the
    host's :class:`~botwars.games.arena.rgkit_host.LazyGame`) and built eagerly (as before issue
    28), alternately in one run, on the views of a built-in defender-vs-random game on rgkit's
    board; best of 5 rounds, microseconds."""
    import io

    from botwars.agents import pyhost
    from botwars.agents.subprocess_agent import view_line
    from botwars.engine.referee import Referee
    from botwars.engine.ruleset import get_ruleset
    from botwars.games.arena import rgkit_host
    from botwars.games.arena.bots import BUILTIN
    from botwars.games.arena.rgcompat import AttrDict

    class EagerGame(AttrDict):
        def __init__(self, turn: int, build) -> None:
            super().__init__(robots=build(), turn=turn)

    rs = get_ruleset("arena")
    cfg = rs.validate_config(tt.rgkit_board())
    ref = Referee(rs, cfg, ["p1", "p2"], 0, clock=False, history=False)
    players = {"p1": BUILTIN["defender"](), "p2": BUILTIN["random"]()}
    for seat, bot in players.items():
        bot.start("arena", seat, cfg, 0)
    lines = []
    while not ref.over:
        for seat in ref.pending():
            view = ref.view(seat)
            if seat == "p1":
                lines.append(view_line(view))
            ref.submit(seat, players[seat].act(view), 0.0)
        ref.resolve_point()
    lazy = rgkit_host.LazyGame
    out = []
    for name in bots:
        best = {"lazy": 1e9, "eager": 1e9}
        for _ in range(5):
            for mode, cls in (("lazy", lazy), ("eager", EagerGame)):
                rgkit_host.LazyGame = cls
                try:
                    handle = pyhost.make_handler(tt.bot_file(name), "botwars.games.arena.rgkit_host:load_bot", "arena",
                                                 "p1", cfg, 1)
                    sink = io.BytesIO()
                    t0 = time.process_time()
                    for i in range(decisions):
                        pyhost.answer(sink, lines[i % len(lines)], handle)
                    best[mode] = min(best[mode], (time.process_time() - t0) / decisions * 1e6)
                finally:
                    rgkit_host.LazyGame = lazy
        out.append({"bot": name, "lazy_us_per_decision": round(best["lazy"], 1),
                    "eager_us_per_decision": round(best["eager"], 1)})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of: " + ", ".join(VARIANTS))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from botwars.agents import sandbox
    try:
        account = CpuAccount(sandbox.probe().cgroup)
    except NoAccounting as exc:
        print(f"trivial_turn_profile: {exc}", file=sys.stderr)
        return 2
    rows = []
    try:
        tt._ACCOUNT = account
        g0, _, cpu0, _ = tt.run_rgkit("guardbot", "randombot", args.games)
        rgkit_turn = cpu0 / (g0 * 100) * 1e6
        for v in filter(None, args.variants.split(",")):
            rows.append(run(v.strip(), args.games, account))
        adapter = adapter_cost()
    finally:
        account.close()
    out = {"cpu_time": account.how, "sandbox_level": sandbox.probe().level,
           "rgkit_us_per_turn": round(rgkit_turn, 1), "variants": rows, "adapter": adapter}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"CPU: {account.how}; sandbox level {out['sandbox_level']}; rgkit's own engine: "
          f"{out['rgkit_us_per_turn']} us per guardbot-vs-randombot turn")
    print(f"{'variant':<12} {'us/turn':>8} {'engine':>8} {'hosts':>8} {'ms/match start':>15} {'us/turn all in':>15}")
    for r in rows:
        print(f"{r['variant']:<12} {r['us_per_turn']:>8} {r['engine_us_per_turn']:>8} {r['hosts_us_per_turn']:>8} "
              f"{r['ms_per_match_start']:>15} {r['us_per_turn_all_in']:>15}")
    for r in adapter:
        print(f"rgkit host's own work, {r['bot']}: {r['lazy_us_per_decision']} us per decision with game.robots "
              f"built at first read, {r['eager_us_per_decision']} us built eagerly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
