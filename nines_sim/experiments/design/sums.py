"""The design measures' sums (:class:`DesignSums`): counts, sums of squares and cross products of per-match
integers, which chunks merge by addition, exactly; and their estimates with t intervals, alone
(:func:`estimate`) or paired against the reference rule set (:func:`paired_delta`).  The t and chi-square
distributions come from ``scipy.special``'s functions that ``scipy.stats`` calls, so a design run does not load
``scipy.stats``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.results.tally import add_hist

if TYPE_CHECKING:
    pass

from nines_sim.experiments.design.measures import INDEX, LINEUP_OF, MAX_SEATS, MEASURES

#: The columns of ``seat_0`` .. ``seat_5`` among :data:`MEASURES`.
SEAT_COLUMNS = [INDEX[f"seat_{k}"] for k in range(MAX_SEATS)]

# ---------------------------------------------------------------- mergeable sums


@dataclass
class DesignSums:
    """Sums over matches of every rule set's measures, and their cross products with the first rule set's.

    Attributes (``R`` rule sets, ``M = len(MEASURES)``)
    ----------
    matches : numpy.ndarray
        int64, (R, M): matches summed (per lineup: the same for every rule set of a comparison).
    s : numpy.ndarray
        int64, (R, M, 5): sums of ``num``, ``den``, ``num**2``, ``den**2``, ``num*den``.
    x : numpy.ndarray
        int64, (R, M, 4): sums of ``num_r*num_0``, ``num_r*den_0``, ``den_r*num_0``, ``den_r*den_0`` with the
        same match of rule set 0 (the reference).
    hists : dict
        Measure name -> int64 (R, V): counts of each value 0..V-1 (:data:`HISTOGRAMS`).
    seats : numpy.ndarray
        int64, (R, MAX_SEATS, MAX_SEATS, 4): sums of ``num_j*num_k``, ``num_j*den_k``, ``den_j*num_k``,
        ``den_j*den_k`` of seats ``j`` and ``k`` (``seat_j``, ``seat_k``) in the same match: the covariance
        of the seats' win rates, which the interval of the largest deviation needs (:func:`seat_covariance`).
    """

    rule_sets: int
    matches: np.ndarray = field(default=None)  # type: ignore[assignment]
    s: np.ndarray = field(default=None)  # type: ignore[assignment]
    x: np.ndarray = field(default=None)  # type: ignore[assignment]
    hists: dict = field(default_factory=dict)
    seats: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        R, M = self.rule_sets, len(MEASURES)
        if self.matches is None:
            self.matches = np.zeros((R, M), dtype=np.int64)
        if self.s is None:
            self.s = np.zeros((R, M, 5), dtype=np.int64)
        if self.x is None:
            self.x = np.zeros((R, M, 4), dtype=np.int64)
        if self.seats is None:
            self.seats = np.zeros((R, MAX_SEATS, MAX_SEATS, 4), dtype=np.int64)

    def add_lineup(self, kind: str, values: list[tuple[np.ndarray, np.ndarray, dict]]) -> None:
        """Add one design lineup's matches under every rule set (``values[r]``: :func:`match_values` of rule
        set ``r``, the same match indices in the same order)."""
        n0, d0 = values[0][0], values[0][1]
        ours = np.array([LINEUP_OF[m] == kind for m in MEASURES])
        seats = np.array([m.startswith("seat_") for m in MEASURES])
        for r, (num, den, hists) in enumerate(values):
            if num.shape[0] != n0.shape[0]:
                raise ValueError("the rule sets did not play the same matches")
            played = ours & ~(seats & ~(den != 0).any(axis=0))  # a seat the table does not have is not played
            self.matches[r] += np.where(played, num.shape[0], 0)
            self.s[r] += np.stack([num.sum(0), den.sum(0), (num * num).sum(0), (den * den).sum(0),
                                   (num * den).sum(0)], axis=-1)  # fmt: skip
            self.x[r] += np.stack([(num * n0).sum(0), (num * d0).sum(0), (den * n0).sum(0), (den * d0).sum(0)],
                                  axis=-1)  # fmt: skip
            sn, sd = num[:, SEAT_COLUMNS], den[:, SEAT_COLUMNS]
            self.seats[r] += np.stack([sn.T @ sn, sn.T @ sd, sd.T @ sn, sd.T @ sd], axis=-1)
            for name, v in hists.items():
                h = np.bincount(v, minlength=1).astype(np.int64)
                counts = np.zeros((self.rule_sets, h.shape[0]), dtype=np.int64)
                counts[r] = h
                self.hists[name] = add_hist(self.hists[name], counts) if name in self.hists else counts

    def __add__(self, o: DesignSums) -> DesignSums:
        hists = dict(self.hists)
        for k, v in o.hists.items():
            hists[k] = add_hist(hists[k], v) if k in hists else v
        return DesignSums(self.rule_sets, self.matches + o.matches, self.s + o.s, self.x + o.x, hists,
                          self.seats + o.seats)  # fmt: skip


@dataclass(frozen=True)
class Estimate:
    """A measure's value, 95% interval and standard error (NaN where it was not played)."""

    value: float
    low: float
    high: float
    se: float
    matches: int


