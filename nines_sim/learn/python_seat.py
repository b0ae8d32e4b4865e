"""A model played as a Python seat: its decisions computed over the engine's batch with the training path's
features and numpy sums, the same moves as its compiled decision (:mod:`nines_sim.learn.decide`) without
compiling that decision.

Each model's weights are constants of its compiled decision, so every new model compiles its own scoring (about
1 s of processor time; the features it shares with every model, 2-3 s more the first time,
:data:`nines_sim.learn.decide.SHARED_FEATURES`).  A model played only a few thousand matches (a training run's
last measure) is cheaper played here: a
Python seat of a heads-up classic table plays 2,000 matches in about 1 s of processor time, its compiled twin in
0.5 s after that compile.  ``tests/test_learned.py`` checks that both play the same matches.
"""

from __future__ import annotations

import numpy as np

from nines_sim.learn.decide import batch_scores, drawn_plays, linear_scores, observation_arrays
from nines_sim.learn.features import batch_suit_features
from nines_sim.learn.model import Model
from nines_sim.strategy.base import Observation, Strategy


class PythonLearned(Strategy):
    """``learned`` on a model, decided in Python over the batch: the card of highest score (the lowest face
    among equals), the suit of highest score, the drawn card by its weights or ``expert``'s rule (T3, T4),
    each as the compiled decision chooses it.

    Parameters
    ----------
    model : Model
        The model played (not checked against the table's rules: the caller's model is trained for them).
    """

    name = "python-learned"
    classifier = {"stochastic": False, "uses_public_history": True, "plays_pair_of_nines": False}

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model

    def play(self, obs: Observation) -> np.ndarray:
        return np.argmax(batch_scores(self.model, obs), axis=1)

    def declare(self, obs: Observation) -> np.ndarray:
        a = observation_arrays(obs)
        x = batch_suit_features(a["h0"], a["h1"], a["played"], a["sizes"], a["drew_on"], a["seat"], a["dirbit"])
        return np.argmax(linear_scores(x, self.model.suit_weights), axis=1)

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        return drawn_plays(self.model, obs, card)
