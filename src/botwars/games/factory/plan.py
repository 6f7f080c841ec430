"""The planned path of a program (issue 13: drawn on the seat page before submitting).

From the seat's own view only (no hidden fact): the board and devices as they stand, the
seat's robot, its fused registers. The chosen cards run stage by stage through the rules' own
stage resolution (F-6: cards, then the board elements of each stage), with every other robot
taken off the board, exactly as the built-in bots' search does. Geeko's plan
(:mod:`botwars.games.geeko.plan`) reuses the card reading here.
"""

from __future__ import annotations

from typing import Any

from botwars.engine.codes import RefusalCode
from botwars.engine.errors import InvalidOrders
from botwars.games.factory.board import DIRS, sq_str
from botwars.games.factory.cards import parse_card

#: at most this many cards are planned per robot (F-5.1: five registers; geeko G-5.1: nine)
MAX_CARDS = 9


def read_cards(raw: Any, part: str) -> list[int]:
    """The cards of a plan payload (priorities or ``TYPE priority``), at most :data:`MAX_CARDS`.
    Raises :class:`InvalidOrders` naming ``part``."""
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


def where(bot: Any) -> tuple[str | None, str | None]:
    """``(square, facing)`` of a robot on the board, ``(None, None)`` once destroyed."""
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
    cards = read_cards(payload.get("cards", []), "cards")
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
        before = where(bot)
        rs.stage(ctx, s)
        bot = st.bots[me]
        after = where(bot)
        steps.append({"robot": None, "register": s, "from": before[0], "to": after[0], "facing": after[1],
                      "alive": after[0] is not None})
        if after[0] is None or getattr(st, "over", False):
            break
    return steps
