"""``GET /api/games``: the installed games (:mod:`botwars.server.routes`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from botwars.engine.plugin import games as all_games
from botwars.server.schemas import GameInfo

router = APIRouter(tags=["games"])


def param_json(p: Any) -> dict[str, Any]:
    """One row of a game's parameter table for ``GET /api/games``: name, type, default, doc,
    bounds, choices, and for a ``kind="file"`` parameter the shipped names it accepts."""
    out = {"name": p.name, "type": p.type.__name__, "default": p.default, "doc": p.doc,
           "minimum": p.minimum, "maximum": p.maximum, "choices": list(p.choices) if p.choices else None,
           "kind": p.kind}
    if p.kind == "file":
        out["names"] = list(p.names()) if p.names is not None else []
    return out


@router.get("/api/games", response_model=list[GameInfo])
def games() -> list[dict[str, Any]]:
    """Every installed game: seat counts, parameter table, built-in bots, the agent kinds it
    adds (for ``botwars connect``) and its declared capabilities."""
    out = []
    for gid, game in all_games().items():
        rs = game.ruleset()
        out.append({"id": gid, "name": rs.name, "min_seats": rs.min_seats, "max_seats": rs.max_seats,
                    "rules_version": rs.rules_version,
                    "params": [param_json(p) for p in rs.params],
                    "bots": sorted(game.builtin_bots()),
                    "agent_kinds": [k.prefix for k in game.agent_kinds],
                    "capabilities": game.capabilities.to_json()})
    return out
