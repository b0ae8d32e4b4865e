"""Confidence intervals and significance tests for win rates, valid at any number of matches.

Everything here is a thin layer over ``scipy.stats`` and ``statsmodels``; the only
choices made here are which test fits which data.

Data
----
A seat's win share in one match is 1 (it won), 0, or 1/k (it shared the win with
k-1 others under ``tie_rule=share``).  Whole wins are binomial counts, so they
get exact binomial tests; shared wins are not, and get tests built from whole
counts that bound them (see :func:`proportion_test` and :func:`paired_test`).
None of the tests divides by a sample standard deviation, so a seat that won
every match or none is never read as certain: at 3 matches of 3 the exact p is
0.25, not 0.

Tests, by the ``test`` column of ``pairwise.csv`` and ``comparison.csv``
-----------------------------------------------------------------------
``exact binomial``
    One rate against a fixed share (the fair share 1/P, or 0.5 heads-up), whole
    wins: ``scipy.stats.binomtest`` (two-sided, likelihood-ordered).  The
    interval is the Clopper-Pearson interval of the rate, which covers at least
    its nominal rate at every n.
``exact binomial bound``
    The same with shared wins at small n: matches won outright (share 1) and
    matches with any share (> 0) bracket the share sum, and each is binomial.
    Under the null "mean share = p0" the outright count is binomial with a rate
    <= p0 and the any-share count with a rate >= p0, so a one-sided exact test
    of each is valid (conservative) and twice the smaller one-sided p is a valid
    two-sided p.  The interval runs from the Clopper-Pearson lower bound of the
    outright rate to the upper bound of the any-share rate.  Ties are common
    enough (a few in a hundred matches) that this bracket costs power, so it is
    used only where the normal approximation below is not yet valid.
``score z-test``
    Shared wins once ``n * p0 * (1 - p0) >= 10`` (:data:`LARGE_SAMPLE`, the usual
    rule for the normal approximation of a binomial count): the z-test of the
    mean share with the variance ``p0 * (1 - p0) / n`` it would have if every
    win were whole.  A share in [0, 1] with mean p0 has at most that variance,
    so the test is conservative, and its standard error is never 0.  The
    interval is the Wilson interval of the share sum, the inversion of the same
    test.
``exact McNemar``
    Two paired win rates (two seats at one table, or one seat under two rule
    sets over the same match indices), whole wins: conditional on the matches
    that one won and the other did not, the count won by the first is
    Binomial(m, 1/2) under the null of equal rates (``binomtest``).
``exact sign test``
    The same with shared wins: the matches in which one side took a larger share
    than the other, tested the same way.  Its null is that either side is as
    likely as the other to take the larger share, which is what "equally good"
    means for paired shares; with whole wins it is the McNemar test.

The interval of a paired difference is the Wald interval of the mean per-match
difference after Agresti and Min's (2005) adjustment of adding half a match to
each cell of the paired 2x2 table (one pseudo-match of difference +1, one of -1
and one of 0 in all), which keeps its width above zero at any n and covers
close to its nominal rate at small n; at large n it is the paired Wald interval.
The p-values of a run are adjusted together with Holm's step-down correction
(``statsmodels.stats.multitest.multipletests``).

The numbers are scipy's and statsmodels' to the last bit (tests/test_statistics.py compares them), but
computed from the distribution functions of ``scipy.special`` that ``scipy.stats`` itself calls:
importing ``scipy.stats`` (which statsmodels does) costs 2.1 times a ``python -c "import pandas"``,
``scipy.special`` 0.9 times (scipy 1.17, whose ``scipy.special`` loads its array-API layer; 2026-12-06, a
loaded 2-core machine), and every command that prints a table would pay the difference.  Where this scipy lacks those
functions (``_distributions``), the functions fall back to ``scipy.stats`` and statsmodels themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

import numpy as np

#: Two-sided 95% normal quantile, ``scipy.stats.norm.ppf(0.975)`` (a test checks it).
Z95 = 1.959963984540054

#: Level of the intervals (two-sided 1 - ALPHA).
ALPHA = 0.05

#: Shared wins are tested with the normal approximation once ``n * p0 * (1 - p0)`` reaches this.
LARGE_SAMPLE = 10.0

EXACT_BINOMIAL = "exact binomial"
BINOMIAL_BOUND = "exact binomial bound"
SCORE_Z = "score z-test"
MCNEMAR = "exact McNemar"
SIGN_TEST = "exact sign test"


@dataclass(frozen=True)
class TestResult:
    """One test's outcome: its name, two-sided p-value and a 95% interval of the estimate.

    Attributes
    ----------
    test : str
        One of ``EXACT_BINOMIAL``, ``BINOMIAL_BOUND``, ``SCORE_Z``, ``MCNEMAR``, ``SIGN_TEST``.
    p_value : float
        In [0, 1]; 1 when there is nothing to test (no matches, no discordant matches).
    low, high : float
        Bounds of the interval of the same quantity as the estimate (a difference of rates).
    """

    __test__ = False  # not a pytest class

    test: str
    p_value: float
    low: float
    high: float


def wilson_array(successes: np.ndarray, trials: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals of proportions (95% by default), elementwise (``statsmodels``).

    Parameters
    ----------
    successes, trials : array_like
        float64, same shape: successes (win shares summed, may be fractional) and trials;
        ``trials == 0`` gives NaN bounds.
    z : float
        Normal quantile of the two-sided level.

    Returns
    -------
    low, high : numpy.ndarray
        float64, same shape, within [0, 1]; exactly 0 at no success and 1 at all.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    ok = n > 0
    safe_n = np.where(ok, n, 1.0)
    safe_k = np.where(ok, k, 0.0)
    alpha = 2 * float(_distributions().norm_sf(z))
    low, high = _wilson_bounds(safe_k, safe_n, alpha)
    p = safe_k / safe_n
    # rounding must not put the estimate outside its own interval
    low = np.where(safe_k <= 0, 0.0, np.clip(low, 0.0, p))
    high = np.where(safe_k >= safe_n, 1.0, np.clip(high, p, 1.0))
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


@lru_cache(maxsize=65536)
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


@lru_cache(maxsize=1)
def _distributions() -> SimpleNamespace:
    """The distribution functions behind ``scipy.stats``' normal, binomial and beta, loaded once.

    ``scipy.stats.norm.sf(x)`` is ``ndtr(-x)`` and ``norm.isf(q)`` is ``-ndtri(q)``; ``binom`` and ``beta``
    call the ufuncs named here (recent scipy keeps them in ``scipy.special``).  ``exact`` is False where this
    scipy lacks them: the callers then use ``scipy.stats`` and statsmodels.
    """
    from scipy.special import ndtr, ndtri

    try:
        from scipy.special._ufuncs import _beta_ppf, _binom_cdf, _binom_pmf, _binom_sf, betainccinv
    except ImportError:
        return SimpleNamespace(exact=False, norm_sf=lambda x: ndtr(-x), norm_isf=lambda q: -ndtri(q))
    return SimpleNamespace(exact=True, norm_sf=lambda x: ndtr(-x), norm_isf=lambda q: -ndtri(q),
                           beta_ppf=_beta_ppf, beta_isf=betainccinv, binom_pmf=_binom_pmf, binom_cdf=_binom_cdf,
                           binom_sf=_binom_sf)  # fmt: skip


def _wilson_bounds(k: np.ndarray, n: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' ``proportion_confint(k, n, alpha, method="wilson")``, operation for operation."""
    q_ = k / n
    crit = _distributions().norm_isf(alpha / 2.0)
    crit2 = crit**2
    denom = 1 + crit2 / n
    center = (q_ + crit2 / (2 * n)) / denom
    dist = crit * np.sqrt(q_ * (1.0 - q_) / n + crit2 / (4.0 * n**2))
    dist /= denom
    return np.clip(center - dist, 0, 1), np.clip(center + dist, 0, 1)


