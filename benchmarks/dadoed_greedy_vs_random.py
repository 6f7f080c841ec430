"""Greedy vs random in DADOED: N seeded games, seats alternating (greedy is Blue on even seeds).

Usage: PYTHONPATH=src python benchmarks/dadoed_greedy_vs_random.py [N]   (default 100)

Prints one line per game and the greedy win rate. Deterministic: same N, same numbers.
Not a test (it is a measurement); tests/dadoed/test_rules.py checks a 10-game sample.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset


def main(n: int = 100) -> float:
    rs = get_ruleset("dadoed")
    cfg = rs.validate_config({})
    wins = 0
    reasons: Counter[str] = Counter()
    turns = 0
    t0 = time.perf_counter()
    for seed in range(n):
        greedy = "blue" if seed % 2 == 0 else "orange"
        agents = {s: make_agent("builtin:greedy" if s == greedy else "builtin:random", "dadoed")
                  for s in ("blue", "orange")}
        res = Match(rs, cfg, agents, seed, clock=False).run()
        won = res.outcome.winner == greedy
        wins += won
        reasons[res.outcome.reason] += 1
        turns += res.turns
        print(f"seed {seed:3d} greedy={greedy:<6} winner={res.outcome.winner or 'draw':<6} "
              f"{res.outcome.reason:<15} turns={res.turns}")
    rate = wins / n
    print(f"greedy won {wins}/{n} = {rate:.0%} (reasons {dict(sorted(reasons.items()))}, "
          f"mean {turns / n:.1f} turns, {time.perf_counter() - t0:.1f} s)")
    return rate


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
