"""How many turns the geeko ``pathfinder`` needs for the five rooms (G-1.2), solo, per seed.

    PYTHONPATH=src python benchmarks/geeko_pathfinder.py --seeds 20 [--first 1] [--jobs 2]

Prints one line per seed (turns, or how far it got at the turn limit) and the median and range
of the finishing turns.
"""

from __future__ import annotations

import argparse
import statistics
from concurrent.futures import ProcessPoolExecutor


def run(seed: int) -> tuple[int, int | None, int, int]:
    from botwars.engine.ruleset import get_ruleset
    rs = get_ruleset("geeko")
    gs = rs.setup(rs.validate_config({}), ["p1"], seed)
    from botwars.engine.plugin import get_game
    bot = get_game("geeko").builtin_bots()["pathfinder"]()
    bot.start("geeko", "p1", {}, seed)
    while not gs.over:
        order = rs.parse_orders(gs, "p1", bot.act(rs.view(gs, "p1")))
        gs, _ = rs.resolve(gs, {"p1": order})
    r = gs.runs[0]
    return seed, r.finished, r.rooms_done(), r.lost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    seeds = list(range(a.first, a.first + a.seeds))
    with ProcessPoolExecutor(a.jobs) as ex:
        results = list(ex.map(run, seeds))
    done = []
    for seed, turns, rooms, lost in results:
        print(f"seed {seed:3d}: " + (f"finished in {turns} turns" if turns else f"unfinished, {rooms} rooms")
              + f", {lost} robots lost")
        if turns:
            done.append(turns)
    print(f"finished {len(done)}/{len(results)}", end="")
    if done:
        print(f"; turns median {statistics.median(done):g}, range {min(done)}-{max(done)}")
    else:
        print()
    unf = [rooms for _, t, rooms, _ in results if not t]
    if unf:
        print(f"unfinished runs completed rooms: {sorted(unf)}")


if __name__ == "__main__":
    main()