def _clip01(x: float) -> float:
    return float(np.clip(x, 0, 1))


def _pmf(k: float, n: int, p: float) -> float:
    """``scipy.stats.binom.pmf(k, n, p)``: 0 off the support."""
    if k < 0 or k > n or math.floor(k) != k:
        return 0.0
    return _clip01(_distributions().binom_pmf(float(k), float(n), p))


def _cdf(k: float, n: int, p: float) -> float:
    """``scipy.stats.binom.cdf(k, n, p)``."""
    if k >= n:
        return 1.0
    return 0.0 if k < 0 else _clip01(_distributions().binom_cdf(float(math.floor(k)), float(n), p))


def _sf(k: float, n: int, p: float) -> float:
    """``scipy.stats.binom.sf(k, n, p)``."""
    if k < 0:
        return 1.0
    return 0.0 if k >= n else _clip01(_distributions().binom_sf(float(math.floor(k)), float(n), p))


def _search(a, d: float, lo: float, hi: float) -> float:  # noqa: ANN001 - scipy's _binary_search_for_binom_tst
    """The ``i`` in ``[lo, hi]`` with ``a(i) <= d < a(i + 1)``, for ``a`` ascending."""
    while lo < hi:
        mid = lo + (hi - lo) // 2
        midval = a(mid)
        if midval < d:
            lo = mid + 1
        elif midval > d:
            hi = mid - 1
        else:
            return mid
    return lo if a(lo) <= d else lo - 1


