"""Benchmark: median time to resolve one full factory turn (five stages, end of turn and the
next deal) with 8 robots on the largest shipped board.

    PYTHONPATH=src python benchmarks/factory_turn.py [--board gauntlet] [--turns 300] [--games 10]

Orders come from the ``random`` bot and are parsed before the clock starts; only
``FactoryRuleset.resolve`` is timed, both in wall-clock time and in CPU time of this process
(the CPU figure is the one to trust on a shared, loaded machine).  Prints the median, mean
and 90th percentile in ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from botwars.engine.ruleset import get_ruleset
from botwars.games.factory.board import load_board, shipped_boards
from botwars.games.factory.bots import RandomBot


def largest_board() -> str:
    return max(shipped_boards(), key=lambda n: (lambda b: b.rows * b.cols)(load_board(n)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default=None, help="board name (default: the largest shipped board)")
    ap.add_argument("--turns", type=int, default=300, help="turns timed in all")
    ap.add_argument("--games", type=int, default=10, help="games (seeds) the turns are spread over")
    ap.add_argument("--players", type=int, default=8)
    args = ap.parse_args()
    rs = get_ruleset("factory")
    board = args.board or largest_board()
    cfg = rs.validate_config({"board": board, "turn_limit": 1000})
    seats = rs.seat_names(args.players)
    times: list[float] = []
    cpu: list[float] = []
    per_game = max(1, args.turns // args.games)
    for g in range(args.games):
        st = rs.setup(cfg, seats, g)
        bots = {s: RandomBot() for s in seats}
        for s, b in bots.items():
            b.start("factory", s, cfg, g)
        for _ in range(per_game):
            if st.over:
                break
            orders = {s: rs.parse_orders(st, s, bots[s].act(rs.view(st, s))) for s in rs.pending(st)}
            c0 = time.process_time()
            t0 = time.perf_counter()
            st, _ = rs.resolve(st, orders)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    for label, xs in (("wall", times), ("cpu", cpu)):
        ms = sorted(t * 1000 for t in xs)
        print(f"board {board}, {args.players} robots, {len(ms)} turns, {label}: median {statistics.median(ms):.3f} ms, "
              f"mean {statistics.fmean(ms):.3f} ms, p90 {ms[int(len(ms) * 0.9)]:.3f} ms")


if __name__ == "__main__":
    main()
