"""Confidence intervals and significance tests for win rates.

Win shares are per-match values in {0, 1/k, 1}; a win rate is their mean, so
the tests below are z-tests on means of per-match values, with variances from
exact sums of squares and cross products (see :mod:`nines_sim.tally`).
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_array(successes: np.ndarray, trials: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals of proportions (95% by default), elementwise.

    Parameters
    ----------
    successes, trials : array_like
        float64, same shape: successes (win shares summed, may be fractional) and trials;
        ``trials == 0`` gives NaN bounds.

    Returns
    -------
    low, high : numpy.ndarray
        float64, same shape, within [0, 1]; exactly 0 at no success and 1 at all.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(np.maximum(p * (1 - p) / n + z**2 / (4 * n**2), 0.0)) / denom
        # rounding must not put the estimate outside its own interval
        low = np.where(k <= 0, 0.0, np.clip(centre - half, 0.0, p))
        high = np.where(k >= n, 1.0, np.clip(centre + half, p, 1.0))
    bad = ~(n > 0)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of one proportion (95% by default); (0, 1) when ``n == 0``.

    Parameters
    ----------
    wins : float
        Successes (win shares summed; may be fractional under shared wins).
    n : int
        Trials (matches), >= 0.
    """
    if n <= 0:
        return 0.0, 1.0
    low, high = wilson_array(np.array([wins]), np.array([n]), z)
    return float(low[0]), float(high[0])


def z_test(estimate: float, se: float) -> tuple[float, float]:
    """Two-sided z-test of ``estimate == 0``.

    Returns
    -------
    tuple of float
        (z, p_value); (0, 1) when the standard error is 0 and the estimate is 0,
        (inf, 0) when the standard error is 0 and the estimate is not.
    """
    if se <= 0:
        return (0.0, 1.0) if estimate == 0 else (math.copysign(math.inf, estimate), 0.0)
    z = estimate / se
    return z, math.erfc(abs(z) / math.sqrt(2))


def holm(p_values: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


#: Fewest matches (per game or rule set) for a run's ranking and significance tests to be reported.
#: The Wilson intervals and z-tests lean on the normal approximation to a win count, which the usual
#: rule of thumb trusts when n * p * (1 - p) >= 10; at 200 matches that holds for every win rate from
#: 5.3% to 94.7%, which covers a fair share of 1/6 (six players) down to a third of it. Below, a
#: run's numbers are written but not ranked (a run stopped after a few seconds kept 2-3 matches).
MIN_MATCHES_TO_RANK = 200


def too_small_to_rank(matches: int) -> bool:
    """Whether ``matches`` per game are too few to rank strategies or claim significance (see above)."""
    return matches < MIN_MATCHES_TO_RANK
