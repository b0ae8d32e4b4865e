"""Plug-in strategies for the stored replay transcripts (:mod:`tests.replay_cases`): a per-game one that uses
its random stream, and two that fail late in a match (one raises, one answers an illegal card)."""

from __future__ import annotations

import numpy as np

from nines_sim.strategy.base import Observation, Strategy
from nines_sim.strategy.per_game import GameView, PerGameStrategy


class Chatty(PerGameStrategy):
    """A per-game player: a random legal card (its own stream), a random suit, a drawn 9 kept."""

    name = "chatty"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}

    def choose_card(self, view: GameView) -> str:
        return view.rng.choice(sorted(view.legal))

    def choose_suit(self, view: GameView) -> str:
        return view.rng.choice("CDHS")

    def play_drawn_card(self, view: GameView, card: str) -> bool:
        return not card.startswith("9")


class LateRaise(Strategy):
    """Plays the lowest legal face; raises once its own total passes 40 points."""

    name = "late-raise"
    classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": False}

    def play(self, obs: Observation) -> np.ndarray:
        if (obs.totals[np.arange(obs.n), obs.seat] > 40).any():
            raise RuntimeError("too far behind")
        low = obs.legal & (~obs.legal + np.uint64(1))
        return np.log2(low.astype(np.float64)).astype(np.int64)

    def declare(self, obs: Observation) -> np.ndarray:
        return np.zeros(obs.n, dtype=np.int64)


class LateIllegal(LateRaise):
    """As :class:`LateRaise`, but answers the ace of clubs, legal or not, instead of raising."""

    name = "late-illegal"

    def play(self, obs: Observation) -> np.ndarray:
        if (obs.totals[np.arange(obs.n), obs.seat] > 40).any():
            return np.zeros(obs.n, dtype=np.int64)
        return super().play(obs)
