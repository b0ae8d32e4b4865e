"""Reading a run folder back into a typed object: what every chart and report of the folder is drawn from.

A tournament folder (``summary.csv`` and the other tables of ``nines tournament``)
is read by ``load_run`` into a ``RunFolder``; a rule comparison
(``comparison.csv`` of ``nines compare-rules``) by ``load_comparison`` into a
``ComparisonFolder``; ``run_kind`` tells the two apart.  The labels that name
an entry (``"0:random"`` -> ``"random (seat 0)"``) live here too, since both the
charts and the report text use them; strategies are read under their short
labels (:mod:`nines_sim.reporting.labels`), the CSVs and the manifest keep the full
names.  Checking a folder against its manifest before redrawing it is
:mod:`nines_sim.reporting.check`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nines_sim.experiments.compare_rules.tables import COMPARISON_COLUMNS as WRITTEN_COMPARISON_COLUMNS
from nines_sim.reporting.labels import ELLIPSIS, label_map, same_strategy_same_spec, short_labels
from nines_sim.results.stats import wilson_array

#: Columns ``comparison.csv`` must have: all it is written with but ``test``, which folders before the exact
#: tests lack (the report then names the z-test they used).
COMPARISON_COLUMNS = tuple(c for c in WRITTEN_COMPARISON_COLUMNS if c != "test")


def as_bool(col: pd.Series) -> pd.Series:
    """``significant`` as booleans whether pandas read it as bool or as text ("True", "true", "1")."""
    if col.dtype == bool:
        return col
    return col.astype(str).str.strip().str.lower().isin(("true", "1", "yes"))


def run_kind(run_dir: Path | str) -> str:
    """``"comparison"`` (``comparison.csv``), ``"review"`` (``review.csv`` of ``nines review``), ``"tune"``
    (``trials.csv`` of ``nines tune``), ``"versus"`` (``nines tune --versus``: ``validation.csv`` without
    ``trials.csv``), ``"train"`` (``learning_curve.csv`` of ``nines train``) or ``"tournament"``."""
    if is_comparison_folder(run_dir):
        return "comparison"
    if (Path(run_dir) / "review.csv").is_file():  # nines review (nines_sim.experiments.review.report)
        return "review"
    if (Path(run_dir) / "front.csv").is_file():  # nines tune-rules (nines_sim.experiments.tune_rules.report)
        return "tune-rules"
    if (Path(run_dir) / "validation.csv").is_file() and not (Path(run_dir) / "trials.csv").is_file():
        return "versus"
    if (Path(run_dir) / "learning_curve.csv").is_file():  # nines train (nines_sim.learn.train)
        return "train"
    return "tune" if (Path(run_dir) / "trials.csv").is_file() else "tournament"


# --------------------------------------------------------------------------- tournament folders


@dataclass
class RunFolder:
    """The tables of one run folder, as written by the tournament runner.

    Attributes
    ----------
    path : pathlib.Path
        The folder.
    manifest : dict
        ``manifest.json``: command, seed, format, rules, lineup, matches, ...
    summary : pandas.DataFrame
        ``summary.csv``: one row per position (table) or strategy (round robin, field).
    hands : pandas.DataFrame or None
        ``hands.csv``: one row of hand statistics.
    score_distribution : pandas.DataFrame or None
        ``score_distribution.csv``: strategy, kind, points, count.
    seat_go_out : pandas.DataFrame or None
        ``seat_go_out.csv``: seat_from_dealer, hands, go_outs, go_out_rate.
    pairwise : pandas.DataFrame or None
        ``pairwise.csv``: one row per statistical comparison.
    head_to_head : pandas.DataFrame or None
        ``head_to_head.csv`` (round robin only).
    """

    path: Path
    manifest: dict[str, Any]
    summary: pd.DataFrame
    hands: pd.DataFrame | None
    score_distribution: pd.DataFrame | None
    seat_go_out: pd.DataFrame | None
    pairwise: pd.DataFrame | None
    head_to_head: pd.DataFrame | None

    @property
    def format(self) -> str:
        """``"table"``, ``"round-robin"`` or ``"field"``."""
        return str(self.manifest.get("format", "table"))

    @property
    def players(self) -> int:
        """Players at each table (from the manifest; a table run falls back to its number of seats)."""
        p = self.manifest.get("players")
        if p:
            return int(p)
        return 2 if self.format == "round-robin" else len(self.summary)


def load_run(run_dir: Path | str) -> RunFolder:
    """Read a run folder.

    ``manifest.json`` and ``summary.csv`` are required; any other table that
    is missing is ``None`` and its chart or report section is left out, so a
    folder with a file deleted still renders what it can.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        Folder written by the tournament runner.

    Returns
    -------
    RunFolder

    Raises
    ------
    FileNotFoundError
        If the folder, ``manifest.json`` or ``summary.csv`` is missing.
    """
    run_dir = Path(run_dir)
    for required in ("manifest.json", "summary.csv"):
        if not (run_dir / required).is_file():
            raise FileNotFoundError(f"{run_dir / required} not found; is {run_dir} a nines run folder?")
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))

    def optional(name: str) -> pd.DataFrame | None:
        p = run_dir / name
        return pd.read_csv(p) if p.is_file() else None

    # keep_default_na=False: a strategy could legitimately be called "NA" or "null".
    summary = pd.read_csv(run_dir / "summary.csv", keep_default_na=False, na_values=[""])
    summary["strategy"] = summary["strategy"].astype(str)
    run = RunFolder(
        path=run_dir,
        manifest=manifest,
        summary=summary.sort_values("position", kind="stable").reset_index(drop=True),
        hands=optional("hands.csv"),
        score_distribution=optional("score_distribution.csv"),
        seat_go_out=optional("seat_go_out.csv"),
        pairwise=optional("pairwise.csv"),
        head_to_head=optional("head_to_head.csv"),
    )
    _shorten_tournament(run)
    return run


def given_specs(manifest: dict[str, Any]) -> list[str] | None:
    """The strategy specs as the user gave them, in lineup order (``specs_given``; None in older manifests)."""
    given = manifest.get("specs_given")
    return [str(g) for g in given] if isinstance(given, list) else None


def _rename(df: pd.DataFrame | None, columns: tuple[str, ...], names: dict[str, str]) -> None:
    for c in columns:
        if df is not None and c in df.columns:
            df[c] = df[c].map(lambda x: names.get(str(x), x))


def _shorten_tournament(run: RunFolder) -> None:
    """Every strategy name of a tournament folder's tables as its short label (in place; see ``labels``)."""
    s = run.summary
    shown = label_map(list(s["strategy"]), given_specs(run.manifest))
    if all(k == v for k, v in shown.items()):
        return
    entries = {entry_label(run.format, int(p), n): entry_label(run.format, int(p), shown[n])
               for p, n in zip(s["position"], s["strategy"])}  # fmt: skip
    s["strategy"] = s["strategy"].map(shown)
    _rename(run.score_distribution, ("strategy",), shown)
    _rename(run.head_to_head, ("strategy", "opponent"), shown)
    _rename(run.pairwise, ("a", "b"), entries)


