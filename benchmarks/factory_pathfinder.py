"""How often ``pathfinder`` touches flag 1 within 10 turns on the example board.

    PYTHONPATH=src python benchmarks/factory_pathfinder.py [--seeds 50] [--turns 10] [--opponents random]

Plays one game per seed (0..seeds-1): seat p1 is ``builtin:pathfinder``, the other seats the
given built-in bots; counts the games in which p1 tagged flag 1 by the end of turn ``--turns``.
"""

from __future__ import annotations

import argparse

from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset


def run(seeds: int, turns: int, opponents: list[str], board: str) -> tuple[int, list[int]]:
    rs = get_ruleset("factory")
    cfg = rs.validate_config({"board": board, "turn_limit": turns})
    specs = ["builtin:pathfinder"] + [f"builtin:{o}" for o in opponents]
    seats = rs.seat_names(len(specs))
    hits = 0
    first_turn: list[int] = []
    for seed in range(seeds):
        m = Match(rs, cfg, {s: make_agent(a, "factory") for s, a in zip(seats, specs)}, seed, clock=False)
        m.start_agents()
        tagged = None
        while m.outcome() is None:
            m.step()
            if tagged is None and m.state.players[0].next_flag > 1:
                tagged = m.state.turn
        if tagged is not None:
            hits += 1
            first_turn.append(tagged)
    return hits, first_turn


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--turns", type=int, default=10)
    ap.add_argument("--board", default="assembly-hall")
    ap.add_argument("--opponents", nargs="*", default=["random"])
    args = ap.parse_args()
    hits, turns = run(args.seeds, args.turns, args.opponents, args.board)
    avg = sum(turns) / len(turns) if turns else float("nan")
    print(f"pathfinder vs {args.opponents or 'nobody'} on {args.board}: flag 1 within {args.turns} turns in "
          f"{hits}/{args.seeds} seeds ({100 * hits / args.seeds:.0f}%), mean turn of the tag {avg:.1f}")


if __name__ == "__main__":
    main()
