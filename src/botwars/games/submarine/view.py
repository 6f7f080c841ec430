"""Per-seat observations (S-8, S-12.3, S-12.5), the spectator view (S-8.8), the god view and the
per-seat record filter.

This module is the single gate for secret state: everything a player or spectator is shown is
built here from the state, and only from the fields §8 lets that recipient know.
"""

from __future__ import annotations

from typing import Any

from botwars.games.submarine.board import SUBS_OF, destroyed_spaces, name
from botwars.games.submarine.state import SPECIALS, Ev, SubState


def clock_json(state: SubState, clock: Any = None) -> dict[str, Any]:
    """S-12.3 ``clock``: both reserves are public (S-8.2). ``clock`` is the match's live
    :class:`~botwars.engine.timecontrol.Clock` (``None``: the configured full reserves)."""
    cfg = state.config
    out = {"enabled": bool(cfg["clock_enabled"]), "p1_reserve_s": cfg["reserve_time_s"],
           "p2_reserve_s": cfg["reserve_time_s"], "turn_time_s": cfg["turn_time_s"]}
    if clock is not None and cfg["clock_enabled"]:
        for s in ("p1", "p2"):
            left = clock.bank_left.get(s)
            if left is not None:
                out[f"{s}_reserve_s"] = round(float(left), 3)
    return out


def event_form(ev: Ev, seat: str | None) -> dict[str, Any] | None:
    """The form of logical event ``ev`` that ``seat`` receives (``None``: spectator), or ``None``
    if it receives nothing (S-12.4: the acting player gets its column, everyone else the other)."""
    full, actor, aform, oform = ev
    if actor is not None and seat == actor:
        return aform
    return oform


def seat_events(evs: tuple[Ev, ...] | list[Ev], seat: str | None) -> list[dict[str, Any]]:
    """The events of ``evs`` that ``seat`` receives, in its form, in resolution order."""
    out = []
    for ev in evs:
        f = event_form(ev, seat)
        if f is not None:
            out.append(_copy(f))
    return out