def shown_specs(specs: list[Any], manifest: dict[str, Any]) -> list[str]:
    """The manifest's lineup (or strategies) as short labels, by parameter file where the user named one."""
    return short_labels(_named(specs, manifest))


def _named(specs: list[Any], manifest: dict[str, Any]) -> list[str]:
    given = given_specs(manifest)
    specs = [str(x) for x in specs]
    return same_strategy_same_spec(specs, given) if given is not None and len(given) == len(specs) else specs


def label_key(specs: list[Any], manifest: dict[str, Any]) -> str | None:
    """A report's ``Labels`` line where a short label needs one: each numbered label (``#2``: two specs shorten
    alike, e.g. two parameter files of one name) with the spec it stands for, and where the values of a label
    were cut, where its full values are; None when every label speaks for itself."""
    named = _named(specs, manifest)
    labels = short_labels(named)
    numbered = dict.fromkeys((lab, spec) for lab, spec in zip(labels, named) if lab.rpartition(" #")[2].isdigit())
    parts = [f"`{lab}` is `{spec}`" for lab, spec in numbered]
    if any(ELLIPSIS in lab for lab in labels):
        parts.append(f"a label cut with {ELLIPSIS} has its full values in manifest.json and the CSVs")
    return f"- **Labels:** {'; '.join(parts)}" if parts else None


def entry_label(run_format: str, position: int, strategy: str) -> str:
    """Label of a summary row as ``pairwise.csv`` writes it: ``"0:random"`` at a table, else the name.

    At a table one strategy may sit in several seats, so the seat is part of the label.
    """
    return f"{position}:{strategy}" if run_format == "table" else strategy


def readable_label(label: str) -> str:
    """``"0:random"`` -> ``"random (seat 0)"``; a plain strategy name is returned unchanged."""
    seat, sep, name = label.partition(":")
    return f"{name} (seat {seat})" if sep and seat.isdigit() else label


def reference_rate(run_format: str, players: int) -> float:
    """Win rate of an entry with no edge: 0.5 heads-up in a round robin, else the fair share 1/P."""
    return 0.5 if run_format == "round-robin" else 1.0 / players


# --------------------------------------------------------------------------- comparison folders


