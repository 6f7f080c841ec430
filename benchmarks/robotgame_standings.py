"""RobotGame standings: botwars' ``rules=robotgame`` against rgkit's own engine (issue 28 item 1; not a test).

The same round robin of unmodified RobotGame bots is played twice per seed:

- **rgkit**: rgkit's own engine (``rgkit.game.Game`` with ``rgkit.game.Player``, in process, on
  rgkit's default map and settings), every pair ``--games`` games in each seat order, game seeds
  drawn from the seed;
- **botwars**: ``botwars tournament`` in process (:class:`botwars.league.tournament.Tournament`,
  the local backend with ``--workers`` processes, sandboxed ``rgkit:`` hosts), with the overrides
  the CLI gives when every seat is an ``rgkit:`` bot (:func:`botwars.agents.spec.implied_overrides`:
  ``rules=robotgame``), ``--games`` games per pair in each seat order.

A bot's standing is its points (a win 1, a draw 1/2). Printed per seed: both standings, the
Spearman rank correlation of the points (``scipy.stats.spearmanr``, ties averaged), and the
number of pairs whose winner (more points in their games; equal: a tie) is the same in both.
Target (issue 28): Spearman ≥ 0.97 and the same winner in ≥ 26 of 28 pairs for 8 bots.

By default rgkit plays the tournament's own match seeds (the same pairs, seat orders and seeds),
so the two standings are compared match for match: the variant's view carries the act seed
rgkit's runner would draw and rgkit's robot ids, so even bots that call ``random`` play the same
game (``identical_results`` counts the games whose scores agree). ``--independent-seeds`` gives
rgkit games of its own seeds instead (the two games compared in distribution).

The bots: rgkit's four (``rgkit/bots``: guardbot, randombot, team_15, team_2) and
``examples/robot.py``. Usage:

    PYTHONPATH=src python benchmarks/robotgame_standings.py [--seeds 1 2] [--games 2] [--workers 2] [--json] [--independent-seeds] [--bots FILE ...]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import itertools
import json
import os
import random
import re
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RGKIT = os.environ.get("BOTWARS_RGKIT_SRC") or os.path.abspath(os.path.join(ROOT, "..", "..", "shared", "peers",
                                                                             "rgkit"))
if not os.path.isdir(RGKIT):
    RGKIT = os.path.join(ROOT, "tests", "peers", "rgkit")


def bot_files() -> dict[str, str]:
    """Bot name → file: rgkit's four bots and the example bot."""
    bots = {n: os.path.join(RGKIT, "rgkit", "bots", f"{n}.py") for n in ("guardbot", "randombot", "team_15", "team_2")}
    bots["example_robot"] = os.path.join(ROOT, "examples", "robot.py")
    return bots


