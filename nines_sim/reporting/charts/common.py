"""What every chart shares: the file-only backend, a figure or the caller's axes, legends outside the data,
tick labels that wrap, score histograms (a tournament's and a rule comparison's) and saving.

Intervals come from :mod:`nines_sim.results.stats`; nothing here tests anything.
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
from matplotlib.figure import Figure  # noqa: E402

from nines_sim.reporting.folders import seat_labels  # noqa: E402

#: Target number of bins of a score histogram: enough to show the shape, few enough to stay smooth.
MAX_BINS = 50

#: Dots per inch of every chart file.
DPI = 120

#: Inches added to a figure's width for a legend drawn outside the axes.
LEGEND_WIDTH = 2.2


# --------------------------------------------------------------------------- figures, legends, tick labels


def new_figure(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    """A new figure and axes, or the figure of the axes given."""
    if ax is None:
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        return fig, ax
    fig = ax.figure
    # Axes inside a SubFigure report the SubFigure; walk up to the Figure that saves.
    while not isinstance(fig, Figure):
        fig = fig.figure
    return fig, ax


def legend_outside(ax: Axes, **kwargs: Any) -> None:
    """The legend to the right of the axes, outside the data, so that it can hide no point, bar or band.

    Constrained layout (``new_figure``) makes room for it; the figure grows by ``LEGEND_WIDTH`` to keep the plot's size.
    """
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small", **kwargs)


#: Most characters on one line of a tick label; longer labels wrap (after a comma, parenthesis, @, / or -).
TICK_CHARS = 20

#: Inches one character of a tick label takes at the default font size (10 pt), with margin.
CHAR_INCH = 0.085


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
    return CHAR_INCH * longest + 0.2


def save_png(fig: Figure, path: Path) -> Path:
    """Write ``fig`` to ``path`` as a PNG at :data:`DPI` and close it; returns ``path``."""
    fig.savefig(path, dpi=DPI)
    # Figures are kept by pyplot until closed; a long session redrawing many runs would leak them.
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- tables of a rule comparison


def by_rule_set_and_seat(comparison: pd.DataFrame, rule_sets: list[str], column: str) -> np.ndarray:
    """One column of ``comparison.csv`` as a (R, P) array in rule set and position order."""
    positions, _ = seat_labels(comparison)
    wide = comparison.pivot_table(index="rule_set", columns="position", values=column, aggfunc="mean", dropna=False)
    return wide.reindex(index=rule_sets, columns=positions).to_numpy(dtype=np.float64)


# --------------------------------------------------------------------------- score histograms


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
    fig, ax = new_figure(ax, (8.0 + LEGEND_WIDTH, 4.5))
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
        legend_outside(ax)
    ax.grid(alpha=0.3)
    return fig
