"""The README's example plug-in, ``LowestFirst``, importable so that ``nines bench W7`` can time the plug-in path.

Kept as the README shows it (a test checks the class body), so the workload measures what a user would write.
"""

from __future__ import annotations

import numpy as np

from nines_sim.strategy.base import Observation, Strategy
from nines_sim.strategy.choice import pick_card

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


# The same player as one compiled function (the README's compiled form): identical results, no Python per decision.
from nines_sim.strategy import per_game_compiled as cs  # noqa: E402 - the README shows the two forms one after the other

LOW = sum(0x1F << (13 * suit) for suit in range(4))  # A, 2, 3, 4, 5 of every suit, as an int


def lowest_first(kind, g, hand, hand_sizes, totals, drew_on):  # noqa: ANN001, ANN201 - compiled by numba
    if kind == cs.PLAY:
        legal = g[cs.G_LEGAL]
        choose = legal & LOW if legal & LOW != 0 else legal
        return cs.pick_card(np.int64(hand[0]) & choose, np.int64(hand[1]) & choose, cs.random_word(g, kind, 0))
    if kind == cs.PLAY_DRAWN:
        return 1  # always play a legal drawn card
    best, most = 0, -1  # declare: the suit with the most cards held, the first such suit on a tie
    for suit in range(4):
        mask = 0x1FFF << (13 * suit)
        n = cs.popcount(np.int64(hand[0]) & mask) + cs.popcount(np.int64(hand[1]) & mask)
        if n > most:
            best, most = suit, n
    return best


class LowestFirstCompiled(cs.CompiledStrategy):
    """LowestFirst as one compiled function: the same decisions, made inside the compiled turn loop."""

    name = "lowest-first-compiled"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}
    decide = lowest_first
