"""Arena engine throughput: robot-actions per second and full games per second (not a test).

For ``builtin:defender`` against itself (the engine floor: the cheapest possible bots) and
``builtin:hunter`` against itself, on the default map with default parameters, this plays
complete 100-turn games through the real kernel loop (:class:`botwars.engine.Match` with its
clock and its referee, :meth:`resolve`, the end check), without writing a record file, two ways:
the built-in bots' native path (``native_view`` → ``act_native`` → ``submit_parsed``, what a
local match uses) and the JSON path every other agent takes (the P11 view dict, the bot's P12
payload, :meth:`parse_orders`). A robot-action is one robot's order (or idleness)
resolved in one turn: the sum over turns of the robots in play at the start of the turn.

The "bare loop" is the ceiling of any such loop: the native observation, the bot and
:meth:`resolve`, with no referee, clock, checks or record.

It also reports the rules core alone ("resolve only"): the same games' accepted orders
re-resolved with :meth:`resolve`, without bots, views, parsing or the match loop, and the
difference per turn in microseconds: what the loop costs beyond the rules (views, bots,
``Match`` and the referee), a figure that does not move when ``resolve`` gets faster.

Side by side in the same run (issue 26 item 6), **rgkit's own engine per core, guard vs
guard**: rgkit's ``guardbot`` against itself in ``rgkit.game.Game`` (rgkit's default map and
settings, bots in the engine's memory), robot-actions per CPU second counted as rgkit's own
states hold them, against botwars' per-match loop with ``builtin:defender`` against itself
(the arena's guard: every robot defends every turn, as ``guardbot`` guards). The ratio must
stay at least 5×. rgkit's sources are read from ``../shared/peers/rgkit`` (or
``BOTWARS_RGKIT_SRC``); ``--no-rgkit`` skips that row.

Each figure is the median of ``--runs`` runs (at least 5), timed in process CPU time (``--wall``
for wall-clock). The process pins itself to one CPU core where the OS allows it. Usage:

    PYTHONPATH=src python benchmarks/arena_throughput.py [--runs 5] [--seconds 2] [--json]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import platform
import statistics
import sys
import time
import warnings

from botwars.agents.base import CallableAgent
from botwars.engine.match import Match
from botwars.engine.referee import Referee
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.bots import BUILTIN

# CPU time of this process: on a shared machine, wall-clock time also counts the time other
# processes hold the core, which would understate the engine's own speed. --wall switches.
CLOCK = time.process_time

HERE = os.path.dirname(os.path.abspath(__file__))
RGKIT = os.environ.get("BOTWARS_RGKIT_SRC") or os.path.abspath(os.path.join(HERE, "..", "..", "shared", "peers",
                                                                            "rgkit"))


def pin_one_core() -> str:
    """Restrict this process to one CPU (Linux); returns a description."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return f"pinned to CPU {cpus[-1]}"
    except (AttributeError, OSError):
        return "not pinned (no sched_setaffinity)"


def play_games(bot: str, games: int, rs, config, native: bool = True) -> tuple[int, int]:
    """Play ``games`` full games of ``bot`` against itself; returns (robot-actions, turns).
    ``native=False``: the bots answer the P11 view dict with P12 payloads that are parsed."""
    actions = turns = 0
    cls = BUILTIN[bot]
    for g in range(games):
        m = Match(rs, config, {"p1": CallableAgent(cls()), "p2": CallableAgent(cls())}, seed=g, native=native)
        m.start_agents()
        while m.outcome() is None:
            actions += len(m.state.robots)
            m.step()
            turns += 1
    return actions, turns


def play_bare(bot: str, games: int, rs, config) -> int:
    """The ceiling of any per-match loop: ``games`` games of ``bot`` against itself with the
    native observation, the bot and ``resolve`` only — no referee, clock, checks or record.
    Returns robot-actions."""
    actions = 0
    cls = BUILTIN[bot]
    for g in range(games):
        state = rs.setup(config, ["p1", "p2"], g)
        bots = {s: cls() for s in ("p1", "p2")}
        for s, b in bots.items():
            b.start(rs.id, s, config, rs.agent_seed(g, s))
        while rs.outcome(state) is None:
            actions += len(state.robots)
            state, _ = rs.resolve(state, {s: bots[s].act_native(rs.native_view(state, s)) for s in rs.pending(state)})
    return actions


