"""An independent visibility oracle for submarine, written from shared/rules/submarine.md §8 and
§12 (S-8.4, S-8.5, S-8.8, S-12.3, S-12.4) without calling the game's view code.

The oracle reads the referee's ground truth — the raw state fields and the full-form event history
(S-12.5) — and computes by itself what each recipient must receive. It tracks which subs are
surfaced by replaying the history's own events (every change of the surfaced flag is an event), so
"vis(X) at the moment of the event" is decided here, not taken from the engine.
"""

from __future__ import annotations

import json
from typing import Any

COLS = "ABCDEFG"
P1 = ("a", "b", "c", "d", "e")
SEATS = ("p1", "p2")
ROUTINE_ACTOR_ONLY = {"passive", "ap", "skipped", "score"}
PUBLIC = {"turn_start", "surface", "submerge", "collision", "mine_triggered", "announce_25", "nullify_expired",
          "ring_destroyed", "turn_end", "result", "detected"}
IF_VISIBLE = {"move", "replace", "torpedo_miss", "mine_placed", "mine_not_placed", "damage"}
PLAYER_VIEW_KEYS = {"ruleset", "you", "turn", "round", "active", "home_rows", "first_player", "ap", "own_subs",
                    "visible_enemy_subs", "destroyed_subs", "own_mines", "destroyed_rings", "destroyed_spaces",
                    "score", "announced_25", "suppressed", "clock", "events", "result"}


def owner(letter: str) -> str:
    return "p1" if letter in P1 else "p2"


def sname(sp: tuple[int, int]) -> str:
    return f"{COLS[sp[0] - 1]}{sp[1]}"


def ring_of(name: str) -> int:
    c, r = COLS.index(name[0]) + 1, int(name[1])
    return 1 + min(c - 1, 7 - c, r - 1, 7 - r)


DESTROYED = {k: sorted(f"{c}{r}" for c in COLS for r in range(1, 8) if ring_of(f"{c}{r}") <= k) for k in range(5)}


