"""The batched ``hunter`` bot (``games/arena/bots_batch.py``) gives ``HunterBot.plan``'s orders for
every robot of every board (the vector environments' ``hunter`` opponent, issue 29 item 2)."""

import numpy as np
import pytest

from botwars.engine.ruleset import get_ruleset
from botwars.games.arena.bots import HunterBot
from botwars.games.arena.bots_batch import hunter_actions, numpy_fixed_point
from botwars.games.arena.rlspec import _ORDER, ArenaSpec


@pytest.mark.parametrize("overrides", [{}, {"map": "small", "spawn_interval": 3}])
def test_batched_hunter_gives_hunterbots_orders(overrides):
    cfg = get_ruleset("arena").validate_config(overrides)
    spec = ArenaSpec(None, cfg, ["p1", "p2"])
    h, w = spec.height, spec.width
    rng = np.random.default_rng(11)
    n = 120
    open_ = spec.wall == 0
    # crowded and sparse boards: contention for squares, adjacent fights, lone robots
    density = rng.choice([0.05, 0.2, 0.5, 0.8], size=(n, 1, 1))
    owner = np.where(open_ & (rng.random((n, h, w)) < density), rng.integers(1, 3, size=(n, h, w)), 0)
    owner[::17] = np.where(owner[::17] == 2, 0, owner[::17])      # some boards without enemies
    hp = np.where(owner > 0, rng.integers(1, 51, size=(n, h, w)), 0)
    turn = rng.integers(1, cfg["max_turns"] + 1, size=n)
    turn[::4] = cfg["spawn_interval"] * rng.integers(1, 5, size=n // 4 + (n % 4 > 0))   # spawn turns
    seen = set()
    for player in (1, 2):
        got = hunter_actions(np, owner, hp, turn, player, open_, (spec.spawn[1] + spec.spawn[2]) > 0,
                             cfg["spawn_interval"], numpy_fixed_point)
        for g in range(n):
            bot = HunterBot()
            bot.start("arena", "p1", cfg, 0)
            ys, xs = np.nonzero(owner[g])
            mine = {(int(x) + 1, int(y) + 1): int(hp[g, y, x]) for y, x in zip(ys, xs) if owner[g, y, x] == player}
            foes = {(int(x) + 1, int(y) + 1): int(hp[g, y, x]) for y, x in zip(ys, xs) if owner[g, y, x] != player}
            want = bot.plan(dict(sorted(mine.items())), dict(sorted(foes.items())), int(turn[g]))
            for (x, y) in mine:
                order = _ORDER[int(got[g, y - 1, x - 1])]
                assert order == want[(x, y)], (g, player, (x, y), order, want[(x, y)])
                seen.add(order[0] if order else None)
            assert not got[g][owner[g] != player].any()
    assert seen == {"M", "A", "D", "S"}, seen     # every kind of order was compared
