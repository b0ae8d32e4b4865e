"""The ratings of a league or round robin: their chart and their section of ``report.md``.

Read from the folder's ``ratings.csv``, ``rating_differences.csv`` and
``calibration.csv`` (written by :func:`nines_sim.league.write_ratings`) and the
``ratings`` entry of ``manifest.json``; a folder without them (another format,
or one written before ratings existed) gets no chart and no section.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from nines_sim.reporting.markdown import cell, fixed, format_p, num, pct, too_small
from nines_sim.rounding import decimal_text

if TYPE_CHECKING:  # matplotlib loads only when something is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

CHART = "ratings.png"
#: Rows of the calibration table the report shows (the cells furthest from the model first).
CALIBRATION_ROWS = 12
#: Resolved or unresolved pairs the report names one by one before it only counts them.
NAMED_PAIRS = 15
#: p-value of the correlation of rating and calibration z below which the report calls the misses systematic.
SYSTEMATIC_P = 0.05


def _read(run_dir: Path, name: str) -> pd.DataFrame | None:
    """A ratings file of the folder with every strategy named by its short label (the CSV keeps full specs)."""
    path = Path(run_dir) / name
    if not path.is_file():
        return None
    df = pd.read_csv(path)
    shown = _short_names(Path(run_dir))
    for c in ("strategy", "a", "b"):
        if c in df.columns:
            df[c] = df[c].map(lambda x: shown.get(str(x), x))
    if "table" in df.columns:  # a table composition: its strategies joined by ", "
        df["table"] = df["table"].map(lambda t: ", ".join(shown.get(x, x) for x in str(t).split(", ")))
    return df


def _short_names(folder: Path) -> dict[str, str]:
    """Each strategy name of the folder's CSVs mapped to the short label a person reads (``labels``)."""
    import json

    from nines_sim.reporting.folders import given_specs
    from nines_sim.reporting.labels import label_map

    summary = folder / "summary.csv"
    if not summary.is_file():
        return {}
    names = list(pd.read_csv(summary).sort_values("position", kind="stable")["strategy"].astype(str))
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = {}
    return label_map(names, given_specs(manifest) if isinstance(manifest, dict) else None)


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
    import matplotlib.pyplot as plt

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
    import matplotlib.pyplot as plt

    ratings = _read(Path(run_dir), "ratings.csv")
    if ratings is None:
        return None
    from nines_sim.reporting.folders import load_run

    fig = plot_ratings(rating_bars(ratings, load_run(run_dir).manifest))
    path = Path(run_dir) / CHART
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _points(x: float, signed: bool = False) -> str:
    """Rating points, whole (signed for a difference)."""
    return decimal_text(x, 0, signed=signed)


def ratings_section(run_dir: Path | str, manifest: dict[str, Any]) -> list[str]:
    """``## Ratings``: the model, the table, which differences are resolved and the calibration check.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        The run folder.
    manifest : dict
        Its ``manifest.json``.

    Returns
    -------
    list of str
        Markdown lines; empty when the folder has no ``ratings.csv``.
    """
    folder = Path(run_dir)
    ratings = _read(folder, "ratings.csv")
    facts = manifest.get("ratings") or {}
    if ratings is None:
        return [*NOT_COMPUTED, ""] if facts.get("computed") is False else []
    ranked = not too_small(manifest)
    model = str(facts.get("model", "Plackett-Luce"))
    heads_up = model == "Bradley-Terry"
    what = "heads-up results" if heads_up else "finishing orders (final totals, the winner first; level totals share)"
    lines = [
        "## Ratings",
        "",
        f"A {model} model fitted by maximum likelihood to every match's {what}. A rating is "
        f"{fixed(float(facts.get('anchor', 1500)), 0)} plus {fixed(float(facts.get('points_per_unit', 173.7)), 1)} "
        "points per unit of log-strength (the mean rating is 1500; 400 points are odds of 10 to 1 heads-up). "
        f"The 95% intervals are percentiles of a bootstrap over matches ({num(facts.get('bootstrap_samples'))} "
        f"samples; matches drawn in {num(facts.get('match_groups'))} groups by match index, every table's "
        "matches of a group together, since the tables play the same deals).",
        "",
        "| Rank | Strategy | Rating (95% CI) | Mean finishing position (95% CI) | Win rate (95% CI) | Matches |",
        "|---:|---|---|---|---|---:|",
    ]
    for r in ratings.itertuples(index=False):
        lines.append(
            f"| {r.rank if ranked else '-'} | {cell(r.strategy)} | {_points(r.rating)} ({_points(r.rating_low)} to "
            f"{_points(r.rating_high)}) | {fixed(r.mean_position, 2)} ({fixed(r.mean_position_low, 2)} to "
            f"{fixed(r.mean_position_high, 2)}) | {pct(r.win_rate)} ({pct(r.win_rate_low)} to "
            f"{pct(r.win_rate_high)}) | {num(int(r.matches))} |"
        )
    lines.append("")
    if (folder / CHART).is_file():
        lines += [f"![Ratings]({CHART})", "", "*Ratings with their 95% bootstrap intervals, best at the top.*", ""]
    if not ranked:  # a stopped run too small to rank: the numbers only (see the note at the top)
        return [*lines, "### Which differences are resolved", "", UNCLAIMED, ""]
    lines += _resolved(_read(folder, "rating_differences.csv"))
    lines += _calibration(_read(folder, "calibration.csv"), heads_up, ratings)
    return lines