class Oracle:
    """Follows one game. Call :meth:`absorb` after every resolution with the new full events and
    the acting player at the start of that resolution; then :meth:`expected_view` and friends."""

    def __init__(self) -> None:
        self.surf: dict[str, bool] = {}
        self.per_resolve: list[dict[str, list[dict[str, Any]]]] = []
        self.all: dict[Any, list[dict[str, Any]]] = {"p1": [], "p2": [], None: []}

    # ---- S-12.4, written out ---------------------------------------------------------------
    def forms(self, ev: dict[str, Any], actor: str | None) -> dict[Any, dict[str, Any] | None]:
        """What p1, p2 and a spectator (None) receive of full event ``ev``."""
        t = ev["type"]
        vis = self.surf
        if t == "game_start":
            f = {"type": t, "subs": ev["subs"]}
            return {"p1": f, "p2": f, None: f}
        if t in ROUTINE_ACTOR_ONLY or t == "sonar_result" or t == "detected":
            act: dict[str, Any] | None = None if t == "detected" else ev
        else:
            act = ev
        oth: dict[str, Any] | None
        if t in PUBLIC:
            oth = ev
        elif t in ROUTINE_ACTOR_ONLY:
            oth = None
        elif t in IF_VISIBLE:
            oth = ev if vis.get(ev["sub"]) else None
        elif t == "torpedo_hit":
            oth = ev if vis.get(ev["sub"]) else {k: v for k, v in ev.items() if k not in ("sub", "from")}
        elif t == "depth_charge":
            oth = ev if vis.get(ev["sub"]) else {k: v for k, v in ev.items() if k not in ("sub", "from")}
        elif t == "nullify":
            oth = ev if vis.get(ev["sub"]) else {k: v for k, v in ev.items() if k not in ("sub", "from")}
        elif t == "sonar_result":
            oth = {"type": t, "sub": ev["sub"], "from": ev["from"]} if vis.get(ev["sub"]) else None
        elif t == "heal":
            hv, tv = vis.get(ev["sub"]), vis.get(ev["target"])
            if not (hv or tv):
                oth = None
            else:
                oth = {"type": t, "space": ev["space"]}
                if hv:
                    oth.update({"sub": ev["sub"], "from": ev["from"]})
                if tv:
                    oth["target"] = ev["target"]
        elif t == "destroyed":
            oth = ev if vis.get(ev["sub"]) else {"type": t, "sub": ev["sub"]}
        else:
            raise AssertionError(f"oracle: event type {t!r} is not in S-12.4")
        out: dict[Any, dict[str, Any] | None] = {}
        for r in ("p1", "p2", None):
            out[r] = act if (r is not None and r == actor) else oth
        return out

    def _apply_surfacing(self, ev: dict[str, Any]) -> None:
        t = ev["type"]
        if t == "game_start":
            self.surf = {k: True for k in ev["subs"]}
        elif t == "surface":
            self.surf[ev["sub"]] = True
        elif t == "submerge":
            self.surf[ev["sub"]] = False
        elif t == "collision":
            self.surf[ev["attacker"]["sub"]] = True
            self.surf[ev["defender"]["sub"]] = True
        elif t in ("torpedo_hit",):
            self.surf[ev["target"]] = True
        elif t == "depth_charge":
            for h in ev["hits"]:
                self.surf[h["sub"]] = True
        elif t == "mine_triggered":
            self.surf[ev["sub"]] = True
        elif t == "destroyed":
            self.surf.pop(ev["sub"], None)

    def absorb(self, new_events: list[dict[str, Any]], actor: str | None) -> None:
        """Take one resolution's full events (history order); ``actor``: the player to move when
        it started (``None`` during setup)."""
        if not new_events:
            return  # a refusal: nothing happened, nothing delivered (S-8.6)
        per: dict[Any, list[dict[str, Any]]] = {"p1": [], "p2": [], None: []}
        for ev in new_events:
            if ev["type"] == "turn_start":
                actor = ev["player"]
            fm = self.forms(ev, actor)
            self._apply_surfacing(ev)
            for r, f in fm.items():
                if f is not None:
                    per[r].append(f)
        self.per_resolve.append(per)
        for r in per:
            self.all[r] += per[r]

    def expected_events(self, recipient: str | None, active: str | None) -> list[dict[str, Any]]:
        """S-8.7 as the match delivers it: the player to move gets the events of the last two
        resolutions (its previous decision was two resolutions ago), everyone else the last one."""
        n = 2 if (recipient is not None and recipient == active) else 1
        out: list[dict[str, Any]] = []
        for per in self.per_resolve[-n:]:
            out += per[recipient]
        return out

    # ---- S-12.3 / S-8.8, written out ---------------------------------------------------------
    def expected_view(self, st: Any, recipient: str | None) -> dict[str, Any]:
        """The observation ``recipient`` must get during play, from raw state fields."""
        subs = st.subs
        rings = st.rings
        destroyed_spaces = DESTROYED[rings]
        v: dict[str, Any] = {
            "ruleset": "submarine", "you": recipient, "turn": st.turn, "round": (st.turn + 1) // 2,
            "active": st.active, "home_rows": dict(st.home_rows), "first_player": st.first_player,
            "destroyed_subs": {s: sorted(st.destroyed[s]) for s in SEATS},
            "destroyed_rings": rings, "destroyed_spaces": destroyed_spaces,
            "announced_25": dict(st.announced),
            "suppressed": {s: [{"special": w[0], "until_turn": w[1]} for w in st.suppressed[s]] for s in SEATS},
            "clock": {"enabled": st.config["clock_enabled"], "p1_reserve_s": st.config["reserve_time_s"],
                      "p2_reserve_s": st.config["reserve_time_s"], "turn_time_s": st.config["turn_time_s"]},
            "events": self.expected_events(recipient, st.active), "result": None,
        }
        if recipient is None:
            v["surfaced_subs"] = {k: sname(s.space) for k, s in sorted(subs.items()) if s.surfaced}
        else:
            v["ap"] = st.ap if st.active == recipient else None
            v["own_subs"] = {k: {"space": sname(s.space), "hp": s.hp, "surfaced": s.surfaced, "special": s.special,
                                 "plate": s.plate, "ramming": s.ramming, "used_special": s.used_special,
                                 "cancelled": s.cancelled}
                             for k, s in sorted(subs.items()) if owner(k) == recipient}
            v["visible_enemy_subs"] = {k: sname(s.space) for k, s in sorted(subs.items())
                                       if owner(k) != recipient and s.surfaced}
            v["own_mines"] = sorted(sname(sp) for sp, o in st.mines.items() if o == recipient)
            v["score"] = st.scores[recipient]
        return v

    def check_surfacing(self, st: Any) -> list[str]:
        """The oracle's own surfaced flags must match the referee's state."""
        got = {k: s.surfaced for k, s in st.subs.items()}
        return [] if got == self.surf else [f"oracle surfacing {self.surf} != state {got}"]


def scan_view(view: dict[str, Any], st: Any, seat: str | None) -> list[str]:
    """Structure-independent checks on a view: no enemy sub in ``own_subs`` or with an ``hp``
    field anywhere, no submerged sub listed as visible, no enemy score, no seed, no digest."""
    problems = []
    text = json.dumps({k: v for k, v in view.items() if k != "own_subs"}, sort_keys=True)
    for bad in ('"seed"', '"digest"', '"mines": {', '"specials": {', '"hp": '):
        if bad in text:
            problems.append(f"view of {seat} contains {bad} (outside own_subs)")
    for k in (view.get("own_subs") or {}):
        if seat is None or owner(k) != seat:
            problems.append(f"view of {seat}: enemy sub {k} in own_subs")
    listed = dict(view.get("visible_enemy_subs") or {})
    listed.update(view.get("surfaced_subs") or {})
    for k, sp in listed.items():
        s = st.subs.get(k)
        if s is None or not s.surfaced or sname(s.space) != sp:
            problems.append(f"view of {seat}: {k} listed on {sp} but it is not surfaced there")
    return problems


def diff(a: Any, b: Any, path: str = "") -> list[str]:
    """Readable differences between an expected and an actual JSON value (first few)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a:
                out.append(f"{path}{k}: unexpected {b[k]!r}")
            elif k not in b:
                out.append(f"{path}{k}: missing (expected {a[k]!r})")
            else:
                out += diff(a[k], b[k], f"{path}{k}.")
        return out[:5]
    if a != b:
        return [f"{path}: expected {a!r}, got {b!r}"]
    return []
