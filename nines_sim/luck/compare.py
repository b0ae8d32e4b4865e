"""``nines compare-rules --luck``: each rule set's matches adjusted under its own value, and the paired shift of
each seat's win rate from the reference rule set with the luck taken out.

Every rule set plays the same seed and match indices, so a shift is measured on paired matches; the luck taken
out of each side (AIVAT, :mod:`nines_sim.luck`) narrows it further.  Each side's corrections have mean zero, so
the adjusted shift estimates the plain one's number.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from nines_sim.luck.estimate import Adjusted, adjusted_rates
from nines_sim.luck.measure import FIT_START, fit_reserved, measure_luck


@dataclass(frozen=True)
class Shift:
    """One seat's paired shift of win rate from the reference rule set, plain and luck-adjusted.

    Attributes
    ----------
    rule_set, seat : int
        The rule set (1 .. : the reference is 0) and the seat.
    shift_se : float
        The plain shift's standard error.
    estimate : Adjusted
        Of the paired difference of win shares (``win_rate``: the plain shift) and of the corrections (its
        ``adjusted``, interval, variance ratio beyond what the pairing gives, and the corrections' z).
    """

    rule_set: int
    seat: int
    shift_se: float
    estimate: Adjusted


@dataclass(frozen=True)
class RulesLuck:
    """A rule comparison's luck-adjusted shifts (:func:`rules_luck`).

    Attributes
    ----------
    shifts : list of Shift
        Per rule set after the reference, per seat.
    values : list of str
        Each rule set's value (what it was fitted on).
    fit_start, fit_matches : int
        The reserved match indices each value was fitted on.
    seconds : float
        Wall time of the fits and the traced runs.
    """

    shifts: list[Shift]
    values: list[str]
    fit_start: int
    fit_matches: int
    seconds: float

    def manifest(self) -> dict[str, Any]:
        """The manifest's ``luck`` entry: which values, fitted on which reserved matches."""
        fit = {"start": self.fit_start, "end": self.fit_start + self.fit_matches}
        return {"values": self.values, "fit_matches": fit, "corrected": ["deal", "draw", "choice"],
                "seconds": round(self.seconds, 1)}  # fmt: skip

    def frame(self, labels: list[str], rule_labels: list[str]) -> Any:
        """``luck.csv``: one row per rule set after the reference and seat."""
        import pandas as pd

        rows = []
        for s in self.shifts:
            e = s.estimate
            rows.append({"rules": rule_labels[s.rule_set], "reference": rule_labels[0], "position": s.seat,
                         "strategy": labels[s.seat], "matches": e.n, "shift": e.win_rate, "shift_se": s.shift_se,
                         "adjusted_shift": e.adjusted, "adjusted_ci_low": e.adjusted_ci[0],
                         "adjusted_ci_high": e.adjusted_ci[1], "variance_ratio": e.variance_ratio,
                         "variance_ratio_low": e.variance_ratio_ci[0], "variance_ratio_high": e.variance_ratio_ci[1],
                         "luck_z": e.luck_z})  # fmt: skip
        return pd.DataFrame(rows)

    def lines(self, labels: list[str], rule_labels: list[str]) -> list[str]:
        """What the console says: each shift plain and adjusted, the ratio, the check."""
        out = [f"Luck taken out (AIVAT; each rule set's value fitted on {self.fit_matches:,} reserved matches; "
               f"fits and traced runs in {self.seconds:.1f} s): the paired shift from {rule_labels[0]}"]  # fmt: skip
        from nines_sim.reporting.luck import ratio_text

        for s in self.shifts:
            e = s.estimate
            ratio = ratio_text(e.variance_ratio, *e.variance_ratio_ci)
            out.append(f"  {rule_labels[s.rule_set]:<14} {labels[s.seat]:<16} {e.win_rate:+.4f} (se {s.shift_se:.4f}) "
                       f"-> {e.adjusted:+.4f} [{e.adjusted_ci[0]:+.4f}, {e.adjusted_ci[1]:+.4f}]  variance ratio "
                       f"{ratio}  corrections' z {e.luck_z:+.2f}")  # fmt: skip
        return out


def paired_shifts(shares: list[np.ndarray], corrections: list[np.ndarray]) -> list[Shift]:
    """Each seat's paired shift from rule set 0, plain and adjusted.

    Parameters
    ----------
    shares : list of numpy.ndarray
        Per rule set, float64 (n, P): the win shares of the same match indices.
    corrections : list of numpy.ndarray
        Per rule set, float64 (n, 3, P) or (n, P): their corrections, each under its rule set's value.

    Returns
    -------
    list of Shift
    """
    c = [x.sum(axis=1) if x.ndim == 3 else x for x in corrections]
    n, P = shares[0].shape
    out = []
    for r in range(1, len(shares)):
        d = shares[r] - shares[0]
        est = adjusted_rates(d, c[r] - c[0], bounds=(-1.0, 1.0))
        out += [Shift(r, p, float(d[:, p].std(ddof=1)) / np.sqrt(n), est[p]) for p in range(P)]
    return out


def rules_luck(rule_sets: list[Any], specs: list[str], seed: int, matches: int, workers: int,
               fit_matches: int = 4000) -> RulesLuck:  # fmt: skip
    """Fit each rule set's value on the reserved matches, trace matches ``0 .. matches - 1`` under each, and give
    the paired shifts from the first rule set.

    Parameters
    ----------
    rule_sets : list of nines_sim.runs.compare.RuleSet
        The reference first.
    specs : list of str
        The lineup, seat by seat.
    seed, matches, workers : int
        The run's seed, matches per rule set, worker processes (the numbers are identical for any value).
    fit_matches : int
        Reserved matches each value is fitted on, from :data:`~nines_sim.luck.measure.FIT_START`.

    Returns
    -------
    RulesLuck
    """
    start = time.perf_counter()
    shares, corrections, values = [], [], []
    for rs in rule_sets:
        value = fit_reserved(rs.rules, specs, seed, fit_matches, workers)
        run = measure_luck(rs.rules, specs, seed, 0, matches, value=value, workers=workers)
        shares.append(run.shares)
        corrections.append(run.corrections)
        values.append(f"{rs.label}: {value.name}")
    return RulesLuck(paired_shifts(shares, corrections), values, FIT_START, fit_matches, time.perf_counter() - start)
