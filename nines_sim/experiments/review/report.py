"""What ``nines review`` writes: ``review.csv`` (one row per decision), a chart of points lost, ``report.md``.

The summaries (:func:`by_kind`, :func:`by_situation`) group the decisions of a
:class:`~nines_sim.experiments.review.work.Review`: accuracy (the share of decisions whose loss
is within the 95% interval of the best move), mean points lost per decision
with a 95% interval by match (:func:`mean_lost_interval`: a match's decisions
are not independent of each other), the share of all points lost, and the
counts of each class.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: runs happen without a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from nines_sim.experiments.review.work import COLUMNS, EARLY_ROUNDS, THRESHOLDS, Review, ReviewSetup, review_command  # noqa: E402
from nines_sim.reporting.labels import short_labels  # noqa: E402
from nines_sim.runs.output import write_csv  # noqa: E402

KIND_LABELS = {
    "play": "play a card",
    "declare": "the suit after a 9",
    "play_drawn": "play a drawn card",
    "dealer_declare": "the dealer's suit",
}
SITUATIONS = (
    ("opponent_about_to_go_out", True, "an opponent about to go out"),
    ("opponent_about_to_go_out", False, "no opponent about to go out"),
    ("holding_nines", True, "holding a 9"),
    ("holding_nines", False, "holding no 9"),
    ("phase", "early", f"early in the hand (first {EARLY_ROUNDS} rounds)"),
    ("phase", "late", "later in the hand"),
)
CLASSES = tuple(name for name, _ in THRESHOLDS)
FILES = ("review.csv", "points_lost.png", "report.md", "manifest.json")
#: ``manifest.json``'s ``kind`` of a review folder (``nines report`` tells the folders apart by it).
KIND = "review"


def clusters(decisions: pd.DataFrame) -> list[str]:
    """The columns whose values make one cluster of decisions: the match, or the hand when there is one match.

    A match's decisions share its deal, its opponents' play and its score, so they are not independent; the
    matches are.  A single match (a saved game) has no spread between matches to measure, so its hands,
    dealt afresh, stand in for them.
    """
    return ["match"] if decisions["match"].nunique() > 1 else ["match", "hand"]


def mean_lost_interval(lost: np.ndarray, cluster: np.ndarray) -> tuple[float, float, float]:
    """Mean points lost per decision and its 95% interval by cluster (match), never below 0.

    The cluster-robust standard error of the mean (``statsmodels`` OLS on a constant,
    ``cov_type="cluster"``, with a t quantile of clusters - 1 degrees of freedom): the spread of the
    matches' totals, not of single decisions, which within a match move together.  Points lost are never
    negative, so neither is the interval's low end.

    Parameters
    ----------
    lost : numpy.ndarray
        float64, (n,): points lost by each decision (>= 0).
    cluster : numpy.ndarray
        int64, (n,): each decision's cluster (match) code.

    Returns
    -------
    tuple of float
        ``(mean, low, high)``; NaN bounds with fewer than two clusters, NaN throughout with no decision.
    """
    if not len(lost):
        return math.nan, math.nan, math.nan
    mean = float(lost.mean())
    if len(np.unique(cluster)) < 2:
        return mean, math.nan, math.nan
    from statsmodels.regression.linear_model import OLS

    fit = OLS(lost, np.ones(len(lost))).fit(cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)
    low, high = (float(x) for x in fit.conf_int(0.05)[0])
    return mean, max(low, 0.0), high


def _summary(df: pd.DataFrame, total_lost: float, by: list[str]) -> dict:
    n = len(df)
    lost = df["points_lost"].to_numpy(dtype=float)
    cluster = df.groupby(by, sort=False).ngroup().to_numpy() if n else np.zeros(0, dtype=np.int64)
    mean, low, high = mean_lost_interval(lost, cluster)
    out = {
        "decisions": n,
        "accuracy": float(df["accurate"].mean()) if n else float("nan"),
        "mean_lost": mean,
        "low": low,
        "high": high,
        "share_of_points_lost": float(lost.sum() / total_lost) if total_lost > 0 else float("nan"),
    }
    for c in CLASSES:
        out[c] = int((df["verdict"] == c).sum())
    return out


def by_kind(decisions: pd.DataFrame) -> pd.DataFrame:
    """One row per decision kind (that occurred), in :data:`KIND_LABELS` order, and an "all" row."""
    total, by = float(decisions["points_lost"].sum()), clusters(decisions)
    rows = [
        {"group": KIND_LABELS[k], **_summary(decisions[decisions["kind"] == k], total, by)}
        for k in KIND_LABELS
        if (decisions["kind"] == k).any()
    ]
    rows.append({"group": "all decisions", **_summary(decisions, total, by)})
    return pd.DataFrame(rows)


def by_situation(decisions: pd.DataFrame) -> pd.DataFrame:
    """One row per situation of :data:`SITUATIONS` (those that occurred)."""
    total, by = float(decisions["points_lost"].sum()), clusters(decisions)
    rows = []
    for col, val, label in SITUATIONS:
        sub = decisions[decisions[col] == val]
        if len(sub):
            rows.append({"group": label, **_summary(sub, total, by)})
    return pd.DataFrame(rows)


def by_kind_and_threat(decisions: pd.DataFrame) -> pd.DataFrame:
    """Mean points lost per decision kind, with and without an opponent about to go out."""
    rows = []
    total, by = float(decisions["points_lost"].sum()), clusters(decisions)
    for k, label in KIND_LABELS.items():
        for threat in (False, True):
            sub = decisions[(decisions["kind"] == k) & (decisions["opponent_about_to_go_out"] == threat)]
            if len(sub):
                rows.append({"group": f"{label}, {'an opponent about to go out' if threat else 'no threat'}",
                             **_summary(sub, total, by)})  # fmt: skip
    return pd.DataFrame(rows)


def plot_points_lost(kind: pd.DataFrame, situation: pd.DataFrame, title: str = "", ax: Axes | None = None) -> Figure:
    """Mean points lost per decision with 95% intervals: by kind (left), by situation (right)."""
    if ax is None:
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    else:
        fig, axes = ax.figure, [ax, ax]
    for a, data, name in ((axes[0], kind, "by decision kind"), (axes[1], situation, "by situation")):
        if not len(data):
            continue
        y = data["mean_lost"].to_numpy()
        err = np.vstack([y - data["low"].to_numpy(), data["high"].to_numpy() - y])
        a.bar(range(len(data)), y, yerr=np.nan_to_num(err), capsize=4, color="tab:red", alpha=0.75)
        a.set_xticks(range(len(data)))
        a.set_xticklabels([f"{g}\n(n={n:,})" for g, n in zip(data["group"], data["decisions"])], rotation=30,
                          ha="right", fontsize=8)  # fmt: skip
        a.set_title(name)
        a.axhline(0, color="black", linewidth=0.6)
    axes[0].set_ylabel("mean points lost per decision vs the search\n(95% interval)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _pct(x: float) -> str:
    return "-" if np.isnan(x) else f"{100 * x:.1f}%"


def _per(decisions: pd.DataFrame) -> str:
    """What the intervals are taken over, in words (:func:`clusters`)."""
    return "by match" if clusters(decisions) == ["match"] else "by hand"


def _interval(r: dict, per: str) -> str:
    """A row's interval after its mean: ``[low, high]``, or why there is none (one match or hand in the row)."""
    if not np.isnan(r["low"]):
        return f" [{r['low']:.2f}, {r['high']:.2f}]"
    return f" n/a (1 {per.removeprefix('by ')})"  # mean_lost_interval: no spread from a single cluster


