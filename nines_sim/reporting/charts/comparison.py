"""A rule comparison's charts: win rates by rule set, the paired shifts, final totals by rule set.

Data functions (``win_rates_by_rule_set_data``, ``shift_data``, ``final_totals_by_rule_set_data``) turn
``comparison.csv`` and ``score_distribution.csv`` into the numbers plotted; ``plot_x(data, ax=None) -> Figure``
only draws.  A sweep's chart is in :mod:`~nines_sim.reporting.charts.sweep`; ``save_all_comparison`` writes
every chart a comparison folder has data for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nines_sim.reporting.charts.common import (
    LEGEND_WIDTH,
    Histogram,
    by_rule_set_and_seat,
    distribution_data,
    legend_outside,
    new_figure,
    plt,
    save_png,
    tick_inches,
    wrap_label,
)
from nines_sim.reporting.charts.sweep import plot_sweep, sweep_data
from nines_sim.reporting.folders import load_comparison, seat_labels

#: File names of a rule comparison's charts, in the order the report shows them.
COMPARISON_CHART_FILES = (
    "win_rates_by_rule_set.png",
    "shifts_by_rule_set.png",
    "final_totals_by_rule_set.png",
    "sweep.png",
)


# --------------------------------------------------------------------------- data functions


@dataclass
class GroupedWinRates:
    """Win rate of each seat under each rule set, with 95% intervals.

    Attributes
    ----------
    seat_labels : list of str
        Tick label per seat: ``"seat k\\nstrategy"``.
    rule_sets : list of str
        Rule set labels, one bar per seat each, in run order.
    rate, low, high : numpy.ndarray
        float64, (R, P): win rate and its 95% Wilson interval; NaN where a rule set has no row for a seat.
    reference : float
        Fair share 1/P.
    reference_label : str
        Legend text of the reference line.
    """

    seat_labels: list[str]
    rule_sets: list[str]
    rate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    reference: float
    reference_label: str


def win_rates_by_rule_set_data(comparison: pd.DataFrame, rule_sets: list[str], players: int) -> GroupedWinRates:
    """Win rates and intervals per rule set and seat from ``comparison.csv``.

    Parameters
    ----------
    comparison : pandas.DataFrame
        ``comparison.csv``.
    rule_sets : list of str
        Rule set labels in run order.
    players : int
        Players at the table (P).

    Returns
    -------
    GroupedWinRates
    """
    positions, names = seat_labels(comparison)
    fair = 1.0 / players
    return GroupedWinRates(
        seat_labels=[f"seat {p}\n{s}" for p, s in zip(positions, names)],
        rule_sets=list(rule_sets),
        rate=by_rule_set_and_seat(comparison, rule_sets, "win_rate"),
        low=by_rule_set_and_seat(comparison, rule_sets, "win_rate_low"),
        high=by_rule_set_and_seat(comparison, rule_sets, "win_rate_high"),
        reference=fair,
        reference_label=f"fair share 1/{players} = {fair:.3g}",
    )


def final_totals_by_rule_set_data(scores: pd.DataFrame, rule_sets: list[str] | None = None) -> Histogram:
    """Final-total distribution per rule set, all strategies merged.

    Parameters
    ----------
    scores : pandas.DataFrame
        ``score_distribution.csv``: rule_set, strategy, kind, points, count.
    rule_sets : list of str, optional
        Order of the curves; by default the order of first appearance.

    Returns
    -------
    Histogram
        One entry of ``shares`` per rule set (keyed by label), on common bins.
    """
    # distribution_data merges rows of one "strategy" name: name each row by its rule set to merge the seats.
    merged = distribution_data(scores.assign(strategy=scores["rule_set"].astype(str)), "final_total")
    asked = [r for r in (rule_sets or []) if r in merged.shares]
    order = asked + [r for r in merged.shares if r not in asked]
    return Histogram(
        kind=merged.kind,
        edges=merged.edges,
        shares={r: merged.shares[r] for r in order},
        observations={r: merged.observations[r] for r in order},
        means={r: merged.means[r] for r in order},
    )


@dataclass
class Shifts:
    """The paired shift of each seat's win rate under each rule set against the first, with its 95% interval.

    Attributes
    ----------
    seat_labels : list of str
        Tick label per seat: ``"seat k\nstrategy"``.
    rule_sets : list of str
        The rule sets after the first (the reference), one marker per seat each.
    reference : str
        The first rule set, against which every shift is measured.
    shift, low, high : numpy.ndarray
        float64, (R - 1, P): shift of win rate in percentage points and its paired (Agresti-Min) 95% interval,
        as ``comparison.csv`` gives them; NaN where a rule set has no row for a seat.
    significant : numpy.ndarray
        bool, (R - 1, P): significant after the Holm correction.
    """

    seat_labels: list[str]
    rule_sets: list[str]
    reference: str
    shift: np.ndarray
    low: np.ndarray
    high: np.ndarray
    significant: np.ndarray


def shift_data(comparison: pd.DataFrame, rule_sets: list[str]) -> Shifts:
    """Paired shifts and their intervals per rule set and seat from ``comparison.csv`` (no test is run here).

    Parameters
    ----------
    comparison : pandas.DataFrame
        ``comparison.csv``, with ``significant`` as bool (``folders.load_comparison``).
    rule_sets : list of str
        Rule set labels in run order; the first is the reference.

    Returns
    -------
    Shifts
    """
    positions, names = seat_labels(comparison)
    others = list(rule_sets[1:])
    sig = comparison.assign(significant=comparison["significant"].fillna(False).astype(float))
    return Shifts(
        seat_labels=[f"seat {p}\n{s}" for p, s in zip(positions, names)],
        rule_sets=others,
        reference=rule_sets[0] if rule_sets else "",
        shift=100 * by_rule_set_and_seat(comparison, others, "delta_win_rate"),
        low=100 * by_rule_set_and_seat(comparison, others, "delta_low"),
        high=100 * by_rule_set_and_seat(comparison, others, "delta_high"),
        significant=by_rule_set_and_seat(sig, others, "significant") == 1.0,
    )


# --------------------------------------------------------------------------- plot functions


def _colour(i: int, n: int) -> Any:
    """Distinct colours for up to 20 rule sets (matplotlib's default cycle repeats after 10)."""
    from matplotlib import colormaps

    return f"C{i}" if n <= 10 else colormaps["tab20"](i % 20)


def _grouped(ax: Axes | None, n_sets: int, n_seats: int, labels: list[str]) -> tuple[Figure, Axes, np.ndarray, float]:
    """Figure, axes, seat positions and bar width of a chart with one group per seat and one member per rule set;
    the group is at least as wide as its (wrapped) seat label."""
    group = max(0.35 * n_sets + 0.8, tick_inches(labels))
    fig, ax = new_figure(ax, (max(6.0, group * n_seats + 2) + LEGEND_WIDTH, 4.8))
    return fig, ax, np.arange(n_seats), 0.8 / max(n_sets, 1)


def plot_win_rates_by_rule_set(data: GroupedWinRates, ax: Axes | None = None) -> Figure:
    """Grouped bars: one group per seat, one bar per rule set, 95% interval whiskers, dashed line at 1/P.

    Parameters
    ----------
    data : GroupedWinRates
        From ``win_rates_by_rule_set_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    n_sets, n_seats = data.rate.shape
    labels = [wrap_label(x) for x in data.seat_labels]
    fig, ax, x, width = _grouped(ax, n_sets, n_seats, labels)
    for r, label in enumerate(data.rule_sets):
        offset = (r - (n_sets - 1) / 2) * width  # the group centred on its seat's tick
        # errorbar distances below/above the bar top; NaN (no matches) draws nothing rather than failing.
        yerr = np.clip(np.vstack([data.rate[r] - data.low[r], data.high[r] - data.rate[r]]), 0.0, None)
        ax.bar(
            x + offset,
            data.rate[r],
            width=width,
            yerr=yerr,
            capsize=3,
            color=_colour(r, len(data.rule_sets)),
            label=label,
        )
    ax.axhline(data.reference, linestyle="--", color="0.3", linewidth=1, label=data.reference_label)
    ax.set_xticks(x, labels)
    ax.set_xlabel("Seat and strategy")
    ax.set_ylabel("Win rate (share of matches won)")
    ax.set_title("Win rate per seat under each rule set (95% Wilson intervals)")
    legend_outside(ax, ncols=2 if n_sets > 10 else 1)
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_shifts(data: Shifts, ax: Axes | None = None) -> Figure:
    """Each seat's paired shift of win rate under each rule set against the first: points with 95% intervals.

    The chart of the comparison's finding: the shift is measured on the same matches under both rule sets, so its
    interval is narrower than the two rule sets' own win-rate intervals suggest.  A filled marker is a shift
    significant after the Holm correction, a hollow one is not; the line at 0 is no change.

    Parameters
    ----------
    data : Shifts
        From ``shift_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    n_sets, n_seats = data.shift.shape
    labels = [wrap_label(x) for x in data.seat_labels]
    fig, ax, x, width = _grouped(ax, n_sets, n_seats, labels)
    for r, label in enumerate(data.rule_sets):
        offset = (r - (n_sets - 1) / 2) * width  # the group centred on its seat's tick
        colour = _colour(r + 1, len(data.rule_sets) + 1)  # the colour this rule set has in the win-rate chart
        yerr = np.clip(np.vstack([data.shift[r] - data.low[r], data.high[r] - data.shift[r]]), 0.0, None)
        ax.errorbar(x + offset, data.shift[r], yerr=yerr, fmt="none", ecolor=colour, capsize=4)
        sig = data.significant[r]
        ax.plot((x + offset)[sig], data.shift[r][sig], "o", color=colour,
                label=f"{label} (filled: significant)" if sig.any() else None)  # fmt: skip
        ax.plot((x + offset)[~sig], data.shift[r][~sig], "o", markerfacecolor="white", color=colour,
                label=f"{label} (hollow: not significant)" if (~sig).any() else None)  # fmt: skip
    ax.axhline(0.0, linestyle="--", color="0.3", linewidth=1, label=f"no change from {data.reference}")
    ax.set_xticks(x, labels)
    ax.set_xlabel("Seat and strategy")
    ax.set_ylabel(f"Change of win rate vs {data.reference} (pp)")
    ax.set_title("Paired shift of each seat's win rate (95% intervals, Holm-corrected marks)")
    legend_outside(ax)
    ax.grid(axis="y", alpha=0.3)
    return fig


#: Line styles of the rule sets' curves, so that curves lying on one another all stay visible.
_LINESTYLES = ("-", "--", ":", "-.")


def plot_final_totals_by_rule_set(data: Histogram, ax: Axes | None = None) -> Figure:
    """Final totals per rule set (all seats), and below them each rule set's difference from the first.

    The top panel draws one step line per rule set, each in its own colour and dash pattern and named with its
    mean total, so that rule sets whose distributions coincide still show every line.  With two rule sets or
    more and no ``ax`` given, a lower panel draws each later rule set's share minus the first's, bin by bin, on
    its own scale, and names the shift of the mean total: identical distributions read as a line on 0.  No band
    is drawn: the rule sets play the same deals where they can, so the spread of the difference cannot be had
    from the histograms (an independent-samples band would be far too wide); the paired test of each seat is the
    shift chart's.

    Parameters
    ----------
    data : Histogram
        From ``final_totals_by_rule_set_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw the distributions on (no difference panel); a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    names = list(data.shares)
    if ax is None and len(names) > 1:
        fig, (ax, diff) = plt.subplots(2, 1, sharex=True, figsize=(8.0 + LEGEND_WIDTH, 7.0), layout="constrained",
                                       height_ratios=(3, 2))  # fmt: skip
    else:
        fig, ax = new_figure(ax, (8.0 + LEGEND_WIDTH, 4.5))
        diff = None
    for i, name in enumerate(names):
        share = data.shares[name]
        mean = data.means.get(name)
        label = f"{name} (mean {mean:.1f})" if mean is not None and np.isfinite(mean) else name
        ax.step(data.edges, np.append(share, share[-1:]), where="post", label=label, linewidth=1.6,
                color=_colour(i, len(names)), linestyle=_LINESTYLES[i % len(_LINESTYLES)])  # fmt: skip
    width = data.edges[1] - data.edges[0]
    bins = "" if width == 1 else f", in bins of {width:g} points"
    ax.set_title("Final match totals by rule set (all seats)")
    ax.set_ylabel("Share of seat-matches (rate)")
    ax.grid(alpha=0.3)
    if names:
        legend_outside(ax, title="rule set", title_fontsize="small")
    xlabel = f"Final total (points{bins}; lower is better)"
    if diff is None:
        ax.set_xlabel(xlabel)
        return fig
    ref = names[0]
    for i, name in enumerate(names[1:], start=1):
        d = data.shares[name] - data.shares[ref]
        shift = data.means.get(name, np.nan) - data.means.get(ref, np.nan)
        diff.step(data.edges, np.append(d, d[-1:]), where="post", color=_colour(i, len(names)), linewidth=1.4,
                  linestyle=_LINESTYLES[i % len(_LINESTYLES)],
                  label=f"{name} - {ref} (mean {shift:+.2f})")  # fmt: skip
    diff.axhline(0.0, color="0.3", linewidth=1, linestyle="--", label="no difference")
    diff.set_ylabel(f"Share minus {ref}'s")
    diff.set_xlabel(xlabel)
    diff.set_title(f"Difference from {ref}, bin by bin (mean: shift of the mean total, points)", fontsize="medium")
    diff.grid(alpha=0.3)
    legend_outside(diff)
    return fig


# --------------------------------------------------------------------------- writing them all


def save_all_comparison(run_dir: Path | str) -> list[Path]:
    """Draw every chart the comparison folder has data for and save them as PNG files in it.

    Writes ``win_rates_by_rule_set.png``; ``shifts_by_rule_set.png`` (the paired shifts, with two rule sets
    or more); ``final_totals_by_rule_set.png``
    when ``score_distribution.csv`` exists; ``sweep.png`` when the manifest
    records a sweep.  A stale ``sweep.png`` of a folder that is no sweep is removed.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        Folder written by ``nines compare-rules``.

    Returns
    -------
    list of pathlib.Path
        The files written, in ``COMPARISON_CHART_FILES`` order.
    """
    run = load_comparison(run_dir)
    out, sets = run.path, run.rule_sets
    grouped = win_rates_by_rule_set_data(run.comparison, sets, run.players)
    written = [save_png(plot_win_rates_by_rule_set(grouped), out / "win_rates_by_rule_set.png")]
    if len(sets) > 1:
        written.append(save_png(plot_shifts(shift_data(run.comparison, sets)), out / "shifts_by_rule_set.png"))
    if run.score_distribution is not None:
        totals = final_totals_by_rule_set_data(run.score_distribution, sets)
        written.append(save_png(plot_final_totals_by_rule_set(totals), out / "final_totals_by_rule_set.png"))
    if run.sweep is not None:
        lines = sweep_data(run.comparison, sets, run.sweep, run.players)
        written.append(save_png(plot_sweep(lines), out / "sweep.png"))
    else:
        (out / "sweep.png").unlink(missing_ok=True)
    return written
