"""Confidence intervals and significance tests for win rates.

Win shares are per-match values in {0, 1/k, 1}; a win rate is their mean, so
the tests below are z-tests on means of per-match values, with variances from
exact sums of squares and cross products (see :mod:`nines_sim.tally`).
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default).

    Parameters
    ----------
    wins : float
        Successes (win shares summed; may be fractional under shared wins).
    n : int
        Trials (matches), >= 0.

    Returns
    -------
    tuple of float
        (low, high), both in [0, 1]; (0, 1) when ``n == 0``.
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


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
