"""Built-in submarine bots. Each reads only its own observation (S-12.3) and returns an S-12.1
setup or an S-12.2 order.

- ``random``: a random legal setup, then random actions from its own subs until its AP runs out
  or it stops (seeded from the match seed and its seat).
- ``hunter``: keeps every sub on the central scoring spaces (surfaced: double points), remembers
  enemy mines it has learnt of and steers around them, torpedoes and depth-charges enemies it can
  see, and remembers where it last saw each enemy sub.
- ``mcts``: information-set Monte Carlo tree search from its own view
  (:mod:`botwars.games.submarine.search`), 64 simulations a turn.
"""

from __future__ import annotations

import random as _random
from typing import Any

from botwars.games.submarine.board import (ALL_SPACES, DIRS, SCORING, Space, adjacent, dist, name,
                                           on_board, parse_space, step)
from botwars.games.submarine.state import ACTIONS, SPECIALS


class SubmarineBot:
    """Base class: ``start`` seeds the bot's RNG; ``act(view)`` dispatches on the phase."""

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        self.seat = seat
        self.rng = _random.Random(f"{seed}:{seat}:{type(self).__name__}")

    def ensure(self, view: dict[str, Any]) -> None:
        if not hasattr(self, "rng"):
            self.start("submarine", view.get("you") or "p1", {}, 0)

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        self.ensure(view)
        if view.get("setup"):
            return self.setup(view)
        return self.turn(view)

    def setup(self, view: dict[str, Any]) -> dict[str, Any]:
        cols = self.rng.sample("ABCDEFG", 5)
        specials = self.rng.sample(SPECIALS, 5)
        return {"type": "setup", "placement": {k: f"{c}{view['home_row']}" for k, c in zip(view["subs"], cols)},
                "specials": dict(zip(view["subs"], specials))}

    def turn(self, view: dict[str, Any]) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError


def _action(sub: str, act: str, param: Any = None) -> dict[str, Any]:
    d: dict[str, Any] = {"sub": sub, "action": act}
    key = ACTIONS[act][1]
    if key is not None:
        d[key] = param
    return d


class RandomBot(SubmarineBot):
    """Random actions of its own subs, within its AP (the seeded baseline)."""

    def turn(self, view: dict[str, Any]) -> dict[str, Any]:
        ap = view.get("ap") or 0
        own = view["own_subs"]
        actions = []
        letters = sorted(own)
        while letters and ap > 0 and self.rng.random() < 0.85:
            k = self.rng.choice(letters)
            s = own[k]
            sp = parse_space(s["space"])
            assert sp is not None
            r = self.rng.random()
            if r < 0.55:
                d = self.rng.choice("NESW")
                if self.rng.random() < 0.5:  # drift towards the centre, where the fights are
                    toward = [x for x in "NESW" if dist(step(sp, x), (4, 4)) < dist(sp, (4, 4))]
                    d = self.rng.choice(toward) if toward else d
                a = _action(k, "move", d) if on_board(step(sp, d)) else None
            elif r < 0.65:
                a = _action(k, "submerge") if s["surfaced"] else _action(k, "surface")
            elif r < 0.7:
                a = _action(k, "replace", self.rng.choice(SPECIALS))
            else:
                a = self._special(k, s, sp)
            if a is None:
                continue
            cost = ACTIONS[a["action"]][0]
            if cost > ap:
                break
            ap -= cost
            actions.append(a)
        return {"type": "orders", "actions": actions}

    def _special(self, k: str, s: dict[str, Any], sp: Space) -> dict[str, Any] | None:
        sp_id = s["special"]
        if sp_id not in ACTIONS:
            return None
        if sp_id == "torpedo":
            return _action(k, sp_id, self.rng.choice("NESW"))
        if sp_id == "depth_charge":
            return _action(k, sp_id, name(self.rng.choice([x for x in ALL_SPACES if dist(x, sp) <= 3])))
        if sp_id in ("mine", "heal"):
            return _action(k, sp_id, name(self.rng.choice(adjacent(sp))))
        if sp_id == "nullify":
            return _action(k, sp_id, self.rng.choice([x for x in SPECIALS if x != "nullify"]))
        return _action(k, sp_id)


TILES: list[Space] = sorted(SCORING, key=lambda sp: (-SCORING[sp], sp))


