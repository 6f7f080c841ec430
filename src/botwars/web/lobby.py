"""``GET /``: the lobby (create a match, running and ended matches; below the sandbox level
uploads need, a line saying league uploads are off and why), mounted by
:func:`botwars.web.install_web`."""

from __future__ import annotations

import functools
import re

from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from botwars.engine.plugin import games as all_games
from botwars.engine.timecontrol import span_words, time_control_words
from botwars.server.routes.matches import CLOCK_PRESETS
from botwars.server.deps import ManagerDep
from botwars.server.names import seat_label
from botwars.web.rendering import page

router = APIRouter(include_in_schema=False)


def _choices(p: Any) -> list[str]:
    """The values the lobby offers in a drop-down for parameter ``p``: its ``choices``, ``true``
    and ``false`` for a yes/no one, or the shipped names of a ``kind="file"`` parameter (boards,
    maps, room sets); ``[]``: free input."""
    if p.choices:
        return [str(c) for c in p.choices]
    if p.type is bool:
        return ["true", "false"]
    if p.kind == "file" and p.names is not None:
        try:
            return [str(n) for n in p.names()]
        except Exception:  # noqa: BLE001 - a broken listing leaves the field free
            return []
    return []


#: A rule number as the rules write it: R26, P2, D-8.3, F-6.20 (2), S-3.2, G-9.2, §12.
_RULE_ID = re.compile(r"(?:§\d+(?:\.\d+)*|\b[A-Z]-\d+(?:\.\d+)*(?: \(\d+\))?|\b[RP]\d+\b)")


def plain_doc(doc: str) -> str:
    """A parameter's description for people (issue 23: no rule ids on play pages): ``doc``
    without its rule numbers — a parenthesis that cites one is left out whole ("Last turn
    (R26)" → "Last turn"), a leading citation too ("F-6.20 (2): botwars, or none" → "botwars,
    or none"). The full text stays in the field's tooltip."""
    out = re.sub(r"\s*\([^()]*\)", lambda m: "" if _RULE_ID.search(m.group(0)) else m.group(0), doc)
    out = re.sub(rf"^{_RULE_ID.pattern}:?\s*", "", out)
    out = _RULE_ID.sub("", out)
    return re.sub(r"\s{2,}", " ", out).strip(" ,;:")


_UNITS = {"s": "seconds", "mib": "MiB", "ms": "milliseconds"}
_WORDS = {"hp": "HP", "ap": "AP", "len": "length", "chars": "characters"}


def param_label(name: str, seats: list[str]) -> str:
    """A parameter's name as the lobby shows it (newcomer audit: "time bank s", "p1 home row"):
    words, a unit spelled out, a seat by its colour — ``time_bank_s`` → "time bank (seconds)",
    ``p1_home_row`` → "Red's home row", ``initial_hp`` → "Initial HP"."""
    words = name.split("_")
    unit = _UNITS.get(words[-1]) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    if words and words[0] in seats:
        words[0] = seat_label(words[0], seats, {}) + "'s"
    text = " ".join(_WORDS.get(w, w) for w in words)
    text = "most " + text[4:] if text.startswith("max ") else text
    return f"{text[:1].upper()}{text[1:]}" + (f" ({unit})" if unit else "")


def choice_label(value: str, seats: list[str]) -> str:
    """A drop-down value as the lobby shows it: a seat by its colour (``p2`` → "Blue"), yes/no
    for ``true``/``false``; others as they are."""
    if value in seats:
        return seat_label(value, seats, {})
    return {"true": "yes", "false": "no"}.get(value, value)


def _seat_labels(seats: list[str]) -> list[str]:
    """Each seat's name in the lobby (issue 23 item 2): its colour word, as on the match pages
    (server/names.seat_label without display names)."""
    return [seat_label(s, seats, {}) for s in seats]


@functools.lru_cache(maxsize=64)
def _clock_choices(game_id: str, rules_version: int) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """What each clock choice of the lobby means in game ``game_id`` (issue 23 item 5), worked
    out once per rule set version: the presets go through the game's own ``clock_settings``
    (arena caps a turn at an hour, dadoed keeps a bank, submarine a reserve), so "Daily" never
    promises "24 hours a turn" where the game gives something else.

    Returns ``(words, params)``: ``words`` the sentence of each preset, of ``game`` (its own
    defaults) and of ``off``; ``params`` preset → option → value as text, the options the preset
    sets, which the lobby shows in those fields instead of the game's defaults ("Time bank
    (seconds) 1800" under a daily clock that gives 30 days)."""
    rs = all_games()[game_id].ruleset()
    words = {"off": "no time limit: a player who leaves stalls the match"}
    params: dict[str, dict[str, str]] = {}
    said: dict[str, str] = {}  # a sentence → the first choice that gave it
    for name, per_turn in (*CLOCK_PRESETS.items(), ("game", None)):
        try:
            settings = rs.clock_settings(per_turn) if per_turn else {}
            tc = rs.time_control(rs.validate_config(settings))
        except Exception:  # noqa: BLE001 - a game whose clock cannot be put in words: no sentence
            continue
        w, notes = time_control_words(tc), []
        if per_turn and tc.move_limit_s and tc.move_limit_s < per_turn:
            # arena's turn tops at an hour: "Daily" there is not a day (newcomer audit)
            notes.append(f"this game allows at most {span_words(tc.move_limit_s)} a turn")
        if w in said:  # factory's own clock is PBEM's 5 days: say so rather than look different
            notes.append(f"the same as “{CLOCK_NAMES[said[w]]}”")
        else:
            said[w] = name
        words[name] = w + (f" ({'; '.join(notes)})" if notes else "")
        if per_turn:
            params[name] = {k: _shown(v) for k, v in settings.items()}
    params["off"] = {k: "" for k in _clock_param_names(rs, params)}
    return words, params


