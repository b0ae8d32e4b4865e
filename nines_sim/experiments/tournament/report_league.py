"""The ratings of a league or round robin: their section of ``report.md``.

Their chart is drawn by :mod:`nines_sim.reporting.charts.league`.

Read from the folder's ``ratings.csv``, ``rating_differences.csv`` and
``calibration.csv`` (written by :func:`nines_sim.experiments.tournament.league.write_ratings`) and the
``ratings`` entry of ``manifest.json``; a folder without them (another format,
or one written before ratings existed) gets no chart and no section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nines_sim.reporting.markdown import cell, fixed, format_p, num, pct, too_small
from nines_sim.results.rounding import decimal_text

CHART = "ratings.png"
#: Rows of the calibration table the report shows (the cells furthest from the model first).
CALIBRATION_ROWS = 12
#: Resolved or unresolved pairs the report names one by one before it only counts them.
NAMED_PAIRS = 15
#: p-value of the correlation of rating and calibration z below which the report calls the misses systematic.
SYSTEMATIC_P = 0.05


def read_ratings_file(run_dir: Path, name: str) -> pd.DataFrame | None:
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
    ratings = read_ratings_file(folder, "ratings.csv")
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
    lines += _resolved(read_ratings_file(folder, "rating_differences.csv"))
    lines += _calibration(read_ratings_file(folder, "calibration.csv"), heads_up, ratings)
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
