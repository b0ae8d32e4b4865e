"""Inference from plays with the learned model: weigh each sampled world by how likely the opponent's observed plays
were under the model (``lookahead:play_model=learned``).

Where :func:`nines_sim.search.play_inference.play_weights` asks whether a hand-written model (``expert``) would have
made each recorded play, this gives each play its probability under the learned model
(:mod:`nines_sim.strategies.learned`): a softmax of the model's scores over the cards legal then, at temperature
``temp`` (points: the model's card scores are the moves' values in points, :func:`nines_sim.learn.fit.fit_ranker`),
and for a 9 times the softmax of its suit scores over the four suits.  A world's weight is the product over its
game's recorded plays, raised to ``infer`` (0: every world alike; 1: the plays' likelihood), each play's probability
at least 0.001 as in the hand-written version.  The policy-based inference of Skat (Rebstock et al. 2019).
"""

from __future__ import annotations

import numpy as np

from nines_sim.search.play_inference import ObservedPlay, recorded
from nines_sim.search.position import PositionBatch
from nines_sim.strategy.base import Observation, Strategy

#: A play's probability counts at least this much (a model can give a real play almost none).
FLOOR = 1e-3


def card_log_likelihood(model: Strategy, obs: Observation, card: np.ndarray, temp: float) -> np.ndarray:
    """Log-probability of each play decision's ``card`` under ``model``'s card scores: a softmax at ``temp`` over the
    legal cards (float64 (n,); the ``learned`` strategy's :meth:`scores`, -inf where a face is not legal)."""
    s = model.scores(obs) / temp  # type: ignore[attr-defined]
    top = s.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(s - top).sum(axis=1)) + top[:, 0]
    return s[np.arange(obs.n), card] - log_z


def suit_log_likelihood(model: Strategy, obs: Observation, suit: np.ndarray, temp: float) -> np.ndarray:
    """Log-probability of each declaration's ``suit`` under ``model``'s suit scores: a softmax at ``temp`` over the
    four suits (float64 (n,))."""
    from nines_sim.learn.decide import linear_scores, observation_arrays
    from nines_sim.learn.features import batch_suit_features

    a = observation_arrays(obs)
    x = batch_suit_features(a["h0"], a["h1"], a["played"], a["sizes"], a["drew_on"], a["seat"], a["dirbit"])
    s = linear_scores(x, model.model_for(obs.rules).suit_weights) / temp  # type: ignore[attr-defined]
    top = s.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(s - top).sum(axis=1)) + top[:, 0]
    return s[np.arange(obs.n), suit] - log_z


def play_likelihoods(obs: Observation, worlds: PositionBatch, plays: list[list[ObservedPlay]], model: Strategy,
                     infer: float, temp: float) -> np.ndarray:  # fmt: skip
    """Each world's weight: the product over its game's recorded plays of their probability under ``model``.

    ``obs``, ``worlds`` and ``plays`` as for :func:`~nines_sim.search.play_inference.play_weights`; ``model`` a
    ``learned`` strategy (its card scores and its model's suit weights); ``infer`` 0..1, the exponent of the
    likelihood; ``temp`` the softmax's temperature in points (> 0).

    Returns
    -------
    numpy.ndarray
        float64, (n * M,): 1 in a game with no recorded play.
    """
    weight = np.ones(worlds.n)
    rec = recorded(obs, worlds, plays) if infer > 0 else None
    if rec is None:
        return weight
    logp = np.maximum(card_log_likelihood(model, rec.obs, rec.card, temp), np.log(FLOOR))
    nine = np.flatnonzero(rec.suit >= 0)
    if nine.size:
        sp = suit_log_likelihood(model, rec.declare(nine), rec.suit[nine], temp)
        logp[nine] += np.maximum(sp, np.log(FLOOR))
    log_w = np.zeros(worlds.n)
    np.add.at(log_w, rec.world, infer * logp)
    return np.exp(log_w)
