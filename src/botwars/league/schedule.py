"""Tournament schedules: which agents meet, in which seat orders, with which seeds.

Every meeting of a set of agents (a *pairing*; for free-for-all games a set of 3 to 8 agents)
is played ``games_per_pair`` times in every seat rotation, so each agent sits in each seat
equally often: for two players that is both seat orders. Formats:

- ``round-robin``: every set of ``players`` agents meets (for two players, ``k(k-1)·g``
  matches for ``k`` agents and ``g`` games per pair).
- ``gauntlet``: the first agent (the challenger) meets every set of ``players - 1`` others.
- ``swiss``: two players only; in each round agents are paired by their score so far
  (:func:`swiss_pairs`), the rounds depending on the results of the rounds before.

Identifiers and seeds are digests, so they never depend on the order matches finish in:
a match's id is derived from the tournament id, the round, the game index and the agents in
seat order; its game seed from the tournament seed, the round (swiss only), the game index and
the *set* of agents, so the seat rotations of one game share a seed (mirror games: each side
plays each seat on the same board and the same chance).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass
from typing import Iterable

from botwars.engine.errors import ConfigError
from botwars.engine.ruleset import canonical_json

FORMATS = ("round-robin", "swiss", "gauntlet")


def _digest(obj: object) -> bytes:
    return hashlib.sha256(canonical_json(obj).encode()).digest()


@dataclass(frozen=True)
class Fixture:
    """One scheduled match: ``agents`` are indices into the tournament's agent list, in seat
    order; ``seq`` its place in the schedule (ratings are computed in ``(round, seq)`` order);
    ``seed`` the game seed (0 ≤ seed < 2**63)."""

    match_id: str
    round: int
    seq: int
    game_index: int
    agents: tuple[int, ...]
    seed: int


def match_seed(seed: int, specs: Iterable[str], game_index: int, round_: int = 0) -> int:
    """The game seed of game ``game_index`` between the agents ``specs`` (any order: the seat
    rotations share it) in round ``round_`` of a tournament seeded ``seed``."""
    d = _digest({"seed": seed, "agents": sorted(specs), "game": game_index, "round": round_})
    return int.from_bytes(d[:8], "big") & (2**63 - 1)


def match_id(tournament_id: str, specs_in_seat_order: Iterable[str], game_index: int, round_: int = 0) -> str:
    """The 24-hex-digit id of a match (unique per tournament, round, game and seat order)."""
    return _digest({"t": tournament_id, "agents": list(specs_in_seat_order), "game": game_index,
                    "round": round_}).hex()[:24]


def rotations(group: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The ``len(group)`` cyclic seat orders of ``group`` (both orders for two)."""
    return [group[i:] + group[:i] for i in range(len(group))]


def fixtures_for(tournament_id: str, seed: int, specs: list[str], groups: Iterable[tuple[int, ...]],
                 games_per_pair: int, round_: int = 0, seq0: int = 0, swiss: bool = False) -> list[Fixture]:
    """Fixtures for ``groups`` (tuples of agent indices): each played ``games_per_pair`` times in
    each seat rotation."""
    out: list[Fixture] = []
    for group in groups:
        names = [specs[i] for i in group]
        for g in range(games_per_pair):
            s = match_seed(seed, names, g, round_ if swiss else 0)
            for order in rotations(group):
                mid = match_id(tournament_id, [specs[i] for i in order], g, round_)
                out.append(Fixture(mid, round_, seq0 + len(out), g, order, s))
    return out


def groups_for(fmt: str, n_agents: int, players: int) -> list[tuple[int, ...]]:
    """The agent sets of a ``round-robin`` or ``gauntlet`` (for ``swiss`` see :func:`swiss_pairs`).
    Raises :class:`ConfigError` when there are too few agents."""
    if n_agents < players:
        raise ConfigError(f"{players}-player matches need at least {players} agents, got {n_agents}")
    if fmt == "round-robin":
        return list(itertools.combinations(range(n_agents), players))
    if fmt == "gauntlet":
        return [(0, *rest) for rest in itertools.combinations(range(1, n_agents), players - 1)]
    raise ConfigError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})", source="--format")


def swiss_rounds(n_agents: int) -> int:
    """The default number of swiss rounds: ⌈log2 k⌉ (at least 1)."""
    return max(1, math.ceil(math.log2(max(2, n_agents))))


def swiss_pairs(scores: list[float], ratings: list[float], met: set[frozenset[int]],
                byes: set[int] = frozenset()) -> tuple[list[tuple[int, int]], int | None]:  # type: ignore[assignment]
    """Pair the agents (indices) for the next swiss round.

    Agents are ranked by score, then rating, then their place in the agent list (the
    deterministic tie-break). With an odd number of agents the lowest-ranked agent that has not
    had a bye (``byes``) sits this round out. Then, from the top, each unpaired agent takes the
    highest-ranked unpaired agent it has not met (``met``: pairs of indices), or the
    highest-ranked unpaired one when it has met them all. Returns ``(pairs, bye)``.
    """
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], -ratings[i], i))
    bye = None
    if len(order) % 2:
        bye = next((i for i in reversed(order) if i not in byes), order[-1])
        order.remove(bye)
    pairs: list[tuple[int, int]] = []
    left = list(order)
    while left:
        a = left.pop(0)
        b = next((x for x in left if frozenset((a, x)) not in met), left[0])
        left.remove(b)
        pairs.append((a, b))
    return pairs, bye
