"""The batched submarine engine the game declares (``GAME.batch``, issue 29 item 3) agrees with
the referee (shared/rules/submarine.md): seeded random legal set-ups and orders are played
through :class:`~botwars.engine.referee.Referee` (``submit`` + ``resolve_point``, the path every
match takes) and through :class:`~botwars.games.submarine.batch.BatchSubmarine`, and after every
turn every living sub (space, HP, surfaced, special, plate, ramming, used special, cancelled),
every mine, both scores and announcements, the Nullify windows, rings, turn, active player, AP
and the result are compared (S-3.4 to S-7.9)."""

import random

import numpy as np
import pytest

from botwars.engine.errors import ConfigError
from botwars.engine.plugin import get_game
from botwars.engine.referee import Referee
from botwars.games.submarine.batch import ACTION_NAMES, REASONS, BatchSubmarine
from botwars.games.submarine.board import ALL_SUBS, COLS, SUBS_OF
from botwars.games.submarine.state import ACTIONS, CATALOG, SPECIALS

LETTER = {k: i for i, k in enumerate(ALL_SUBS)}
DIRS = "NESW"
ACTIVE = [a for a in ACTION_NAMES if a in CATALOG]


def space_name(c: int, r: int) -> str:
    return f"{COLS[c - 1]}{r}"


def random_setup(rng: random.Random, ref: Referee, seat: str) -> tuple[dict, list[int], list[int]]:
    """A valid S-3.3 set-up: five distinct columns of the home row, five distinct specials."""
    cols = rng.sample(range(1, 8), 5)
    sps = rng.sample(range(len(SPECIALS)), 5)
    row = ref.state.home_rows[seat]
    letters = SUBS_OF[seat]
    payload = {"type": "setup", "placement": {k: space_name(c, row) for k, c in zip(letters, cols)},
               "specials": {k: SPECIALS[s] for k, s in zip(letters, sps)}}
    return payload, cols, sps


def random_order(rng: random.Random, st, max_rows: int) -> tuple[list[dict], list[tuple[int, int, int]]]:
    """Random actions valid at submission (S-4.3: own living subs, listed costs within AP), biased
    towards the centre and towards the subs' own specials so that collisions, chains, mines,
    hits, heals, windows and scoring all happen."""
    subs = st.living(st.active)
    budget, acts, rows = st.ap, [], []
    while subs and len(rows) < max_rows and rng.random() > 0.12:
        s = rng.choice(subs)
        kind = rng.choices(["move", "surface", "submerge", "replace", "own", "special", "mine"], [8, 1, 1, 1, 4, 1, 2])[0]
        if kind == "mine":   # a mine layer lays mines where the enemy passes
            act = "mine" if s.special == "mine" else "move"
        elif kind == "own":
            act = s.special if s.special in ACTIVE else rng.choice(ACTIVE)
        elif kind == "special":
            act = rng.choice(ACTIVE)
        else:
            act = kind
        cost, key = ACTIONS[act]
        if cost > budget:
            if budget == 0:
                break
            continue
        budget -= cost
        c, r = s.space
        a = {"sub": s.letter, "action": act}
        if key == "dir":
            if act == "move" and rng.random() < 0.6:
                d = rng.choice([x for x, ok in (("N", r < 4), ("S", r > 4), ("E", c < 4), ("W", c > 4)) if ok] or ["N"])
            else:
                d = rng.choice(DIRS)
            a["dir"], par = d, DIRS.index(d)
        elif key == "space":
            if act in ("mine", "heal") and rng.random() < 0.8:   # adjacent (their S-6.2 condition)
                dc, dr = rng.choice([(0, 1), (1, 0), (0, -1), (-1, 0)])
                tc, tr = c + dc, r + dr
            else:
                tc, tr = (c + rng.randint(-2, 2), r + rng.randint(-2, 2)) if rng.random() < 0.8 else (0, 0)
            if not (1 <= tc <= 7 and 1 <= tr <= 7):
                tc, tr = rng.randint(1, 7), rng.randint(1, 7)
            a["space"], par = space_name(tc, tr), (tc - 1) + 7 * (tr - 1)
        elif key == "special":
            choices = [x for x in SPECIALS if not (act == "nullify" and x == "nullify")]
            sp = rng.choice(choices)
            a["special"], par = sp, SPECIALS.index(sp)
        else:
            par = 0
        acts.append(a)
        rows.append((LETTER[s.letter], ACTION_NAMES.index(act), par))
    return acts, rows


