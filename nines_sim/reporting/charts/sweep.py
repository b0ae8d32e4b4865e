"""A sweep's chart (``compare-rules --sweep``): each seat's win rate along the swept rules option."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nines_sim.reporting.charts.common import LEGEND_WIDTH, by_rule_set_and_seat, legend_outside, new_figure
from nines_sim.reporting.folders import entry_label, readable_label, seat_labels


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
        rate=by_rule_set_and_seat(comparison, rule_sets, "win_rate").T,
        low=by_rule_set_and_seat(comparison, rule_sets, "win_rate_low").T,
        high=by_rule_set_and_seat(comparison, rule_sets, "win_rate_high").T,
        reference=1.0 / players,
    )


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
    fig, ax = new_figure(ax, (8.0 + LEGEND_WIDTH, 4.8))
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
    legend_outside(ax)
    ax.grid(alpha=0.3)
    return fig
