"""Move-list text of recorded submarine orders (issue 14 item 2): the S-2.7 notation."""

from __future__ import annotations

from typing import Any

_PARAMS = ("dir", "space", "target", "special", "to")


def action_text(a: dict[str, Any]) -> str:
    """One action object (S-12.4) as ``<sub> <action> [<param>]`` (S-2.7): ``d move N``,
    ``c mine B4``, ``b replace depth_charge``."""
    words = [str(a.get("sub", "?")), str(a.get("action", "?"))]
    words += [str(a[k]) for k in _PARAMS if k in a]
    words += [str(v) for k, v in sorted(a.items()) if k not in ("sub", "action") + _PARAMS]
    return " ".join(words)


def notation(rs: Any, before: Any, seat: str, payload: Any) -> str:
    """A recorded submarine order: the setup as placements and specials (S-3.3), a turn as
    its actions in S-2.7 notation joined by ``; `` (``pass`` when empty), or ``resign``.
    Raises ``TypeError`` for a payload of another shape."""
    if isinstance(payload, str):
        return payload
    if not isinstance(payload, dict):
        raise TypeError("not an order object")
    kind = payload.get("type")
    if kind == "setup":
        place = payload.get("placement") or {}
        spec = payload.get("specials") or {}
        return "setup " + ", ".join(f"{k} {place[k]} {spec.get(k, '')}".rstrip() for k in sorted(place))
    if kind == "resign":
        return "resign"
    acts = payload.get("actions")
    if not isinstance(acts, list):
        raise TypeError("no actions")
    return "; ".join(action_text(a) if isinstance(a, dict) else str(a) for a in acts) or "pass"


def history_text(e: dict[str, Any]) -> str:
    """One full-form history entry (S-8.7) as a readable line: ``x move D7 → D6``,
    ``b depth_charge C3: hits w on C4 (1 damage)``, ``score +8 (total 8)``; other entries as
    their type, sub and ``key value`` pairs."""
    t = str(e.get("type", "?"))
    sub = f"{e['sub']} " if "sub" in e else ""
    if t == "move" and "from" in e and "to" in e:
        return f"{sub}move {e['from']} → {e['to']}"
    if t == "score":
        return f"score +{e.get('points')} (total {e.get('total')})"
    if t in ("turn_start", "turn_end"):
        return f"— {t.replace('_', ' ')} {e.get('turn')} ({e.get('player')})"
    if t == "ap":
        return f"AP {e.get('ap')}"
    rest = []
    for k, v in sorted(e.items()):
        if k in ("type", "sub"):
            continue
        if k == "hits" and isinstance(v, list):
            v = ", ".join(f"{h.get('sub')} on {h.get('space')} ({h.get('damage')} damage"
                          + (", plate" if h.get("plate_used") else "") + ")" if isinstance(h, dict) else str(h)
                          for h in v) or "none"
        elif isinstance(v, (dict, list)):
            v = ", ".join(f"{a}={b}" for a, b in v.items()) if isinstance(v, dict) else ", ".join(map(str, v))
        rest.append(f"{k} {v}")
    return f"{sub}{t}" + (": " + "; ".join(rest) if rest else "")