def _copy(o: Any) -> Any:
    """A deep copy of JSON data: a view never shares objects with the state (a bot that edits
    its view cannot change the history or another recipient's events)."""
    if isinstance(o, dict):
        return {k: _copy(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_copy(v) for v in o]
    return o


def _suppressed(state: SubState) -> dict[str, list[dict[str, Any]]]:
    return {s: [{"special": w[0], "until_turn": w[1]} for w in state.suppressed[s]] for s in ("p1", "p2")}


def _common(state: SubState, seat: str | None) -> dict[str, Any]:
    return {"ruleset": "submarine", "you": seat, "turn": state.turn, "round": state.round,
            "active": state.active, "home_rows": dict(state.home_rows), "first_player": state.first_player}


def observation(state: SubState, seat: str | None, clock: Any = None) -> dict[str, Any]:
    """The observation of ``seat`` (``None`` = spectator) for the current decision point.

    - setup phase: the setup observation (``turn`` 0, ``setup`` true; see docs/submarine.md);
    - play: the S-12.3 object (players) or the S-8.8 object (spectators);
    - over: the S-12.5 final observation (everything revealed, H22) — only when the game
      ended by a rule of the game (a match clock loss has no final state to show).

    ``events`` (S-8.7) holds the events since the seat's previous decision point as the match
    delivers them: for the player to move, the last two resolutions (the opponent's turn and the
    end of its own previous turn); for anyone else, the last resolution.
    """
    if state.phase == "over" and state.result is not None:
        return final_observation(state, seat, clock=clock)
    if state.phase == "setup":
        obs = {"ruleset": "submarine", "you": seat, "setup": True, "turn": 0, "round": 0, "active": None,
               "home_rows": dict(state.home_rows), "first_player": state.first_player,
               "catalog": list(SPECIALS), "clock": clock_json(state, clock), "result": None}
        if seat is not None:
            obs["subs"] = list(SUBS_OF[seat])
            obs["home_row"] = state.home_rows[seat]
            obs["accepted"] = seat in state.setups
        return obs
    evs = (state.prev + state.last) if (seat is not None and seat == state.active) else state.last
    obs = _common(state, seat)
    if seat is None:
        obs["surfaced_subs"] = {k: name(s.space) for k, s in sorted(state.subs.items()) if s.surfaced}
    else:
        obs["ap"] = state.ap if state.active == seat else None
        obs["own_subs"] = {k: {"space": name(s.space), "hp": s.hp, "surfaced": s.surfaced, "special": s.special,
                               "plate": s.plate, "ramming": s.ramming, "used_special": s.used_special,
                               "cancelled": s.cancelled}
                           for k, s in sorted(state.subs.items()) if s.owner == seat}
        obs["visible_enemy_subs"] = {k: name(s.space) for k, s in sorted(state.subs.items())
                                     if s.owner != seat and s.surfaced}
        obs["own_mines"] = sorted(name(sp) for sp, o in state.mines.items() if o == seat)
        obs["score"] = state.scores[seat]
    obs["destroyed_subs"] = {s: list(state.destroyed[s]) for s in ("p1", "p2")}
    obs["destroyed_rings"] = state.rings
    obs["destroyed_spaces"] = [name(sp) for sp in destroyed_spaces(state.rings)]
    obs["announced_25"] = dict(state.announced)
    obs["suppressed"] = _suppressed(state)
    obs["clock"] = clock_json(state, clock)
    obs["events"] = seat_events(evs, seat)
    obs["result"] = None
    return obs


def full_state(state: SubState, clock: Any = None) -> dict[str, Any]:
    """The S-12.5 ``state`` object: everything, including hidden information."""
    return {"subs": {k: {"owner": s.owner, "space": name(s.space), "hp": s.hp, "surfaced": s.surfaced,
                         "special": s.special, "plate": s.plate, "ramming": s.ramming}
                     for k, s in sorted(state.subs.items())},
            "destroyed_subs": {s: list(state.destroyed[s]) for s in ("p1", "p2")},
            "mines": {s: sorted(name(sp) for sp, o in state.mines.items() if o == s) for s in ("p1", "p2")},
            "destroyed_rings": state.rings,
            "destroyed_spaces": [name(sp) for sp in destroyed_spaces(state.rings)],
            "suppressed": _suppressed(state), "clock": clock_json(state, clock)}


def final_observation(state: SubState, seat: str | None, result: dict[str, Any] | None = None,
                      clock: Any = None) -> dict[str, Any]:
    """S-12.5: the final observation (all hidden information revealed, H22). Only for a finished
    game: ``state`` ended by a rule, or ``result`` given by the match (a loss on time, S-7.8);
    raises ``ValueError`` otherwise."""
    if result is None:
        if state.phase != "over" or state.result is None:
            raise ValueError("the final observation exists only for a finished game")
        result = state.result
    return {"ruleset": "submarine", "you": seat, "turn": state.turn, "round": state.round,
            "result": dict(result), "state": full_state(state, clock),
            "history": [_copy(e) for e in state.history]}


def god_view(state: SubState) -> dict[str, Any]:
    """The referee's full view (S-8.6: replays of finished games only).

    Raises ``ValueError`` while the game is still running: during a game only the referee
    (the rule set itself and tests, through the state) may see everything.
    """
    return final_observation(state, None)


def render(state: SubState, seat: str | None, reveal: bool = False) -> str:
    """S-2.8 player view rendering (``seat`` None: a spectator's: surfaced subs only; the
    referee rendering of a finished game, or with ``reveal`` (replays of ended matches), shows
    everything, with submerged subs in lower case)."""
    reveal = reveal or state.phase == "over"
    lines = ["  ABCDEFG"]
    ds = set(destroyed_spaces(state.rings))
    for r in range(7, 0, -1):
        row = []
        for c in range(1, 8):
            sp = (c, r)
            s = state.sub_at(sp)
            ch = "."
            if s is not None and (s.owner == seat or reveal):
                ch = s.letter.upper() if s.surfaced else s.letter
            elif s is not None and s.surfaced:
                ch = s.letter.upper()
            elif seat is not None and state.mines.get(sp) == seat:
                ch = "+"
            elif sp in ds:
                ch = "#"
            row.append(ch)
        lines.append(f"{r} " + "".join(row))
    head = f"turn {state.turn} round {state.round}"
    if state.active:
        head += f", {state.active} to move"
    if seat is not None and state.phase == "play":
        head += f"; {seat} score {state.scores[seat]}"
        if state.active == seat:
            head += f", AP {state.ap}"
    if state.result:
        head += f"; result {state.result['winner']} ({state.result['reason']}) {state.result['scores']}"
    return head + "\n" + "\n".join(lines)

