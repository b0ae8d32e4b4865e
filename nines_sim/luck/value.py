"""The value function of the luck measure: weights on the features of :mod:`nines_sim.luck.features`.

``V_p(state) = weights[p] . features_p(state)``: seat ``p``'s expected win share.  Any weights give an unbiased
luck-adjusted estimate (the corrections' mean is zero whatever ``V`` is); good ones narrow it.  :func:`fit_value`
fits them to minimise the adjusted estimate's variance: the corrections are linear in the weights, so the weights
that minimise the variance of ``share - weights . luck`` are a least-squares fit of the shares on the matches'
summed feature differences (a control-variate regression), done in two stages (a hand's cards in points, a ridge
fit solved from its sums of squares and products, :class:`Moments`, scikit-learn's ``Ridge`` to rounding; then a
point in win share by where the match stands, scikit-learn's least squares to the bit, :func:`least_squares`: few
weights per stage, so that a few thousand matches fit them), on matches reserved for it, never on those it adjusts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nines_sim.luck.features import N_FEATURES, NC, NJ

#: The ridge penalty of the fit (on features of unit scale: cards held, a share of the target).
RIDGE_ALPHA = 1.0


@dataclass(frozen=True)
class LinearValue:
    """A value function linear in the features.

    Attributes
    ----------
    weights : numpy.ndarray
        float64, shape (P, N_FEATURES): seat ``p``'s value is ``weights[p] . features_p``; or shape
        (3, P, N_FEATURES): one value per kind of event (deal, draw, choice).  The kind of the next event is known
        before it, so each correction ``V_kind(after) - E[V_kind(after) | before]`` still has mean zero.
    name : str
        What it is, for the report (``"fitted on 4,000 reserved matches"``, ``"constant"``, ...).
    points : numpy.ndarray or None
        float64, shape (3, P, NJ): a fitted value's first stage, the value of a hand's card blocks in penalty
        points per kind of event (the seat's hand penalty minus the others' mean, lower is better); None for a
        value with no such stage.  The review's luck in points (:mod:`nines_sim.luck.review`).
    """

    weights: np.ndarray
    name: str
    points: np.ndarray | None = None

    def corrections(self, parts: np.ndarray) -> np.ndarray:
        """The corrections of matches: the value's change at each event minus its mean, summed per part.

        Parameters
        ----------
        parts : numpy.ndarray
            float64, shape (n, 3, P, N_FEATURES): :attr:`nines_sim.luck.walk.MatchLuck.parts` of ``n`` matches.

        Returns
        -------
        numpy.ndarray
            float64, shape (n, 3, P): per match, part (deal, draw, choice) and seat, in win shares.
        """
        w = self.weights if self.weights.ndim == 3 else self.weights[None]
        return np.einsum("nkpf,kpf->nkp", parts, np.broadcast_to(w, (parts.shape[1], *w.shape[1:])))


def constant_value(players: int) -> LinearValue:
    """A value that is the same in every state: every correction is 0, the adjusted estimate the plain one."""
    return LinearValue(np.zeros((players, N_FEATURES)), "constant")


def noise_value(players: int, seed: int) -> LinearValue:
    """A deliberately useless value: weights drawn at random (normal, scale 0.05), unrelated to any result.

    Its corrections still have mean zero: a check of the measure, not a model.
    """
    gen = np.random.default_rng([41, seed])
    return LinearValue(gen.normal(0.0, 0.05, size=(players, N_FEATURES)), f"noise (seed {seed})")


def fit_value(parts: np.ndarray | None, shares: np.ndarray, hand_blocks: np.ndarray, hand_penalties: np.ndarray,
              alpha: float = RIDGE_ALPHA, hand_match: np.ndarray | None = None,
              hand_weights: np.ndarray | None = None) -> LinearValue:  # fmt: skip
    """The weights that minimise the variance of each seat's adjusted win share, fitted in two stages.

    Stage 1, the value of a hand's cards in points, one per kind of event: per seat and kind (deal, draw,
    choice), the ridge fit of the seat's hand penalty minus the others' mean on the hand's card block differences
    of that kind (every hand of the reserved matches: many samples, NJ = 99 weights each), solved from the hands'
    :class:`Moments` (scikit-learn's ``Ridge`` to rounding).  Stage 2, what a point is
    worth by where the match stands: per seat, the least-squares fit of the win share on the match's stage-1 luck
    weighted by each match weight (ten numbers): the control-variate regression that minimises the adjusted
    variance.  The value's weights are their product, so ``V_kind,p = sum_c weight_c(match) * stage2_c *
    (stage1_kind . card block)``: linear in the features, as the exact expectations need.

    Parameters
    ----------
    parts : numpy.ndarray or None
        float64, shape (n, 3, P, N_FEATURES): the reserved matches' feature differences; or None, to take the
        matches' luck from their hands, ``hand_match`` and ``hand_weights`` (:func:`match_luck`: the same sums in
        another order, the weights equal to rounding).
    shares : numpy.ndarray
        float64, shape (n, P): their win shares.
    hand_blocks : numpy.ndarray
        float64, shape (hands, 3, P, NJ): every hand's card block differences per kind of event.
    hand_penalties : numpy.ndarray
        int64, shape (hands, P): every hand's penalties.
    alpha : float
        Ridge penalty of stage 1 (:meth:`Moments.ridge`).
    hand_match, hand_weights : numpy.ndarray, optional
        int64 (hands,) and float64 (hands, P, NC): each hand's match (0 .. n - 1, in order) and match weights
        (:class:`~nines_sim.luck.measure.Luck`), when ``parts`` is None.

    Returns
    -------
    LinearValue
        Weights of shape (3, P, N_FEATURES).

    Raises
    ------
    ValueError
        For fewer than two matches.
    """
    from threadpoolctl import threadpool_limits

    n = shares.shape[0]
    if n < 2:
        raise ValueError(f"a value needs at least 2 matches to fit, not {n}")
    # one BLAS thread: the products are small, and a second thread on a busy machine spins for longer than the
    # whole fit takes (0.13 s against 1 to 3 s); and the weights no longer depend on the core count
    with threadpool_limits(limits=1, user_api="blas"):
        return _fit(parts, shares, hand_blocks, hand_penalties, alpha, hand_match, hand_weights)


def match_luck(k: int, p: int, n: int, hand_blocks: np.ndarray, hand_match: np.ndarray, hand_weights: np.ndarray,
               points: np.ndarray) -> np.ndarray:  # fmt: skip
    """Seat ``p``'s luck of kind ``k`` in ``n`` matches under a first stage ``points`` (NJ,), per match weight:
    float64, shape (n, NC), the parts of kind ``k`` (:attr:`~nines_sim.luck.walk.MatchLuck.parts`) times ``points``.

    Each hand's luck in points (its card blocks times ``points``) times its match weights, summed over each match's
    hands: the parts' products summed in another order (equal to them to rounding, about 1e-16 relative), without
    the (hands, NC, NJ) array of every hand's products (hundreds of MB at 4,000 heads-up matches, most of a fit's
    time).
    """
    hand = hand_weights[:, p, :] * (hand_blocks[:, k, p, :] @ points)[:, None]
    return np.stack([np.bincount(hand_match, weights=hand[:, c], minlength=n) for c in range(NC)], axis=1)


@dataclass(frozen=True)
class Moments:
    """Stage 1's sufficient statistics: per kind and seat, the count, means and centred sums of squares and
    products of the hands' card blocks with the target (the hand penalty less the others' mean) as a last column.

    Gathered chunk by chunk (:meth:`of`, :meth:`merge`: Chan's pairwise update, each chunk centred on its own
    means, so no precision is lost to large means), in place of every hand's blocks.

    Attributes
    ----------
    n : int
        Hands.
    mean : numpy.ndarray
        float64, shape (3, P, NJ + 1): the blocks' means, then the target's.
    cross : numpy.ndarray
        float64, shape (3, P, NJ + 1, NJ + 1): the centred sums of squares and products.
    """

    n: int
    mean: np.ndarray
    cross: np.ndarray

    @classmethod
    def of(cls, hand_blocks: np.ndarray, hand_penalties: np.ndarray) -> Moments:
        """The moments of hands: ``hand_blocks`` float64 (hands, 3, P, NJ), ``hand_penalties`` int64 (hands, P)."""
        h, kinds, P = hand_blocks.shape[:3]
        pen = hand_penalties.astype(np.float64)
        y = pen - (pen.sum(axis=1, keepdims=True) - pen) / max(P - 1, 1)
        mean, cross = np.zeros((kinds, P, NJ + 1)), np.zeros((kinds, P, NJ + 1, NJ + 1))
        if not h:
            return cls(0, mean, cross)
        z = np.empty((h, NJ + 1))  # one kind and seat's blocks and target at a time: no copy of every hand's
        for k, p in np.ndindex(kinds, P):
            z[:, :NJ], z[:, NJ] = hand_blocks[:, k, p], y[:, p]
            mean[k, p] = z.mean(axis=0)
            z -= mean[k, p]
            cross[k, p] = z.T @ z
        return cls(h, mean, cross)

    def merge(self, other: Moments) -> Moments:
        """The moments of both sets of hands."""
        n = self.n + other.n
        if not self.n or not other.n:
            return other if not self.n else self
        d = other.mean - self.mean
        mean = self.mean + d * (other.n / n)
        cross = self.cross + other.cross + d[..., :, None] * d[..., None, :] * (self.n * other.n / n)
        return Moments(n, mean, cross)

    def ridge(self, alpha: float) -> np.ndarray:
        """Stage 1's weights, float64 (3, P, NJ): per kind and seat, the ridge fit of the target on the blocks.

        The fit scikit-learn's ``Ridge(alpha, solver="cholesky")`` (with its intercept) makes, from these sums
        instead of the hands: the normal equations of the centred blocks and target, ``alpha`` added to the
        diagonal (the intercept not penalised), solved by Cholesky (``scipy.linalg.solve``, ``assume_a="pos"``).
        Equal to ``Ridge``'s to rounding (the sums taken in another order), not to the bit.
        """
        from scipy.linalg import solve

        f = self.cross.shape[-1] - 1
        out = np.empty(self.cross.shape[:2] + (f,))
        for k, p in np.ndindex(*out.shape[:2]):
            a = self.cross[k, p, :f, :f] + alpha * np.eye(f)
            out[k, p] = solve(a, self.cross[k, p, :f, f], assume_a="pos")
        return out


def least_squares(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The coefficients of the least-squares fit of ``y`` (n,) on ``x`` (n, k) with an intercept: scikit-learn's
    ``LinearRegression().fit(x, y).coef_`` to the bit (tested), the same steps (the columns and ``y`` centred on
    their means, ``scipy.linalg.lstsq`` with its ``cond``, ``LinearRegression``'s ``tol``) without importing
    scikit-learn, about 0.8 s of processor time, a sixth of a 20,000-match ``--luck`` run.

    Returns
    -------
    numpy.ndarray
        float64, shape (k,).
    """
    from scipy.linalg import lstsq

    xc = np.array(x, dtype=np.float64)
    xc -= np.mean(xc, axis=0)
    yc = np.array(y, dtype=np.float64)
    yc -= np.mean(yc, axis=0)
    return lstsq(xc, yc, cond=1e-6)[0]