def compare(eng: BatchSubmarine, g: int, st, where: str) -> None:
    """Every fact of match ``g`` against the referee's state ``st``."""
    want = {k: (s.space, s.hp, s.surfaced, s.special, s.plate, s.ramming, s.used_special, s.cancelled)
            for k, s in st.subs.items()}
    got = {ALL_SUBS[i]: ((int(eng.col[g, i]), int(eng.row[g, i])), int(eng.hp[g, i]), bool(eng.surfaced[g, i]),
                         SPECIALS[eng.special[g, i]], bool(eng.plate[g, i]), bool(eng.ramming[g, i]),
                         bool(eng.used[g, i]), bool(eng.cancelled[g, i]))
           for i in range(10) if eng.alive[g, i]}
    assert got == want, f"{where}: subs differ"
    mines = {(int(c), int(r)): f"p{int(eng.mines[g, c, r])}" for c, r in zip(*np.nonzero(eng.mines[g]))}
    assert mines == dict(st.mines), f"{where}: mines differ"
    assert list(eng.scores[g]) == [st.scores["p1"], st.scores["p2"]], f"{where}: scores"
    assert list(eng.announced[g]) == [st.announced["p1"], st.announced["p2"]], f"{where}: announcements"
    assert int(eng.rings[g]) == st.rings, f"{where}: rings"
    for i, seat in enumerate(("p1", "p2")):
        windows = {}
        for sp, until in st.suppressed[seat]:
            windows[sp] = max(windows.get(sp, 0), until)
        got_w = {SPECIALS[k]: int(u) for k, u in enumerate(eng.until[g, i]) if u}
        assert got_w == windows, f"{where}: Nullify windows against {seat}"
    assert bool(eng.over[g]) == (st.phase == "over"), f"{where}: end flag"
    if st.phase == "over":
        res = st.result
        assert ("p1", "p2", "draw")[eng.winner[g]] == res["winner"], f"{where}: winner"
        assert REASONS[eng.reason[g]] == res["reason"], f"{where}: reason"
    else:
        assert int(eng.turn[g]) == st.turn, f"{where}: turn"
        assert ("p1", "p2")[eng.active[g]] == st.active, f"{where}: active player"
        assert int(eng.ap[g]) == st.ap, f"{where}: AP"


