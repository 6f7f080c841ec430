"""The shape of a geeko scenario file (docs/geeko.md, "Scenario files"), as Pydantic models.

:func:`check` validates a loaded document before :mod:`botwars.games.geeko.scenario` uses it:
every key, type and value format (squares ``rRcC``, cards ``FWD1 500``, stages 1-9, HP 1-10)
is checked, so a malformed file is a one-line :class:`~botwars.engine.errors.ConfigError` with
its file, line, column and key path.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, Field, create_model

from botwars.engine.yamlschema import ScenarioHeader, Strict, absent, validate_doc
from botwars.games.factory.board import OPTION_CODES, parse_sq
from botwars.games.factory.cards import parse_card


def _square(v: str) -> str:
    r, c = parse_sq(v)  # ValueError names the text
    if not (1 <= r <= 9 and 1 <= c <= 7):
        raise ValueError(f"{v} is outside a room (rows 1-9, columns 1-7)")
    return v


def _card(v: Union[int, str]) -> Union[int, str]:
    parse_card(str(v))  # ValueError names the card
    return v


Square = Annotated[str, AfterValidator(_square)]
Card = Annotated[Union[int, str], AfterValidator(_card)]
Letter = Literal["A", "B"]
Reg = Annotated[int, Field(ge=1, le=9)]
Text = Union[str, int]


class Robot(Strict):
    """A robot's starting facts (G-3.1, G-4.3, G-5.5, G-7)."""

    at: Square = absent()
    facing: Literal["N", "E", "S", "W"] = absent()
    hp: Annotated[int, Field(ge=1, le=10)] = absent()
    place: Literal["board", "parked", "exited", "transit"] = absent()
    transit: Annotated[int, Field(ge=1, le=5)] = absent()
    program: Annotated[list[Optional[Card]], Field(max_length=9)] = absent()
    fused: dict[Reg, Card] = absent()
    options: list[Literal[OPTION_CODES + ("ML",)]] = absent()  # type: ignore[misc]
    stations: dict[Annotated[int, Field(ge=1, le=5)], Square] = absent()
    sets: list[Literal["A", "B", "C"]] = absent()
    rebooting: bool = absent()


class Devices(Strict):
    switches: dict[Square, bool] = absent()
    trapdoors: dict[Square, bool] = absent()
    bridges: dict[Square, Union[bool, Literal["lowered", "raised"]]] = absent()
    teleporters: dict[Annotated[str, Field(pattern=r"^[A-Z]$")], bool] = absent()
    gates: dict[Square, bool] = absent()


class Expect(Strict):
    """What must hold after a stage, the end of turn or a turn (``check`` in the runner)."""

    A: Text = absent()
    B: Text = absent()
    rows: dict[str, dict[Letter, Optional[Text]]] = absent()
    contains: list[str] = absent()
    room: int = absent()
    gates: dict[Square, bool] = absent()
    devices: dict[Square, Any] = absent()
    registers: dict[Letter, dict[Reg, Optional[str]]] = absent()
    hand_size: int = absent()
    hand: list[str] = absent()
    hand_message: list[str] = absent()
    finished: Optional[int] = absent()  # null: not finished
    lost: int = absent()
    hp: dict[Letter, int] = absent()
    sets: dict[Letter, list[str]] = absent()
    stages_played: int = absent()


_STAGES = {f"stage_{s}": (Expect, Field(None, alias=f"stage {s}")) for s in range(1, 10)}
PlayExpect = create_model("PlayExpect", __base__=Strict, end=(Expect, absent()),
                          stages_played=(int, absent()), **_STAGES)  # type: ignore[call-overload]
TurnExpect = create_model("TurnExpect", __base__=Expect, end=(Expect, absent()),
                          **_STAGES)  # type: ignore[call-overload]


class Invalid(Strict):
    orders: Any
    error: str


class Turn(Strict):
    """One turn of a ``turns`` scenario, played through the order parser (G-16.1)."""

    orders: Any = "default"
    hand: list[str] = absent()
    hand_size: int = absent()
    hand_message: list[str] = absent()
    invalid: list[Invalid] = absent()
    program: dict[str, Any] = absent()
    expect: TurnExpect = absent()  # type: ignore[valid-type]


class Scenario(ScenarioHeader):
    game: Literal["geeko"]  # type: ignore[assignment]
    room: Annotated[int, Field(ge=1, le=5)] = absent()
    grid: str = absent()
    start: str = absent()
    seed: Union[str, int] = absent()
    turn: Annotated[int, Field(ge=1, le=999)] = absent()
    player: str = absent()
    robots: dict[Letter, Optional[Robot]] = absent()
    devices: Devices = absent()
    length: Annotated[int, Field(ge=0, le=9)] = absent()
    play: Union[Literal["turn"], list[Annotated[int, Field(ge=1, le=9)]]] = absent()
    expect: PlayExpect = absent()  # type: ignore[valid-type]
    turns: list[Turn] = absent()
