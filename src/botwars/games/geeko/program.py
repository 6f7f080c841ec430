"""Programs of Geek-o (G-4.5): can the robots that need cards each get L usable hand cards?

Shared by the order parser (``GeekoRuleset.longest_program``: is ``length`` 0 allowed) and the
built-in bots (a random or a padded valid program).
"""

from __future__ import annotations

from botwars.games.factory.cards import usable


def joint_fill(cards: list[int], sets: list[list[str]], L: int) -> list[list[int]] | None:
    """Give each of one or two robots (their unlocked card ``sets``, A's first) ``L`` distinct cards
    of ``cards`` that it can use (F-6.31, G-4.5), or ``None`` when that is impossible.

    Exact for two robots: each first takes the cards only it can use, then the cards both can use
    are shared out; order within ``cards`` is kept (so a shuffled ``cards`` gives a random fill).
    """
    if L < 0 or not 1 <= len(sets) <= 2:
        raise ValueError("joint_fill: one or two robots, L >= 0")
    out: list[list[int]] = [[] for _ in sets]
    shared: list[int] = []
    for c in cards:
        who = [k for k, s in enumerate(sets) if usable(c, s)]
        if len(who) == 1:
            if len(out[who[0]]) < L:
                out[who[0]].append(c)
        elif len(who) == 2:
            shared.append(c)
    for k in range(len(sets)):
        while len(out[k]) < L and shared:
            out[k].append(shared.pop(0))
    return out if all(len(p) == L for p in out) else None
