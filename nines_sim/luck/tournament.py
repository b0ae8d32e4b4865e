"""``nines tournament --luck``: a table's value fitted on reserved matches, the run's matches traced and adjusted,
and the tables that say it (``luck.csv``, the columns added to ``summary.csv``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nines_sim.luck.estimate import Adjusted, adjusted_rates, variance_ratio
from nines_sim.luck.measure import FIT_START, fit_reserved
from nines_sim.luck.value import LinearValue
from nines_sim.luck.walk import PARTS

#: Reserved matches a value is fitted on, by default.
FIT_MATCHES = 4000
#: The columns ``--luck`` adds to ``summary.csv``, in order.
SUMMARY_LUCK_COLUMNS = ["adjusted_win_rate", "adjusted_ci_low", "adjusted_ci_high", "variance_ratio", "luck_z"]


class LuckError(ValueError):
    """A run the luck measure cannot adjust (its message is the one-line error)."""


@dataclass(frozen=True)
class TableLuck:
    """A table's luck-adjusted estimates.

    Attributes
    ----------
    seats : list of Adjusted
        Per seat.
    part_ratios : numpy.ndarray
        float64, shape (3, P): the variance ratio with one part's corrections alone (deal, draw, choice).
    value : LinearValue
    fit_start, fit_matches : int
        The reserved match indices the value was fitted on: ``fit_start .. fit_start + fit_matches - 1``.
    seconds : float
        Wall time of the fit and of the run that walked its matches (not of the compile a first run waits on).
    """

    seats: list[Adjusted]
    part_ratios: np.ndarray
    value: LinearValue
    fit_start: int
    fit_matches: int
    seconds: float

    def manifest(self) -> dict[str, Any]:
        """The manifest's ``luck`` entry: which value, fitted on which reserved matches."""
        return {
            "value": self.value.name,
            "model": "linear in per-card and per-seat features (nines_sim.luck.features), fitted in two stages "
            "(SciPy, scikit-learn's Ridge and LinearRegression): a hand's cards in points, then a point in win share "
            "by the match's standing",
            "fit_matches": fit_range(self.fit_matches),
            "corrected": list(PARTS),
            "seconds": round(self.seconds, 1),
        }


def fit_range(fit_matches: int) -> dict[str, int]:
    """The manifest's ``fit_matches``: the reserved match indices ``[start, end)`` a value is fitted on."""
    return {"start": FIT_START, "end": FIT_START + fit_matches}


def check_luck(fmt: str, ranges: str | None, specs: list[str] | None = None) -> None:
    """Refuse what this first version cannot adjust.

    Raises
    ------
    LuckError
        For another format than a table, ``--ranges``, or a strategy that sees the stock (its moves may depend on
        the stock's order, so a draw is no longer uniform given what came before: the corrections would be biased).
    """
    from nines_sim.strategy.hidden_cards import hidden_card_players

    if seers := hidden_card_players(list(specs or [])):
        raise LuckError(f"--luck cannot adjust a table with {', '.join(seers)}: it sees the stock's order, so a draw "
                        "is not uniform given the moves before it")  # fmt: skip
    if fmt != "table":
        raise LuckError("--luck applies to --format table (the other formats are not adjusted yet)")
    if ranges is not None:
        raise LuckError("--luck adjusts a whole run: not with --ranges")


def fit_table(rules: Any, specs: list[str], seed: int, workers: int, fit_matches: int = FIT_MATCHES) -> LinearValue:
    """A table's value, fitted on ``fit_matches`` reserved matches of ``seed`` (from
    :data:`~nines_sim.luck.measure.FIT_START`, which no run plays) on ``workers`` processes (the weights are the
    same for any number): what a ``--luck`` run walks its matches under as it plays them."""
    return fit_reserved(rules, specs, seed, fit_matches, workers)


