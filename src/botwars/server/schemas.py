"""The wire schemas of the game-master server's JSON API (Pydantic models): request bodies
(:class:`CreateMatch`, :class:`OrdersIn`), responses (:class:`Created`, :class:`Summary`,
:class:`Snapshot`, :class:`Ack`...), the error body :class:`ErrorOut` and :func:`errs`, the
``responses=`` table of a route's documented error statuses. Re-exported by
:mod:`botwars.server.app`."""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, ValidationInfo, field_validator

from botwars.engine.codes import FailureCode
from botwars.server.names import clean_name


def bad_text_at(value: Any, path: str) -> str | None:
    """Where in a JSON value (strings, keys, lists, objects) text cannot be encoded as UTF-8
    (a lone surrogate such as ``"\ud800"``, which JSON allows): a path like ``orders.moves[2]``,
    or ``None``. Iterative, so any nesting depth is fine."""
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return p
        elif isinstance(v, dict):
            for i, (k, x) in enumerate(v.items()):
                try:
                    name = k.encode("utf-8").decode() if isinstance(k, str) else str(k)
                except UnicodeEncodeError:
                    return f"{p} (key {i + 1})"
                stack.append((x, f"{p}.{name}"))
        elif isinstance(v, (list, tuple)):
            stack.extend((x, f"{p}[{i}]") for i, x in enumerate(v))
    return None