def _table(df: pd.DataFrame, per: str) -> list[str]:
    head = (f"| | decisions | accuracy | mean points lost [95% {per}] | share of points lost | "
            + " | ".join(CLASSES) + " |")  # fmt: skip
    lines = [head, "|---|---:|---:|---|---:|" + "---:|" * len(CLASSES)]
    for r in df.to_dict("records"):
        ci = _interval(r, per)
        counts = " | ".join(str(r[c]) for c in CLASSES)
        lines.append(f"| {r['group']} | {r['decisions']:,} | {_pct(r['accuracy'])} | {r['mean_lost']:.2f}{ci} | "
                     f"{_pct(r['share_of_points_lost'])} | {counts} |")  # fmt: skip
    return lines


def costliest(decisions: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The ``n`` decisions that lost the most points (ties: earlier first)."""
    return decisions.sort_values("points_lost", ascending=False, kind="stable").head(n)


def _labels(review: Review) -> list[str]:
    """The lineup as a person reads it: short labels (a plug-in by its file name, values rounded), not paths."""
    return short_labels([str(x) for x in review.lineup])


def player_label(review: Review) -> str:
    """Who was reviewed, by short label (:mod:`nines_sim.reporting.labels`): the title of the report and chart."""
    names = [str(x) for x in review.lineup]
    return _labels(review)[names.index(review.player)] if review.player in names else short_labels([review.player])[0]


def partial_line(review: Review) -> str | None:
    """For a review Ctrl-C stopped: the line naming the matches kept and the command that reviews them again."""
    if not review.stopped:
        return None
    from nines_sim.runs.ranges import format_ranges
    from nines_sim.runs.ranges import total as ranges_total

    return (f"PARTIAL (interrupted): {review.matches:,} of {ranges_total(review.ranges):,} matches reviewed, the "
            f"matches {format_ranges(review.kept)}; the kept_command in manifest.json reviews exactly these again: "
            f"{review_command(review, review.kept)}")  # fmt: skip


def report_lines(review: Review, chart: bool = True) -> list[str]:
    """report.md's lines; the chart ``points_lost.png`` is shown where ``chart`` (the folder holds it)."""
    d = review.decisions
    s = review.setup
    thresholds = ", ".join(f"{name} from {pts:g}" for name, pts in THRESHOLDS)
    lines = [
        f"# Review of {player_label(review)}",
        "",
        f"Lineup {', '.join(f'seat {i} {n}' for i, n in enumerate(_labels(review)))}; rules "
        f"{review.rules.preset}; seed {review.seed}; {review.matches:,} match(es); {len(d):,} decisions with a "
        f"choice reviewed in {review.seconds:.1f} s ({review.speed:.1f} decisions/s; the search took "
        f"{review.judge_seconds:.1f} s).",
        "",
    ]
    if (stopped := partial_line(review)) is not None:
        lines += [f"**{stopped}**", ""]
    lines += [
        f"Judge: the search (`lookahead`'s) with {s.samples} samples of the hidden cards, `{s.policy}` rollouts to "
        f"the end of the {s.outcome}, draw inference {s.infer:g}; every candidate move on the same samples. A "
        f"value is the opponents' mean hand penalty minus the player's own, in penalty points (higher is better); "
        f"points lost = the best move's value minus the chosen one's. A decision is accurate when its loss is "
        f"within the 95% interval of zero (not measurably worse than the best). Classes, in points lost outside "
        f"that interval: {thresholds}.",
        "",
    ]
    if review.note:
        lines += [f"**{review.note}** The judge does not see them, so its verdicts here are not a fair measure.", ""]
    if not len(d):
        return [*lines, "No decision with a choice was made."]
    per = _per(d)
    why = ("a match's decisions are not independent of each other" if per == "by match" else
           "one match, whose hands stand in for matches, as a hand's decisions are not independent")  # fmt: skip
    lines += [f"Mean points lost per decision with its 95% interval {per} ({why}): cluster-robust, never "
              f"below 0.", ""]  # fmt: skip
    lines += ["## By decision kind", "", *_table(by_kind(d), per), "", "## By situation", "",
              *_table(by_situation(d), per), ""]  # fmt: skip
    lines += ["## By decision kind and threat", "", *_table(by_kind_and_threat(d), per), ""]
    lines += ["## The costliest decisions", ""]
    for r in costliest(d).to_dict("records"):
        lines.append(f"- match {r['match']}, hand {r['hand']}, turn {r['turn']}: {r['kind']} {r['move']} "
                     f"(best {r['best']}), {r['points_lost']:.1f} +- {1.96 * r['lost_se']:.1f} points lost, "
                     f"{r['verdict']}: `{r['command']}`")  # fmt: skip
    return [*lines, "", *(["![points lost](points_lost.png)", ""] if chart else [])]


def read_decisions(path: Path) -> pd.DataFrame:
    """``review.csv`` as :class:`~nines_sim.experiments.review.work.Review` holds it (columns :data:`COLUMNS`).

    Raises
    ------
    ValueError
        If the file lacks a column (pandas' parser errors are ValueErrors too).
    """
    # every text as written: a move or class is never NA, and an empty command stays empty
    d = pd.read_csv(path, keep_default_na=False, dtype={"move": str, "best": str, "command": str})
    missing = [c for c in COLUMNS if c not in d.columns]
    if missing:
        raise ValueError(f"{path} lacks the column(s) {', '.join(missing)}")
    return d[list(COLUMNS)]


def _draw(review: Review, out: Path, chart: bool) -> list[Path]:
    """``points_lost.png`` (unless ``chart`` is off) and ``report.md`` from ``review``; the files written."""
    written = []
    d = review.decisions
    if chart and len(d):
        fig = plot_points_lost(by_kind(d), by_situation(d), f"Points lost by {player_label(review)} against the search")
        fig.savefig(out / "points_lost.png", dpi=110)
        plt.close(fig)
        written.append(out / "points_lost.png")
    # a chart already in the folder (``nines report --no-charts``) is of these same decisions: still shown
    shown = (out / "points_lost.png").is_file()
    (out / "report.md").write_text("\n".join(report_lines(review, shown)) + "\n", encoding="utf-8")
    written.append(out / "report.md")
    return written


def review_manifest(review: Review) -> dict:
    """``manifest.json``'s fields: what makes the review again (``command``; ``kept_command`` of a stopped one)
    and everything its report is drawn from besides ``review.csv``."""
    import platform
    import sys

    from nines_sim import __version__
    from nines_sim.runs.learned_files import learned_files, manifest_field
    from nines_sim.runs.output import speed_fields, started_at

    s = review.setup
    rules = review.rules
    return {
        "kind": KIND,
        "command": review_command(review),
        "kept_command": review_command(review, review.kept) if review.stopped else None,
        "version": __version__,
        "player": review.player,
        "lineup": [str(x) for x in review.lineup],
        "source": review.source,
        "preset": rules.preset,
        "rules": rules.options() | {"hand_sizes": list(rules.hand_sizes)},
        "players": rules.players,
        "seed": review.seed,
        "ranges": [list(r) for r in review.ranges],
        "kept_ranges": [list(r) for r in review.kept],
        "matches_played": review.matches,
        "partial": review.stopped,
        "decisions": len(review.decisions),
        "samples": s.samples,
        "policy": s.policy,
        "outcome": s.outcome,
        "infer": s.infer,
        "note": review.note,
        **speed_fields(review.seconds, 0.0, review.matches),
        "judge_seconds": round(review.judge_seconds, 3),
        "started": started_at(review.seconds),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "platform": sys.platform,
        # the judge's rollouts are lookahead's, with its policy: a learned one loads the shipped model
        **manifest_field(learned_files([*(str(x) for x in review.lineup), f"lookahead:policy={s.policy}"], rules)),
    }


def review_of_folder(run_dir: Path) -> Review:
    """The review a folder of ``nines review`` holds, from ``review.csv`` and ``manifest.json`` alone.

    Raises
    ------
    KeyError, TypeError, ValueError
        If the manifest lacks a field or a file lacks a column.
    """
    import json

    from nines_sim.game.rules import make_rules

    m = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in m["rules"].items()}
    luck = (run_dir / "luck_skill.csv").is_file()  # a review with --luck wrote it
    return Review(
        read_decisions(run_dir / "review.csv"), m["player"], list(m["lineup"]), make_rules(m["preset"], **options),
        int(m["seed"]), int(m["matches_played"]), ReviewSetup(int(m["samples"]), m["policy"], m["outcome"],
        float(m["infer"]), luck), float(m["wall_seconds"]), float(m["judge_seconds"]), m["note"], bool(m["partial"]),
        [tuple(r) for r in m["ranges"]], [tuple(r) for r in m["kept_ranges"]], m["source"],
    )  # fmt: skip


