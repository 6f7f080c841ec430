"""Strength of the search bots (issue 16 item 4) against a built-in bot, through ``Match``.

    PYTHONPATH=src python benchmarks/search_strength.py GAME [--games 200] [--opponent NAME]
        [--simulations N] [--set KEY=VALUE ...] [--first 0] [--json]
    PYTHONPATH=src python benchmarks/search_strength.py GAME --baseline A B [--games 40]
    PYTHONPATH=src python benchmarks/search_strength.py --summarize OUTPUT...   # a run's lines so far

Plays seeded two-player games (seeds ``first .. first+games-1``), seat orders alternated: the
search bot takes the first seat on even seeds and the second on odd ones. Each game is played by
the one referee (``botwars.engine.Match``, clock off). A draw counts as half a win, everywhere:
the JSON ``rate``, the printed rate and ``--summarize`` are all (wins + draws/2) / games, with the
95 % Wilson interval (``statsmodels.stats.proportion.proportion_confint(method="wilson")``) of
that same score (:func:`win_rate`). ``--baseline A B`` plays two existing built-ins
against each other instead (to find the strongest). Deterministic: same arguments, same games.
Not a test: a measurement (docs/benchmarks.md, "Search bots").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any

from statsmodels.stats.proportion import proportion_confint

from botwars.agents.spec import make_agent
from botwars.engine.agent import CallableAgent
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset

#: The search bot of each game: its class (built with the simulation budget) and its spec name.
SEARCH = {
    "dadoed": ("botwars.games.dadoed.search", "MctsBot", "mcts"),
    "submarine": ("botwars.games.submarine.search", "IsmctsBot", "mcts"),
    "factory": ("botwars.games.factory.search", "PlannerBot", "planner"),
    "geeko": ("botwars.games.geeko.search", "PlannerBot", "planner"),
}
#: The strongest existing built-in of each game (see docs/benchmarks.md for the baseline runs).
STRONGEST = {"dadoed": "greedy", "submarine": "hunter", "factory": "pathfinder", "geeko": "pathfinder"}


def search_agent(game: str, simulations: int | None) -> CallableAgent:
    """The game's search bot with ``simulations`` (``None``: its default budget)."""
    mod, cls, name = SEARCH[game]
    klass = getattr(__import__(mod, fromlist=[cls]), cls)
    bot = klass() if simulations is None else klass(simulations=simulations)
    return CallableAgent(bot, f"builtin:{name}")


def parse_sets(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for it in items:
        k, _, v = it.partition("=")
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    return out


def win_rate(wins: int, draws: int, games: int) -> tuple[float, float, float]:
    """(rate, low, high): the score rate (wins + draws/2) / games and its 95 % Wilson interval,
    computed on the same score (a draw is half a win in the rate and in the interval)."""
    if games <= 0:
        raise ValueError("no games")
    score = wins + draws / 2
    lo, hi = proportion_confint(score, games, alpha=0.05, method="wilson")
    return score / games, float(lo), float(hi)


def rate_text(wins: int, draws: int, games: int) -> str:
    """The printed summary: counts, the score rate and its interval (:func:`win_rate`)."""
    rate, lo, hi = win_rate(wins, draws, games)
    return (f"{wins} wins, {draws} draws, {games - wins - draws} losses in {games} games; "
            f"win rate {rate:.1%} (draws count half; 95% Wilson {lo:.1%}-{hi:.1%})")


def play(game: str, games: int, first: int, cfg_over: dict[str, Any], make_a, make_b) -> dict[str, Any]:
    """Play ``games`` games of A (``make_a()``) against B; A sits first on even seeds."""
    rs = get_ruleset(game)
    cfg = rs.validate_config(cfg_over)
    seats = rs.seat_names(2)
    wins = draws = 0
    reasons: Counter[str] = Counter()
    t0 = time.perf_counter()
    for seed in range(first, first + games):
        a_seat = seats[seed % 2]
        agents = {s: (make_a() if s == a_seat else make_b()) for s in seats}
        res = Match(rs, cfg, agents, seed, clock=False).run()
        w = res.outcome.winner
        wins += w == a_seat
        draws += w is None
        reasons[str(res.outcome.reason)] += 1
        print(f"seed {seed:4d} A={a_seat:<6} winner={w or 'draw':<6} {res.outcome.reason!s:<16} "
              f"turns={res.turns}", flush=True)
    n = games
    rate, lo, hi = win_rate(wins, draws, n)
    return {"game": game, "games": n, "wins": wins, "draws": draws, "losses": n - wins - draws,
            "rate": rate, "wilson95": [round(lo, 4), round(hi, 4)],
            "reasons": dict(sorted(reasons.items())), "seconds": round(time.perf_counter() - t0, 1),
            "config": cfg_over}


def summarize(path: str) -> str:
    """The win rate and Wilson interval of the per-game lines in a (possibly unfinished) run's output."""
    wins = draws = n = 0
    with open(path, encoding="utf-8") as fh:
        lines = [line for line in fh if line.startswith("seed ")]
    for line in lines:
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        n += 1
        wins += fields["winner"] == fields["A"]
        draws += fields["winner"] == "draw"
    if n == 0:
        return f"{path}: no games"
    return f"{path}: {rate_text(wins, draws, n)}"


def main(argv: list[str] | None = None) -> None:
    if argv and argv[0] == "--summarize":
        for path in argv[1:]:
            print(summarize(path))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", choices=sorted(SEARCH))
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument("--opponent", default=None, help="built-in bot name (default: the strongest)")
    ap.add_argument("--simulations", type=int, default=None, help="search budget (default: the bot's)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="game parameter")
    ap.add_argument("--baseline", nargs=2, metavar=("A", "B"), help="play built-in A against built-in B")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cfg = parse_sets(args.set)
    g = args.game
    if args.baseline:
        a, b = args.baseline
        out = play(g, args.games, args.first, cfg, lambda: make_agent(f"builtin:{a}", g),
                   lambda: make_agent(f"builtin:{b}", g))
        out["a"], out["b"] = a, b
    else:
        opp = args.opponent or STRONGEST[g]
        out = play(g, args.games, args.first, cfg, lambda: search_agent(g, args.simulations),
                   lambda: make_agent(f"builtin:{opp}", g))
        out["a"], out["b"], out["simulations"] = SEARCH[g][2], opp, args.simulations
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{g}: {out['a']} vs {out['b']}: {rate_text(out['wins'], out['draws'], out['games'])}; "
              f"reasons {out['reasons']}; {out['seconds']} s")


if __name__ == "__main__":
    main(sys.argv[1:])