def table_luck(value: LinearValue, shares: np.ndarray, corrections: np.ndarray, fit_matches: int,
               seconds: float) -> TableLuck:  # fmt: skip
    """A table's luck-adjusted estimates from its run's matches walked under ``value``.

    Parameters
    ----------
    value : LinearValue
        From :func:`fit_table`.
    shares, corrections : numpy.ndarray
        float64, shapes (n, P) and (n, 3, P): matches ``0 .. n - 1``'s win shares and corrections (the outcome's
        ``luck`` of :func:`nines_sim.experiments.tournament.work.run_plan` with the value).
    fit_matches : int
        The reserved matches ``value`` was fitted on.
    seconds : float
        Wall time of the fit and the run.

    Returns
    -------
    TableLuck
    """
    seats = adjusted_rates(shares, corrections)
    P = shares.shape[1]
    ratios = np.array([[variance_ratio(shares[:, p], shares[:, p] - corrections[:, k, p])[0]
                        for p in range(P)] for k in range(len(PARTS))])  # fmt: skip
    return TableLuck(seats, ratios, value, FIT_START, fit_matches, seconds)


def luck_frame(luck: TableLuck, labels: list[str]) -> Any:
    """``luck.csv``: one row per seat, the plain and adjusted estimates, the ratio, the check, each part's ratio."""
    import pandas as pd

    rows = []
    for p, a in enumerate(luck.seats):
        row = {"position": p, "strategy": labels[p], "matches": a.n, "win_rate": a.win_rate,
               "adjusted_win_rate": a.adjusted, "adjusted_ci_low": a.adjusted_ci[0],
               "adjusted_ci_high": a.adjusted_ci[1], "variance_ratio": a.variance_ratio,
               "variance_ratio_low": a.variance_ratio_ci[0], "variance_ratio_high": a.variance_ratio_ci[1],
               "equivalent_matches": a.equivalent_matches, "correction_mean": a.correction_mean,
               "luck_z": a.luck_z}  # fmt: skip
        for k, part in enumerate(PARTS):
            row[f"variance_ratio_{part}"] = float(luck.part_ratios[k, p])
        rows.append(row)
    return pd.DataFrame(rows)


def with_luck_columns(summary: Any, luck: TableLuck) -> Any:
    """``summary.csv``'s frame with :data:`SUMMARY_LUCK_COLUMNS` added (a table's rows are its seats)."""
    out = summary.copy()
    out["adjusted_win_rate"] = [a.adjusted for a in luck.seats]
    out["adjusted_ci_low"] = [a.adjusted_ci[0] for a in luck.seats]
    out["adjusted_ci_high"] = [a.adjusted_ci[1] for a in luck.seats]
    out["variance_ratio"] = [a.variance_ratio for a in luck.seats]
    out["luck_z"] = [a.luck_z for a in luck.seats]
    return out


def write_luck(run_dir: Any, luck: TableLuck, labels: list[str], summary: Any) -> list[Any]:
    """Write ``luck.csv``, and ``summary.csv`` again from its frame ``summary`` with :data:`SUMMARY_LUCK_COLUMNS`
    added (its other columns as the plain run writes them); the paths written."""
    from nines_sim.runs.output import write_csv

    write_csv(with_luck_columns(summary, luck), run_dir / "summary.csv")
    return [write_csv(luck_frame(luck, labels), run_dir / "luck.csv")]


def luck_lines(luck: TableLuck, labels: list[str]) -> list[str]:
    """What the console says of the luck: each seat's adjusted rate, its interval, the ratio and the check."""
    from nines_sim.reporting.luck import ratio_text
    from nines_sim.results.rounding import decimal_text  # the rates as the results table rounds them

    n = luck.seats[0].n if luck.seats else 0
    lines = [f"Luck taken out (AIVAT; value {luck.value.name}; deal, draws and known random choices corrected; "
             f"fit and {n:,} matches traced in {luck.seconds:.1f} s):"]  # fmt: skip
    for label, a in zip(labels, luck.seats, strict=True):
        finite = bool(np.isfinite(a.equivalent_matches))  # not where the plain rate has no spread (0/0)
        narrow = f" (as narrow as {a.equivalent_matches:,.0f} plain matches)" if finite else ""
        plain, adjusted, low, high = (decimal_text(x, 4) for x in (a.win_rate, a.adjusted, *a.adjusted_ci))
        lines.append(
            f"  {label:<16} {plain} -> {adjusted} [{low}, {high}]"
            f"  variance ratio {ratio_text(a.variance_ratio, *a.variance_ratio_ci)}{narrow}"
            f"  corrections' z {a.luck_z:+.2f}"
        )
    return lines