def write_review(review: Review, out: Path, chart: bool = True) -> list[Path]:
    """Write ``review.csv``, ``points_lost.png`` (unless ``chart`` is off), ``report.md`` and ``manifest.json``.

    The chart and report are drawn from ``review.csv`` as written, so that ``nines report`` redraws them alike.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    from dataclasses import replace

    from nines_sim.runs.output import write_manifest

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = [write_csv(review.decisions, out / "review.csv")]
    (out / "points_lost.png").unlink(missing_ok=True)  # a previous run's chart (--force) is not this one's
    # as nines report reads them back: the rows from review.csv, the times from the manifest (to the ms)
    shown = replace(review, decisions=read_decisions(out / "review.csv"), seconds=round(review.seconds, 3),
                    judge_seconds=round(review.judge_seconds, 3))  # fmt: skip
    written += _draw(shown, out, chart)
    written.append(write_manifest(out, review_manifest(review), files=["review.csv"]))
    return written


def redraw_folder(run_dir: Path, charts: bool = True) -> None:
    """``nines report`` of a review folder: ``points_lost.png`` and ``report.md`` from its files alone."""
    _draw(review_of_folder(Path(run_dir)), Path(run_dir), charts)


def terminal_lines(review: Review) -> list[str]:
    """A short summary for the terminal: the table by kind and by situation."""
    d = review.decisions
    kinds = "decision" if len(d) == 1 else "decisions"
    out = [f"{len(d):,} {kinds} with a choice in {review.seconds:.1f} s ({review.speed:.1f}/s)"]
    if review.note:
        out.append(f"Note: {review.note}")
    if not len(d):
        return out
    per = _per(d)
    for title, table in (("by decision kind", by_kind(d)), ("by situation", by_situation(d))):
        out.append(f"\n{title}: decisions, accuracy, mean points lost [95% {per}], share of points lost")
        for r in table.to_dict("records"):
            ci = f"{r['mean_lost']:6.2f}" + _interval(r, per)
            out.append(f"  {r['group']:<42} {r['decisions']:>6,} {_pct(r['accuracy']):>7} {ci:<22} "
                       f"{_pct(r['share_of_points_lost']):>7}")  # fmt: skip
    return out
