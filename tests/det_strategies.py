"""Deterministic batched strategies for the engine-vs-reference agreement tests.

Their plain-Python twins live in ``nines_sim/game/reference/det_strategies.py``; both must decide alike.
"""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import SUIT_MASK
from nines_sim.strategy.base import PAIR_OF_NINES, Observation, Strategy


def _lowest_bit(mask: np.ndarray) -> np.ndarray:
    low = mask & (~mask + np.uint64(1))
    return np.where(mask != 0, np.log2(np.maximum(low, 1).astype(np.float64)).astype(np.int64), -1)


def _highest_bit(mask: np.ndarray) -> np.ndarray:
    # a mask of faces is below 2**52, so its float is exact and frexp's exponent is its bit length
    return np.where(mask != 0, np.frexp(mask.astype(np.float64))[1] - 1, -1).astype(np.int64)


class Lowest(Strategy):
    """Plays the lowest legal face number; never the pair; declares the suit it
    holds most physical cards of (all cards, 9s included; ties: lowest suit);
    always plays a legal drawn card."""

    name = "det-lowest"
    classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": False}

    def play(self, obs: Observation) -> np.ndarray:
        return _lowest_bit(obs.legal)

    def declare(self, obs: Observation) -> np.ndarray:
        return np.argmax(obs.suit_counts(), axis=1)


class HighestPair(Strategy):
    """Plays two 9s together whenever legal, else the highest legal face number;
    declares the suit it holds fewest physical cards of (ties: lowest suit);
    plays a legal drawn card unless it is a 9."""

    name = "det-highest-pair"
    classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": True}

    def play(self, obs: Observation) -> np.ndarray:
        return np.where(obs.pair_legal, PAIR_OF_NINES, _highest_bit(obs.legal))

    def declare(self, obs: Observation) -> np.ndarray:
        return np.argmin(obs.suit_counts(), axis=1)

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        return (card % 13) != 8


assert int(SUIT_MASK[0]) == 0x1FFF
