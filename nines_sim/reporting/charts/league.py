"""A league's or round robin's chart: each strategy's rating with its 95% interval (``ratings.png``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nines_sim.experiments.tournament.report_league import CHART, read_ratings_file
from nines_sim.reporting.charts.common import plt


@dataclass
class RatingBars:
    """Ratings with their 95% intervals, best first: what :func:`plot_ratings` draws.

    Attributes
    ----------
    labels : list of str
    rating, low, high : numpy.ndarray
        float64, (n,): rating points.
    anchor : float
        The mean rating.
    model : str
    """

    labels: list[str]
    rating: np.ndarray
    low: np.ndarray
    high: np.ndarray
    anchor: float
    model: str


def rating_bars(ratings: pd.DataFrame, manifest: dict[str, Any]) -> RatingBars:
    """The chart's data from ``ratings.csv`` (any row order) and the manifest's ``ratings`` entry."""
    df = ratings.sort_values("rating", ascending=False, kind="stable")
    facts = manifest.get("ratings") or {}
    return RatingBars(
        labels=[str(s) for s in df["strategy"]],
        rating=df["rating"].to_numpy(dtype=np.float64),
        low=df["rating_low"].to_numpy(dtype=np.float64),
        high=df["rating_high"].to_numpy(dtype=np.float64),
        anchor=float(facts.get("anchor", 1500.0)),
        model=str(facts.get("model", "Plackett-Luce")),
    )


def _wrap(label: str, width: int = 40) -> str:
    """A long label (a strategy with its parameters) on several lines, broken after commas."""
    lines, line = [], ""
    for part in label.split(","):
        piece = part if not line else "," + part
        if line and len(line) + len(piece) > width:
            lines.append(line + ",")
            line = part
        else:
            line += piece
    return "\n".join([*lines, line])


def plot_ratings(data: RatingBars, ax: Axes | None = None) -> Figure:
    """Horizontal points with 95% interval bars, best at the top; the dashed line is the mean rating."""
    labels = [_wrap(label) for label in data.labels]
    rows = np.array([max(1.5, 0.5 * (label.count("\n") + 1)) for label in labels])  # a long label, a taller row
    y = -(np.cumsum(rows) - rows / 2)  # best at the top
    if ax is None:
        fig, ax = plt.subplots(figsize=(9.0, 0.3 * rows.sum() + 1.4), layout="constrained")
    else:
        fig = ax.figure
    err = np.vstack([data.rating - data.low, data.high - data.rating])
    ax.errorbar(data.rating, y, xerr=err, fmt="o", color="C0", capsize=3)
    ax.axvline(data.anchor, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(y, labels, fontsize="small" if max(rows) > 1.5 else None)
    ax.set_xlabel(f"{data.model} rating (points; mean {data.anchor:g}, 400 = odds of 10 to 1)")
    ax.set_title("Ratings with 95% bootstrap intervals")
    return fig


def save_chart(run_dir: Path | str) -> Path | None:
    """Draw ``ratings.png`` into a rated run folder; None (nothing drawn) where ``ratings.csv`` is missing."""
    ratings = read_ratings_file(Path(run_dir), "ratings.csv")
    if ratings is None:
        return None
    from nines_sim.reporting.folders import load_run

    fig = plot_ratings(rating_bars(ratings, load_run(run_dir).manifest))
    path = Path(run_dir) / CHART
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