def collect_orders(bot: str, rs, config) -> list:
    """One game's (state, accepted orders) pairs, for the resolve-only measurement (played
    through the referee; only the measurement itself calls ``resolve`` directly)."""
    cls = BUILTIN[bot]
    agents = {"p1": CallableAgent(cls()), "p2": CallableAgent(cls())}
    ref = Referee(rs, config, list(agents), 0, clock=False, history=False)
    for seat, a in agents.items():
        a.start(rs.id, seat, config, rs.agent_seed(0, seat))
    out = []
    while not ref.over:
        state = ref.state
        for s in ref.pending():
            ref.submit(s, agents[s].act(ref.view(s), None), 0.0)
        out.append((state, {s: ref.settled(s).orders for s in ref.pending()}))
        ref.resolve_point()
    return out


def measure(bot: str, runs: int, seconds: float, rs, config) -> dict:
    """Median robot-actions/s and games/s over ``runs`` runs of about ``seconds`` each."""
    t0 = CLOCK()
    a, t = play_games(bot, 3, rs, config)  # warm-up and calibration
    per_game = (CLOCK() - t0) / 3
    games = max(3, int(seconds / per_game))
    aps, gps, japs, baps = [], [], [], []
    for _ in range(runs):
        t0 = CLOCK()
        a, t = play_games(bot, games, rs, config)
        dt = CLOCK() - t0
        aps.append(a / dt)
        gps.append(games / dt)
        t0 = CLOCK()
        ja, _ = play_games(bot, games, rs, config, native=False)
        japs.append(ja / (CLOCK() - t0))
        t0 = CLOCK()
        ba = play_bare(bot, games, rs, config)
        baps.append(ba / (CLOCK() - t0))
    pairs = collect_orders(bot, rs, config)
    acts = sum(len(s.robots) for s, _ in pairs)
    core = []
    reps = max(1, int(seconds / max(1e-9, per_game) / 2))
    for _ in range(runs):
        t0 = CLOCK()
        for _ in range(reps):
            for s, o in pairs:
                rs.resolve(s, o)
        core.append(acts * reps / (CLOCK() - t0))
    per_turn = a / t  # robot-actions per turn (the same games every run)
    loop_us = per_turn / statistics.median(aps) * 1e6
    core_us = per_turn / statistics.median(core) * 1e6
    return {"bot": f"builtin:{bot}", "games_per_run": games, "robot_actions_per_game": a / games,
            "robot_actions_per_turn": per_turn, "loop_us_per_turn": loop_us, "resolve_us_per_turn": core_us,
            "loop_beyond_resolve_us_per_turn": loop_us - core_us,
            "robot_actions_per_s": statistics.median(aps), "games_per_s": statistics.median(gps),
            "json_path_robot_actions_per_s": statistics.median(japs),
            "bare_loop_robot_actions_per_s": statistics.median(baps),
            "resolve_only_robot_actions_per_s": statistics.median(core), "runs": runs}


def measure_batch(runs: int, batch: int, config) -> dict:
    """The batched NumPy engine (:mod:`botwars.games.arena.batch`): ``batch`` defender-vs-defender
    games of 100 turns stepped together; the orders array is rebuilt from the boards every turn
    (the defender bot as an array expression)."""
    import numpy as np
    from botwars.games.arena.batch import DEFEND, BatchArena
    aps, gps = [], []
    for _ in range(runs):
        b = BatchArena(config, batch)
        actions = 0
        t0 = CLOCK()
        while not b.over.all():
            orders = np.where(b.owner > 0, DEFEND, 0).astype(np.int8)
            actions += b.robots_in_play()
            b.step(orders)
        dt = CLOCK() - t0
        aps.append(actions / dt)
        gps.append(batch / dt)
    return {"bot": f"batch[{batch}] defender", "robot_actions_per_s": statistics.median(aps),
            "games_per_s": statistics.median(gps), "resolve_only_robot_actions_per_s": float("nan"),
            "json_path_robot_actions_per_s": float("nan"), "bare_loop_robot_actions_per_s": float("nan"),
            "loop_beyond_resolve_us_per_turn": float("nan"), "runs": runs}


