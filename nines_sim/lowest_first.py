"""The README's example plug-in, ``LowestFirst``, importable so that ``nines bench W7`` can time the plug-in path.

Kept as the README shows it (a test checks the class body), so the workload measures what a user would write.
"""

from __future__ import annotations

import numpy as np

from nines_sim.choice import pick_card
from nines_sim.strategy import Observation, Strategy

LOW_CARDS = np.uint64(sum(0x1F << (13 * suit) for suit in range(4)))  # A, 2, 3, 4, 5 of every suit


class LowestFirst(Strategy):
    """Sheds a random legal low card (A-5) when it can, else any legal card; declares its longest suit."""

    name = "lowest-first"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}

    def play(self, obs: Observation) -> np.ndarray:
        low = obs.legal & LOW_CARDS
        choose = np.where(low != 0, low, obs.legal)
        return pick_card([w & choose for w in obs.hand], obs.random())

    def declare(self, obs: Observation) -> np.ndarray:
        return np.argmax(obs.suit_counts(), axis=1)