def setup_all(rng: random.Random, refs: list, which: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Random set-ups for the referees ``which`` (submitted and resolved); returns the engine's
    ``(cols, specials)`` arrays for every match (rows outside ``which`` unused)."""
    n = len(refs)
    cols, sps = np.ones((n, 10), np.int64), np.zeros((n, 10), np.int64)
    sps[:] = [0, 1, 2, 3, 4] * 2
    cols[:] = [1, 2, 3, 4, 5] * 2
    for g in which:
        ref = refs[g]
        for seat in ("p1", "p2"):
            payload, c, s = random_setup(rng, ref, seat)
            off = 0 if seat == "p1" else 5
            cols[g, off:off + 5], sps[g, off:off + 5] = c, s
            assert ref.submit(seat, payload, 0.0).error is None
        ref.resolve_point()
    return cols, sps


def play_both(overrides: dict, n: int, seed: int, restarts: int = 0) -> dict:
    """``n`` matches with ``overrides`` (match seeds ``seed + g``) through referees and through
    the declared batched engine on the same seeded random legal play; compares every match after
    the set-up and after every turn. With ``restarts``, finished matches are started again
    (new seeds and set-ups, :meth:`BatchSubmarine.reset` with ``which``) while the others play
    on, until ``restarts`` matches have been restarted. Returns counts showing what the run went
    through."""
    game = get_game("submarine")
    rules = game.ruleset()
    cfg = rules.validate_config({"clock_enabled": False, **overrides})
    eng = game.make_batch(cfg, n)
    assert isinstance(eng, BatchSubmarine)
    seeds = np.arange(seed, seed + n)
    refs = [Referee(rules, cfg, ["p1", "p2"], int(seeds[g]), clock=False, history=False) for g in range(n)]
    rng = random.Random(f"submarine-batch{overrides}{seed}")
    eng.reset(seeds, *setup_all(rng, refs, list(range(n))))
    seen = {"turns": 0, "collisions": 0, "destroyed": 0, "events": {}, "reasons": set(), "restarted": 0}
    for g, ref in enumerate(refs):
        compare(eng, g, ref.state, f"match {g} after set-up")
    K = cfg["max_actions"]
    while not all(r.over for r in refs) or seen["restarted"] < restarts:
        done = [g for g, r in enumerate(refs) if r.over]
        if done and seen["restarted"] < restarts:
            for g in done:
                seen["reasons"].add(refs[g].state.result["reason"])
                seeds[g] += 10_000
                refs[g] = Referee(rules, cfg, ["p1", "p2"], int(seeds[g]), clock=False, history=False)
            eng.reset(seeds, *setup_all(rng, refs, done), which=eng.over)
            seen["restarted"] += len(done)
            for g in done:
                compare(eng, g, refs[g].state, f"match {g} after its restart")
        orders = np.full((n, K, 3), -1, np.int64)
        for g, ref in enumerate(refs):
            if ref.over:
                continue
            acts, rows = random_order(rng, ref.state, K)
            if rows:
                orders[g, :len(rows)] = rows
            (seat,) = ref.pending()
            ticket = ref.submit(seat, {"type": "orders", "actions": acts}, 0.0)
            assert ticket.error is None, ticket.error
            before = len(ref.state.subs)
            ref.resolve_point()
            seen["destroyed"] += before - len(ref.state.subs)
            for e in ref.state.last:
                seen["events"][e[0]["type"]] = seen["events"].get(e[0]["type"], 0) + 1
        eng.play_turn(orders)
        seen["turns"] += 1
        for g, ref in enumerate(refs):
            compare(eng, g, ref.state, f"match {g} (seed {seeds[g]}) after turn {seen['turns']}")
    seen["reasons"] |= {r.state.result["reason"] for r in refs}
    seen["collisions"] = seen["events"].get("collision", 0)
    return seen


CASES = [
    {"max_rounds": 25},
    {"ring_interval": 2, "edge_damage": 2, "win_points": 30, "max_rounds": 20},
    {"hp_max": 3, "base_ap": 8, "max_actions": 9, "announce_points": 10, "p1_home_row": "7",
     "first_player": "p2", "max_rounds": 30},
    {"max_rounds": 6, "win_points": 200, "base_ap": 3},
]


@pytest.mark.parametrize("overrides", CASES)
def test_batch_matches_referee_turn_by_turn(overrides):
    seen = play_both(overrides, 24, 1000)
    # the run went through the rules' interesting cases, not only quiet turns
    assert seen["collisions"] > 0 and seen["destroyed"] > 0 and seen["turns"] > 10


def test_batch_covers_every_ending():
    """Elimination (S-7.3), points (S-7.5) and the round cap (S-7.9) all occur and agree."""
    reasons = set()
    for overrides in CASES:
        reasons |= play_both(overrides, 16, 7)["reasons"]
    assert {"elimination", "points", "round_cap"} <= reasons


def test_batch_restarts_finished_matches_while_others_play_on():
    """``reset(which=over)`` starts the finished matches again (fresh coin flips from the new
    seeds, S-3.2; fresh set-ups, S-3.4) and leaves the others as they are."""
    seen = play_both({"max_rounds": 8, "ring_interval": 2, "edge_damage": 2}, 12, 50, restarts=20)
    assert seen["restarted"] >= 20


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2000, 3000, 4000])
def test_batch_matches_referee_many_seeds(seed):
    for overrides in CASES:
        play_both(overrides, 64, seed)


def test_batch_refuses_orders_the_referee_would_reject():
    """S-4.3: an order over the AP, with an enemy sub or out of range raises, naming the match;
    nothing is played."""
    game = get_game("submarine")
    cfg = game.ruleset().validate_config({"clock_enabled": False, "first_player": "p1"})
    eng = game.make_batch(cfg, 2)
    eng.reset([1, 2], np.tile(np.arange(1, 11) % 7 + 1, (2, 1)), np.tile([0, 1, 2, 3, 4] * 2, (2, 1)))
    before = eng.col.copy()
    over_ap = np.array([[[0, ACTION_NAMES.index("depth_charge"), 24], [1, ACTION_NAMES.index("depth_charge"), 24]]] * 2)
    with pytest.raises(ValueError, match="rejected at submission"):
        eng.play_turn(over_ap)
    enemy = np.array([[[5, 0, 0]]] * 2)
    assert not eng.check_orders(enemy).any()
    assert not eng.check_orders(np.array([[[0, 0, 4]]] * 2)).any()          # direction out of range
    assert not eng.check_orders(np.array([[[0, 9, SPECIALS.index("nullify")]]] * 2)).any()
    assert eng.check_orders(np.array([[[0, 0, 0]]] * 2)).all()
    assert (eng.col == before).all()


def test_batch_refuses_a_bad_setup_and_config():
    game = get_game("submarine")
    cfg = game.ruleset().validate_config({})
    eng = game.make_batch(cfg, 1)
    with pytest.raises(ValueError, match="share a space"):
        eng.reset([0], [[1, 1, 2, 3, 4, 1, 2, 3, 4, 5]], [[0, 1, 2, 3, 4] * 2])
    with pytest.raises(ValueError, match="share a special"):
        eng.reset([0], [[1, 2, 3, 4, 5] * 2], [[0, 0, 2, 3, 4] * 2])
    with pytest.raises(ConfigError, match="board_size 7"):
        BatchSubmarine({**cfg, "board_size": 8}, 1)


def test_random_orders_and_setups_are_valid():
    """The engine's own random play (benchmarks): set-ups S-3.3 accepts and orders S-4.3 accepts,
    for the active player of every match, including matches where subs were lost."""
    game = get_game("submarine")
    eng = game.make_batch(game.ruleset().validate_config({"max_rounds": 15}), 64)
    rng = np.random.default_rng(3)
    eng.reset(np.arange(64), *eng.random_setups(rng))
    lost = 0
    for _ in range(40):
        orders = eng.random_orders(rng, 12)
        assert eng.check_orders(orders)[~eng.over].all()
        assert (orders[..., 0] >= 0).any()
        eng.play_turn(orders)
        lost = max(lost, int((~eng.alive).sum()))
        eng.reset(np.arange(64) + 100, *eng.random_setups(rng), which=eng.over)
    assert lost > 0


def test_S_6_7_S_6_8_a_suppressed_mine_does_not_trigger():
    """S-6.7: a sub entering a space with an enemy mine surfaces and takes 2, the mine is gone;
    S-6.8: not while ``mine`` is suppressed for the mine's owner (match 1 of 2)."""
    game = get_game("submarine")
    cfg = game.ruleset().validate_config({"first_player": "p1", "p1_home_row": "1"})
    eng = game.make_batch(cfg, 2)
    eng.reset([0, 0], [[4, 1, 2, 3, 5, 1, 2, 3, 4, 5]] * 2, [[0, 1, 2, 3, 4, 3, 0, 1, 2, 4]] * 2)
    eng.surfaced[:, 0] = False
    eng.mines[:, 4, 2] = 2                        # p2's mine on D2, north of a (D1)
    eng.until[1, 1, SPECIALS.index("mine")] = 2   # suppressed for p2 until the end of turn 2
    eng.play_turn(np.array([[[0, ACTION_NAMES.index("move"), 0]]] * 2))   # a move N
    assert (eng.col[:, 0] == 4).all() and (eng.row[:, 0] == 2).all()
    assert eng.hp[0, 0] == 3 and eng.surfaced[0, 0] and eng.mines[0, 4, 2] == 0
    assert eng.hp[1, 0] == 5 and not eng.surfaced[1, 0] and eng.mines[1, 4, 2] == 2
