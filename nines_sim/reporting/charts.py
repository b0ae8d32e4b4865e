"""Every chart of every run kind: a small data object built from the run folder's CSVs, and a function that draws it.

Each chart has a data function, which turns CSV tables into the numbers
plotted (``win_rate_data``, ``distribution_data``, ``seat_go_out_data``,
``head_to_head_data`` for a tournament; ``win_rates_by_rule_set_data``,
``shift_data``, ``final_totals_by_rule_set_data``, ``sweep_data`` for a rule comparison), and a
plot function ``plot_x(data, ax=None) -> Figure`` that only draws.
``save_all`` and ``save_all_comparison`` write every chart a folder has data
for.  Intervals come from :mod:`nines_sim.stats`; nothing here tests anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

# Runs happen on servers and in CI without a display; choose the file-only backend before pyplot loads.
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from nines_sim.reporting.folders import (  # noqa: E402
    entry_label,
    load_comparison,
    load_run,
    readable_label,
    reference_rate,
    seat_labels,
)
from nines_sim.stats import wilson_array  # noqa: E402

#: File names of a tournament's charts, in the order the report shows them.
CHART_FILES = ("win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png", "head_to_head.png")

#: File names of a rule comparison's charts, in the order the report shows them.
COMPARISON_CHART_FILES = (
    "win_rates_by_rule_set.png",
    "shifts_by_rule_set.png",
    "final_totals_by_rule_set.png",
    "sweep.png",
)

#: Target number of bins of a score histogram: enough to show the shape, few enough to stay smooth.
MAX_BINS = 50

_DPI = 120

#: Inches added to a figure's width for a legend drawn outside the axes.
LEGEND_WIDTH = 2.2


# --------------------------------------------------------------------------- tournament: data functions


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
class Histogram:
    """Binned score distribution per strategy, as shares of that strategy's observations.

    Attributes
    ----------
    kind : str
        ``"final_total"`` (one observation per match and entry) or ``"hand_penalty"`` (per hand and entry).
    edges : numpy.ndarray
        float64, (B + 1,): bin edges in points; bin i is ``[edges[i], edges[i+1])``.
    shares : dict of str to numpy.ndarray
        float64, (B,) per strategy: share of its observations in each bin (sums to 1).
    observations : dict of str to int
        Number of observations per strategy.
    means : dict of str to float
        Mean points per strategy, from the unbinned counts (empty where not computed).
    """

    kind: str
    edges: np.ndarray
    shares: dict[str, np.ndarray]
    observations: dict[str, int]
    means: dict[str, float] = field(default_factory=dict)


def nice_bin_width(span: float, max_bins: int = MAX_BINS) -> int:
    """Smallest width among 1, 2, 5, 10, 20, 50, ... points that covers ``span`` in at most ``max_bins`` bins."""
    width = 1
    steps = (2, 2.5, 2)  # 1 -> 2 -> 5 -> 10 -> 20 -> 50 ...
    i = 0
    while span / width > max_bins:
        width = int(round(width * steps[i % 3]))
        i += 1
    return width


def distribution_data(scores: pd.DataFrame, kind: str, bin_width: int | None = None) -> Histogram:
    """Bin one kind of ``score_distribution.csv`` per strategy.

    Rows of the same strategy name are summed, so a strategy in several seats
    has one curve.  Scores are integers, so bins start at multiples of the
    width; hand-penalty bins start at 0 (a penalty of 0 means the player went out).

    Parameters
    ----------
    scores : pandas.DataFrame
        ``score_distribution.csv``: strategy, kind, points, count.
    kind : str
        ``"final_total"`` or ``"hand_penalty"``.
    bin_width : int, optional
        Width of a bin in points; by default a round width giving at most ``MAX_BINS`` bins.

    Returns
    -------
    Histogram
    """
    rows = scores[scores["kind"] == kind]
    rows = rows.assign(strategy=rows["strategy"].astype(str))
    counts = rows.groupby(["strategy", "points"], sort=True)["count"].sum()
    if counts.empty:
        return Histogram(kind=kind, edges=np.array([0.0, 1.0]), shares={}, observations={})
    points = counts.index.get_level_values("points").to_numpy(dtype=np.float64)
    # Hand penalties start at 0 so "went out" has a bin of its own edge; final totals start where the data do.
    lo = min(0.0, float(points.min())) if kind == "hand_penalty" else float(points.min())
    hi = float(points.max())
    # hand penalties in 1-point bins so that 0 ("went out") stays a bin of its own
    width = bin_width or (1 if kind == "hand_penalty" else nice_bin_width(hi - lo + 1))
    start = math.floor(lo / width) * width
    n_bins = int((hi - start) // width) + 1
    edges = start + width * np.arange(n_bins + 1, dtype=np.float64)
    shares: dict[str, np.ndarray] = {}
    observations: dict[str, int] = {}
    means: dict[str, float] = {}
    # Keep the strategies in the order they first appear in the file (the runner's lineup order).
    for name in dict.fromkeys(rows["strategy"]):
        s = counts.loc[name]
        idx = ((s.index.to_numpy(dtype=np.float64) - start) // width).astype(np.int64)
        binned = np.bincount(idx, weights=s.to_numpy(dtype=np.float64), minlength=n_bins)
        total = binned.sum()
        observations[name] = int(round(total))
        shares[name] = binned / total if total > 0 else binned
        weight = float(s.sum())
        means[name] = (
            float((s.index.to_numpy(dtype=np.float64) * s.to_numpy(dtype=np.float64)).sum() / weight)
            if weight > 0
            else float("nan")
        )
    return Histogram(kind=kind, edges=edges, shares=shares, observations=observations, means=means)


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


# --------------------------------------------------------------------------- tournament: plot functions


def _figure(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    """A new figure and axes, or the figure of the axes given."""
    if ax is None:
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        return fig, ax
    fig = ax.figure
    # Axes inside a SubFigure report the SubFigure; walk up to the Figure that saves.
    while not isinstance(fig, Figure):
        fig = fig.figure
    return fig, ax


def _legend_outside(ax: Axes, **kwargs: Any) -> None:
    """The legend to the right of the axes, outside the data, so that it can hide no point, bar or band.

    Constrained layout (``_figure``) makes room for it; the figure grows by ``LEGEND_WIDTH`` to keep the plot's size.
    """
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small", **kwargs)


#: Most characters on one line of a tick label; longer labels wrap (after a comma, parenthesis, @, / or -).
TICK_CHARS = 20

#: Inches one character of a tick label takes at the default font size (10 pt), with margin.
_CHAR_INCH = 0.085


def _split_after(text: str, marks: str) -> list[str]:
    """``text`` in pieces, each ending after one of ``marks`` (the last piece may end otherwise)."""
    pieces, word = [], ""
    for ch in text:
        word += ch
        if ch in marks:
            pieces.append(word)
            word = ""
    return [*pieces, word] if word else pieces


def wrap_label(label: str, width: int = TICK_CHARS) -> str:
    """A tick label on lines of at most ``width`` characters.

    Lines break after ``,``, ``(``, ``@``, ``/`` or a space; a piece still too long breaks after a ``-``, then
    is cut.  Lines already in the label (``"seat 0\nrandom"``) are kept.
    """
    out = []
    for line in str(label).split("\n"):
        tokens = []
        for piece in _split_after(line, ",(@/ "):
            if len(piece) <= width:
                tokens.append(piece)
                continue
            for part in _split_after(piece, "-"):
                tokens += [part[k : k + width] for k in range(0, len(part), width)]
        current = ""
        for tok in tokens:
            if current and len(current) + len(tok.rstrip()) > width:
                out.append(current.rstrip())
                current = ""
            current += tok
        out.append(current.rstrip())
    return "\n".join(out)


def tick_inches(labels: list[str]) -> float:
    """Width in inches one tick needs so that its (wrapped) label does not touch its neighbours'."""
    longest = max((len(line) for label in labels for line in str(label).split("\n")), default=1)
    return _CHAR_INCH * longest + 0.2


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
    fig, ax = _figure(ax, (max(6.0, max(0.9, tick_inches(labels)) * len(labels) + 2) + LEGEND_WIDTH, 4.5))
    x = np.arange(len(data.labels))
    # errorbar wants distances below/above the point; NaN (no matches) draws nothing rather than failing.
    yerr = np.clip(np.vstack([data.rate - data.low, data.high - data.rate]), 0.0, None)
    ax.errorbar(x, data.rate, yerr=yerr, fmt="o", capsize=4, color="C0", label="win rate, 95% Wilson interval")
    ax.axhline(data.reference, linestyle="--", color="0.4", linewidth=1, label=data.reference_label)
    ax.set_xticks(x, labels)  # wrapped, on a figure wide enough for them: no label crosses another
    ax.set_xlabel(data.entry_kind.capitalize())
    ax.set_ylabel("Win rate (share of matches won)")
    ax.set_title("Win rate per " + data.entry_kind)
    _legend_outside(ax)
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_distribution(data: Histogram, ax: Axes | None = None, log: bool | None = None) -> Figure:
    """Step histogram of a score distribution, one line per strategy.

    Parameters
    ----------
    data : Histogram
        From ``distribution_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    log : bool, optional
        Log scale on y; by default on for hand penalties, whose tail is long and thin.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = _figure(ax, (8.0 + LEGEND_WIDTH, 4.5))
    if log is None:
        log = data.kind == "hand_penalty"
    per = "hand" if data.kind == "hand_penalty" else "match"  # what one observation is
    for name, share in data.shares.items():
        # Repeat the last value so the final bin is drawn to its right edge.
        ax.step(data.edges, np.append(share, share[-1:]), where="post", label=name, linewidth=1.4)
    if log and data.shares:
        ax.set_yscale("log")
    width = data.edges[1] - data.edges[0]
    # One-point bins are the points themselves; only wider bins need saying.
    bins = "" if width == 1 else f", in bins of {width:g} points"
    if data.kind == "hand_penalty":
        ax.set_title("Penalty points taken per hand")
        ax.set_xlabel(f"Hand penalty (points{bins}; 0 = went out)")
    else:
        ax.set_title("Final match totals")
        ax.set_xlabel(f"Final total (points{bins}; lower is better)")
    ax.set_ylabel("Share of matches (rate)" if per == "match" else "Share of hands (rate)")
    if data.shares:
        _legend_outside(ax)
    ax.grid(alpha=0.3)
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
    fig, ax = _figure(ax, (max(5.0, 1.1 * len(data.seats) + 2) + LEGEND_WIDTH, 4.5))
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
    _legend_outside(ax)
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
    fig, ax = _figure(ax, (max(5.0, cell * n + 3 + _CHAR_INCH * TICK_CHARS), max(4.0, 0.8 * n + 2 + 0.17 * rows)))
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


# --------------------------------------------------------------------------- tournament: writing them all


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, dpi=_DPI)
    # Figures are kept by pyplot until closed; a long session redrawing many runs would leak them.
    plt.close(fig)
    return path


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
        _save(plot_win_rates(win_rate_data(run.summary, run.format, run.players)), out / "win_rates.png"),
    ]
    if run.score_distribution is not None:
        totals = distribution_data(run.score_distribution, "final_total")
        written.append(_save(plot_final_totals(totals), out / "final_totals.png"))
        penalties = distribution_data(run.score_distribution, "hand_penalty")
        written.append(_save(plot_hand_penalties(penalties), out / "hand_penalties.png"))
    if run.seat_go_out is not None:
        written.append(_save(plot_go_out_by_seat(seat_go_out_data(run.seat_go_out)), out / "go_out_by_seat.png"))
    if run.head_to_head is not None:
        order = list(dict.fromkeys(run.summary["strategy"]))
        h2h = head_to_head_data(run.head_to_head, order=order)
        written.append(_save(plot_head_to_head(h2h), out / "head_to_head.png"))
    return written


# --------------------------------------------------------------------------- rule comparison: data functions


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


def _by_rule_set_and_seat(comparison: pd.DataFrame, rule_sets: list[str], column: str) -> np.ndarray:
    """One column of ``comparison.csv`` as a (R, P) array in rule set and position order."""
    positions, _ = seat_labels(comparison)
    wide = comparison.pivot_table(index="rule_set", columns="position", values=column, aggfunc="mean", dropna=False)
    return wide.reindex(index=rule_sets, columns=positions).to_numpy(dtype=np.float64)


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
        rate=_by_rule_set_and_seat(comparison, rule_sets, "win_rate"),
        low=_by_rule_set_and_seat(comparison, rule_sets, "win_rate_low"),
        high=_by_rule_set_and_seat(comparison, rule_sets, "win_rate_high"),
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
        shift=100 * _by_rule_set_and_seat(comparison, others, "delta_win_rate"),
        low=100 * _by_rule_set_and_seat(comparison, others, "delta_low"),
        high=100 * _by_rule_set_and_seat(comparison, others, "delta_high"),
        significant=_by_rule_set_and_seat(sig, others, "significant") == 1.0,
    )


@dataclass
class SweepLines:
    """Each seat's win rate along a sweep of one rules option.

    Attributes
    ----------
    option : str
        The swept option, e.g. ``"nine_penalty"``.
    x : numpy.ndarray
        float64, (R,): the swept values when numeric, else 0, 1, ..., R-1.
    tick_labels : list of str or None
        Text of each value when it is not numeric (e.g. ``"one"``, ``"True"``); None for a numeric axis.
    seat_labels : list of str
        Legend text per seat: ``"strategy (seat k)"``.
    rate, low, high : numpy.ndarray
        float64, (P, R): win rate and its 95% Wilson interval of each seat at each value.
    reference : float
        Fair share 1/P.
    """

    option: str
    x: np.ndarray
    tick_labels: list[str] | None
    seat_labels: list[str]
    rate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    reference: float


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_)


def sweep_data(comparison: pd.DataFrame, rule_sets: list[str], sweep: dict[str, Any], players: int) -> SweepLines:
    """Win rate of each seat against the swept value.

    The value of each rule set is its ``sweep_value``; where the file leaves it
    empty, the manifest's ``sweep["values"]`` in rule set order.  A numeric
    option gets a numeric axis; any other (a bool, a rule name) one tick per value.

    Parameters
    ----------
    comparison : pandas.DataFrame
        ``comparison.csv``.
    rule_sets : list of str
        Rule set labels in run order (the sweep's order).
    sweep : dict
        ``manifest["sweep"]``: ``{"option": ..., "values": [...]}``.
    players : int
        Players at the table (P).

    Returns
    -------
    SweepLines
    """
    first = comparison.drop_duplicates("rule_set").set_index("rule_set")["sweep_value"]
    values: list[Any] = [first.get(r) for r in rule_sets]
    listed = list(sweep.get("values") or [])
    for i, v in enumerate(values):
        if (v is None or (isinstance(v, float) and np.isnan(v))) and i < len(listed):
            values[i] = listed[i]
    numeric = all(_is_number(v) and np.isfinite(float(v)) for v in values)
    if not numeric:
        # Text read from the CSV ("25") next to numbers from the manifest: numeric if every value parses.
        parsed = pd.to_numeric(pd.Series([str(v) for v in values]), errors="coerce")
        if not any(isinstance(v, bool | np.bool_) for v in values) and parsed.notna().all():
            values, numeric = parsed.tolist(), True
    if numeric:
        x, ticks = np.array([float(v) for v in values], dtype=np.float64), None
    else:
        x, ticks = np.arange(len(values), dtype=np.float64), [str(v) for v in values]
    positions, names = seat_labels(comparison)
    return SweepLines(
        option=str(sweep.get("option")),
        x=x,
        tick_labels=ticks,
        seat_labels=[readable_label(entry_label("table", int(p), s)) for p, s in zip(positions, names)],
        rate=_by_rule_set_and_seat(comparison, rule_sets, "win_rate").T,
        low=_by_rule_set_and_seat(comparison, rule_sets, "win_rate_low").T,
        high=_by_rule_set_and_seat(comparison, rule_sets, "win_rate_high").T,
        reference=1.0 / players,
    )


# --------------------------------------------------------------------------- rule comparison: plot functions


def _colour(i: int, n: int) -> Any:
    """Distinct colours for up to 20 rule sets (matplotlib's default cycle repeats after 10)."""
    from matplotlib import colormaps

    return f"C{i}" if n <= 10 else colormaps["tab20"](i % 20)


def _grouped(ax: Axes | None, n_sets: int, n_seats: int, labels: list[str]) -> tuple[Figure, Axes, np.ndarray, float]:
    """Figure, axes, seat positions and bar width of a chart with one group per seat and one member per rule set;
    the group is at least as wide as its (wrapped) seat label."""
    group = max(0.35 * n_sets + 0.8, tick_inches(labels))
    fig, ax = _figure(ax, (max(6.0, group * n_seats + 2) + LEGEND_WIDTH, 4.8))
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
    _legend_outside(ax, ncols=2 if n_sets > 10 else 1)
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
    _legend_outside(ax)
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
        fig, ax = _figure(ax, (8.0 + LEGEND_WIDTH, 4.5))
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
        _legend_outside(ax, title="rule set", title_fontsize="small")
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
    _legend_outside(diff)
    return fig


def plot_sweep(data: SweepLines, ax: Axes | None = None) -> Figure:
    """Each seat's win rate against the swept value: lines with markers and a shaded 95% band.

    Parameters
    ----------
    data : SweepLines
        From ``sweep_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = _figure(ax, (8.0 + LEGEND_WIDTH, 4.8))
    for i, label in enumerate(data.seat_labels):
        colour = f"C{i % 10}"
        ax.fill_between(data.x, data.low[i], data.high[i], color=colour, alpha=0.18, linewidth=0)
        ax.plot(data.x, data.rate[i], marker="o", color=colour, linewidth=1.5, label=label)
    ax.axhline(data.reference, linestyle="--", color="0.3", linewidth=1, label=f"fair share = {data.reference:.3g}")
    if data.tick_labels is not None:
        ax.set_xticks(data.x, data.tick_labels)
    else:
        ax.set_xticks(data.x, [f"{v:g}" for v in data.x])
    ax.set_xlabel(data.option)
    ax.set_ylabel("Win rate (share of matches won)")
    ax.set_title(f"Win rate per seat as {data.option} varies (95% Wilson bands)")
    _legend_outside(ax)
    ax.grid(alpha=0.3)
    return fig


# --------------------------------------------------------------------------- rule comparison: writing them all


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
    written = [_save(plot_win_rates_by_rule_set(grouped), out / "win_rates_by_rule_set.png")]
    if len(sets) > 1:
        written.append(_save(plot_shifts(shift_data(run.comparison, sets)), out / "shifts_by_rule_set.png"))
    if run.score_distribution is not None:
        totals = final_totals_by_rule_set_data(run.score_distribution, sets)
        written.append(_save(plot_final_totals_by_rule_set(totals), out / "final_totals_by_rule_set.png"))
    if run.sweep is not None:
        lines = sweep_data(run.comparison, sets, run.sweep, run.players)
        written.append(_save(plot_sweep(lines), out / "sweep.png"))
    else:
        (out / "sweep.png").unlink(missing_ok=True)
    return written