def printable(text: str) -> str:
    """``text`` safe to put in a UTF-8 response (unencodable characters escaped)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# ---- wire schemas ------------------------------------------------------------------------
class _Body(BaseModel):
    """Base of request bodies: text that cannot be encoded (a lone surrogate) is a 422 naming
    the field and the place in it, never a 500 (issue 12)."""

    @field_validator("*", mode="before")
    @classmethod
    def _encodable(cls, v: Any, info: ValidationInfo) -> Any:
        bad = bad_text_at(v, info.field_name or "body")
        if bad is not None:
            raise ValueError(f"text at {bad} cannot be encoded as UTF-8 (a lone surrogate)")
        return v


class CreateMatch(_Body):
    """A new match: game id, one spec per seat (``remote`` or ``builtin:NAME``), parameter
    overrides (validated against the game's parameter table), seed, and whether the game's
    clock runs (``false``: no time limits)."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(max_length=64, description="Game id (GET /api/games)")
    seats: Optional[list[str]] = Field(None, max_length=64,
                                       description="One spec per seat: remote or builtin:NAME")
    config: dict[str, Union[StrictBool, StrictInt, StrictFloat, str]] = Field(default_factory=dict, max_length=64)
    seed: Optional[int] = Field(None, ge=0, le=2**63 - 1,
                                description="Match seed; left out: a secret random one (a seed the seats "
                                            "could guess would reveal every deal, F-14.3, S-8.1)")
    clock: bool = True
    names: Optional[list[Optional[str]]] = Field(
        None, max_length=64, description="Display names in seat order (null or left out: none yet; the "
                                          "player may set one once). 1-40 characters, any script, no < > "
                                          "or control characters")
    clock_preset: Optional[Literal["blitz", "daily", "pbem"]] = Field(
        None, description="A clock that fits the match: blitz (30 s a turn), daily (24 h), pbem (5 days); "
                          "parameters given in config win")

    @field_validator("names")
    @classmethod
    def _names(cls, v: Optional[list[Optional[str]]]) -> Optional[list[Optional[str]]]:
        if v is None:
            return None
        out = []
        for i, name in enumerate(v):
            try:
                out.append(None if name is None else clean_name(name))
            except ValueError as exc:
                raise ValueError(f"seat {i + 1}: {exc}") from None
        return out


class NameIn(_Body):
    """The display name a seat's player sets for their seat (once)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=10_000, description="1-40 characters, any script, no < > or control characters")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return clean_name(v)


class Named(BaseModel):
    match: str
    seat: str
    name: str


class Failure(_Body):
    """The seat's agent failed this decision: its default orders apply and this is recorded."""

    model_config = ConfigDict(extra="forbid")
    code: FailureCode
    detail: str = Field("", max_length=2000)


class OrdersIn(_Body):
    """Orders for decision point ``decision`` (the ``decision`` of the seat's view)."""

    model_config = ConfigDict(extra="forbid")
    decision: int = Field(ge=1, le=10**9)
    orders: Any = Field(None, description="The game's orders payload (JSON value or text)")
    failure: Optional[Failure] = None


class SeatLink(BaseModel):
    seat: str
    agent: str
    name: Optional[str] = None
    colour: Optional[str] = None
    """The seat's colour as players call it ("Red"; render/palette.py): pages name a seat by it."""
    token: str
    url: str


class Created(BaseModel):
    match: str
    game: str
    seats: list[SeatLink]
    spectator: str
    websocket: str
    gm_token: str = Field(description="The game master's token (in this answer only; stored hashed)")
    gm_url: str = Field(description="The game master's page, with the token")


class SeatAgent(BaseModel):
    seat: str
    agent: str
    name: Optional[str] = None
    colour: Optional[str] = None
    """The seat's colour as players call it ("Red"; render/palette.py): pages name a seat by it."""


class Summary(BaseModel):
    match: str
    game: str
    status: Literal["running", "ended"]
    config: dict[str, Any]
    seats: list[SeatAgent]
    decision: int
    turn: int
    pending: list[str]
    submitted: list[str]
    clock: dict[str, Any]
    created_at: float
    outcome: Optional[dict[str, Any]]
    paused: bool = False


class ListItem(BaseModel):
    match: str
    game: str
    status: str
    decisions: int
    turn: int
    created_at: float
    seats: list[SeatAgent]
    outcome: Optional[dict[str, Any]]


class Snapshot(BaseModel):
    match: str
    game: str
    status: Literal["running", "ended"]
    seat: Optional[str]
    decision: int
    turn: int
    pending: list[str]
    submitted: list[str]
    your_turn: bool
    names: dict[str, str] = Field(default_factory=dict, description="display names of the seats that have one")
    view: dict[str, Any]
    events: list[dict[str, Any]]
    clock: dict[str, Any]
    outcome: Optional[dict[str, Any]]
    notes: list[dict[str, Any]] = Field(default_factory=list,
                                        description="The game master's actions and missed deadlines, each with "
                                                    "``text`` in plain words")
    bots: dict[str, str] = Field(default_factory=dict, description="Seats the server's built-in bots play now")
    your_orders: Any = Field(None, description="The seat's own accepted orders of the open decision point, as "
                                               "it sent them (null: none yet, or a spectator); only in the seat's "
                                               "own snapshot")
    your_orders_by_gm: Optional[str] = Field(None, description="When the game master set the seat's orders of "
                                                               "the open decision point (and the seat has not "
                                                               "replaced them): the GM's reason; only in the "
                                                               "seat's own snapshot")


class Ack(BaseModel):
    match: str
    seat: str
    decision: int
    accepted: bool
    duplicate: bool
    resolved: bool
    errors: list[dict[str, Any]]


class Resigned(BaseModel):
    match: str
    seat: str
    outcome: dict[str, Any]


class SeatInfo(BaseModel):
    match: str
    seat: str
    game: str
    config: dict[str, Any]
    seats: list[str]
    agent_seed: int
    status: str


class Capabilities(BaseModel):
    """What the game declares about itself (docs/plugins.md)."""

    turns: Literal["simultaneous", "alternating", "mixed"]
    hidden_information: bool
    finite_legal_orders: bool
    replace_until_resolved: bool
    counts_refusals: bool
    text_orders: bool


class GameInfo(BaseModel):
    id: str
    name: str
    min_seats: int
    max_seats: int
    rules_version: int
    params: list[dict[str, Any]]
    bots: list[str]
    agent_kinds: list[str]
    capabilities: Capabilities


class ErrorOut(BaseModel):
    error: str
    message: str


_ERRORS = {403: {"model": ErrorOut, "description": "missing or wrong seat token"},
           404: {"model": ErrorOut, "description": "unknown match"},
           409: {"model": ErrorOut, "description": "not possible now"},
           413: {"model": ErrorOut, "description": "body too large"},
           422: {"model": ErrorOut, "description": "malformed request or invalid orders"}}


def errs(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` table of a route that may answer the HTTP statuses ``codes`` (each
    documented with :class:`ErrorOut`); a code not in 403, 404, 409, 413, 422 raises ``KeyError``."""
    return {c: _ERRORS[c] for c in codes}