CLOCK_NAMES = {"daily": "Daily", "blitz": "Blitz", "pbem": "Play by e-mail", "game": "The game's own clock"}


def _clock_param_names(rs: Any, params: dict[str, dict[str, str]]) -> list[str]:
    """The options of ``rs`` that belong to its clock: those a preset sets (``params``) and those
    that change the game's time control (arena's ``time_bank_s``), found by trying a second
    value of each number option. Without a clock they are not used, and the lobby says so."""
    names = {k for d in params.values() for k in d}
    base = rs.time_control(rs.validate_config({}))
    for p in rs.params:
        if p.type not in (int, float) or p.name in names or p.kind == "file":
            continue
        for v in (p.default + 1, p.default * 2 + 1):
            try:
                if rs.time_control(rs.validate_config({p.name: v})) != base:
                    names.add(p.name)
                    break
            except Exception:  # noqa: BLE001 - a value out of the option's range: try the next
                continue
    return sorted(names)


def _shown(v: Any) -> str:
    """A parameter value as a lobby field shows it: ``432000.0`` as ``432000``."""
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else f"{v:g}"
    return str(v)


def _games() -> list[dict[str, Any]]:
    out = []
    for gid, game in all_games().items():
        rs = game.ruleset()
        two = rs.seat_names(2)  # the seats a parameter or a drop-down value may name ("p1_home_row")
        clock_words, clock_params = _clock_choices(gid, rs.rules_version)
        out.append({"id": gid, "name": rs.name, "min_seats": rs.min_seats, "max_seats": min(rs.max_seats, 6),
                    "seat_names": rs.seat_names(min(rs.max_seats, 6)),
                    # what the lobby calls each seat: its colour ("Red"), never the engine's "p1"
                    "seat_labels": _seat_labels(rs.seat_names(min(rs.max_seats, 6))),
                    "params": [{"name": p.name, "type": p.type.__name__, "default": p.default, "doc": p.doc,
                                "label": param_label(p.name, two),
                                "plain": plain_doc(p.doc), "file": p.kind == "file",
                                "shown_default": _shown(p.default),
                                "choices": [(c, choice_label(c, two)) for c in _choices(p)]}
                               for p in rs.params],
                    "clock_words": clock_words, "clock_params": clock_params,
                    "bots": sorted(game.builtin_bots()), "howto": game.how_to_play is not None,
                    "rules": game.rules_page is not None})
    return out


@router.get("/", response_class=HTMLResponse)
def lobby(manager: ManagerDep) -> HTMLResponse:
    """The lobby page."""
    from botwars.server.uploads import uploads_off_reason  # below the sandbox minimum: say uploads are off
    games = _games()
    names = {g["id"]: g["name"] for g in games}
    return page("lobby.html", games=games, running=_listed(manager.list("running", 50, 0), names),
                ended=_listed(manager.list("ended", 50, 0), names), uploads_off=uploads_off_reason())


def _listed(matches: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    """The lobby's lists as the page's script redraws them (issue 23 item 2): the game's name
    (``names``: game id → name), each seat by its colour ("Red: a person"), the winner by
    colour; never the engine's ids."""
    out = []
    for d in matches:
        seats = [s["seat"] for s in d["seats"]]
        labels = {s: seat_label(s, seats, {}) for s in seats}
        who = [f"{labels[s['seat']]}: {s.get('name') or ('a person' if s['agent'] == 'remote' else s['agent'].replace('builtin:', 'bot '))}"
               for s in d["seats"]]
        o = d.get("outcome") or None
        result = None if o is None else (f"{labels.get(o['winner'], o['winner'])} won" if o.get("winner") else "draw")
        out.append({"match": d["match"], "game": names.get(d["game"], d["game"]), "turn": d["turn"],
                    "who": ", ".join(who), "result": result, "reason": (o or {}).get("reason")})
    return out