class HunterBot(SubmarineBot):
    """Holds the central scoring spaces and shoots what it sees (see the module docstring)."""

    SPECIALS = ("torpedo", "depth_charge", "armor", "overclock", "sonar")

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        super().start(game, seat, config, seed)
        self.enemy_mines: set[Space] = set()
        self.last_seen: dict[str, Space] = {}

    def setup(self, view: dict[str, Any]) -> dict[str, Any]:
        row = view["home_row"]
        return {"type": "setup", "placement": {k: f"{c}{row}" for k, c in zip(view["subs"], "BCDEF")},
                "specials": dict(zip(view["subs"], self.SPECIALS))}

    def _learn(self, view: dict[str, Any]) -> None:
        for e in view.get("events", []):
            t = e.get("type")
            if t == "mine_not_placed" and e.get("sub") in view["own_subs"]:
                sp = parse_space(e["space"])
                if sp is not None and name(sp) not in view["own_mines"]:
                    self.enemy_mines.add(sp)
            elif t == "mine_triggered":
                sp = parse_space(e["space"])
                self.enemy_mines.discard(sp)
                if e["sub"] in view["own_subs"]:
                    pass
            elif t == "move" and "to" in e:
                self.last_seen[e["sub"]] = parse_space(e["to"])
            elif t == "sonar_result":
                for d in e.get("detected", []):
                    self.last_seen[d["sub"]] = parse_space(d["space"])
        for k, sp in view["visible_enemy_subs"].items():
            self.last_seen[k] = parse_space(sp)
        for side in view["destroyed_subs"].values():
            for k in side:
                self.last_seen.pop(k, None)

    def turn(self, view: dict[str, Any]) -> dict[str, Any]:
        self._learn(view)
        ap = view.get("ap") or 0
        own = view["own_subs"]
        pos = {k: parse_space(s["space"]) for k, s in own.items()}
        enemies = {k: parse_space(v) for k, v in view["visible_enemy_subs"].items()}
        danger = set(self.enemy_mines) | {parse_space(x) for x in view["destroyed_spaces"]}
        actions: list[dict[str, Any]] = []
        # 1. targets: best free tiles, nearest sub first
        free = list(TILES[:max(5, len(own))])
        assign: dict[str, Space] = {}
        for k in sorted(own, key=lambda k: min(dist(pos[k], t) for t in free)):
            t = min(free, key=lambda t: (dist(pos[k], t), -SCORING[t], t))
            assign[k] = t
            free.remove(t)
        # 2. shoot first if a visible enemy is in line (torpedo: 2 AP)
        for k in sorted(own):
            s = own[k]
            if self._suppressed(view, s["special"]):
                continue
            if s["special"] == "torpedo" and ap >= 2 and not s["used_special"]:
                d = self._torpedo_dir(pos[k], enemies, pos)
                if d:
                    actions.append(_action(k, "torpedo", d))
                    ap -= 2
            elif s["special"] == "depth_charge" and ap >= 3 and not s["used_special"]:
                c = self._charge_centre(pos[k], enemies, pos)
                if c:
                    actions.append(_action(k, "depth_charge", name(c)))
                    ap -= 3
        # 3. sonar when nothing is in sight (2 AP), before moving
        if not enemies:
            for k in sorted(own):
                s = own[k]
                if s["special"] == "sonar" and ap >= 4 and not s["used_special"] and \
                        not self._suppressed(view, "sonar"):
                    actions.append(_action(k, "sonar"))
                    ap -= 2
        # 4. move towards the targets, surfaced (double points)
        for k in sorted(own, key=lambda k: dist(pos[k], assign[k])):
            if not own[k]["surfaced"]:
                actions.append(_action(k, "surface"))
            while ap > 0 and pos[k] != assign[k]:
                d = self._step_towards(pos[k], assign[k], pos, enemies, danger)
                if d is None:
                    break
                actions.append(_action(k, "move", d))
                pos[k] = step(pos[k], d)
                ap -= 1
        return {"type": "orders", "actions": actions}

    @staticmethod
    def _suppressed(view: dict[str, Any], special: str) -> bool:
        return any(w["special"] == special for w in view["suppressed"].get(view["you"], []))

    @staticmethod
    def _step_towards(at: Space, goal: Space, pos: dict[str, Space], enemies: dict[str, Space],
                      danger: set[Space]) -> str | None:
        best = None
        for d in "NESW":
            nxt = step(at, d)
            if not on_board(nxt) or nxt in pos.values() or nxt in danger:
                continue
            gain = dist(at, goal) - dist(nxt, goal)
            if gain <= 0:
                continue
            key = (nxt in enemies.values(), -gain, d)
            if best is None or key < best[0]:
                best = (key, d)
        return best[1] if best else None

    @staticmethod
    def _torpedo_dir(at: Space, enemies: dict[str, Space], pos: dict[str, Space]) -> str | None:
        occupied_own = set(pos.values())
        foes = set(enemies.values())
        for d in DIRS:
            for k in (1, 2, 3):
                sp = step(at, d, k)
                if not on_board(sp) or sp in occupied_own:
                    break
                if sp in foes:
                    return d
        return None

    @staticmethod
    def _charge_centre(at: Space, enemies: dict[str, Space], pos: dict[str, Space]) -> Space | None:
        best = None
        own = set(pos.values())
        for c in ALL_SPACES:
            if dist(at, c) > 3:
                continue
            blast = {c, *adjacent(c)}
            if blast & own:
                continue
            n = len(blast & set(enemies.values()))
            if n >= 1 and (best is None or n > best[0]):
                best = (n, c)
        return best[1] if best else None



BUILTIN = {"random": RandomBot, "hunter": HunterBot}



def hunter_vs_random(games: int = 100) -> int:
    """Games out of ``games`` that ``hunter`` wins against ``random`` (seeds 0.., seats
    alternating: hunter is p1 on even seeds), with default parameters and no clock."""
    from botwars.engine.agent import CallableAgent
    from botwars.engine.match import Match
    from botwars.engine.ruleset import get_ruleset
    rs = get_ruleset("submarine")
    cfg = rs.validate_config({})
    wins = 0
    for seed in range(games):
        hunter = "p1" if seed % 2 == 0 else "p2"
        specs = {s: "builtin:hunter" if s == hunter else "builtin:random" for s in ("p1", "p2")}
        agents = {s: CallableAgent(BUILTIN[specs[s][len("builtin:"):]](), specs[s]) for s in ("p1", "p2")}
        m = Match(rs, cfg, agents, seed, clock=False)
        wins += m.run().outcome.winner == hunter
    return wins


if __name__ == "__main__":  # pragma: no cover
    import sys
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    print(f"hunter beat random in {hunter_vs_random(n)} of {n} seeded games")
