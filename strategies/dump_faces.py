"""``dump-faces``: shed the legal natural card that would cost the most."""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import PENALTY_GROUPS
from nines_sim.strategy.base import Observation, Strategy, natural_legal, uniform_suit
from nines_sim.strategy.choice import pick_card

# Natural faces by penalty, dearest first: 10 J Q K (10 points), then 8, 7, ..., A.
_DEAREST_FIRST = [np.uint64(mask) for _, mask in sorted(PENALTY_GROUPS, reverse=True)]


class DumpFaces(Strategy):
    """The legal natural card with the highest penalty value (ties uniform); a 9
    only when no natural is legal.  Declares uniformly at random; always plays a
    legal drawn card.  Source: the rule documents' tip "shed high cards early"."""

    name = "dump-faces"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}
    kernel_id = 3  # its compiled twin: heuristics_compiled.py

    def play(self, obs: Observation) -> np.ndarray:
        nat = natural_legal(obs)
        best = np.zeros_like(nat)
        for group in reversed(_DEAREST_FIRST):  # cheaper groups first, dearer ones overwrite
            hit = nat & group
            best = np.where(hit != 0, hit, best)
        choose = np.where(best != 0, best, obs.legal)
        return pick_card([w & choose for w in obs.hand], obs.random())

    def declare(self, obs: Observation) -> np.ndarray:
        return uniform_suit(obs)