@dataclass
class ComparisonFolder:
    """The tables of one ``nines compare-rules`` run folder.

    Attributes
    ----------
    path : pathlib.Path
        The folder.
    manifest : dict
        ``manifest.json``: command, seed, rule_sets, sweep, lineup, players, matches, ...
    comparison : pandas.DataFrame
        ``comparison.csv``, ordered by rule set (manifest order) and position; ``significant`` as bool.
    score_distribution : pandas.DataFrame or None
        ``score_distribution.csv``: rule_set, strategy, kind, points, count.
    """

    path: Path
    manifest: dict[str, Any]
    comparison: pd.DataFrame
    score_distribution: pd.DataFrame | None

    @property
    def rule_sets(self) -> list[str]:
        """Rule set labels in run order; the first is the reference of every change."""
        return rule_set_order(self.manifest, self.comparison)

    @property
    def reference(self) -> str:
        """Label of the first rule set, against which every change is measured."""
        return self.rule_sets[0]

    @property
    def players(self) -> int:
        """Players at the table (manifest; else the lineup's length; else the number of seats in the table)."""
        p = self.manifest.get("players")
        if p:
            return int(p)
        lineup = self.manifest.get("lineup")
        return len(lineup) if lineup else int(self.comparison["position"].nunique())

    @property
    def sweep(self) -> dict[str, Any] | None:
        """``{"option": ..., "values": [...]}`` for a sweep, else None."""
        s = self.manifest.get("sweep")
        return s if isinstance(s, dict) and s.get("option") else None


def rule_set_order(manifest: dict[str, Any], comparison: pd.DataFrame) -> list[str]:
    """Rule set labels in run order: the manifest's, then any other label of the table in order of appearance."""
    listed = [str(rs.get("label")) for rs in manifest.get("rule_sets") or [] if isinstance(rs, dict)]
    seen = list(dict.fromkeys(comparison["rule_set"].astype(str)))
    return list(dict.fromkeys([*[x for x in listed if x in seen], *seen])) or listed


def is_comparison_folder(run_dir: Path | str) -> bool:
    """Whether a folder was written by ``nines compare-rules`` (it has ``comparison.csv``)."""
    return (Path(run_dir) / "comparison.csv").is_file()


def load_comparison(run_dir: Path | str) -> ComparisonFolder:
    """Read a comparison run folder.

    ``manifest.json`` and ``comparison.csv`` are required; without
    ``score_distribution.csv`` the final-totals chart is left out.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        Folder written by ``nines compare-rules``.

    Returns
    -------
    ComparisonFolder

    Raises
    ------
    FileNotFoundError
        If the folder, ``manifest.json`` or ``comparison.csv`` is missing.
    ValueError
        If ``comparison.csv`` lacks a column.
    """
    run_dir = Path(run_dir)
    for required in ("manifest.json", "comparison.csv"):
        if not (run_dir / required).is_file():
            raise FileNotFoundError(f"{run_dir / required} not found; is {run_dir} a nines compare-rules folder?")
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    # keep_default_na=False: a strategy could be called "NA"; labels stay text even when they look like numbers.
    text = {"rule_set": str, "strategy": str}
    table = pd.read_csv(run_dir / "comparison.csv", keep_default_na=False, na_values=[""], dtype=text)
    missing = [c for c in COMPARISON_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"{run_dir / 'comparison.csv'} lacks the column(s) {', '.join(missing)}")
    table["significant"] = as_bool(table["significant"])
    order = {label: i for i, label in enumerate(rule_set_order(manifest, table))}
    table = table.assign(_order=table["rule_set"].map(order))
    table = table.sort_values(["_order", "position"], kind="stable").drop(columns="_order").reset_index(drop=True)
    _fill_missing_intervals(table)
    scores = None
    if (run_dir / "score_distribution.csv").is_file():
        scores = pd.read_csv(run_dir / "score_distribution.csv", keep_default_na=False, na_values=[""], dtype=text)
    _, names = seat_labels(table)
    shown = label_map(names, given_specs(manifest))
    if any(k != v for k, v in shown.items()):
        _rename(table, ("strategy",), shown)
        _rename(scores, ("strategy",), shown)
    return ComparisonFolder(path=run_dir, manifest=manifest, comparison=table, score_distribution=scores)


def _fill_missing_intervals(table: pd.DataFrame) -> None:
    """Wilson intervals from win rate and matches where the file left them empty (in place)."""
    gap = table["win_rate_low"].isna() | table["win_rate_high"].isna()
    if gap.any():
        n = table.loc[gap, "matches"].to_numpy(dtype=np.float64)
        low, high = wilson_array(table.loc[gap, "win_rate"].to_numpy(dtype=np.float64) * n, n)
        table.loc[gap, "win_rate_low"] = low
        table.loc[gap, "win_rate_high"] = high


def seat_labels(comparison: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Positions and their strategies, from the first row of each position: ``(positions, names)``."""
    seats = comparison.drop_duplicates("position").sort_values("position")
    return seats["position"].to_numpy(dtype=np.int64), [str(s) for s in seats["strategy"]]
