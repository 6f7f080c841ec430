"""Submarine resolution: one turn's actions, collisions, specials, end and start of turns.

Everything here follows shared/rules/submarine.md; rule ids are cited inline. The functions work
on a mutable :class:`SubState` clone owned by the caller (see ``rules.SubmarineRuleset.resolve``).
Every event is emitted once, in resolution order, as a logical event carrying its full form and
the two recipient forms of S-12.4 (``Ev``); visibility is decided here, at the moment of the event
(S-8.4), because it depends on whether a sub is surfaced *then*.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from botwars.engine.codes import KernelReason
from botwars.games.submarine.board import (NO_MINE, SCORING, Space, adjacent, dist, name, on_board,
                                           other, ring, step)
from botwars.games.submarine.state import ACTIONS, CATALOG, Action, Ev, Sub, SubState


class SubmarineReason(StrEnum):
    """Submarine's own result reasons (S-7.11); ``time``, ``resign`` and ``refused`` (S-7.8,
    S-7.10) are the kernel's (:class:`~botwars.engine.codes.KernelReason`)."""

    ELIMINATION = "elimination"  # S-7.3
    MUTUAL_DESTRUCTION = "mutual_destruction"  # S-7.4
    POINTS = "points"  # S-7.5
    ROUND_CAP = "round_cap"  # S-7.9
    SETUP_FORFEIT = "setup_forfeit"  # S-3.3


class GameEnded(Exception):
    """Raised inside a resolution when a win or draw condition is met (S-4.9): the remaining
    actions and end-of-turn steps are not run."""