def stage_two(points: np.ndarray, luck: np.ndarray, shares: np.ndarray, n: int) -> LinearValue:
    """The value from stage 1's ``points`` (3, P, NJ) and each match's stage-1 luck ``luck`` (matches, P, NC):
    per seat, the least-squares fit of the win share ``shares`` (matches, P) on the luck (:func:`least_squares`),
    the weights the outer product of the two stages."""
    kinds, P = points.shape[:2]
    weights = np.empty((kinds, P, N_FEATURES))
    for p in range(P):
        match = least_squares(luck[:, p], shares[:, p])
        for k in range(kinds):
            weights[k, p] = np.outer(match, points[k, p]).ravel()
    return LinearValue(weights, f"fitted on {n:,} reserved matches", points)


def _fit(parts: np.ndarray | None, shares: np.ndarray, hand_blocks: np.ndarray, hand_penalties: np.ndarray,
         alpha: float, hand_match: np.ndarray | None, hand_weights: np.ndarray | None) -> LinearValue:  # fmt: skip
    n, kinds, P = shares.shape[0], hand_blocks.shape[1], shares.shape[1]
    points = Moments.of(hand_blocks, hand_penalties).ridge(alpha)
    luck = np.empty((n, P, NC))
    for p in range(P):
        if parts is not None:
            luck[:, p] = sum(parts.reshape(n, kinds, P, NC, NJ)[:, k, p] @ points[k, p] for k in range(kinds))
        else:
            assert hand_match is not None and hand_weights is not None
            luck[:, p] = sum(match_luck(k, p, n, hand_blocks, hand_match, hand_weights, points[k, p])
                             for k in range(kinds))  # fmt: skip
    return stage_two(points, luck, shares, n)