@lru_cache(maxsize=65536)
def _binom_p(k: int, n: int, p: float, alternative: str = "two-sided") -> float:
    """p-value of ``scipy.stats.binomtest(k, n, p, alternative)``: the same steps on the same functions.

    Cached: small runs repeat the same counts, and the level tests call this many times.
    """
    if not _distributions().exact:
        from scipy.stats import binomtest

        return float(binomtest(k, n, p, alternative=alternative).pvalue)
    if alternative == "less":
        return float(_cdf(k, n, p))
    if alternative == "greater":
        return float(_sf(k - 1, n, p))
    d = _pmf(k, n, p)
    rerr = 1 + 1e-7
    if k == p * n:
        pval = 1.0
    elif k < p * n:
        ix = _search(lambda x1: -_pmf(x1, n, p), -d * rerr, np.ceil(p * n), n)
        y = n - ix + int(d * rerr == _pmf(ix, n, p))
        pval = _cdf(k, n, p) + _sf(n - y, n, p)
    else:
        ix = _search(lambda x1: _pmf(x1, n, p), d * rerr, 0, np.floor(p * n))
        y = ix + 1
        pval = _cdf(y - 1, n, p) + _sf(k - 1, n, p)
    return float(min(1.0, pval))


@lru_cache(maxsize=65536)
def _clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """statsmodels' ``proportion_confint(k, n, ALPHA, method="beta")``, 0 and 1 at the ends."""
    f = _distributions()
    if not f.exact:
        from statsmodels.stats.proportion import proportion_confint

        low, high = proportion_confint(k, n, alpha=ALPHA, method="beta")
        return float(np.nan_to_num(low, nan=0.0)), float(np.nan_to_num(high, nan=1.0))
    a = ALPHA / 2.0
    low = 0.0 if k == 0 else float(f.beta_ppf(a, float(k), float(n - k + 1)))
    high = 1.0 if k == n else float(f.beta_isf(float(k + 1), float(n - k), a))
    return low, high


def proportion_test(wins: float, outright: int, any_share: int, n: int, p0: float) -> TestResult:
    """Test of a win rate against a fixed share ``p0`` that holds its level at any n; the interval is of ``rate - p0``.

    Parameters
    ----------
    wins : float
        Win shares summed over the matches (equal to ``outright`` when no win was shared).
    outright : int
        Matches won outright (win share 1).
    any_share : int
        Matches with any win share (> 0); equal to ``outright`` when no win was shared.
    n : int
        Matches, >= 1.
    p0 : float
        The share under the null (1/P for the fair share, 0.5 heads-up), in (0, 1).

    Returns
    -------
    TestResult
        ``exact binomial`` when every win was whole; with shared wins the conservative ``exact binomial
        bound`` at small n and the conservative ``score z-test`` once ``n * p0 * (1 - p0) >= LARGE_SAMPLE``.

    Raises
    ------
    ValueError
        When ``n < 1`` or the counts are not ``0 <= outright <= wins <= any_share <= n``.
    """
    if n < 1 or not 0 <= outright <= any_share <= n or not outright - 1e-9 <= wins <= any_share + 1e-9:
        raise ValueError(
            f"need 0 <= outright ({outright}) <= wins ({wins}) <= any share ({any_share}) <= matches ({n}), "
            "matches >= 1"
        )
    if outright == any_share:
        lo, hi = _clopper_pearson(outright, n)
        return TestResult(EXACT_BINOMIAL, _binom_p(outright, n, p0), lo - p0, hi - p0)
    if n * p0 * (1 - p0) >= LARGE_SAMPLE:
        z = (wins / n - p0) / np.sqrt(p0 * (1 - p0) / n)
        lo, hi = wilson(wins, n)
        return TestResult(SCORE_Z, float(2 * _distributions().norm_sf(abs(z))), lo - p0, hi - p0)
    upper = _binom_p(outright, n, p0, "greater")
    lower = _binom_p(any_share, n, p0, "less")
    lo, _ = _clopper_pearson(outright, n)
    _, hi = _clopper_pearson(any_share, n)
    return TestResult(BINOMIAL_BOUND, min(1.0, 2 * min(upper, lower)), lo - p0, hi - p0)


