"""The search's verdict on one decision of any kind: every candidate move's value, on the same samples.

What ``nines analyze`` computes for a play, for every kind of decision (the
card to play, the suit after a 9, playing a drawn card or keeping it, the
dealer's suit at a 9 starter), straight from the deciding seat's
:class:`~nines_sim.strategy.base.Observation`: the hidden cards are sampled from
what the seat sees (:func:`nines_sim.search.sampler.sample_positions`, with
``nines analyze``'s salt) and every candidate is played out on the same
samples and rollout streams (:func:`nines_sim.search.pimc.sample_values`), so the
difference between two moves is measured sample by sample.  ``nines play``'s
``?`` and ``nines review`` use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nines_sim.search.pimc import candidates, sample_values
from nines_sim.search.sampler import sample_positions
from nines_sim.strategy.base import DecisionKind, Observation
from nines_sim.strategy.registry import make_lineup

#: The sampler's salt ``nines analyze`` uses, so a play's verdict here equals its analysis there.
SALT = 5
Z95 = 1.96


@dataclass(frozen=True)
class Verdict:
    """Per game of a decision, the value of every candidate move on every sample.

    Attributes
    ----------
    moves : numpy.ndarray
        int64, (n, C): candidate moves as :func:`nines_sim.search.pimc.candidates` gives them, -1 padded.
    values : numpy.ndarray
        float64, (n, C, K): the outcome (opponents' mean hand penalty minus the own, in
        penalty points, higher is better; or the match win share) of each candidate on
        each of the ``K`` samples; NaN where there is no candidate.
    """

    moves: np.ndarray
    values: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        """float64, (n, C): mean outcome, -inf where there is no candidate."""
        with np.errstate(invalid="ignore"):
            m = np.nanmean(np.where(self.moves[:, :, None] >= 0, self.values, 0.0), axis=2)
        return np.where(self.moves >= 0, m, -np.inf)

    @property
    def se(self) -> np.ndarray:
        """float64, (n, C): standard error of :attr:`mean` (0 with one sample or no candidate)."""
        K = self.values.shape[2]
        if K < 2:
            return np.zeros(self.moves.shape)
        v = np.where(self.moves[:, :, None] >= 0, self.values, 0.0)
        return v.std(axis=2, ddof=1) / np.sqrt(K)

    def best(self) -> np.ndarray:
        """int64, (n,): the column of the best mean (the first of equal ones)."""
        return np.argmax(self.mean, axis=1)

    def column(self, moves: np.ndarray) -> np.ndarray:
        """int64, (n,): the column of each game's move ``moves`` (int64, (n,)); -1 if not a candidate."""
        hit = self.moves == moves[:, None]
        return np.where(hit.any(axis=1), np.argmax(hit, axis=1), -1)

    def loss(self, moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points lost by each game's move against the best, and the standard error of that difference.

        The difference is taken sample by sample (common random numbers).

        Returns
        -------
        tuple of numpy.ndarray
            float64, (n,) each: best mean minus the move's mean (>= 0), and its standard error.
        """
        n = self.moves.shape[0]
        r = np.arange(n)
        col = self.column(moves)
        if (col < 0).any():
            raise ValueError("a move is not among its decision's candidates")
        diff = self.values[r, self.best()] - self.values[r, col]
        K = diff.shape[1]
        se = diff.std(axis=1, ddof=1) / np.sqrt(K) if K > 1 else np.zeros(n)
        return diff.mean(axis=1), se

    def ranking(self, j: int = 0) -> list[tuple[int, float, float, float]]:
        """Game ``j``'s candidates, best first: (move, mean, low, high) with a 95% interval."""
        mean, se = self.mean[j], self.se[j]
        ok = np.flatnonzero(self.moves[j] >= 0)
        order = ok[np.argsort(-mean[ok], kind="stable")]
        return [
            (int(self.moves[j, c]), float(mean[c]), float(mean[c] - Z95 * se[c]), float(mean[c] + Z95 * se[c]))
            for c in order
        ]


def has_choice(obs: Observation, moves: np.ndarray) -> np.ndarray:
    """Whether each game's decision is a real choice: bool, (n,).

    More than one candidate, and for a 9's declaration a hand still in play (a 9
    that was the last card ends the hand, O1: any suit will do).
    """
    out = (moves >= 0).sum(axis=1) > 1
    if obs.kind == DecisionKind.DECLARE:
        out &= obs.hand_sizes[np.arange(obs.n), obs.seat] > 0
    return out


def judge(
    obs: Observation,
    card: np.ndarray | None = None,
    pair: np.ndarray | None = None,
    samples: int = 256,
    policy: str = "expert",
    outcome: str = "hand",
    infer: float = 1.0,
) -> Verdict:
    """The search's verdict on every candidate move of every game of a decision.

    Parameters
    ----------
    obs : Observation
        The decision (``n`` games), as the engine gives it to the deciding seat.
    card : numpy.ndarray, optional
        int64, (n,): the drawn card, for ``play_drawn`` (T4).
    pair : numpy.ndarray, optional
        bool, (n,): for ``declare``, whether two 9s were played together (V4).
    samples : int
        Samples of the hidden cards, K.
    policy : str
        The rollout strategy (:func:`nines_sim.search.pimc.policy_names`).
    outcome : {"hand", "match"}
        Score the rollouts by the hand's penalties or by the match win share.
    infer : float
        Weight of the draws' evidence in the samples, 0..1 (as ``lookahead``'s setting).

    Returns
    -------
    Verdict
    """
    moves = candidates(obs, card)
    worlds = sample_positions(obs, samples, SALT, infer)
    pol = make_lineup([policy])[0]
    return Verdict(moves, sample_values(obs, worlds, moves, pol, outcome, card, pair))
