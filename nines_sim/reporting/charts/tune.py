"""A tune run's charts: the optimisation history, each parameter against the win rate, the importances.

Drawn from the folder's ``trials.csv``, ``best.json`` and ``importances.csv`` by ``save_charts``; each file
is written whole (:func:`nines_sim.runs.output.replace_whole`), as processes sharing a study may share
the folder.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pandas as pd

from nines_sim.reporting.charts.common import LEGEND_WIDTH, legend_outside, new_figure, plt, save_png
from nines_sim.runs.output import replace_whole

#: Columns of ``trials.csv`` after the tuned parameters (``nines_sim.experiments.tune.work.TRIAL_COLUMNS_END``;
#: ``note`` is newer).
TRIAL_COLUMNS_END = ("win_rate", "win_rate_low", "win_rate_high", "matches", "seconds", "note")


def _save_whole(fig: plt.Figure, path: Path) -> Path:
    return replace_whole(path, lambda tmp: save_png(fig, tmp))


def plot_history(trials: pd.DataFrame, baseline: float | None, baseline_trial: int = 0) -> plt.Figure:
    """Each trial's win rate (pruned trials hollow, at their last report) and the running best."""
    fig, ax = new_figure(None, (8 + LEGEND_WIDTH, 4.5))
    done = trials[trials["state"] == "complete"]
    pruned = trials[trials["state"] == "pruned"]
    ax.scatter(done["trial"], done["win_rate"], s=18, label="completed trial", color="tab:blue")
    ax.scatter(pruned["trial"], pruned["win_rate"], s=18, facecolors="none", edgecolors="tab:gray",
               label="pruned (at its last chunk)")  # fmt: skip
    if len(done):
        best = done.set_index("trial")["win_rate"].cummax()
        ax.step(best.index, best.to_numpy(), where="post", color="tab:red", label="best so far")
    if baseline is not None and not math.isnan(baseline):
        ax.axhline(baseline, color="black", lw=0.8, ls="--", label=f"baseline (trial {baseline_trial})")
    ax.set_xlabel("trial")
    ax.set_ylabel("win rate of the tuned strategy")
    ax.set_title("Optimisation history (same matches in every trial)")
    legend_outside(ax)
    return fig


def plot_params(trials: pd.DataFrame, names: list[str], best: dict) -> plt.Figure:
    """One panel per tuned parameter: its value against the trial's win rate (completed trials), coloured by
    trial number with a colour bar; the best trial's value as a red line."""
    n = max(1, len(names))
    cols = min(3, n)
    rows = math.ceil(n / cols)
    # constrained layout keeps the title above the top row and makes room for the colour bar
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols + 1, 3.2 * rows + 0.6), squeeze=False, layout="constrained")
    done = trials[trials["state"] == "complete"]
    last = max(1, int(trials["trial"].max())) if len(trials) else 1
    points = None
    for i, name in enumerate(names):
        ax = axes[i // cols][i % cols]
        points = ax.scatter(done[name], done["win_rate"], s=14, c=done["trial"], cmap="viridis", vmin=0, vmax=last)
        if name in best:
            ax.axvline(best[name], color="tab:red", lw=0.8)
        ax.set_xlabel(name)
        ax.set_ylabel("win rate")
    for j in range(len(names), rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    if points is not None:
        fig.colorbar(points, ax=axes.ravel().tolist(), label="trial number", shrink=min(1.0, 0.5 + 0.25 * rows))
    title = "Each parameter against the win rate (colour: trial number; red line: best trial)"
    # wrapped to the figure's width (about 7 points a character at the title's size), so one panel shows it all
    fig.suptitle(textwrap.fill(title, width=int(fig.get_figwidth() * 72 / 7)))
    return fig


def plot_importances(imp: pd.DataFrame) -> plt.Figure:
    """Optuna's parameter importances (share of the win rate's variance each parameter explains)."""
    fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * max(1, len(imp))))
    d = imp.iloc[::-1]
    ax.barh(d["parameter"], d["importance"], color="tab:blue")
    ax.set_xlabel("importance (sums to 1)")
    ax.set_title("Parameter importances")
    fig.tight_layout()
    return fig


def save_charts(run_dir: Path) -> list[Path]:
    """Write the charts the folder has data for."""
    trials = pd.read_csv(run_dir / "trials.csv")
    best = json.loads((run_dir / "best.json").read_text())
    names = [c for c in trials.columns if c not in ("trial", "state", *TRIAL_COLUMNS_END)]
    # the baseline is trial 0 unless trial 0 was stopped (Ctrl-C) and played again later
    done = trials[trials["state"] == "complete"]
    is_base = pd.Series(True, index=done.index)
    for k in names:
        is_base &= done[k] == best["baseline"].get(k)
    base = done[is_base]
    history = plot_history(trials, float(base["win_rate"].iloc[0]) if len(base) else None,
                           int(base["trial"].iloc[0]) if len(base) else 0)  # fmt: skip
    out = [_save_whole(history, run_dir / "history.png")]
    out.append(_save_whole(plot_params(trials, names, best["params"]), run_dir / "params.png"))
    imp_path = run_dir / "importances.csv"
    imp = pd.read_csv(imp_path) if imp_path.is_file() else None
    if imp is not None and len(imp):
        out.append(_save_whole(plot_importances(imp), run_dir / "importances.png"))
    else:
        (run_dir / "importances.png").unlink(missing_ok=True)  # a previous run's, for other trials
    return out
