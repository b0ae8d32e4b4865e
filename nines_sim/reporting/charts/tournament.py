"""A tournament's charts: win rates, score distributions, go-outs by seat and head to head.

Each chart has a data function, which turns the run folder's CSV tables into the numbers plotted
(``win_rate_data``, ``distribution_data``, ``seat_go_out_data``, ``head_to_head_data``), and a plot function
``plot_x(data, ax=None) -> Figure`` that only draws.  ``save_all`` writes every chart a folder has data for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from nines_sim.reporting.charts.common import (
    CHAR_INCH,
    LEGEND_WIDTH,
    TICK_CHARS,
    Histogram,
    distribution_data,
    legend_outside,
    new_figure,
    plot_distribution,
    plt,
    save_png,
    tick_inches,
    wrap_label,
)
from nines_sim.reporting.folders import load_run, reference_rate
from nines_sim.results.stats import wilson_array

#: File names of a tournament's charts, in the order the report shows them.
CHART_FILES = ("win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png", "head_to_head.png")


# --------------------------------------------------------------------------- data functions


@dataclass
class WinRates:
    """Win rate of each entry with its 95% interval.

    Attributes
    ----------
    labels : list of str
        Tick label per entry (seat and strategy at a table, else the strategy), in summary order.
    rate, low, high : numpy.ndarray
        float64, (n,): win rate and its 95% Wilson interval.
    reference : float
        Win rate with no edge (1/P, or 0.5 in a round robin).
    reference_label : str
        Legend text of the reference line.
    entry_kind : str
        ``"seat"`` or ``"strategy"``: what one entry is, for the axis label.
    """

    labels: list[str]
    rate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    reference: float
    reference_label: str
    entry_kind: str


def win_rate_data(summary: pd.DataFrame, run_format: str, players: int) -> WinRates:
    """Win rates and intervals from ``summary.csv``.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``summary.csv``, ordered by position.
    run_format : str
        ``"table"``, ``"round-robin"`` or ``"field"``.
    players : int
        Players at each table (P).

    Returns
    -------
    WinRates
    """
    if run_format == "table":
        labels = [f"seat {p}\n{s}" for p, s in zip(summary["position"], summary["strategy"])]
    else:
        labels = [str(s) for s in summary["strategy"]]
    ref = reference_rate(run_format, players)
    ref_label = "even heads-up (0.5)" if run_format == "round-robin" else f"fair share 1/{players} = {ref:.3g}"
    return WinRates(
        labels=labels,
        rate=summary["win_rate"].to_numpy(dtype=np.float64),
        low=summary["win_rate_low"].to_numpy(dtype=np.float64),
        high=summary["win_rate_high"].to_numpy(dtype=np.float64),
        reference=ref,
        reference_label=ref_label,
        entry_kind="seat" if run_format == "table" else "strategy",
    )


@dataclass
class SeatGoOut:
    """Go-out rate of each seat counted from the dealer.

    Attributes
    ----------
    seats : numpy.ndarray
        int64, (P,): 1 = the dealer's left, ..., P = the dealer.
    rate, low, high : numpy.ndarray
        float64, (P,): share of hands that seat went out, with its 95% Wilson interval.
    even : float
        Mean rate over seats: what every seat would have if the seat did not matter.
    """

    seats: np.ndarray
    rate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    even: float


def seat_go_out_data(seat_go_out: pd.DataFrame) -> SeatGoOut:
    """Go-out rates and intervals per seat from ``seat_go_out.csv``.

    Parameters
    ----------
    seat_go_out : pandas.DataFrame
        ``seat_go_out.csv``: seat_from_dealer, hands, go_outs, go_out_rate.

    Returns
    -------
    SeatGoOut
    """
    t = seat_go_out.sort_values("seat_from_dealer")
    go_outs = t["go_outs"].to_numpy(dtype=np.float64)
    hands = t["hands"].to_numpy(dtype=np.float64)
    low, high = wilson_array(go_outs, hands)
    rate = t["go_out_rate"].to_numpy(dtype=np.float64)
    return SeatGoOut(
        seats=t["seat_from_dealer"].to_numpy(dtype=np.int64),
        rate=rate,
        low=low,
        high=high,
        # No hands played (an empty partial run): no mean rather than a warning.
        even=float(np.nanmean(rate)) if np.isfinite(rate).any() else float("nan"),
    )


@dataclass
class HeadToHead:
    """Heads-up win rates of a round robin as a matrix.

    Attributes
    ----------
    labels : list of str
        Strategies, in the order of rows and columns.
    rate : numpy.ndarray
        float64, (n, n): win rate of row strategy against column opponent; NaN where not played (diagonal).
    """

    labels: list[str]
    rate: np.ndarray


def head_to_head_data(head_to_head: pd.DataFrame, order: list[str] | None = None) -> HeadToHead:
    """Matrix of heads-up win rates from ``head_to_head.csv``.

    Parameters
    ----------
    head_to_head : pandas.DataFrame
        strategy, opponent, matches, win_rate, win_rate_low, win_rate_high.
    order : list of str, optional
        Row and column order (e.g. the summary's); by default the order of first appearance.

    Returns
    -------
    HeadToHead
    """
    t = head_to_head.assign(
        strategy=head_to_head["strategy"].astype(str), opponent=head_to_head["opponent"].astype(str)
    )
    names = list(dict.fromkeys([*t["strategy"], *t["opponent"]]))
    if order:
        names = [n for n in order if n in names] + [n for n in names if n not in order]
    matrix = t.pivot_table(index="strategy", columns="opponent", values="win_rate", aggfunc="mean")
    matrix = matrix.reindex(index=names, columns=names)
    return HeadToHead(labels=names, rate=matrix.to_numpy(dtype=np.float64))


# --------------------------------------------------------------------------- plot functions


def plot_win_rates(data: WinRates, ax: Axes | None = None) -> Figure:
    """Win rate of each entry with 95% interval bars and a dashed line at the no-edge rate.

    Parameters
    ----------
    data : WinRates
        From ``win_rate_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    labels = [wrap_label(x) for x in data.labels]
    fig, ax = new_figure(ax, (max(6.0, max(0.9, tick_inches(labels)) * len(labels) + 2) + LEGEND_WIDTH, 4.5))
    x = np.arange(len(data.labels))
    # errorbar wants distances below/above the point; NaN (no matches) draws nothing rather than failing.
    yerr = np.clip(np.vstack([data.rate - data.low, data.high - data.rate]), 0.0, None)
    ax.errorbar(x, data.rate, yerr=yerr, fmt="o", capsize=4, color="C0", label="win rate, 95% Wilson interval")
    ax.axhline(data.reference, linestyle="--", color="0.4", linewidth=1, label=data.reference_label)
    ax.set_xticks(x, labels)  # wrapped, on a figure wide enough for them: no label crosses another
    ax.set_xlabel(data.entry_kind.capitalize())
    ax.set_ylabel("Win rate (share of matches won)")
    ax.set_title("Win rate per " + data.entry_kind)
    legend_outside(ax)
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_final_totals(data: Histogram, ax: Axes | None = None) -> Figure:
    """Distribution of final totals per strategy (linear y); see ``plot_distribution``."""
    return plot_distribution(data, ax=ax, log=False)


def plot_hand_penalties(data: Histogram, ax: Axes | None = None) -> Figure:
    """Distribution of hand penalties per strategy (log y); see ``plot_distribution``."""
    return plot_distribution(data, ax=ax, log=True)


def plot_go_out_by_seat(data: SeatGoOut, ax: Axes | None = None) -> Figure:
    """Bars of the go-out rate per seat from the dealer, with 95% intervals and the across-seat mean.

    Parameters
    ----------
    data : SeatGoOut
        From ``seat_go_out_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = new_figure(ax, (max(5.0, 1.1 * len(data.seats) + 2) + LEGEND_WIDTH, 4.5))
    n = len(data.seats)
    names = []
    for s in data.seats:
        # The last seat from the dealer is the dealer; the first is the dealer's left, who plays first.
        names.append(f"{s}\n(dealer)" if s == n else f"{s}\n(dealer's left)" if s == 1 else str(s))
    yerr = np.clip(np.vstack([data.rate - data.low, data.high - data.rate]), 0.0, None)
    ax.bar(np.arange(n), data.rate, yerr=yerr, capsize=4, color="C2", alpha=0.8, label="go-out rate, 95% interval")
    if np.isfinite(data.even):
        ax.axhline(data.even, linestyle="--", color="0.4", linewidth=1, label=f"mean over seats = {data.even:.3f}")
    ax.set_xticks(np.arange(n), names)
    ax.set_xlabel("Seat counted from the dealer's left")
    ax.set_ylabel("Go-out rate (share of hands)")
    ax.set_title("Who goes out, by seat relative to the dealer")
    legend_outside(ax)
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_head_to_head(data: HeadToHead, ax: Axes | None = None) -> Figure:
    """Heatmap of heads-up win rates, row strategy against column opponent, centred on 0.5.

    Parameters
    ----------
    data : HeadToHead
        From ``head_to_head_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    n = len(data.labels)
    labels = [wrap_label(x) for x in data.labels]
    cell = max(0.9, tick_inches(labels))
    rows = max(label.count("\n") + 1 for label in labels) if labels else 1
    fig, ax = new_figure(ax, (max(5.0, cell * n + 3 + CHAR_INCH * TICK_CHARS), max(4.0, 0.8 * n + 2 + 0.17 * rows)))
    # Symmetric limits about 0.5 so equal colour strength means equal edge either way; a floor keeps
    # near-even tables from turning tiny differences into saturated colours.
    finite = data.rate[np.isfinite(data.rate)]
    spread = max(0.05, float(np.max(np.abs(finite - 0.5)))) if finite.size else 0.05
    norm = TwoSlopeNorm(vcenter=0.5, vmin=0.5 - spread, vmax=0.5 + spread)
    # the diagonal (no strategy plays itself) in grey, not the white of 0.5
    cmap = plt.get_cmap("RdBu").with_extremes(bad="0.85")
    # aspect="auto": the cells take the width their (wrapped) labels need
    image = ax.imshow(np.ma.masked_invalid(data.rate), cmap=cmap, norm=norm, aspect="auto")
    for i in range(n):
        for j in range(n):
            v = data.rate[i, j]
            if np.isfinite(v):
                # White text on the dark ends of the colormap, black in the pale middle.
                colour = "white" if abs(v - 0.5) > 0.6 * spread else "black"
                ax.text(j, i, f"{v:.3f}", ha="center", va="center", color=colour, fontsize="small")
    ax.set_xticks(np.arange(n), labels)
    ax.set_yticks(np.arange(n), labels)
    ax.set_xlabel("Opponent")
    ax.set_ylabel("Strategy")
    ax.set_title("Heads-up win rate of row against column")
    fig.colorbar(image, ax=ax, label="Win rate (share of matches won)")
    return fig


# --------------------------------------------------------------------------- writing them all


def save_all(run_dir: Path | str) -> list[Path]:
    """Draw every chart the run folder has data for and save them as PNG files in it.

    Writes ``win_rates.png``, ``final_totals.png``, ``hand_penalties.png``,
    ``go_out_by_seat.png`` and, when ``head_to_head.csv`` exists,
    ``head_to_head.png``.  A chart whose CSV is missing is skipped.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        Folder written by the tournament runner.

    Returns
    -------
    list of pathlib.Path
        The files written, in ``CHART_FILES`` order.
    """
    run = load_run(run_dir)
    out = run.path
    written = [
        save_png(plot_win_rates(win_rate_data(run.summary, run.format, run.players)), out / "win_rates.png"),
    ]
    if run.score_distribution is not None:
        totals = distribution_data(run.score_distribution, "final_total")
        written.append(save_png(plot_final_totals(totals), out / "final_totals.png"))
        penalties = distribution_data(run.score_distribution, "hand_penalty")
        written.append(save_png(plot_hand_penalties(penalties), out / "hand_penalties.png"))
    if run.seat_go_out is not None:
        written.append(save_png(plot_go_out_by_seat(seat_go_out_data(run.seat_go_out)), out / "go_out_by_seat.png"))
    if run.head_to_head is not None:
        order = list(dict.fromkeys(run.summary["strategy"]))
        h2h = head_to_head_data(run.head_to_head, order=order)
        written.append(save_png(plot_head_to_head(h2h), out / "head_to_head.png"))
    return written
