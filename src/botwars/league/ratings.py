"""Ratings, recomputed from stored results.

Both systems update match by match, so the order matters; every function here sorts the
matches by ``(round, seq, match_id)`` (the schedule's order, which does not depend on when a
match finished or in which order rows were stored) before rating, so the same results always
give the same table. Only finished matches (status ``ok``) count; ratings use only the result
(arena R29): the seats' places in the outcome's ``ranking``.

- **openskill** (Weng–Lin, Plackett–Luce model, the ``openskill`` package with its default
  μ = 25, σ = 25/3): a μ (skill) and σ (uncertainty) per agent, for any number of seats;
  the *ordinal* μ − 3σ is the conservative rating the tables sort by.
- **Elo** for two-seat games (the botwars.io league view of arena R29): every agent starts at
  the rule set's ``rating_initial`` parameter (1000 for arena), K = 32, expected score
  ``1 / (1 + 10**((Rb - Ra) / 400))``, a win scores 1, a draw 0.5.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

ELO_K = 32.0
ELO_DEFAULT_INITIAL = 1000.0


def fixed_order(matches: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``matches`` (stored rows as dicts) that count, in the fixed rating order."""
    return sorted((m for m in matches if m.get("status") == "ok" and m.get("outcome")),
                  key=lambda m: (m["round"], m["seq"], m["match_id"]))


def places(match: dict[str, Any]) -> list[int]:
    """The place of each seat of ``match`` (1 = best, tied seats share a place), in seat order,
    from the outcome's ``ranking`` (else from its winner: the winner 1st, the rest 2nd; no winner:
    all 1st)."""
    seats = match["seats"]
    out = match["outcome"]
    ranking = out.get("ranking") or []
    place: dict[str, int] = {}
    for i, group in enumerate(ranking):
        for s in group:
            place[s] = i + 1
    if len(place) != len(seats):
        w = out.get("winner")
        place = {s: (1 if w is None or s == w else 2) for s in seats}
    return [place[s] for s in seats]


def _openskill_steps(matches: Iterable[dict[str, Any]], agents: list[str]) -> Iterator[dict[str, Any]]:
    """The openskill ratings (``{agent: rating object}``, one dict updated in place) before the
    first counted match, then after each, in the fixed order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    r = {a: model.rating(name=a) for a in agents}
    yield r
    for m in fixed_order(matches):
        specs = m["agents"]
        teams = [[r[a]] for a in specs]
        new = model.rate(teams, ranks=places(m))
        for a, team in zip(specs, new):
            r[a] = team[0]
        yield r


def openskill_ratings(matches: Iterable[dict[str, Any]], agents: list[str]) -> dict[str, dict[str, float]]:
    """``{agent: {"mu", "sigma", "ordinal"}}`` after every counted match, in the fixed order.
    Agents that played nothing keep the model's initial rating."""
    r: dict[str, Any] = {}
    for r in _openskill_steps(matches, agents):
        pass
    return {a: {"mu": x.mu, "sigma": x.sigma, "ordinal": x.ordinal()} for a, x in r.items()}


def rating_history(matches: Iterable[dict[str, Any]], agents: list[str]) -> dict[str, list[float]]:
    """``{agent: [ordinal, ...]}``: each agent's openskill ordinal (μ − 3σ) before the first
    counted match and after each one, in the fixed order (so every list has one more entry than
    there are counted matches, and its last entry is :func:`openskill_ratings`' ordinal). An
    agent's value changes only after the matches it played."""
    out: dict[str, list[float]] = {a: [] for a in agents}
    for r in _openskill_steps(matches, agents):
        for a in agents:
            out[a].append(r[a].ordinal())
    return out


def elo_expected(ra: float, rb: float) -> float:
    """Expected score of a player rated ``ra`` against one rated ``rb``."""
    return 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))


def elo_ratings(matches: Iterable[dict[str, Any]], agents: list[str], initial: float = ELO_DEFAULT_INITIAL,
                k: float = ELO_K) -> dict[str, float] | None:
    """``{agent: Elo}`` after every counted two-seat match in the fixed order, starting at
    ``initial`` (arena R29: ``rating_initial``); ``None`` when a counted match has another
    number of seats (Elo is for one-against-one)."""
    r = {a: float(initial) for a in agents}
    for m in fixed_order(matches):
        if len(m["agents"]) != 2:
            return None
        a, b = m["agents"]
        pa, pb = places(m)
        sa = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
        ea = elo_expected(r[a], r[b])
        r[a], r[b] = r[a] + k * (sa - ea), r[b] + k * ((1.0 - sa) - (1.0 - ea))
    return r
