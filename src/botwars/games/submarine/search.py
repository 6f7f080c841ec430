"""``builtin:mcts`` for submarine: information-set Monte Carlo tree search from the seat's view only.

The bot never sees the state: it sees its S-12.3 observation, and remembers what earlier
observations told it (through an internal ``hunter`` bot's memory: enemy mines it learnt of, where
it last saw each enemy sub). Each simulation draws one **determinization**, a full
:class:`~botwars.games.submarine.state.SubState` consistent with that knowledge
(:meth:`IsmctsBot.determinize`):

- its own subs, mines, score, AP, the rings, suppressions and destroyed subs as the view says;
- each living enemy sub that is surfaced where the view shows it; each submerged one on a free
  space at most two steps from where it was last seen (anywhere free when never seen), HP and
  special drawn (specials distinct, S-3.3), no plate;
- the enemy mines it learnt of; the enemy score drawn around its own (at least 25 once announced,
  S-7.2; the enemy's score events are hidden from it, S-8.1).

The tree is single-observer ISMCTS with its root over the seat's candidate turn orders (the
``hunter`` bot's order, its variants that stay submerged or skip a move, and seeded random orders,
all within the seat's AP, S-4.3): UCB1 picks a candidate, the candidate is played on the
determinization with the game's own :class:`~botwars.games.submarine.engine.Resolver`, then
``rollout_turns`` further turns are played by ``hunter`` policies on their own observation of the
determinization; the leaf is scored by score, HP and sub difference (±1 for a result). The answer
is the most visited candidate.

Budget: ``simulations`` (default 64, about 0.3 s a turn on a 2.4 GHz core); optional ``seconds``
cap (off by default; with it the choice depends on the machine's speed). With the cap off the
choice is a pure function of the observations so far and the seed given to ``start``.
"""

from __future__ import annotations

import math
import random as _random
import time
from typing import Any

from botwars.games.submarine import bots as _bots
from botwars.games.submarine.board import ALL_SPACES, dist, other, parse_space
from botwars.games.submarine.bots import HunterBot, RandomBot, SubmarineBot
from botwars.games.submarine.engine import GameEnded, Resolver
from botwars.games.submarine.state import ACTIONS, SPECIALS, Action, Sub, SubState
from botwars.games.submarine.view import observation

SUBS_OF = {"p1": "abcde", "p2": "vwxyz"}


def _cost(actions: list[dict[str, Any]]) -> int:
    return sum(ACTIONS[a["action"]][0] for a in actions)


def _to_actions(payload: dict[str, Any]) -> tuple[Action, ...]:
    out = []
    for a in payload.get("actions", []):
        key = ACTIONS[a["action"]][1]
        p = a.get(key) if key else None
        if key == "space":
            p = parse_space(p)
        out.append(Action(a["sub"], a["action"], p))
    return tuple(out)


