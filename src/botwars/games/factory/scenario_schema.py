"""The shape of a factory scenario file (docs/factory.md, "Scenario files"), as Pydantic models.

:func:`check` validates a loaded document before :mod:`botwars.games.factory.scenario` uses
it: every key, type and value format (squares ``rRcC``, cards ``FWD1 500``, stages 1-5, HP
1-10, option codes) is checked, so a malformed file is a one-line
:class:`~botwars.engine.errors.ConfigError` with its file, line, column and key path.  Player
names are keys of their own (``robots: {Alice: ...}``, ``expect: {stage 1: {Alice: ...}}``),
typed as extra keys.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, ConfigDict, Field, create_model

from botwars.engine.yamlschema import ScenarioHeader, Strict, absent, validate_doc
from botwars.games.factory.board import OPTION_CODES, parse_sq
from botwars.games.factory.cards import parse_card


def _square(v: str) -> str:
    parse_sq(v)  # ValueError names the text; on-board checks are the loader's (it knows the board)
    return v


def _card(v: Union[int, str]) -> Union[int, str]:
    if v != "-":
        parse_card(str(v))  # ValueError names the card
    return v


def _option(v: str) -> str:
    code, sep, charges = v.partition(":")
    if code not in OPTION_CODES:
        raise ValueError(f"unknown option {code!r} (one of {' '.join(OPTION_CODES)})")
    if sep and not (charges.isdigit() and int(charges) <= 9):
        raise ValueError(f"option charges must be 0-9, got {v!r}")
    return v


Square = Annotated[str, AfterValidator(_square)]
Card = Annotated[Union[int, str], AfterValidator(_card)]
Facing = Literal["N", "E", "S", "W"]
Name = Annotated[str, Field(min_length=1, max_length=40)]
Text = Union[str, int]


class Robot(Strict):
    """A player's robot as the scenario starts (F-4, F-7)."""

    at: Square = absent()
    facing: Facing = absent()
    hp: Annotated[int, Field(ge=1, le=10)] = absent()
    mode: Literal["real", "virtual"] = absent()
    flags: Annotated[int, Field(ge=0, le=9)] = absent()
    options: list[Annotated[str, AfterValidator(_option)]] = absent()
    program: Annotated[list[Optional[Card]], Field(max_length=5)] = absent()
    robots_left: Annotated[int, Field(ge=0, le=99)] = absent()
    checkpoint: Square = absent()
    stations: list[Square] = absent()
    sets: list[Literal["A", "B", "C"]] = absent()
    sacrifice_at: Annotated[int, Field(ge=0, le=10)] = absent()
    wrench2: Literal["auto", "repair", "option"] = absent()
    standing_facing: Facing = absent()
    rebooting: bool = absent()
    reboot: bool = absent()
    reinst: Annotated[int, Field(ge=0, le=999)] = absent()
    out: bool = absent()
    destroyed: bool = absent()


class Result(Strict):
    reason: str = absent()
    winners: list[str] = absent()


class Expect(Strict):
    """What must hold after a stage, the end of turn or a turn; a player's name maps to the
    robot's ``"rRcC F HP mode"`` prefix or ``destroyed`` / ``out``."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Text]  # type: ignore[assignment]

    rows: dict[str, dict[str, Optional[Text]]] = absent()
    lines: str = absent()
    contains: list[Text] = absent()
    players: dict[str, dict[str, Any]] = absent()
    devices: dict[str, Any] = absent()
    hands: dict[str, list[str]] = absent()
    result: Result = absent()
    over: bool = absent()
    option_deck: list[str] = absent()
    invalid: dict[str, Text] = absent()


_STAGES = {f"stage_{s}": (Expect, Field(None, alias=f"stage {s}")) for s in range(1, 6)}
PlayExpect = create_model("PlayExpect", __base__=Strict, end=(Expect, absent()), deal=(Expect, absent()),
                          stages_played=(list[int], absent()), **_STAGES)  # type: ignore[call-overload]


class Turn(Strict):
    """One turn of a ``turns`` scenario, played through the order parser (F-15.1)."""

    orders: dict[str, Any] = absent()
    expect: Expect = absent()
    hands_before: dict[str, list[str]] = absent()
    resolve: bool = absent()


class Scenario(ScenarioHeader):
    game: Literal["factory"]  # type: ignore[assignment]
    grid: str = absent()
    board: str = absent()
    start: str = absent()
    seed: Union[str, int] = absent()
    turn: Annotated[int, Field(ge=1, le=999)] = absent()
    robots: Annotated[dict[Name, Optional[Robot]], Field(max_length=8)] = absent()
    players: Annotated[list[Name], Field(min_length=1, max_length=8)] = absent()
    play: Union[Literal["turn"], list[Annotated[int, Field(ge=1, le=5)]]] = absent()
    expect: PlayExpect = absent()  # type: ignore[valid-type]
    turns: list[Optional[Turn]] = absent()
    devices: dict[Literal["switches", "trapdoors", "bridges", "teleporters"], dict[str, Union[bool, str]]] = absent()
    option_deck: list[Annotated[str, AfterValidator(_option)]] = absent()
