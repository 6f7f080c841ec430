"""The DADOED command pool as data (shared/rules/dadoed.md D-4.2, D-4.7).

The default pool is ``pool.yaml`` beside this module. Parameter ``pool`` may name another
YAML or JSON file of the same shape (``default`` = the shipped one). Files are read with
PyYAML (JSON is YAML) and checked field by field; every problem raises
:class:`~botwars.engine.errors.ConfigError` naming the file, the entry and the field.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from botwars.engine.errors import ConfigError
from botwars.engine.safeload import Limits, cut, load_yaml, quote, read_text

DEFAULT_POOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pool.yaml")
COLOURS = ("blue", "gold", "red", "green")
DIRECTIONS = ("N", "E", "S", "W")

# Behaviour of the ids of D-4.2 (D-4.7: "the ids above keep their behaviour"): colour and, for
# the blue commands, walking distance and fixed direction.
KNOWN: dict[str, tuple[str, int | None, str | None]] = {
    "step": ("blue", 1, None), "stride": ("blue", 2, None), "dash": ("blue", 3, None),
    "charge": ("blue", 4, None), "north_3": ("blue", 3, "N"), "south_3": ("blue", 3, "S"),
    "east_3": ("blue", 3, "E"), "west_3": ("blue", 3, "W"),
    "spread_fire": ("gold", None, None), "nudge_boulder": ("gold", None, None),
    "root": ("red", None, None), "self_destruct": ("red", None, None), "ignite": ("red", None, None),
    "place_boulder": ("red", None, None), "douse": ("red", None, None), "patch": ("red", None, None),
    "drop_bot": ("green", None, None),
}
# Commands executed by the bot on the acting tile (D-4.6); the others act on a hazard/target tile.
BOT_EXECUTED_NONBLUE = ("root", "self_destruct", "ignite", "douse", "patch")
# Commands that take a direction when used (blue ones unless fixed).
DIR_COMMANDS = ("spread_fire", "nudge_boulder", "ignite", "patch")


@dataclass(frozen=True)
class Command:
    """One pool entry: ``copies`` is ``None`` for an unlimited command (``inf``, D-4.2 drop_bot).

    ``distance``/``direction`` are set for blue (walking) commands only; ``direction`` only for
    fixed-direction ones.
    """

    id: str
    name: str
    colour: str
    copies: int | None
    distance: int | None = None
    direction: str | None = None
    acting: str = ""
    params: str = ""
    condition: str = ""
    effect: str = ""

    @property
    def bot_executed(self) -> bool:
        """True if the bot on the acting tile executes it (D-4.6)."""
        return self.colour == "blue" or self.id in BOT_EXECUTED_NONBLUE

    @property
    def takes_direction(self) -> bool:
        """True if a direction is chosen when the command is used."""
        return (self.colour == "blue" and self.direction is None) or self.id in DIR_COMMANDS


@dataclass(frozen=True)
class Pool:
    """A validated pool: commands in file order, looked up by id."""

    commands: tuple[Command, ...]
    source: str = "default"

    @functools.cached_property
    def by_id(self) -> dict[str, Command]:
        return {c.id: c for c in self.commands}

    def ids(self) -> list[str]:
        return [c.id for c in self.commands]

    def get(self, cid: str) -> Command | None:
        return self.by_id.get(cid)

    def initial_left(self) -> dict[str, int | None]:
        """Copies left at the start (D-3.3): ``None`` for unlimited commands."""
        return {c.id: c.copies for c in self.commands}

    def gold_ids(self) -> list[str]:
        return [c.id for c in self.commands if c.colour == "gold"]

    def to_json(self) -> list[dict]:
        return [{"id": c.id, "name": c.name, "colour": c.colour, "copies": c.copies, "distance": c.distance,
                 "direction": c.direction} for c in self.commands]


_FIELDS = {"id", "name", "colour", "copies", "distance", "direction", "acting", "params", "condition", "effect"}


def parse_pool(doc: object, source: str) -> Pool:
    """Validate a parsed pool document (``{"commands": [...]}`` or a bare list).

    Raises :class:`ConfigError` naming the entry and field at fault (unknown or duplicate id,
    wrong colour for a known id, bad copies, distance or direction, unknown field).
    """
    if isinstance(doc, dict):
        unknown = set(doc) - {"commands"}
        if unknown:
            raise ConfigError(f"unknown top-level key(s) {cut(', '.join(sorted(map(str, unknown))))} "
                              "(a pool file has one key, 'commands')", source=source)
        doc = doc.get("commands")
    if not isinstance(doc, list) or not doc:
        raise ConfigError("a pool must be a non-empty list of commands under 'commands'", source=source)
    out: list[Command] = []
    seen: set[str] = set()
    for i, entry in enumerate(doc, 1):
        where = f"command {i}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: must be a mapping with id, name, colour, copies", source=source)
        extra = set(map(str, entry)) - _FIELDS
        if extra:
            raise ConfigError(f"{where}: unknown field(s) {cut(', '.join(sorted(extra)))} "
                              f"(known: {', '.join(sorted(_FIELDS))})", source=source)
        cid = entry.get("id")
        if not isinstance(cid, str) or not cid.isidentifier() or cid in ("super", "resign"):
            raise ConfigError(f"{where}: 'id' must be a name like dash or east_3, got {quote(cid)}", source=source)
        where = f"command {i} ({cid})"
        if cid in seen:
            raise ConfigError(f"{where}: duplicate id", source=source)
        seen.add(cid)
        colour = entry.get("colour")
        if colour not in COLOURS:
            raise ConfigError(f"{where}: 'colour' must be one of {', '.join(COLOURS)}, got {quote(colour)}",
                              source=source)
        copies = entry.get("copies")
        if copies == "inf" or copies == float("inf"):
            copies = None
        elif isinstance(copies, bool) or not isinstance(copies, int) or copies < 0:
            raise ConfigError(f"{where}: 'copies' must be a whole number >= 0 or inf, got {quote(entry.get('copies'))}",
                              source=source)
        if copies is None and colour != "green":
            raise ConfigError(f"{where}: only green commands may have unlimited copies (D-4.3)", source=source)
        distance = entry.get("distance")
        direction = entry.get("direction")
        known = KNOWN.get(cid)
        if known is not None:
            kcol, kdist, kdir = known
            if colour != kcol:
                raise ConfigError(f"{where}: colour must be {kcol} (D-4.7: known ids keep their behaviour), "
                                  f"got {colour}", source=source)
            if distance is not None and distance != kdist:
                raise ConfigError(f"{where}: distance must be {kdist}, got {quote(distance)}", source=source)
            if direction is not None and direction != kdir:
                raise ConfigError(f"{where}: direction must be {kdir}, got {quote(direction)}", source=source)
            distance, direction = kdist, kdir
        else:
            if colour != "blue":
                raise ConfigError(f"{where}: unknown id with no behaviour; only new blue (walking) commands "
                                  f"may be added, with a distance (known ids: {', '.join(KNOWN)})", source=source)
            if isinstance(distance, bool) or not isinstance(distance, int) or not 1 <= distance <= 7:
                raise ConfigError(f"{where}: a new blue command needs 'distance' 1-7, got {quote(distance)}",
                                  source=source)
            if direction is not None and direction not in DIRECTIONS:
                raise ConfigError(f"{where}: 'direction' must be one of N, E, S, W, got {quote(direction)}",
                                  source=source)
        for key in ("name", "acting", "params", "condition", "effect"):
            v = entry.get(key, "")
            if not isinstance(v, str):
                raise ConfigError(f"{where}: '{key}' must be text, got {quote(v)}", source=source)
        name = entry.get("name") or cid
        out.append(Command(cid, name, colour, copies, distance, direction, entry.get("acting", ""),
                           entry.get("params", ""), entry.get("condition", ""), entry.get("effect", "")))
    if not any(c.colour == "blue" for c in out):
        raise ConfigError("the pool needs at least one blue command (supers start with one, D-3.4a)", source=source)
    return Pool(tuple(out), source)


def pool_names() -> list[str]:
    """Names of the shipped pools (only ``default``, D-4.2)."""
    return ["default"]


POOL_LIMITS = Limits(max_bytes=256 << 10)
"""What one pool file or pool text may cost (256 KiB; the shipped pool is about 3 KiB)."""


@functools.lru_cache(maxsize=32)
def load_pool(name: str = "default") -> Pool:
    """Load and validate a pool: ``default``, the YAML/JSON text itself (any value with a line
    break) or a path to a YAML/JSON file, read through :mod:`botwars.engine.safeload` (at most
    :data:`POOL_LIMITS` bytes, no YAML anchors or aliases, bounded depth and integers).

    Raises :class:`ConfigError` for a missing, unreadable or malformed file or text."""
    path = DEFAULT_POOL if name in ("", "default") else name
    try:
        if "\n" in name:
            path = "<pool text>"
            doc = load_yaml(name, path, POOL_LIMITS)
        else:
            doc = load_yaml(read_text(path, POOL_LIMITS, what="pool file"), path, POOL_LIMITS)
    except ConfigError as exc:
        if exc.message.startswith("YAML error: "):
            raise ConfigError("pool file is not valid YAML/JSON: " + exc.message.removeprefix("YAML error: "),
                              source=exc.source, line=exc.line, column=exc.column) from None
        raise
    return parse_pool(doc, "default" if path == DEFAULT_POOL else path)