def play_rgkit(bots: dict[str, str], seed: int, games: int,
               seeds: list[tuple[str, str, int]] | None = None) -> list[tuple[str, str, int, int]]:
    """Every pair, ``games`` games in each seat order, in rgkit's engine: ``(first, second,
    first's robots, second's robots)`` per game (rgkit's ``get_scores``). ``seeds``: the games to
    play, ``(first, second, match seed)`` each (the botwars tournament's own, so that both
    engines play the same matches); ``None``: game seeds drawn from ``seed``."""
    sys.path.insert(0, RGKIT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from rgkit import game as rgame
        from rgkit.settings import settings
    sys.path.remove(RGKIT)
    with open(os.path.join(RGKIT, "rgkit", "maps", "default.py")) as f:
        settings.init_map(ast.literal_eval(f.read()))
    if seeds is None:
        rng = random.Random(f"rgkit-round-robin:{seed}")
        seeds = [(first, second, rng.randint(0, settings.max_seed))
                 for a, b in itertools.combinations(sorted(bots), 2) for first, second in ((a, b), (b, a))
                 for _ in range(games)]
    out = []
    for first, second, game_seed in seeds:
        players = [rgame.Player(file_name=bots[first]), rgame.Player(file_name=bots[second])]
        g = rgame.Game(players, seed=game_seed)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            g.run_all_turns()
        s = g.get_scores()
        out.append((first, second, s[0], s[1]))
    return out


def play_botwars(bots: dict[str, str], seed: int, games: int,
                 workers: int) -> tuple[list[tuple[str, str, int, int]], str, list[tuple[str, str, int]]]:
    """The same round robin as ``botwars tournament arena rgkit:... --games-per-pair GAMES``:
    per match ``(first, second, first's robots, second's robots)``, the CLI's note, and per
    match ``(first, second, match seed)``."""
    from botwars.agents.spec import implied_overrides
    from botwars.league.backends import make_backend
    from botwars.league.tournament import Tournament, TournamentSettings
    specs = [f"rgkit:{bots[n]}" for n in sorted(bots)]
    name = {f"rgkit:{bots[n]}": n for n in bots}
    overrides, note = implied_overrides("arena", specs, {})
    with tempfile.TemporaryDirectory(prefix="botwars-rg-") as out_dir:
        t = Tournament(TournamentSettings("arena", specs, "round-robin", games, seed, None, None, overrides, True),
                       out_dir)
        t.run(make_backend("local", workers, None), lambda report, stored: None)
        _, matches = t.standings()
        t.close()
    out = []
    seeds = []
    for m in matches:
        if m["status"] != "ok":
            raise SystemExit(f"a botwars match was not played: {m['error_detail']}")
        s1, s2 = m["seats"]
        robots = m["outcome"]["details"]["robots"]
        out.append((name[m["agents"][0]], name[m["agents"][1]], robots[s1], robots[s2]))
        seeds.append((name[m["agents"][0]], name[m["agents"][1]], int(m["seed"])))
    return out, note, seeds


def points(results: list[tuple[str, str, int, int]]) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    """``(points per bot, points of the first-named bot per sorted pair minus the other's)``."""
    pts: dict[str, float] = {}
    pair: dict[tuple[str, str], float] = {}
    for a, b, sa, sb in results:
        win_a = 1.0 if sa > sb else 0.5 if sa == sb else 0.0
        pts[a] = pts.get(a, 0.0) + win_a
        pts[b] = pts.get(b, 0.0) + 1.0 - win_a
        key, sign = ((a, b), 1) if a < b else ((b, a), -1)
        pair[key] = pair.get(key, 0.0) + sign * (2 * win_a - 1)
    return pts, pair


def compare(rg: list, bw: list) -> dict:
    """Spearman of the points and the pairs with the same winner (sign of the points difference)."""
    from scipy.stats import spearmanr
    p_rg, pair_rg = points(rg)
    p_bw, pair_bw = points(bw)
    names = sorted(p_rg)
    rho = float(spearmanr([p_rg[n] for n in names], [p_bw[n] for n in names]).statistic)

    def sign(v: float) -> int:
        return (v > 0) - (v < 0)

    same = sum(sign(pair_rg[k]) == sign(pair_bw[k]) for k in pair_rg)
    return {"spearman": round(rho, 4), "same_winner": same, "pairs": len(pair_rg),
            "points_rgkit": {n: p_rg[n] for n in names}, "points_botwars": {n: p_bw[n] for n in names},
            "differing_pairs": [f"{k[0]}-{k[1]}: rgkit {pair_rg[k]:+g}, botwars {pair_bw[k]:+g}"
                                for k in sorted(pair_rg) if sign(pair_rg[k]) != sign(pair_bw[k])]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--games", type=int, default=2, help="games per pair in each seat order (each engine)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--independent-seeds", action="store_true",
                    help="rgkit plays games of its own seeds (drawn from --seeds) instead of the tournament's "
                         "match seeds: compares the two games in distribution, not match for match")
    ap.add_argument("--bots", nargs="+", metavar="FILE",
                    help="the RobotGame bot files to play (default: rgkit's four and examples/robot.py); e.g. public "
                         "bots from github.com/mpeterv/robotgame-bots (docs/benchmarks.md says which eight)")
    args = ap.parse_args()
    bots = bot_files() if not args.bots else {
        re.sub(r"\W+", "_", os.path.splitext(os.path.basename(f))[0]).strip("_"): os.path.abspath(f) for f in args.bots}
    if args.bots and len(bots) != len(args.bots):
        ap.error("two --bots files have the same name")
    report = {"bots": sorted(bots), "games_per_pair_each_order": args.games, "seeds": {}}
    for seed in args.seeds:
        t1 = time.perf_counter()
        bw, note, seeds = play_botwars(bots, seed, args.games, args.workers)
        t2 = time.perf_counter()
        rg = play_rgkit(bots, seed, args.games, None if args.independent_seeds else seeds)
        t3 = time.perf_counter()
        res = compare(rg, bw)
        same_games = None if args.independent_seeds else sum(a == b for a, b in zip(rg, bw))
        res.update({"games_each": len(rg), "rgkit_wall_s": round(t3 - t2, 1), "botwars_wall_s": round(t2 - t1, 1),
                    "botwars_note": note, "same_seeds": not args.independent_seeds, "identical_results": same_games})
        report["seeds"][seed] = res
        if not args.json:
            games = (f"{len(rg)} games each on the tournament's match seeds, {same_games} with the same result"
                     if same_games is not None else f"{len(rg)} games each (independent seeds)")
            print(f"seed {seed}: {games}; Spearman {res['spearman']:.3f}; same winner in "
                  f"{res['same_winner']} of {res['pairs']} pairs (rgkit {res['rgkit_wall_s']:.0f} s, botwars "
                  f"{res['botwars_wall_s']:.0f} s with {args.workers} workers)")
            for n in sorted(bots, key=lambda n: -res["points_rgkit"][n]):
                print(f"  {n:14} rgkit {res['points_rgkit'][n]:5.1f}  botwars {res['points_botwars'][n]:5.1f}")
            for d in res["differing_pairs"]:
                print(f"  differs: {d}")
    if args.json:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
