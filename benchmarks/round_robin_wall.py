"""An 8-bot RobotGame round robin in wall time: ``botwars tournament`` against rgkit's own runner
(issue 28 item 3; not a test).

- **rgkit**: its own command-line runner (``python -m rgkit.run BOT OPPONENT... -H -c N``, which
  plays each pairing's N games in a ``multiprocessing`` pool of one process per CPU), once per
  bot against every later bot, N = 2 × ``--games-per-pair`` (rgkit's runner does not swap
  seats, so each pairing plays as many games as botwars plays in both seat orders);
- **botwars**: ``botwars tournament arena rgkit:BOT... --games-per-pair G --workers W`` with the
  sandbox (every bot checked first, hosts kept), which plays every pairing G games in each seat
  order on RobotGame's rules (``rules=robotgame``, implied for ``rgkit:`` bots).

Both play 28 pairings × 2G games for 8 bots. Prints both walls and the ratio (rgkit ÷ botwars;
target ≥ 3). Bots: any RobotGame bot files (``--bots``; default rgkit's four and
``examples/robot.py``). Usage::

    PYTHONPATH=src python benchmarks/round_robin_wall.py --bots bots/*.py --games-per-pair 2 --workers 2
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RGKIT = os.path.join(ROOT, "tests", "peers", "rgkit")  # the engine and bots (no runner)
RUNNER = os.path.join(os.path.dirname(ROOT), "shared", "peers", "rgkit")  # rgkit whole, with its run.py


def default_bots() -> list[str]:
    """rgkit's four bots and the example bot."""
    return [os.path.join(RGKIT, "rgkit", "bots", f"{n}.py") for n in ("guardbot", "randombot", "team_15", "team_2")] + [
        os.path.join(ROOT, "examples", "robot.py")]


def rgkit_wall(bots: list[str], games: int, rgkit_dir: str) -> float:
    """Seconds for rgkit's own runner (``rgkit_dir``: a checkout with ``rgkit/run.py``) to play
    every pairing ``games`` times."""
    if not os.path.isfile(os.path.join(rgkit_dir, "rgkit", "run.py")):
        sys.exit(f"--rgkit {rgkit_dir}: no rgkit/run.py there (give a checkout of rgkit)")
    env = {**os.environ, "PYTHONPATH": rgkit_dir}
    t0 = time.perf_counter()
    for i, bot in enumerate(bots[:-1]):
        r = subprocess.run([sys.executable, "-m", "rgkit.run", bot, *bots[i + 1:], "-H", "-c", str(games)],
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"rgkit's runner failed on {bot}: {r.stderr[-500:]}")
    return time.perf_counter() - t0


def botwars_wall(bots: list[str], games_per_pair: int, workers: int) -> tuple[float, str]:
    """Seconds for ``botwars tournament`` to play the same round robin; and its last line."""
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src") + os.pathsep + RGKIT}
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "botwars.cli", "tournament", "arena", *[f"rgkit:{b}" for b in bots],
                            "--games-per-pair", str(games_per_pair), "--workers", str(workers), "--out", out],
                           env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"botwars tournament failed ({r.returncode}): {(r.stderr or r.stdout)[-800:]}")
    return wall, (r.stdout.strip().splitlines() or [""])[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bots", nargs="+", metavar="FILE", help="RobotGame bot files (default: rgkit's four and examples/robot.py)")
    ap.add_argument("--games-per-pair", type=int, default=2, help="botwars: games per pairing in each seat order")
    ap.add_argument("--workers", type=int, default=2, help="botwars tournament --workers")
    ap.add_argument("--rgkit", default=RUNNER, help="an rgkit checkout with its runner (default: ../shared/peers/rgkit)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    bots = [os.path.abspath(b) for b in (args.bots or default_bots())]
    pairs = len(list(itertools.combinations(bots, 2)))
    games = pairs * 2 * args.games_per_pair
    rg = rgkit_wall(bots, 2 * args.games_per_pair, args.rgkit)
    bw, last = botwars_wall(bots, args.games_per_pair, args.workers)
    res = {"bots": len(bots), "pairs": pairs, "games_each": games, "rgkit_wall_s": round(rg, 1),
           "botwars_wall_s": round(bw, 1), "ratio": round(rg / bw, 2), "cpus": os.cpu_count(), "workers": args.workers}
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{len(bots)} bots, {pairs} pairings, {games} games each: rgkit's runner {rg:.1f} s, botwars tournament "
              f"{bw:.1f} s with --workers {args.workers} ({rg / bw:.2f}× rgkit's wall; target ≥ 3×)")


if __name__ == "__main__":
    main()
