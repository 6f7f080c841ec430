"""The planned path of a program (issue 13: drawn on the seat page before submitting).

From the seat's own view only (no hidden fact): the board and devices as they stand, the
seat's robot, its fused registers. The chosen cards run stage by stage through the rules' own
stage resolution (F-6: cards, then the board elements of each stage), with every other robot
taken off the board, exactly as the built-in bots' search does. Factory (F-5, F-6) and geeko
(G-5, G-6, each of the seat's robots alone).
"""

from __future__ import annotations

from typing import Any

from botwars.engine.codes import RefusalCode
from botwars.engine.errors import InvalidOrders
from botwars.games.factory.board import DIRS, sq_str
from botwars.games.factory.cards import parse_card

#: at most this many cards are planned per robot (F-5.1: five registers; geeko G-5.1: nine)
MAX_CARDS = 9


def _cards(raw: Any, part: str) -> list[int]:
    if not isinstance(raw, list) or len(raw) > MAX_CARDS:
        raise InvalidOrders(f"'{part}' must be a list of at most {MAX_CARDS} cards", code=RefusalCode.MALFORMED,
                            part=part)
    out = []
    for c in raw:
        if isinstance(c, bool) or not isinstance(c, (int, str)):
            raise InvalidOrders(f"{part}: a card is a priority or TYPE priority, got {c!r}", code=RefusalCode.MALFORMED,
                                part=part)
        try:
            out.append(parse_card(str(c)))
        except ValueError as exc:
            raise InvalidOrders(f"{part}: {exc}", code=RefusalCode.MALFORMED, part=part) from None
    return out


def _where(bot: Any) -> tuple[str | None, str | None]:
    return (sq_str(bot.sq) if bot.alive and bot.sq is not None else None,
            DIRS[bot.facing] if bot.alive and bot.sq is not None else None)


def factory_plan(rs: Any, view: dict[str, Any], payload: Any) -> list[dict[str, Any]]:
    """``payload``: ``{"cards": [...]}`` (the registers chosen so far, in order). Returns one
    step per register played: ``{"robot": None, "register", "from", "to", "facing", "alive"}``;
    it stops at the first free register without a card, or when the robot is destroyed.
    Raises :class:`InvalidOrders` for a malformed payload or a spectator's view."""
    from botwars.games.factory.bots import state_from_view
    from botwars.games.factory.rules import Ctx
    if not isinstance(payload, dict):
        raise InvalidOrders("the plan needs an object with 'cards'", code=RefusalCode.MALFORMED)
    cards = _cards(payload.get("cards", []), "cards")
    st, me = state_from_view(rs, view)
    if me < 0:
        raise InvalidOrders("only a seat has a program to plan", code=RefusalCode.MALFORMED)
    for i, b in enumerate(st.bots):
        if i != me:  # other robots ignored (a plan, not a forecast)
            b.sq, b.alive = None, False
    bot = st.bots[me]
    if not bot.alive or bot.sq is None:
        return []
    steps: list[dict[str, Any]] = []
    ctx = Ctx(st, st.turn + 1, log=False)
    for s in range(1, 6):
        r = s - 1
        fused = bot.hp <= s and bot.regs[r] is not None  # F-7.4: register s is fused while hp <= s
        if not fused:
            if r >= len(cards):
                break
            bot.regs[r] = cards[r]
        before = _where(bot)
        rs.stage(ctx, s)
        bot = st.bots[me]
        after = _where(bot)
        steps.append({"robot": None, "register": s, "from": before[0], "to": after[0], "facing": after[1],
                      "alive": after[0] is not None})
        if after[0] is None or getattr(st, "over", False):
            break
    return steps


def geeko_plan(rs: Any, view: dict[str, Any], payload: Any) -> list[dict[str, Any]]:
    """``payload``: ``{"A": [...], "B": [...]}`` (each robot's cards so far). Each robot's
    cards run alone in the seat's room (the other robot taken off), stage by stage with the
    rules' own ``simulate_run``. Steps carry ``"robot": "A"`` or ``"B"``."""
    from botwars.games.geeko.bots import room_from_view
    from botwars.games.geeko.state import LETTERS
    if not isinstance(payload, dict):
        raise InvalidOrders("the plan needs an object with 'A' and/or 'B'", code=RefusalCode.MALFORMED)
    run = room_from_view(rs, view)
    steps: list[dict[str, Any]] = []
    for i, letter in enumerate(LETTERS[:len(run.bots)]):
        cards = _cards(payload.get(letter, []), letter)
        if not cards or not run.bots[i].alive:
            continue
        alone = run.copy()
        for j, b in enumerate(alone.bots):
            if j != i:
                b.sq, b.alive = None, False
        prev = _where(alone.bots[i])
        for s in range(1, len(cards) + 1):
            sim = rs.simulate_run(alone, {i: cards}, len(cards), stages=s)
            now = _where(sim.bots[i])
            steps.append({"robot": letter, "register": s, "from": prev[0], "to": now[0], "facing": now[1],
                          "alive": now[0] is not None})
            if now[0] is None:
                break
            prev = now
    return steps