class Resolver:
    """Applies decisions to a mutable state clone and collects its logical events."""

    def __init__(self, st: SubState):
        self.st = st
        self.cfg = st.config
        self.evs: list[Ev] = []
        self.actor: str | None = st.active

    # ---- events ------------------------------------------------------------------------
    def emit(self, full: dict[str, Any], *, actor: bool = True, other_keys: Any = True,
             public_same: bool = False) -> None:
        """Record one event. ``actor``: whether the acting player receives it (full form);
        ``other_keys``: ``True`` (the other player and spectators get the full form), ``False``/
        ``None`` (they get nothing) or a collection of the field names they get (``type`` is
        always kept). ``public_same``: no acting player (``game_start``): everyone gets the
        ``other_keys`` form."""
        if other_keys is True:
            oform: dict[str, Any] | None = full
        elif not other_keys:
            oform = None
        else:
            oform = {k: v for k, v in full.items() if k == "type" or k in other_keys}
        if public_same:
            self.evs.append((full, None, oform, oform))
            return
        self.evs.append((full, self.actor, full if actor else None, oform))

    def result(self, winner: str | None, reason: SubmarineReason | KernelReason) -> None:
        """S-7.11: end the game now (emits ``result``, raises :class:`GameEnded`)."""
        st = self.st
        st.result = {"winner": winner or "draw", "reason": reason, "scores": dict(st.scores)}
        st.phase = "over"
        st.active = None
        st.ap = 0
        self.emit({"type": "result", **st.result})
        raise GameEnded()

    # ---- damage, destruction, winning -----------------------------------------------------
    @staticmethod
    def hurt(sub: Sub, amount: int) -> tuple[int, bool]:
        """Apply ``amount`` damage with the plate rule (S-6.6 armor): returns (dealt, plate_used)."""
        used = False
        if amount > 0 and sub.plate:
            amount -= 1
            sub.plate = False
            used = True
        sub.hp -= amount
        return amount, used

    def destroy(self, subs: list[Sub]) -> None:
        """S-7.6: remove the subs at 0 HP or less, letter order, with their ``destroyed`` events."""
        for s in sorted(subs, key=lambda s: s.letter):
            if s.hp > 0 or s.letter not in self.st.subs:
                continue
            del self.st.subs[s.letter]
            self.st.destroyed[s.owner].append(s.letter)
            self.st.destroyed[s.owner].sort()
            self.emit({"type": "destroyed", "sub": s.letter, "space": name(s.space)},
                      other_keys=("sub", "space") if s.surfaced else ("sub",))

    def would_end(self) -> bool:
        """True if some player has no living sub (counting subs at 0 HP as gone)."""
        alive = {"p1": 0, "p2": 0}
        for s in self.st.subs.values():
            if s.hp > 0:
                alive[s.owner] += 1
        return alive["p1"] == 0 or alive["p2"] == 0

    def check_end(self) -> None:
        """S-7.3 / S-7.4 after a damage step."""
        st = self.st
        alive = {"p1": 0, "p2": 0}
        for s in st.subs.values():
            alive[s.owner] += 1
        if alive["p1"] and alive["p2"]:
            return
        if not alive["p1"] and not alive["p2"]:
            a, b = st.scores["p1"], st.scores["p2"]
            self.result("p1" if a > b else "p2" if b > a else None, SubmarineReason.MUTUAL_DESTRUCTION)
        self.result("p1" if alive["p1"] else "p2", SubmarineReason.ELIMINATION)

    # ---- movement and collisions ------------------------------------------------------------
    def mine_check(self, sub: Sub) -> None:
        """S-6.7: ``sub`` has just entered its space."""
        st = self.st
        owner = st.mines.get(sub.space)
        if owner is None or owner == sub.owner or st.is_suppressed(owner, "mine"):
            return
        del st.mines[sub.space]
        sub.surfaced = True
        dealt, used = self.hurt(sub, 2)
        self.emit({"type": "mine_triggered", "sub": sub.letter, "space": name(sub.space),
                   "damage": dealt, "plate_used": used})
        if sub.hp <= 0:
            self.destroy([sub])
            self.check_end()

    def collide(self, x: Sub, y: Sub, d: str) -> None:
        """S-5.2 collide(X attacker, Y defender, direction d), with chained pushes."""
        st = self.st
        x.cancelled = True
        x.surfaced = True
        y.surfaced = True
        dx, dy = (0, 3) if x.ramming else (1, 2)
        dealt_x, used_x = self.hurt(x, dx)
        dealt_y, used_y = self.hurt(y, dy)
        nxt: Sub | None = None
        target = step(y.space, d)
        if y.hp <= 0 or self.would_end():
            push = "none"
        elif not on_board(target):
            push = "edge"
        else:
            nxt = st.sub_at(target)
            push = "chain" if nxt is not None else name(target)
        self.emit({"type": "collision",
                   "attacker": {"sub": x.letter, "space": name(x.space), "damage": dealt_x, "plate_used": used_x},
                   "defender": {"sub": y.letter, "space": name(y.space), "damage": dealt_y, "plate_used": used_y},
                   "dir": d, "push": push})
        dead = [s for s in (x, y) if s.hp <= 0]
        if dead:
            self.destroy(dead)
            self.check_end()
        if push == "chain":
            assert nxt is not None
            self.collide(y, nxt, d)
        elif push not in ("none", "edge"):
            y.space = target
            self.mine_check(y)

    # ---- one turn -------------------------------------------------------------------------
    def skip(self, i: int, a: Action, reason: str) -> None:
        self.emit({"type": "skipped", "index": i, "sub": a.sub, "action": a.action, "reason": reason},
                  other_keys=False)

    def run_actions(self, actions: tuple[Action, ...]) -> None:
        """S-4.5: execute an accepted order in list order."""
        st = self.st
        for i, a in enumerate(actions):
            sub = st.subs.get(a.sub)
            if sub is None:
                self.skip(i, a, "destroyed")
                continue
            if sub.cancelled:
                self.skip(i, a, "cancelled")
                continue
            if a.action in CATALOG:
                if sub.special != a.action:
                    self.skip(i, a, "not_held")
                    continue
                if st.is_suppressed(sub.owner, a.action):
                    self.skip(i, a, "suppressed")
                    continue
                if sub.used_special:
                    self.skip(i, a, "special_used")
                    continue
            handler = getattr(self, "do_" + a.action)
            if not handler(sub, a.param, dry=True):
                self.skip(i, a, "condition")
                continue
            cost = ACTIONS[a.action][0]
            st.ap -= cost
            assert st.ap >= 0, "AP bounded at submission (S-4.3)"
            if a.action in CATALOG:
                sub.used_special = True
            handler(sub, a.param, dry=False)

    # Each do_X(sub, param, dry): with dry=True, only says whether the action is valid at execution
    # (S-4.4, S-6.2 conditions); with dry=False applies it (AP already spent).
    def do_move(self, sub: Sub, d: str, dry: bool) -> bool:
        dest = step(sub.space, d)
        if dry:
            return on_board(dest)
        occupant = self.st.sub_at(dest)
        if occupant is not None:
            self.collide(sub, occupant, d)
            return True
        frm = sub.space
        sub.space = dest
        self.emit({"type": "move", "sub": sub.letter, "from": name(frm), "to": name(dest)},
                  other_keys=sub.surfaced)
        self.mine_check(sub)
        return True

    def do_surface(self, sub: Sub, _: Any, dry: bool) -> bool:
        if dry:
            return not sub.surfaced
        sub.surfaced = True
        self.emit({"type": "surface", "sub": sub.letter, "space": name(sub.space)})
        return True

    def do_submerge(self, sub: Sub, _: Any, dry: bool) -> bool:
        if dry:
            return sub.surfaced
        self.emit({"type": "submerge", "sub": sub.letter, "space": name(sub.space)})
        sub.surfaced = False
        return True

    def do_replace(self, sub: Sub, special: str, dry: bool) -> bool:
        if dry:
            return special != sub.special and not any(
                s.special == special for s in self.st.living(sub.owner) if s is not sub)
        if sub.special == "armor":
            sub.plate = False
        if sub.special == "ram":
            sub.ramming = False
        sub.special = special
        self.emit({"type": "replace", "sub": sub.letter, "special": special}, other_keys=sub.surfaced)
        return True

    def do_torpedo(self, sub: Sub, d: str, dry: bool) -> bool:
        if dry:
            return True
        vis = sub.surfaced
        for k in (1, 2, 3):
            sp = step(sub.space, d, k)
            if not on_board(sp):
                break
            target = self.st.sub_at(sp)
            if target is None:
                continue
            target.surfaced = True
            dealt, used = self.hurt(target, 2)
            self.emit({"type": "torpedo_hit", "sub": sub.letter, "from": name(sub.space), "dir": d,
                       "target": target.letter, "space": name(sp), "damage": dealt, "plate_used": used},
                      other_keys=True if vis else ("dir", "target", "space", "damage", "plate_used"))
            if target.hp <= 0:
                self.destroy([target])
                self.check_end()
            return True
        self.emit({"type": "torpedo_miss", "sub": sub.letter, "from": name(sub.space), "dir": d},
                  other_keys=vis)
        return True

    def do_depth_charge(self, sub: Sub, centre: Space, dry: bool) -> bool:
        if dry:
            return dist(sub.space, centre) <= 3
        vis = sub.surfaced  # H19: visibility of the firer before the blast
        blast = {centre, *adjacent(centre)}
        hit = sorted((s for s in self.st.subs.values() if s.space in blast), key=lambda s: s.letter)
        rows = []
        for s in hit:
            s.surfaced = True
        for s in hit:
            dealt, used = self.hurt(s, 1)
            rows.append({"sub": s.letter, "space": name(s.space), "damage": dealt, "plate_used": used})
        self.emit({"type": "depth_charge", "sub": sub.letter, "from": name(sub.space), "centre": name(centre),
                   "hits": rows}, other_keys=True if vis else ("centre", "hits"))
        dead = [s for s in hit if s.hp <= 0]
        if dead:
            self.destroy(dead)
            self.check_end()
        return True

    def do_sonar(self, sub: Sub, _: Any, dry: bool) -> bool:
        if dry:
            return True
        found = sorted((s for s in self.st.subs.values() if s.owner != sub.owner and dist(s.space, sub.space) <= 2),
                       key=lambda s: s.letter)
        self.emit({"type": "sonar_result", "sub": sub.letter, "from": name(sub.space),
                   "detected": [{"sub": s.letter, "space": name(s.space), "surfaced": s.surfaced} for s in found]},
                  other_keys=("sub", "from") if sub.surfaced else False)
        if found:
            self.emit({"type": "detected", "subs": [s.letter for s in found]}, actor=False)
        return True

    def do_mine(self, sub: Sub, sp: Space, dry: bool) -> bool:
        if dry:
            return dist(sub.space, sp) == 1 and sp not in NO_MINE
        full = {"sub": sub.letter, "from": name(sub.space), "space": name(sp)}
        if sp in self.st.mines:
            self.emit({"type": "mine_not_placed", **full}, other_keys=sub.surfaced)
        else:
            self.st.mines[sp] = sub.owner
            self.emit({"type": "mine_placed", **full}, other_keys=sub.surfaced)
        return True

    def do_heal(self, sub: Sub, sp: Space, dry: bool) -> bool:
        target = self.st.sub_at(sp)
        if dry:
            return dist(sub.space, sp) == 1 and target is not None and target.owner == sub.owner
        assert target is not None
        before = target.hp
        target.hp = min(self.cfg["hp_max"], target.hp + 2)
        keys: list[str] = []
        if sub.surfaced or target.surfaced:  # S-8.4 heal row, H18
            keys.append("space")
            if sub.surfaced:
                keys += ["sub", "from"]
            if target.surfaced:
                keys.append("target")
        self.emit({"type": "heal", "sub": sub.letter, "from": name(sub.space), "target": target.letter,
                   "space": name(sp), "hp_gained": target.hp - before}, other_keys=keys or False)
        return True

    def do_nullify(self, sub: Sub, special: str, dry: bool) -> bool:
        if dry:
            return special != "nullify"
        st = self.st
        opp = other(sub.owner)
        until = st.turn + 1  # "until the end of the opponent's next turn" (S-6.8)
        st.suppressed[opp].append([special, until])
        if special == "armor":
            for s in st.living(opp):
                s.plate = False
        self.emit({"type": "nullify", "sub": sub.letter, "from": name(sub.space), "special": special,
                   "player": opp, "until_turn": until},
                  other_keys=True if sub.surfaced else ("special", "player", "until_turn"))
        return True

    # ---- turn boundaries -------------------------------------------------------------------
    def end_turn(self) -> None:
        """S-4.8 steps 1-6 for the active player."""
        st = self.st
        cfg = self.cfg
        p = st.active
        assert p is not None
        # 1. destroyed-space damage (S-7.7, H11), letter order
        for s in st.living(p):
            if ring(s.space) <= st.rings:
                dealt, used = self.hurt(s, cfg["edge_damage"])
                self.emit({"type": "damage", "sub": s.letter, "damage": dealt, "plate_used": used},
                          other_keys=s.surfaced)
                if s.hp <= 0:
                    self.destroy([s])
                    self.check_end()
        # 2. scoring (S-7.1, S-7.5)
        pts = sum(SCORING.get(s.space, 0) * (2 if s.surfaced else 1) for s in st.living(p))
        st.scores[p] += pts
        self.emit({"type": "score", "points": pts, "total": st.scores[p]}, other_keys=False)
        if st.scores[p] >= cfg["win_points"]:
            self.result(p, SubmarineReason.POINTS)
        # 3. announcement (S-7.2)
        if not st.announced[p] and st.scores[p] >= cfg["announce_points"]:
            st.announced[p] = True
            self.emit({"type": "announce_25", "player": p})
        # 4. ramming cleared, Nullify windows against p ending now expire (S-6.8)
        for s in st.living(p):
            s.ramming = False
        keep = []
        for w in st.suppressed[p]:
            if w[1] <= st.turn:
                self.emit({"type": "nullify_expired", "player": p, "special": w[0]})
            else:
                keep.append(w)
        st.suppressed[p] = keep
        # 5. ring destruction (S-7.7)
        if st.turn % 2 == 0:
            r = st.turn // 2
            k = r // cfg["ring_interval"]
            if r % cfg["ring_interval"] == 0 and k <= 4 and k > st.rings:
                st.rings = k
                self.emit({"type": "ring_destroyed", "ring": k})
        self.emit({"type": "turn_end", "turn": st.turn, "player": p})
        # 6. the clock is settled by the match (S-7.8); round cap (S-7.9)
        if st.turn % 2 == 0 and st.turn // 2 >= cfg["max_rounds"]:
            self.result(None, SubmarineReason.ROUND_CAP)

    def start_turn(self, turn: int, p: str) -> None:
        """S-4.2 (a)-(c): the observation (d) is the view."""
        st = self.st
        st.turn = turn
        st.active = p
        st.rejections = {"p1": 0, "p2": 0}
        self.actor = p
        for s in st.living(p):
            s.used_special = False
            s.cancelled = False
        self.emit({"type": "turn_start", "turn": turn, "round": st.round, "player": p})
        bonus = 0
        for s in st.living(p):
            sp = s.special
            if CATALOG[sp][0] != "passive" or st.is_suppressed(p, sp):
                continue
            if sp == "armor":
                s.plate = True
            elif sp == "ram":
                s.ramming = True
            elif sp == "overclock":
                bonus += 1
            self.emit({"type": "passive", "sub": s.letter, "special": sp}, other_keys=False)
        st.ap = self.cfg["base_ap"] + bonus
        self.emit({"type": "ap", "ap": st.ap}, other_keys=False)

    def begin_game(self) -> None:
        """S-3.4, S-3.5: create the subs from both accepted setups; turn 1 starts."""
        st = self.st
        for seat in ("p1", "p2"):
            su = st.setups[seat]
            for letter in sorted(su.placement):
                st.subs[letter] = Sub(letter, seat, su.placement[letter], self.cfg["hp_max"], True,
                                      su.specials[letter])
        st.phase = "play"
        self.emit({"type": "game_start",
                   "subs": {k: name(s.space) for k, s in sorted(st.subs.items())},
                   "specials": {k: s.special for k, s in sorted(st.subs.items())}},
                  other_keys=("subs",), public_same=True)
        self.start_turn(1, st.first_player)

    def play_turn(self, actions: tuple[Action, ...]) -> None:
        """One whole turn: the actions, S-4.8, then the next player's S-4.2."""
        self.run_actions(actions)
        self.end_turn()
        self.start_turn(self.st.turn + 1, other(self.st.active or "p1"))