def t_quantile(df: int) -> float:
    """``scipy.stats.t.ppf(0.975, df)``: the ufunc it calls (``scipy.special.stdtrit``), without loading
    ``scipy.stats`` (half a second of start-up; tests/test_design.py compares them bit for bit)."""
    from scipy.special import stdtrit

    return float(stdtrit(float(max(df, 1)), 0.975))


def t_sf(x: float, df: int) -> float:
    """``scipy.stats.t.sf(x, df)``, from ``scipy.special.stdtr`` as scipy computes it."""
    from scipy.special import stdtr

    return float(stdtr(float(df), -x))


def estimate(sums: DesignSums, r: int, measure: str) -> Estimate:
    """The ratio ``sum(num) / sum(den)`` of rule set ``r``, with its delta-method t interval (95%)."""
    m = INDEX[measure]
    n = int(sums.matches[r, m])
    sn, sd, snn, sdd, snd = (float(v) for v in sums.s[r, m])
    if n == 0 or sd == 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, n)
    ratio = sn / sd
    dbar = sd / n
    ss = max(snn - 2 * ratio * snd + ratio * ratio * sdd, 0.0) / dbar**2  # sum of squared linearised values
    se = math.sqrt(ss / max(n - 1, 1) / n) if n > 1 else math.nan
    half = t_quantile(n - 1) * se
    return Estimate(ratio, ratio - half, ratio + half, se, n)


def paired_delta(sums: DesignSums, r: int, measure: str) -> tuple[float, float, float, float]:
    """Rule set ``r`` minus the reference (rule set 0) on the same matches: delta, 95% interval, p-value.

    The t interval and two-sided t-test of the per-match difference of the linearised values (delta method).
    A difference of 0 with no spread (the same rule set twice) has the interval (0, 0) and p = 1.
    """
    m = INDEX[measure]
    a, b = estimate(sums, r, measure), estimate(sums, 0, measure)
    n = int(sums.matches[r, m])
    if r == 0 or math.isnan(a.value) or math.isnan(b.value) or n != int(sums.matches[0, m]) or n < 2:
        return math.nan, math.nan, math.nan, math.nan
    sn_r, sd_r, snn_r, sdd_r, snd_r = (float(v) for v in sums.s[r, m])
    sn_0, sd_0, snn_0, sdd_0, snd_0 = (float(v) for v in sums.s[0, m])
    xnn, xnd, xdn, xdd = (float(v) for v in sums.x[r, m])
    Ra, Rb, da, db = a.value, b.value, sd_r / n, sd_0 / n
    saa = (snn_r - 2 * Ra * snd_r + Ra * Ra * sdd_r) / da**2
    sbb = (snn_0 - 2 * Rb * snd_0 + Rb * Rb * sdd_0) / db**2
    sab = (xnn - Rb * xnd - Ra * xdn + Ra * Rb * xdd) / (da * db)
    var = max(saa + sbb - 2 * sab, 0.0) / (n - 1)
    delta = Ra - Rb
    se = math.sqrt(var / n)
    if se < 1e-12 * max(1.0, abs(delta)):
        return delta, delta, delta, 1.0 if abs(delta) < 1e-12 else 0.0
    half = t_quantile(n - 1) * se
    p = 2 * t_sf(abs(delta) / se, n - 1)
    return delta, delta - half, delta + half, p


def seat_covariance(sums: DesignSums, r: int, players: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The seats' win rates of rule set ``r`` and the covariance of those estimates (delta method, as
    :func:`estimate`: its diagonal is the square of each seat's standard error).

    Returns
    -------
    tuple
        ``rates`` float64 (P,), ``cov`` float64 (P, P), and the matches; NaNs where a seat was not played.
    """
    cols = SEAT_COLUMNS[:players]
    n = int(sums.matches[r, cols[0]])
    sn, sd = sums.s[r, cols, 0].astype(float), sums.s[r, cols, 1].astype(float)
    if n < 2 or (sd == 0).any():
        return np.full(players, math.nan), np.full((players, players), math.nan), n
    rate, dbar = sn / sd, sd / n
    nn, nd, dn, dd = (sums.seats[r, :players, :players, i].astype(float) for i in range(4))
    # sum over matches of the product of seats j's and k's linearised values (num - rate * den) / dbar
    ss = (nn - nd * rate[None, :] - dn * rate[:, None] + dd * np.outer(rate, rate)) / np.outer(dbar, dbar)
    return rate, ss / (n - 1) / n, n


def chisquare_p(counts: np.ndarray) -> float:
    """``scipy.stats.chisquare(counts).pvalue`` (equal expected counts), computed as scipy computes it.

    Parameters
    ----------
    counts : numpy.ndarray
        float64, (k,): observed counts (win shares), k >= 2, not all 0.
    """
    from scipy.special import chdtrc

    expected = np.mean(counts, axis=0, keepdims=True)
    stat = np.sum((counts - expected) ** 2 / expected, axis=0)
    return float(chdtrc(float(counts.shape[0] - 1), stat))


def fair_share(measure: str, players: int) -> float:
    """What a measure would be if skill or seat made no difference (0 for others)."""
    if measure == "skill_heads_up":
        return 0.5
    if measure == "skill_table" or measure.startswith("seat_"):
        return 1 / players
    return 0.0