class IsmctsBot(SubmarineBot):
    """Information-set MCTS over turn orders (see the module docstring).

    ``simulations``: determinized simulations per turn (≥ 1); ``seconds``: optional wall-clock cap
    per turn (``None``: deterministic for a seed); ``candidates``: random orders added to the
    hunter-based ones; ``rollout_turns``: turns played by policy after the candidate; ``c``: the
    UCB1 constant. Set-up (S-3.3) is the ``hunter`` bot's.
    """

    def __init__(self, simulations: int = 64, seconds: float | None = None, candidates: int = 6,
                 rollout_turns: int = 2, c: float = 0.7):
        if simulations < 1:
            raise ValueError("simulations must be at least 1")
        if candidates < 0 or rollout_turns < 0 or c < 0:
            raise ValueError("candidates, rollout_turns and c must be at least 0")
        self.simulations = simulations
        self.seconds = seconds
        self.n_random = candidates
        self.rollout_turns = rollout_turns
        self.c = c

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        super().start(game, seat, config, seed)
        from botwars.engine.ruleset import get_ruleset
        self.config = get_ruleset("submarine").validate_config(dict(config or {}))
        self.seed_text = f"{seed}:{seat}:ismcts"
        self.hunter = HunterBot()
        self.hunter.start(game, seat, config, seed)
        self.last_turn_seen: dict[str, int] = {}

    def ensure(self, view: dict[str, Any]) -> None:
        if not hasattr(self, "hunter"):
            self.start("submarine", view.get("you") or "p1", {}, 0)

    def setup(self, view: dict[str, Any]) -> dict[str, Any]:
        return self.hunter.setup(view)

    # ---- the belief ------------------------------------------------------------------------
    def determinize(self, view: dict[str, Any], rng: _random.Random) -> SubState:
        """One full state consistent with what this seat knows (see the module docstring).
        Reads ``view`` and the bot's own memory, nothing else."""
        me = view["you"]
        opp = other(me)
        st = SubState(seats=("p1", "p2"), config=self.config, phase="play",
                      home_rows=dict(view["home_rows"]), first_player=view["first_player"])
        st.turn, st.active, st.ap = view["turn"], view["active"], view.get("ap") or 0
        for k, s in view["own_subs"].items():
            st.subs[k] = Sub(k, me, parse_space(s["space"]), s["hp"], s["surfaced"], s["special"], s["plate"],
                             s["ramming"], s["used_special"], s["cancelled"])
        st.destroyed = {p: list(v) for p, v in view["destroyed_subs"].items()}
        occupied = {s.space for s in st.subs.values()}
        for k, sp in view["visible_enemy_subs"].items():
            occupied.add(parse_space(sp))
        alive = [k for k in SUBS_OF[opp] if k not in st.destroyed[opp]]
        specials = rng.sample(SPECIALS, len(alive))
        for k, sp_id in zip(alive, specials):
            hp = rng.randint(2, self.config["hp_max"])
            if k in view["visible_enemy_subs"]:
                st.subs[k] = Sub(k, opp, parse_space(view["visible_enemy_subs"][k]), hp, True, sp_id)
                continue
            seen = self.hunter.last_seen.get(k)
            free = [sp for sp in ALL_SPACES if sp not in occupied]
            near = [sp for sp in free if seen is not None and dist(sp, seen) <= 2]
            sp = rng.choice(near or free)
            occupied.add(sp)
            st.subs[k] = Sub(k, opp, sp, hp, False, sp_id)
        st.mines = {parse_space(x): me for x in view["own_mines"]}
        for sp in sorted(self.hunter.enemy_mines):
            st.mines.setdefault(sp, opp)
        st.scores = {me: view["score"], opp: 0}
        lo = 25 if view["announced_25"].get(opp) else 0
        st.scores[opp] = max(lo, min(self.config["win_points"] - 1, view["score"] + rng.randint(-4, 4)))
        st.announced = dict(view["announced_25"])
        st.rings = view["destroyed_rings"]
        st.suppressed = {p: [[w["special"], w["until_turn"]] for w in v] for p, v in view["suppressed"].items()}
        return st

    # ---- candidates, rollouts, values --------------------------------------------------------
    def candidates(self, view: dict[str, Any], rng: _random.Random) -> list[dict[str, Any]]:
        """Distinct candidate orders, every one within the seat's AP and naming its own subs."""
        ap = view.get("ap") or 0
        base = self.hunter.turn(view)["actions"]
        outs = [base]
        outs.append([a for a in base if a["action"] != "surface"])            # stay submerged
        outs.append([a for a in base if a["action"] != "surface"] +
                    [{"sub": k, "action": "submerge"} for k, s in sorted(view["own_subs"].items())
                     if s["surfaced"]])                                         # dive
        outs.append([a for a in base if a["action"] in ("move", "surface")])    # no specials
        rnd = RandomBot()
        rnd.rng = rng
        for _ in range(self.n_random):
            outs.append(rnd.turn(view)["actions"])
        seen: set[str] = set()
        result = []
        for acts in outs:
            while acts and _cost(acts) > ap:
                acts = acts[:-1]
            key = repr(acts)
            if key not in seen:
                seen.add(key)
                result.append({"type": "orders", "actions": acts})
        return result

    def _leaf(self, st: SubState, me: str) -> float:
        if st.result is not None:
            w = st.result["winner"]
            return 0.0 if w == "draw" else (1.0 if w == me else -1.0)
        opp = other(me)
        mine = st.living(me)
        theirs = st.living(opp)
        x = (st.scores[me] - st.scores[opp]) + 2.0 * (sum(s.hp for s in mine) - sum(s.hp for s in theirs)) \
            + 6.0 * (len(mine) - len(theirs))
        return math.tanh(x / 30.0)

    def simulate(self, st: SubState, order: dict[str, Any], me: str, rng: _random.Random) -> float:
        """Play ``order`` then ``rollout_turns`` policy turns on the determinization ``st``."""
        try:
            Resolver(st).play_turn(_to_actions(order))
            for _ in range(self.rollout_turns):
                seat = st.active
                if st.phase != "play" or seat is None:
                    break
                pol = HunterBot()
                pol.start("submarine", seat, {}, rng.randrange(1 << 30))
                obs = observation(st, seat)
                acts = pol.turn(obs)["actions"]
                while acts and _cost(acts) > st.ap:
                    acts = acts[:-1]
                Resolver(st).play_turn(_to_actions({"actions": acts}))
        except GameEnded:
            pass
        return self._leaf(st, me)

    def turn(self, view: dict[str, Any]) -> dict[str, Any]:
        me = view["you"]
        rng = _random.Random(f"{self.seed_text}:{view['turn']}")
        cands = self.candidates(view, rng)
        if len(cands) == 1:
            return cands[0]
        n = [0] * len(cands)
        w = [0.0] * len(cands)
        t_end = None if self.seconds is None else time.perf_counter() + self.seconds
        for sim in range(self.simulations):
            if t_end is not None and time.perf_counter() > t_end:
                break
            if sim < len(cands):
                i = sim
            else:
                ln = math.log(sim + 1)
                i = max(range(len(cands)), key=lambda j: w[j] / n[j] + self.c * math.sqrt(ln / n[j]))
            det = self.determinize(view, rng)
            v = self.simulate(det, cands[i], me, rng)
            n[i] += 1
            w[i] += v
        best = max(range(len(cands)), key=lambda j: (n[j], w[j] / n[j] if n[j] else -2.0, -j))
        return cands[best]


#: Every built-in bot of the game (``builtin:NAME``, the plug-in's ``bots``): ``bots.BUILTIN`` and
#: ``mcts`` at its default budget.
BUILTIN = {**_bots.BUILTIN, "mcts": IsmctsBot}
