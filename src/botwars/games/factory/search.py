"""``builtin:planner`` for factory: a planner that searches over programs with the engine's own
stage resolution, on copies of a position rebuilt from the seat's view (F-15.3).

1. **Candidates**: the ``pathfinder`` beam search (:meth:`~botwars.games.factory.bots.PathfinderBot.beam`)
   run ``width`` wide (default 12, twice pathfinder's) gives the best programs found with other
   robots idle; the planner keeps every distinct one, padded to the free registers (F-5.3) with
   unused hand cards.
2. **Samples**: the other robots' programs are secret (F-14.2). Each sample draws, for every
   other robot on the board that is not rebooting, random cards for its free registers from the
   cards the seat cannot account for (the deck, F-2.6, less its own hand and every fused
   register shown in the view). The first sample is "the others play no cards" (pathfinder's
   assumption). Every candidate is scored on the same samples (common random numbers).
3. **Evaluation**: the candidate and the sampled programs are put into the registers of a copy and
   the five stages are resolved with :meth:`~botwars.games.factory.rules.FactoryRuleset.stage`
   (F-5.8); the result is scored with pathfinder's score (flags gained, distance to the next flag,
   HP; death is very bad) minus a tenth of the best opponent's progress.
4. **Lookahead**: with the sample goes a sampled next hand (a seeded shuffle of the deck less the
   seat's fused registers, F-5.1); from the position the candidate reaches, a beam of width 2
   plans the next turn with that hand and ``lookahead`` (default 0.5) times its score is added,
   so a program that leaves the robot badly placed for the next turn loses. The answer is the
   candidate with the best mean.

Budget: ``simulations`` = evaluations per decision (default 24; ≈ 0.1-0.3 s on a 2.4 GHz core),
split evenly over the candidates (at least one sample each). Optional ``seconds`` cap (off by default;
with it the choice depends on the machine's speed). With the cap off the choice is a pure function
of the view and the seed given to ``start``. The reboot declaration is pathfinder's.
"""

from __future__ import annotations

import random as _random
import time
from typing import Any

from botwars.games.factory import bots as _bots
from botwars.games.factory.bots import PathfinderBot
from botwars.games.factory.state import FactoryState


class PlannerBot(PathfinderBot):
    """Program planner with sampled opponent programs (see the module docstring).

    ``simulations``: stage-resolution evaluations per decision (≥ 1); ``seconds``: optional
    wall-clock cap; ``width``: candidate programs kept from the beam search; ``lookahead``: the
    weight of the next turn's planned score (0: none).
    """

    def __init__(self, simulations: int = 24, seconds: float | None = None, width: int = 12,
                 lookahead: float = 0.5):
        super().__init__()
        self.lookahead = lookahead
        if simulations < 1:
            raise ValueError("simulations must be at least 1")
        if width < 1:
            raise ValueError("width must be at least 1")
        if lookahead < 0:
            raise ValueError("lookahead must be at least 0")
        self.simulations = simulations
        self.seconds = seconds
        self.cand_width = width

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int) -> None:
        super().start(game, seat, config, seed)
        self.seed_text = f"{seed}:{seat}:planner"

    def _samples(self, rs: Any, st: FactoryState, me: int, hand: list[int], n: int,
                 rng: _random.Random) -> list[dict[int, list[int]]]:
        """``n`` guesses of the other robots' programs: robot index → cards for registers 1..k."""
        known = set(hand)
        for b in st.bots:
            known.update(c for c in b.regs if c is not None)
        unseen = [c for c in rs.deck_cards(st) if c not in known]
        others = [i for i, b in enumerate(st.bots) if i != me and b.alive and not b.rebooting]
        out: list[dict[int, list[int]]] = [{}]
        while len(out) < n:
            pool = list(unseen)
            rng.shuffle(pool)
            guess = {}
            for i in others:
                k = rs.free_registers(st, i)
                guess[i], pool = pool[:k], pool[k:]
            out.append(guess)
        return out

    def _evaluate(self, rs: Any, st: FactoryState, me: int, prog: list[int], guess: dict[int, list[int]],
                  flags0: list[int], next_hand: list[int]) -> float:
        from botwars.games.factory.rules import Ctx
        sim = st.copy()
        for r, c in enumerate(prog):
            sim.bots[me].regs[r] = c
        for i, cards in guess.items():
            for r, c in enumerate(cards):
                sim.bots[i].regs[r] = c
        ctx = Ctx(sim, st.turn + 1, log=False)
        for s in range(1, 6):
            rs.stage(ctx, s)
            if sim.over:
                break
        val = self.score(sim, me, flags0[me])
        rivals = [self.score(sim, i, flags0[i]) - self.score(st, i, flags0[i])
                  for i in range(len(st.bots)) if i != me and st.bots[i].alive]
        val -= 0.1 * max(rivals, default=0.0)
        b = sim.bots[me]
        if self.lookahead and not sim.over and b.alive and not b.rebooting:
            # the next turn: a sampled hand, the others idle, a narrow beam (its score counts flags
            # gained from the position this turn reaches)
            nxt = sim.copy()
            nxt.turn += 1
            for i, bot in enumerate(nxt.bots):
                for r in range(rs.free_registers(nxt, i)):
                    bot.regs[r] = None
            k2 = rs.free_registers(nxt, me)
            hand2 = next_hand[:rs.hand_size(nxt, me)]
            if k2 and hand2:
                val += self.lookahead * self.beam(rs, nxt, me, hand2, k2, 2)[0][0]
        return val

    def act(self, view: dict[str, Any]) -> dict[str, Any]:
        rs, st, me, hand, k, reboot = self.position(view)
        if k == 0 or not hand:
            return {"type": "program", "cards": [], "reboot": reboot}
        rng = _random.Random(f"{getattr(self, 'seed_text', 'x')}:{view['turn']}")
        self.rng = rng  # the beam's tie-breaking noise
        cands: list[list[int]] = []
        for _, _, prog in self.beam(rs, st, me, hand, k, self.cand_width):
            cards = self.program(prog, hand, k)
            if cards not in cands:
                cands.append(cards)
        if len(cands) == 1:
            return {"type": "program", "cards": cands[0], "reboot": reboot}
        per = max(1, self.simulations // len(cands))
        samples = self._samples(rs, st, me, hand, per, rng)
        fused = {c for c in st.bots[me].regs[k:] if c is not None}
        hands = []
        for _ in samples:
            deck = [c for c in rs.deck_cards(st) if c not in fused]
            rng.shuffle(deck)
            hands.append(deck)
        flags0 = [p.next_flag for p in st.players]
        t_end = None if self.seconds is None else time.perf_counter() + self.seconds
        means: list[float] = []
        for prog in cands:
            vals = []
            for guess, hand2 in zip(samples, hands):
                vals.append(self._evaluate(rs, st, me, prog, guess, flags0, hand2))
                if t_end is not None and time.perf_counter() > t_end:
                    break
            means.append(sum(vals) / len(vals))
            if t_end is not None and time.perf_counter() > t_end:
                break
        best = max(range(len(means)), key=lambda j: (means[j], -j))
        return {"type": "program", "cards": cands[best], "reboot": reboot}


#: Every built-in bot of the game (``builtin:NAME``, the plug-in's ``bots``): ``bots.BUILTIN`` and
#: ``planner`` at its default budget.
BUILTIN = {**_bots.BUILTIN, "planner": PlannerBot}
