"""Win rate of ``builtin:swarm`` against ``builtin:hunter`` over seeded arena games (not a test).

Seats alternate: even games swarm is player 1, odd games player 2. ``hunter`` and ``swarm`` are
deterministic, so without help only two distinct games exist; as in engine testing, each game
therefore starts with a seeded random opening: for the first ``--opening`` turns (default 3)
both seats play the ``random`` bot seeded from the game's seed, then the bots take over.
Usage:

    PYTHONPATH=src python benchmarks/arena_swarm_vs_hunter.py [--games 100] [--opening 3] [--a swarm] [--b hunter]
"""

from __future__ import annotations

import argparse

from botwars.agents.base import CallableAgent
from botwars.engine.match import Match
from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.bots import BUILTIN, RandomBot


class Opening:
    """Plays ``RandomBot`` for the first ``turns`` turns, then ``bot``."""

    def __init__(self, bot, turns: int):
        self.bot = bot
        self.turns = turns
        self.random = RandomBot()

    def start(self, game, seat, config, seed):
        self.bot.start(game, seat, config, seed)
        self.random.start(game, seat, config, seed)

    def act(self, view):
        return (self.random if view["turn"] <= self.turns else self.bot).act(view)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--a", default="swarm")
    ap.add_argument("--b", default="hunter")
    ap.add_argument("--opening", type=int, default=3, help="turns of seeded random play before the bots")
    args = ap.parse_args()
    rs = get_ruleset("arena")
    config = rs.validate_config({})
    wins = draws = losses = 0
    for g in range(args.games):
        a_first = g % 2 == 0
        names = (args.a, args.b) if a_first else (args.b, args.a)
        agents = {s: CallableAgent(Opening(BUILTIN[n](), args.opening)) for s, n in zip(("p1", "p2"), names)}
        res = Match(rs, config, agents, seed=g, clock=False).run()
        a_seat = "p1" if a_first else "p2"
        if res.outcome.winner is None:
            draws += 1
        elif res.outcome.winner == a_seat:
            wins += 1
        else:
            losses += 1
    n = args.games
    print(f"{args.a} vs {args.b}: {n} games (opening {args.opening} random turns), {wins} wins, {draws} draws, {losses} losses; "
          f"win rate {wins / n:.0%} (wins + half draws: {(wins + draws / 2) / n:.0%})")


if __name__ == "__main__":
    main()
