"""A 95% interval for the largest of several correlated deviations, such as the seats' (seat unfairness).

Picking the seat that deviates most and quoting its own interval claims too much: with four perfectly
fair seats, the most deviating one's 95% interval excludes 0 in about 16% of runs, not 5%.  Here every
deviation gets an interval of the same half-width in standard errors, ``c``, chosen so that all of them
cover together at the stated rate: ``c`` is the quantile of ``max_k |T_k|``, where ``T`` is multivariate t
(the deviations' estimated correlation, ``df`` degrees of freedom, as the per-seat t intervals) and is
simulated, with a fixed seed, so the same sums give the same interval.  On that joint event the largest
absolute deviation lies between the largest distance of an interval from 0 and the largest distance of
an interval's far end from 0, so the interval for the maximum covers at least as often as they all do.
Under equal seats it excludes 0 exactly when some seat's ``|t|`` exceeds ``c``: in 5% of runs.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

#: Simulated draws of ``T``: the Monte Carlo error of ``c`` is about 0.01 (0.15 points of coverage).
DRAWS = 20_000
SEED = 20261206


@lru_cache(maxsize=16)
def _draws(k: int, df: int) -> tuple[np.ndarray, np.ndarray]:
    """Standard normals (DRAWS, k) and the t scale ``sqrt(chi2_df / df)`` (DRAWS,), the same for every call."""
    rng = np.random.default_rng(SEED)
    normals = rng.standard_normal((DRAWS, k))
    scale = np.sqrt(rng.chisquare(df, DRAWS) / df) if df < 10**7 else np.ones(DRAWS)
    return normals, scale


def critical_value(corr: np.ndarray, df: int, level: float = 0.95) -> float:
    """The ``level`` quantile of ``max_k |T_k|``, ``T`` multivariate t with correlation ``corr`` and ``df``.

    Parameters
    ----------
    corr : numpy.ndarray
        float64, (k, k): a correlation matrix (positive semi-definite; singular is allowed, as for win
        rates that sum to 1).
    df : int
        Degrees of freedom, >= 1.
    level : float
        The joint coverage, in (0, 1).

    Returns
    -------
    float
        ``c``: every ``|T_k| <= c`` at once with probability ``level`` (up to the simulation's error).
    """
    w, v = np.linalg.eigh(corr)
    root = v * np.sqrt(np.clip(w, 0.0, None))  # root @ root.T == corr
    normals, scale = _draws(corr.shape[0], max(int(df), 1))
    t = (normals @ root.T) / scale[:, None]
    return float(np.quantile(np.abs(t).max(axis=1), level))


def largest_deviation(
    deviations: np.ndarray, cov: np.ndarray, df: int, level: float = 0.95
) -> tuple[float, float, float]:
    """The largest absolute deviation and an interval for it that covers at ``level``.

    Parameters
    ----------
    deviations : numpy.ndarray
        float64, (k,): estimates of the deviations (a seat's win rate minus the fair share).
    cov : numpy.ndarray
        float64, (k, k): their estimated covariance.
    df : int
        Degrees of freedom of the standard errors (matches - 1).
    level : float
        Coverage of the interval.

    Returns
    -------
    tuple of float
        ``(max_k |d_k|, low, high)``; ``low`` >= 0.  NaN bounds where a variance is NaN.
    """
    d = np.abs(np.asarray(deviations, dtype=float))
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    if not np.isfinite(se).all():
        return float(d.max()), math.nan, math.nan
    spread = se > 0  # a deviation known without error (no variation at all) keeps a zero-width interval
    corr = np.zeros(cov.shape)
    corr[np.ix_(spread, spread)] = cov[np.ix_(spread, spread)] / np.outer(se[spread], se[spread])
    c = critical_value(corr, df, level) if spread.any() else 0.0
    low = float(np.clip(d - c * se, 0.0, None).max())
    return float(d.max()), low, float((d + c * se).max())
