"""``suit-majority``: declare the suit the hand holds most of."""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import NATURALS
from nines_sim.strategy.base import Observation, Strategy
from nines_sim.strategy.choice import pick_bit, pick_card


class SuitMajority(Strategy):
    """A legal card uniformly at random (never two 9s together); declares the
    suit of which it holds the most natural cards once the 9 has left its hand
    (ties uniform among the tied suits; none left: uniform over four); as dealer
    at a 9 starter, the same count over the dealt hand.  Always plays a legal
    drawn card.  Source: the rule documents' tip "declare the suit you hold most of"."""

    name = "suit-majority"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}
    kernel_id = 4  # its compiled twin: heuristics_compiled.py

    def play(self, obs: Observation) -> np.ndarray:
        return pick_card([w & obs.legal for w in obs.hand], obs.random())

    def declare(self, obs: Observation) -> np.ndarray:
        counts = obs.suit_counts(np.uint64(NATURALS))
        top = counts == counts.max(axis=1, keepdims=True)
        tied = (top * (1 << np.arange(4))).sum(axis=1).astype(np.uint64)
        return pick_bit(tied, obs.random(salt=1))