def paired_test(up: int, down: int, n: int, sum_d: float, sum_d2: float, whole: bool) -> TestResult:
    """Exact test that two paired win rates are equal; the interval is of their difference.

    Parameters
    ----------
    up, down : int
        Matches in which the first side took a larger (``up``) or smaller (``down``) win share than the second.
    n : int
        Paired matches, >= 1.
    sum_d, sum_d2 : float
        Sums over the matches of the per-match share difference (first minus second) and of its square.
    whole : bool
        Whether every win was whole (names the test: McNemar, else the sign test).

    Returns
    -------
    TestResult
        p from ``binomtest(up, up + down, 0.5)`` (1 when no match differs); the Agresti-Min interval.

    Raises
    ------
    ValueError
        When ``n < 1`` or ``up + down > n``.
    """
    if n < 1 or up < 0 or down < 0 or up + down > n:
        raise ValueError(f"need up ({up}) + down ({down}) <= matches ({n}), matches >= 1")
    m = up + down
    p = _binom_p(up, m, 0.5) if m else 1.0
    n_adj = n + 2  # Agresti-Min: half a match in each cell of the 2x2 table
    mean = sum_d / n_adj
    var = max((sum_d2 + 1) / n_adj - mean * mean, 0.0)
    half = Z95 * float(np.sqrt(var / n_adj))
    d = sum_d / n
    lo, hi = max(-1.0, min(mean - half, d)), min(1.0, max(mean + half, d))
    return TestResult(MCNEMAR if whole else SIGN_TEST, p, lo, hi)


def holm(p_values: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, same order as given.

    statsmodels' ``multipletests(p, method="holm")[1]``, step for step (its import costs half a second).
    """
    if not len(p_values):
        return []
    pvals = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(pvals)
    ranked = np.take(pvals, order)
    adjusted = np.maximum.accumulate(ranked * np.arange(len(ranked), 0, -1))
    adjusted[adjusted > 1] = 1
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return [float(x) for x in out]


def describe_test(test: str) -> str:
    """A ``test`` column value in words: ``"exact binomial"`` -> ``"exact binomial test"`` (names ending in
    "test" stay as they are)."""
    return test if test.endswith("test") else f"{test} test"


def competition_ranks(win_rates: np.ndarray) -> np.ndarray:
    """Standard competition ranks, best first: equal rates share a rank and the next is skipped (1, 1, 3).

    Parameters
    ----------
    win_rates : array_like
        float64, (N,); NaN ranks last.

    Returns
    -------
    numpy.ndarray
        int64, (N,): 1 for the highest rate.
    """
    rates = np.nan_to_num(np.asarray(win_rates, dtype=np.float64), nan=-np.inf)
    return 1 + (rates[None, :] > rates[:, None]).sum(axis=1).astype(np.int64)


#: Fewest matches (per game or rule set) for a run cut short by Ctrl-C to be ranked. The exact tests
#: hold their level at any n, so a run asked for at a small size is ranked as usual; a stopped run holds
#: a sample size nobody chose (a tournament stopped after 3 s kept 2-3 matches), and below this its
#: numbers are written without ranks or significance claims. At 200 matches a Wilson interval of a fair
#: share of 1/4 is about +-6 points wide.
MIN_MATCHES_TO_RANK = 200


def too_small_to_rank(matches: int, partial: bool = True) -> bool:
    """Whether a run keeping ``matches`` per game is too small to rank or claim significance (see above).

    Only a ``partial`` run (stopped by Ctrl-C) can be too small; a complete run is always ranked.
    """
    return partial and matches < MIN_MATCHES_TO_RANK
