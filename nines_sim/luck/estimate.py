"""Estimates with the luck taken out: the adjusted win rate and its interval, the variance ratio and its
interval, and the corrections' mean and z (the unbiasedness check)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Adjusted:
    """One seat's plain and luck-adjusted win rate over ``n`` matches.

    Attributes
    ----------
    n : int
    win_rate, adjusted : float
        Mean win share; mean of win share minus the match's correction.
    adjusted_ci : tuple of float
        95% normal interval of the adjusted mean (the corrections make it no count of wins), cut to the range the
        estimated number lies in (a win rate's [0, 1], a paired shift's [-1, 1]): the cut interval holds it
        whenever the normal one does (only a run of a few matches reaches past either end).  The adjusted mean
        itself is left as it is (unbiased, it may lie outside).
    variance_ratio : float
        Variance of the win share over variance of the adjusted share: the adjusted estimate is as narrow as
        ``n * variance_ratio`` plain matches.
    variance_ratio_ci : tuple of float
        95% interval of the ratio (delta method on the log of the ratio of the two sample variances).
    correction_mean, luck_z : float
        The corrections' mean and its z (mean over its standard error): zero in expectation whatever the value.
    """

    n: int
    win_rate: float
    adjusted: float
    adjusted_ci: tuple[float, float]
    variance_ratio: float
    variance_ratio_ci: tuple[float, float]
    correction_mean: float
    luck_z: float

    @property
    def equivalent_matches(self) -> float:
        """Plain matches as narrow as the adjusted estimate: ``n * variance_ratio``."""
        return self.n * self.variance_ratio


def variance_ratio(plain: np.ndarray, adjusted: np.ndarray) -> tuple[float, tuple[float, float]]:
    """``var(plain) / var(adjusted)`` of paired samples, with its 95% interval.

    The interval is the delta method's on ``log var(a) - log var(b)``, with the sample variances' covariance
    from the fourth moments.  A ratio with no spread on one side (all one value) is ``nan``.
    """
    a = plain - plain.mean()
    b = adjusted - adjusted.mean()
    n = a.shape[0]
    va, vb = float(np.mean(a * a)), float(np.mean(b * b))
    if va == 0.0 or vb == 0.0 or n < 3:
        return float("nan"), (float("nan"), float("nan"))
    var_a = float(np.mean(a**4)) - va * va
    var_b = float(np.mean(b**4)) - vb * vb
    cov = float(np.mean(a * a * b * b)) - va * vb
    se = np.sqrt(max(var_a / va**2 + var_b / vb**2 - 2 * cov / (va * vb), 0.0) / n)
    ratio = va / vb
    return ratio, (float(ratio * np.exp(-Z95 * se)), float(ratio * np.exp(Z95 * se)))


def adjusted_rates(shares: np.ndarray, corrections: np.ndarray,
                   bounds: tuple[float, float] = (0.0, 1.0)) -> list[Adjusted]:  # fmt: skip
    """Each seat's plain and adjusted estimates.

    Parameters
    ----------
    shares : numpy.ndarray
        float64, shape (n, P): win shares.
    corrections : numpy.ndarray
        float64, shape (n, 3, P) or (n, P): the matches' corrections (per part: summed).
    bounds : tuple of float
        The range the mean of ``shares`` lies in, which the intervals are cut to: (0, 1) for win shares,
        (-1, 1) for paired shifts of them.

    Returns
    -------
    list of Adjusted
        One per seat.
    """
    c = corrections.sum(axis=1) if corrections.ndim == 3 else corrections
    n, P = shares.shape
    out = []
    for p in range(P):
        adj = shares[:, p] - c[:, p]
        mean = float(adj.mean())
        se = float(adj.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
        cse = float(c[:, p].std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
        cm = float(c[:, p].mean())
        z = cm / cse if cse > 0 else 0.0
        ratio, ratio_ci = variance_ratio(shares[:, p], adj)
        ci = (max(mean - Z95 * se, bounds[0]), min(mean + Z95 * se, bounds[1]))  # nan (one match) stays nan
        out.append(Adjusted(n, float(shares[:, p].mean()), mean, ci, ratio, ratio_ci, cm, z))
    return out
