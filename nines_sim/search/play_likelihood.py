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
    ``learned`` strategy (its model's card and suit weights); ``infer`` 0..1, the exponent of the likelihood;
    ``temp`` the softmax's temperature in points (> 0).  Computed by the model's compiled likelihood
    (:func:`nines_sim.learn.likelihood.likelihood_for`); :func:`log_likelihoods_numpy` is the same in numpy.

    Returns
    -------
    numpy.ndarray
        float64, (n * M,): 1 in a game with no recorded play.
    """
    return np.exp(log_likelihoods(obs, worlds, plays, model, infer, temp))


#: The fields of a recorded play that :func:`packed` puts first, in order; then each seat's cards, totals, draws.
SCALARS = ("card", "suit", "top", "active", "played", "dirbit", "stock")


def packed(play: ObservedPlay) -> np.ndarray:
    """A recorded play's card, suit and public row as the compiled likelihood reads them: int64
    (len(SCALARS) + 3 P,), :data:`SCALARS` then the seats' ``ncards``, ``totals`` and ``drew_on``; built once per
    play (a hand's plays are weighed again at each of the searching seat's decisions)."""
    if play.packed is None:
        r = play.row
        head = [play.card, play.suit, int(r["top"]), int(r["active"]), int(np.uint64(r["played"]).view(np.int64)),
                int(r["dirbit"]), int(r["stock_end"]) - int(r["stock_pos"])]  # fmt: skip
        seats = [np.asarray(r[k], dtype=np.int64) for k in ("ncards", "totals", "drew_on")]
        play.packed = np.concatenate([np.array(head, dtype=np.int64), *seats])
    return play.packed


def log_likelihoods(obs: Observation, worlds: PositionBatch, plays: list[list[ObservedPlay]], model: Strategy,
                    infer: float, temp: float) -> np.ndarray:  # fmt: skip
    """The log of :func:`play_likelihoods`, computed by the model's compiled likelihood: float64 (n * M,)."""
    from nines_sim.learn.likelihood import likelihood_for

    log_w = np.zeros(worlds.n)
    games = [g for g in range(obs.n) if plays[g]] if infer > 0 else []
    if not games:
        return log_w
    M = worlds.n // obs.n
    rec = [(g, p) for g in games for p in plays[g]]
    pk = np.array([packed(p) for _, p in rec])
    P = (pk.shape[1] - len(SCALARS)) // 3

    def col(i: int, width: int = 0) -> np.ndarray:
        return np.ascontiguousarray(pk[:, i : i + width] if width else pk[:, i])

    first = np.array([g * M for g, _ in rec], dtype=np.int64)
    opp = 1 - obs.seat[[g for g, _ in rec]].astype(np.int64)
    later = np.array([p.later for _, p in rec], dtype=np.uint64).view(np.int64)
    hands = np.ascontiguousarray(worlds.arrays["hands"][0]).view(np.int64)  # type: ignore[index]
    legal_tab = np.array(obs._pub.legal_tab, dtype=np.uint64).view(np.int64)  # a writable copy: the kernel's type
    kernel = likelihood_for(model.model_for(obs.rules))  # type: ignore[attr-defined]
    n = len(SCALARS)
    kernel(hands, first, M, opp, later, col(0), col(1), col(2), col(3), col(4), col(n, P), col(n + P, P),
           col(n + 2 * P, P), col(5), col(6), legal_tab, int(obs.nine_penalty), float(temp), float(infer),
           float(np.log(FLOOR)), log_w)  # fmt: skip
    return log_w


def log_likelihoods_numpy(obs: Observation, worlds: PositionBatch, plays: list[list[ObservedPlay]], model: Strategy,
                          infer: float, temp: float) -> np.ndarray:  # fmt: skip
    """:func:`log_likelihoods` computed in numpy over every sampled world and recorded play (the learned strategy's
    batch scores, :meth:`scores`): the form the compiled one replaced, kept as its reference.  float64 (n * M,)."""
    log_w = np.zeros(worlds.n)
    rec = recorded(obs, worlds, plays) if infer > 0 else None
    if rec is None:
        return log_w
    logp = np.maximum(card_log_likelihood(model, rec.obs, rec.card, temp), np.log(FLOOR))
    nine = np.flatnonzero(rec.suit >= 0)
    if nine.size:
        sp = suit_log_likelihood(model, rec.declare(nine), rec.suit[nine], temp)
        logp[nine] += np.maximum(sp, np.log(FLOOR))
    np.add.at(log_w, rec.world, infer * logp)
    return log_w
