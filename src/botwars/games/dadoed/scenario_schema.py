"""The shape of a DADOED scenario file (docs/dadoed.md, "Scenario files"), as Pydantic models.

:func:`check` validates a loaded document before :mod:`botwars.games.dadoed.scenario` uses it:
every key, type and value format (tiles ``A1``..``H8``, bot labels, players) is checked, so a
malformed file is a one-line :class:`~botwars.engine.errors.ConfigError` with its file, line,
column and key path.  Orders themselves are not checked here: a scenario may give any payload,
which the rule set refuses or accepts as a player's would be.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, Field

from botwars.engine.yamlschema import ScenarioHeader, Strict, absent, validate_doc
from botwars.games.dadoed.board import parse_tile


def _tile(v: str) -> str:
    parse_tile(v)  # ValueError names the text
    return v


def _label(v: str) -> str:
    if v.upper() not in ("A", "B", "C", "D"):
        raise ValueError(f"{v!r} is not a bot label (A-D)")
    return v


Tile = Annotated[str, AfterValidator(_tile)]
Tiles = Union[str, list[Tile]]  # "A1 B2" or [A1, B2]
Label = Annotated[str, AfterValidator(_label)]
Player = Literal["blue", "orange"]
Count = Annotated[int, Field(ge=0, le=999)]


class Expect(Strict):
    """What must hold after an order (``_check`` in the runner)."""

    board: str = absent()
    bots: dict[Label, str] = absent()
    holes: Optional[Tiles] = absent()
    fire: Optional[Tiles] = absent()
    boulders: Optional[Tiles] = absent()
    pool: dict[str, Optional[int]] = absent()
    gold_refreshes: int = absent()
    events: Optional[list[Any]] = absent()
    events_include: list[Any] = absent()
    result: Optional[dict[str, Any]] = absent()  # null: the game goes on
    rooted: Optional[list[Label]] = absent()
    active: Optional[str] = absent()
    turn: int = absent()
    legal: list[str] = absent()
    not_legal: list[str] = absent()
    reserves: dict[Player, Optional[list[Label]]] = absent()
    log_order: Optional[str] = absent()


class Entry(Strict):
    order: Any = absent()
    setup: dict[Player, Any] = absent()
    expect: Expect = absent()
    reject: Union[str, dict[Player, str]] = absent()
    note: str = absent()


class Scenario(ScenarioHeader):
    game: Literal["dadoed"]  # type: ignore[assignment]
    board: str = absent()
    turn: Annotated[int, Field(ge=1, le=999)] = absent()
    phase: Literal["play", "setup"] = absent()
    rooted: list[Label] = absent()
    supers: dict[Label, Annotated[list[str], Field(min_length=2, max_length=2)]] = absent()
    reserves: dict[Player, Optional[list[Label]]] = absent()
    fire: Optional[Tiles] = absent()
    holes: Optional[Tiles] = absent()
    boulders: Optional[Tiles] = absent()
    pool: dict[str, Count] = absent()
    gold_refreshes: Count = absent()
    orders: list[Entry] = absent()
