"""The shape of a submarine scenario file (docs/submarine.md, "Scenario files"), as Pydantic models.

:func:`check` validates a loaded document before :mod:`botwars.games.submarine.scenario` uses
it: every key, type and value format (spaces ``A1``..``G7``, sub letters, specials, seats) is
checked, so a malformed file is a one-line :class:`~botwars.engine.errors.ConfigError` with its
file, line, column and key path.  Orders themselves are not checked here: a scenario may give
any payload, which the rule set refuses or accepts as a player's would be (S-4.3).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, Field

from botwars.engine.yamlschema import ScenarioHeader, Strict, absent, validate_doc
from botwars.games.submarine.board import ALL_SUBS, parse_space
from botwars.games.submarine.state import SPECIALS


def _space(v: str) -> str:
    if parse_space(v) is None:
        raise ValueError(f"{v!r} is not a space A1..G7")
    return v


Space = Annotated[str, AfterValidator(_space)]
Letter = Literal[ALL_SUBS]  # type: ignore[valid-type]
Seat = Literal["p1", "p2"]
Recipient = Literal["p1", "p2", "spectator"]
Special = Literal[SPECIALS]  # type: ignore[valid-type]
Count = Annotated[int, Field(ge=0, le=10_000)]


class Sub(Strict):
    at: Space
    special: Special
    hp: Annotated[int, Field(ge=1, le=99)] = absent()
    surfaced: bool = absent()
    plate: bool = absent()


class Start(Strict):
    """The position a ``turns`` scenario starts from (S-4.2 then runs for the player to move)."""

    home_rows: dict[Seat, Annotated[int, Field(ge=1, le=7)]] = absent()
    first_player: Seat = absent()
    turn: Annotated[int, Field(ge=1, le=999)] = absent()
    active: Seat = absent()
    mines: dict[Space, Seat] = absent()
    scores: dict[Seat, Count] = absent()
    announced: dict[Seat, bool] = absent()
    rings: Annotated[int, Field(ge=0, le=3)] = absent()
    suppressed: dict[Seat, list[Annotated[list[Union[str, int]], Field(min_length=2, max_length=2)]]] = absent()
    ap: Annotated[int, Field(ge=0, le=99)] = absent()


class Expect(Strict):
    """What must hold after a submission (``_check`` in the runner)."""

    subs: dict[Letter, str] = absent()
    sub_fields: dict[Letter, dict[str, Any]] = absent()
    mines: Optional[dict[Space, Seat]] = absent()
    scores: dict[Seat, int] = absent()
    result: Optional[dict[str, Any]] = absent()  # null: the game goes on
    ap_spent: Optional[int] = absent()
    events: dict[Recipient, Optional[list[Any]]] = absent()
    all_events: bool = absent()
    view: dict[Recipient, Optional[dict[str, Any]]] = absent()
    rejected: Union[str, int] = absent()


class SetupExpect(Expect):
    rejected: dict[Seat, str] = absent()  # type: ignore[assignment]
    pending: Optional[list[Seat]] = absent()


class Turn(Strict):
    player: Seat = absent()
    orders: Any = ""
    expect: Expect = absent()


class Setup(Strict):
    p1: Any = absent()
    p2: Any = absent()
    timeout: list[Seat] = absent()
    expect: SetupExpect = absent()


class ClockStep(Strict):
    status: Literal["ok", "depleted", "expired"] = absent()
    p1_reserve_s: Union[int, float] = absent()


class Clock(Strict):
    turns_s: list[Annotated[float, Field(ge=0, le=1e9)]] = absent()
    expect: list[ClockStep] = absent()


class Scenario(ScenarioHeader):
    game: Literal["submarine"]  # type: ignore[assignment]
    seed: int = absent()
    start: Start = absent()
    subs: dict[Letter, Sub] = absent()
    turns: list[Turn] = absent()
    setups: list[Setup] = absent()
    clock: Clock = absent()
    sees: Any = absent()