#: The ratings section of a run stopped (Ctrl-C) while rating: its matches are written, its ratings not.
NOT_COMPUTED = [
    "## Ratings",
    "",
    "Not computed: the run was stopped (Ctrl-C) while rating. The results above hold every match played; "
    "run the command again to rate them.",
]
#: Which differences are resolved, and calibration, in a run too small to rank.
UNCLAIMED = (
    "None is claimed, and the calibration is not checked: too few matches were played to rank (see the note at "
    "the top). The ratings above are listed without ranks."
)


def _resolved(diffs: pd.DataFrame | None) -> list[str]:
    if diffs is None or diffs.empty:
        return []
    lines = ["### Which differences are resolved", ""]
    yes = diffs[diffs["resolved"].astype(str).str.lower() == "true"]
    no = diffs[diffs["resolved"].astype(str).str.lower() != "true"]
    lines.append(
        f"A difference is resolved when the 95% bootstrap interval of the difference does not cover 0: "
        f"{len(yes)} of {len(diffs)} pairs."
    )
    lines.append("")

    def sentence(r: Any) -> str:
        return (f"**{r.a}** over **{r.b}**: {_points(r.difference, True)} points (95% CI "
                f"{_points(r.low, True)} to {_points(r.high, True)})")  # fmt: skip

    for r in yes.head(NAMED_PAIRS).itertuples(index=False):
        lines.append(f"- {sentence(r)}.")
    if len(yes) > NAMED_PAIRS:
        lines.append(f"- and {len(yes) - NAMED_PAIRS} more (rating_differences.csv).")
    if len(no):
        named = "; ".join(sentence(r) for r in no.head(NAMED_PAIRS).itertuples(index=False))
        more = f"; and {len(no) - NAMED_PAIRS} more" if len(no) > NAMED_PAIRS else ""
        lines += ["", f"Not resolved (the interval covers 0): {named}{more}."]
    return [*lines, ""]


def _pattern(cal: pd.DataFrame, ratings: pd.DataFrame) -> str:
    """Whether the misses follow the ratings (the strong win more than predicted, the weak less) or not:
    the Pearson correlation of each cell's rating and z, and its two-sided p-value (scipy)."""
    from scipy.stats import pearsonr

    rating = ratings.set_index(ratings["strategy"].astype(str))["rating"]
    r = cal["strategy"].astype(str).map(rating).to_numpy(dtype=np.float64)
    z = cal["z"].to_numpy(dtype=np.float64)
    ok = np.isfinite(r) & np.isfinite(z)
    corr, p = 0.0, 1.0
    if ok.sum() > 2 and np.std(r[ok]) > 0 and np.std(z[ok]) > 0:
        res = pearsonr(r[ok], z[ok])
        corr, p = float(res.statistic), float(res.pvalue)
    said = f"(correlation of rating and z over the cells {fixed(corr, 2)}, {format_p(p)})"
    if p < SYSTEMATIC_P and corr > 0:
        return (
            f"The misses follow the ratings {said}: the higher rated win more often than their strength's share, "
            "the lower rated less. The model fits one strength to the whole finishing order, and here first place "
            "goes to the stronger more reliably than the later places do; read the win rates beside the ratings."
        )
    if p < SYSTEMATIC_P:
        return (
            f"The misses run against the ratings {said}: the lower rated win more often than predicted, the "
            "higher rated less; the later places go to the stronger more reliably than first place does."
        )
    return (
        f"The misses do not follow the ratings {said}: they are particular to the tables below, where a strategy "
        "does better or worse against those opponents than one strength per strategy can say (non-transitive "
        "results)."
    )


def _calibration(cal: pd.DataFrame | None, heads_up: bool, ratings: pd.DataFrame) -> list[str]:
    if cal is None or cal.empty:
        return []
    unit = "pairing" if heads_up else "table composition"
    fails = cal[cal["fails"].astype(str).str.lower() == "true"]
    lines = [
        "### Does the rating predict?",
        "",
        f"For each {unit} and each strategy in it, the model's chance of winning (its strength's share of the "
        "table's) against the observed win rate; a cell fails when the observed wins lie further from the "
        "prediction than chance allows (binomial z-test, Holm-adjusted over all "
        f"{len(cal)} cells, 5% level). Observed intervals are Wilson 95% intervals.",
        "",
    ]
    if fails.empty:
        lines.append(f"The model predicts every one of the {len(cal)} observed win rates within its noise.")
    else:
        over = fails[fails["observed"] > fails["predicted"]]
        lines.append(
            f"**The model fails in {len(fails)} of {len(cal)} cells**: there a strategy wins more or less often "
            f"than its rating predicts at that table ({len(over)} of them more)."
        )
        lines += ["", _pattern(cal, ratings)]
    lines += ["", f"The {min(CALIBRATION_ROWS, len(cal))} cells furthest from the model:", ""]
    lines += [f"| {unit.capitalize()} | Strategy | Matches | Observed (95% CI) | Predicted | z | Fails |",
              "|---|---|---:|---|---:|---:|---|"]  # fmt: skip
    worst = cal.assign(size=cal["z"].abs()).sort_values("size", ascending=False, kind="stable").head(CALIBRATION_ROWS)
    for r in worst.itertuples(index=False):
        fail = "yes" if str(r.fails).lower() == "true" else "no"
        lines.append(
            f"| {cell(r.table)} | {cell(r.strategy)} | {num(int(r.matches))} | {pct(r.observed)} "
            f"({pct(r.observed_low)} to {pct(r.observed_high)}) | {pct(r.predicted)} | {fixed(r.z, 2)} | {fail} |"
        )
    return [*lines, ""]