def rgkit_games(games: int) -> tuple[int, float]:
    """``games`` games of rgkit's own engine, ``guardbot`` against itself (rgkit's default map and
    settings); returns (robot-actions, CPU seconds). A robot-action is one robot in play at the
    start of one turn, as for botwars (the sum over turns of rgkit's state's robots)."""
    if not os.path.isfile(os.path.join(RGKIT, "rgkit", "game.py")):
        sys.exit(f"rgkit's sources are not at {RGKIT}: set BOTWARS_RGKIT_SRC to the rgkit checkout, or pass --no-rgkit")
    if RGKIT not in sys.path:
        sys.path.insert(0, RGKIT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from rgkit import game as rgame
        from rgkit.settings import settings
    with open(os.path.join(RGKIT, "rgkit", "maps", "default.py")) as f:
        settings.init_map(ast.literal_eval(f.read()))
    bot = os.path.join(RGKIT, "rgkit", "bots", "guardbot.py")
    actions = 0
    t0 = CLOCK()
    for g in range(games):
        gm = rgame.Game([rgame.Player(file_name=bot), rgame.Player(file_name=bot)], seed=g)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            gm.run_all_turns()
        actions += sum(len(gm.get_state(t).robots) for t in range(settings.max_turns))
    return actions, CLOCK() - t0


def measure_rgkit(runs: int, seconds: float) -> dict:
    """Median robot-actions per second of rgkit's engine, guard vs guard (:func:`rgkit_games`)."""
    a, dt = rgkit_games(2)  # warm-up (imports, the map) and calibration
    games = max(2, int(seconds / max(1e-6, dt / 2)))
    aps = []
    for _ in range(runs):
        a, dt = rgkit_games(games)
        aps.append(a / dt)
    return {"bot": "rgkit guardbot vs guardbot", "games_per_run": games, "robot_actions_per_s": statistics.median(aps),
            "runs": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description="Arena engine throughput (robot-actions/s, games/s).")
    ap.add_argument("--runs", type=int, default=5, help="runs per bot; the median is reported (>= 5)")
    ap.add_argument("--seconds", type=float, default=2.0, help="approximate length of one run")
    ap.add_argument("--bots", default="defender,hunter", help="comma-separated built-in arena bots")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--wall", action="store_true", help="measure wall-clock instead of CPU time")
    ap.add_argument("--batch", type=int, default=1000,
                    help="games stepped together by the batched NumPy engine (0 to skip)")
    ap.add_argument("--no-rgkit", action="store_true", help="skip rgkit's own engine (guard vs guard)")
    args = ap.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter
    if args.runs < 5:
        ap.error("--runs must be at least 5")
    pinned = pin_one_core()
    rs = get_ruleset("arena")
    config = rs.validate_config({})
    bots = args.bots.split(",")
    if not args.no_rgkit and "defender" not in bots:
        bots.insert(0, "defender")  # the guard, compared with rgkit's guardbot
    results = [measure(b, args.runs, args.seconds, rs, config) for b in bots]
    if args.batch:
        results.append(measure_batch(args.runs, args.batch, config))
    info = {"python": sys.version.split()[0], "machine": platform.processor() or platform.machine(),
            "cpu": pinned, "clock": "wall" if args.wall else "process CPU time", "results": results}
    if not args.no_rgkit:
        rg = measure_rgkit(args.runs, args.seconds)
        guard = next(r for r in results if r["bot"] == "builtin:defender")
        info["rgkit"] = {**rg, "botwars_guard_robot_actions_per_s": guard["robot_actions_per_s"],
                         "ratio": guard["robot_actions_per_s"] / rg["robot_actions_per_s"]}
    if args.json:
        print(json.dumps(info))
        return
    print(f"arena throughput, Python {info['python']}, {pinned}, {info['clock']}, median of {args.runs} runs")
    print(f"{'bots (self-play)':<22}{'robot-actions/s':>16}{'games/s':>10}{'resolve only':>14}{'ratio':>7}"
          f"{'JSON path':>12}{'ratio':>7}{'bare loop':>12}{'ratio':>7}")
    for r in results:
        core = r["resolve_only_robot_actions_per_s"]
        print(f"{r['bot']:<22}{r['robot_actions_per_s']:>16,.0f}{r['games_per_s']:>10,.1f}{core:>14,.0f}"
              f"{r['robot_actions_per_s'] / core:>7.1%}{r['json_path_robot_actions_per_s']:>12,.0f}"
              f"{r['json_path_robot_actions_per_s'] / core:>7.1%}{r['bare_loop_robot_actions_per_s']:>12,.0f}"
              f"{r['bare_loop_robot_actions_per_s'] / core:>7.1%}")
    print("CPU time per turn beyond resolve (the views, the bots, Match and the referee), per two-seat turn:")
    for r in results:
        if r["loop_beyond_resolve_us_per_turn"] == r["loop_beyond_resolve_us_per_turn"]:  # not NaN
            print(f"  {r['bot']:<20} {r['loop_beyond_resolve_us_per_turn']:6.1f} us  (loop {r['loop_us_per_turn']:.1f} us, "
                  f"resolve {r['resolve_us_per_turn']:.1f} us, {r['robot_actions_per_turn']:.1f} robots a turn)")
    if "rgkit" in info:
        rg = info["rgkit"]
        print(f"per core, guard vs guard: botwars (builtin:defender, Match + referee) "
              f"{rg['botwars_guard_robot_actions_per_s']:,.0f} robot-actions/s, rgkit's engine (guardbot) "
              f"{rg['robot_actions_per_s']:,.0f} robot-actions/s: {rg['ratio']:.1f}x (target: at least 5x)")


if __name__ == "__main__":
    main()
