"""``hold-nines``: keep the wild 9s while any natural card will do."""

from __future__ import annotations

import numpy as np

from nines_sim.strategy.base import Observation, Strategy, natural_legal, uniform_suit
from nines_sim.strategy.choice import pick_card


class HoldNines(Strategy):
    """A legal natural (non-9) card uniformly at random; a 9 only when no natural
    is legal.  Declares uniformly at random; always plays a legal drawn card.
    Source: the rule documents' tip "keep a 9 for the critical moment"."""

    name = "hold-nines"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}
    kernel_id = 2  # its compiled twin: heuristics_compiled.py

    def play(self, obs: Observation) -> np.ndarray:
        nat = natural_legal(obs)
        choose = np.where(nat != 0, nat, obs.legal)
        return pick_card([w & choose for w in obs.hand], obs.random())

    def declare(self, obs: Observation) -> np.ndarray:
        return uniform_suit(obs)
