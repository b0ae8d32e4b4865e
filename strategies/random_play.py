"""``random``: a legal move uniformly at random (the baseline)."""

from __future__ import annotations

import numpy as np

from nines_sim.game.rng import below
from nines_sim.strategy.base import PAIR_OF_NINES, Observation, Strategy, uniform_suit
from nines_sim.strategy.choice import count_cards, nth_card


class RandomPlay(Strategy):
    """A legal card uniformly at random (each physical card one choice; under V4
    two 9s together are one more choice); a uniformly random suit; always plays
    a legal drawn card.  Source: the issue defining the four built-ins."""

    name = "random"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": True}
    kernel_id = 1  # its compiled twin: heuristics_compiled.py

    def play(self, obs: Observation) -> np.ndarray:
        legal = [w & obs.legal for w in obs.hand]
        cards = count_cards(legal)
        pair = obs.pair_legal.astype(np.int64)
        r = below(obs.random(), cards + pair)
        return np.where(r == cards, PAIR_OF_NINES, nth_card(legal, r))

    def declare(self, obs: Observation) -> np.ndarray:
        return uniform_suit(obs)
