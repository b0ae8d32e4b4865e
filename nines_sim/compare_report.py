"""Charts and a Markdown report of a rule comparison, drawn from its run folder alone.

``nines compare-rules`` plays one lineup under several rule sets and writes
``comparison.csv`` (one row per rule set and seat), ``score_distribution.csv``
and ``manifest.json`` into a folder.  This module reads them back
(``load_comparison``) and draws

- ``win_rates_by_rule_set.png``: each seat's win rate under each rule set;
- ``final_totals_by_rule_set.png``: the final-total distribution of each rule set;
- ``sweep.png`` (sweeps only): each seat's win rate against the swept value;

then writes ``report.md`` (``write_comparison_report``).  As in
:mod:`nines_sim.charts`, every chart has a data function and a plot function
``plot_x(data, ax=None) -> Figure`` that only draws; ``save_all_comparison``
writes every chart the folder has data for.  Formatting helpers, the Wilson
interval and the histogram binning are shared with the tournament report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

# charts selects the file-only Agg backend before pyplot loads; import it before anything draws.
from nines_sim.charts import (
    Histogram,
    _figure,
    _save,
    distribution_data,
    entry_label,
    plot_final_totals,
    readable_label,
    wilson_interval,
)
from nines_sim.report import (
    ALPHA,
    _as_bool,
    _fixed,
    _md_cell,
    _num,
    _pct,
    _pp,
    _test_name,
    format_p,
    format_seconds,
    kept_command_lines,
    key_options,
    too_small,
    too_small_note,
)

#: File names of the charts, in the order the report shows them.
COMPARISON_CHART_FILES = ("win_rates_by_rule_set.png", "final_totals_by_rule_set.png", "sweep.png")

#: Columns ``comparison.csv`` must have.
COMPARISON_COLUMNS = (
    "rule_set",
    "sweep_value",
    "position",
    "strategy",
    "matches",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "mean_total",
    "mean_hands_per_match",
    "mean_turns_per_hand",
    "delta_win_rate",
    "delta_low",
    "delta_high",
    "delta_p_value",
    "delta_p_holm",
    "significant",
)

CHART_TITLES = {
    "win_rates_by_rule_set.png": "Win rates by rule set",
    "final_totals_by_rule_set.png": "Final totals by rule set",
    "sweep.png": "Win rates along the sweep",
}

CAPTIONS = {
    "win_rates_by_rule_set.png": "Win rate of each seat under each rule set, with 95% Wilson intervals; "
    "the dashed line is the fair share 1/{players} = {fair:.3g}.",
    "final_totals_by_rule_set.png": "Distribution of final match totals under each rule set, all seats together "
    "(share of seat-matches per bin; lower wins).",
    "sweep.png": "Win rate of each seat against {option}, with its 95% Wilson band; "
    "the dashed line is the fair share 1/{players} = {fair:.3g}.",
}


# --------------------------------------------------------------------------- reading a run folder


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
    table["significant"] = _as_bool(table["significant"])
    order = {label: i for i, label in enumerate(rule_set_order(manifest, table))}
    table = table.assign(_order=table["rule_set"].map(order))
    table = table.sort_values(["_order", "position"], kind="stable").drop(columns="_order").reset_index(drop=True)
    _fill_missing_intervals(table)
    scores = None
    if (run_dir / "score_distribution.csv").is_file():
        scores = pd.read_csv(run_dir / "score_distribution.csv", keep_default_na=False, na_values=[""], dtype=text)
    return ComparisonFolder(path=run_dir, manifest=manifest, comparison=table, score_distribution=scores)


def _fill_missing_intervals(table: pd.DataFrame) -> None:
    """Wilson intervals from win rate and matches where the file left them empty (in place)."""
    gap = table["win_rate_low"].isna() | table["win_rate_high"].isna()
    if gap.any():
        n = table.loc[gap, "matches"].to_numpy(dtype=np.float64)
        low, high = wilson_interval(table.loc[gap, "win_rate"].to_numpy(dtype=np.float64) * n, n)
        table.loc[gap, "win_rate_low"] = low
        table.loc[gap, "win_rate_high"] = high


def seat_labels(comparison: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Positions and their strategies, from the first row of each position: ``(positions, names)``."""
    seats = comparison.drop_duplicates("position").sort_values("position")
    return seats["position"].to_numpy(dtype=np.int64), [str(s) for s in seats["strategy"]]


# --------------------------------------------------------------------------- data functions


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
    nines_sim.charts.Histogram
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


# --------------------------------------------------------------------------- plot functions


def _colour(i: int, n: int) -> Any:
    """Distinct colours for up to 20 rule sets (matplotlib's default cycle repeats after 10)."""
    from matplotlib import colormaps

    return f"C{i}" if n <= 10 else colormaps["tab20"](i % 20)


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
    fig, ax = _figure(ax, (max(6.0, 0.35 * n_sets * n_seats + 0.8 * n_seats + 2), 4.8))
    x = np.arange(n_seats)
    width = 0.8 / max(n_sets, 1)
    for r, label in enumerate(data.rule_sets):
        offset = (r - (n_sets - 1) / 2) * width
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
    ax.set_xticks(x, data.seat_labels)
    ax.set_xlabel("Seat and strategy")
    ax.set_ylabel("Win rate (share of matches won)")
    ax.set_title("Win rate per seat under each rule set (95% Wilson intervals)")
    if np.isfinite(data.high).any():
        # Head room for the legend above the tallest whisker.
        ax.set_ylim(0, 1.3 * max(float(np.nanmax(data.high)), data.reference))
    ax.legend(loc="upper right", fontsize="small", ncols=2 if n_sets > 3 else 1)
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_final_totals_by_rule_set(data: Histogram, ax: Axes | None = None) -> Figure:
    """Step histogram of final totals, one line per rule set (see ``charts.plot_distribution``).

    Parameters
    ----------
    data : nines_sim.charts.Histogram
        From ``final_totals_by_rule_set_data``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = plot_final_totals(data, ax=ax)
    ax = ax if ax is not None else fig.axes[0]
    ax.set_title("Final match totals by rule set (all seats)")
    ax.set_ylabel("Share of seat-matches (rate)")
    if data.shares:
        ax.legend(loc="best", fontsize="small", title="rule set", title_fontsize="small")
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
    fig, ax = _figure(ax, (8.0, 4.8))
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
    ax.legend(loc="best", fontsize="small")
    ax.grid(alpha=0.3)
    return fig


# --------------------------------------------------------------------------- writing the charts


def save_all_comparison(run_dir: Path | str) -> list[Path]:
    """Draw every chart the comparison folder has data for and save them as PNG files in it.

    Writes ``win_rates_by_rule_set.png``; ``final_totals_by_rule_set.png``
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
    if run.score_distribution is not None:
        totals = final_totals_by_rule_set_data(run.score_distribution, sets)
        written.append(_save(plot_final_totals_by_rule_set(totals), out / "final_totals_by_rule_set.png"))
    if run.sweep is not None:
        lines = sweep_data(run.comparison, sets, run.sweep, run.players)
        written.append(_save(plot_sweep(lines), out / "sweep.png"))
    else:
        (out / "sweep.png").unlink(missing_ok=True)
    return written


# --------------------------------------------------------------------------- coupling of deals


def _hand_size(rules: dict[str, Any]) -> int | None:
    """Cards dealt to each player at this rule set's table, or None if the manifest does not say."""
    sizes, players = rules.get("hand_sizes"), rules.get("players")
    if isinstance(sizes, list | tuple) and isinstance(players, int) and 0 <= players - 2 < len(sizes):
        return int(sizes[players - 2])
    return None


def deal_differences(reference: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """Why two rule sets deal different cards: deck size, players or hand size, in words.

    Parameters
    ----------
    reference, other : dict
        ``rules`` of two entries of ``manifest["rule_sets"]``.

    Returns
    -------
    list of str
        E.g. ``["2 decks instead of 1"]``; empty when deck, table and hand sizes agree.
    """
    out = []
    if other.get("decks") != reference.get("decks"):
        out.append(f"{other.get('decks')} decks instead of {reference.get('decks')}")
    if other.get("players") != reference.get("players"):
        out.append(f"{other.get('players')} players instead of {reference.get('players')}")
    a, b = _hand_size(reference), _hand_size(other)
    if a != b:
        out.append(f"{b} cards dealt to each player instead of {a}")
    elif list(reference.get("hand_sizes") or []) != list(other.get("hand_sizes") or []):
        out.append("different hand_sizes")
    return out


@dataclass
class Coupling:
    """Whether one rule set shares its deals with the reference (the first rule set).

    Attributes
    ----------
    label : str
        The rule set.
    coupled : bool
        Same deck size, players and hand sizes as the reference, so match i is dealt the same cards.
    reasons : list of str
        Why not, when not coupled (may be empty if the manifest gives no rules).
    """

    label: str
    coupled: bool
    reasons: list[str]


def coupling(run: ComparisonFolder) -> list[Coupling]:
    """Coupling of every rule set after the first, from the manifest.

    ``deals_coupled`` is taken as written; where it is missing it is derived from the rules.
    """
    entries = {str(e.get("label")): e for e in run.manifest.get("rule_sets") or [] if isinstance(e, dict)}
    ref_rules = (entries.get(run.reference) or {}).get("rules") or {}
    out = []
    for label in run.rule_sets[1:]:
        entry = entries.get(label) or {}
        reasons = deal_differences(ref_rules, entry.get("rules") or {}) if ref_rules and entry.get("rules") else []
        coupled = entry.get("deals_coupled")
        out.append(Coupling(label, bool(coupled) if coupled is not None else not reasons, reasons))
    return out


def _join(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _code_list(labels: list[str]) -> str:
    return _join([f"`{x}`" for x in labels])


def coupling_paragraph(run: ComparisonFolder) -> list[str]:
    """The section that says which rule sets share deals with the first (common random numbers) and why not."""
    ref = run.reference
    couplings = coupling(run)
    shared = [c.label for c in couplings if c.coupled]
    apart = [c for c in couplings if not c.coupled]
    lines = [
        "## Common random numbers",
        "",
        f"Every rule set plays the same seed and the same match indices, and each change is measured against "
        f"the first rule set, `{ref}`, match by match.",
    ]
    text = []
    if shared:
        verb = "uses" if len(shared) == 1 else "use"
        text.append(
            f"{_code_list(shared)} {verb} the same deck size, number of players and hand size as `{ref}`, so "
            "the deals coincide match by match (common random numbers): a shift in win rate there comes from the "
            "rules rather than from the luck of the deal, and the paired intervals are narrower than independent "
            "samples would give."
        )
    for c in apart:
        why = _join(c.reasons) if c.reasons else "a different deck size, number of players or hand size"
        text.append(
            f"`{c.label}` does not share deals with `{ref}` ({why}), so its matches are dealt other cards. "
            "Its change is still computed over the same "
            "match indices and its test remains valid, but it gains little from the pairing and its interval is "
            "about as wide as for independent samples."
        )
    if text:
        lines[-1] += " " + " ".join(text)
    return [*lines, ""]


# --------------------------------------------------------------------------- report sections


def _rule_set_entry(run: ComparisonFolder, label: str) -> dict[str, Any]:
    for e in run.manifest.get("rule_sets") or []:
        if isinstance(e, dict) and str(e.get("label")) == label:
            return e
    return {}


def _option_text(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def _rule_set_line(run: ComparisonFolder, label: str) -> str:
    """``- `hard-nines` (preset hard-nines): nine_penalty=25 (classic: 15)`` for the run facts."""
    entry = _rule_set_entry(run, label)
    rules = entry.get("rules") or {}
    preset = f" (preset `{entry['preset']}`)" if entry.get("preset") else ""
    if label == run.reference:
        opts = key_options(rules) if rules else {}
        shown = ", ".join(f"{k}={_option_text(v)}" for k, v in opts.items())
        return f"  - `{label}`{preset}, the reference: {shown or 'default options'}"
    ref_rules = _rule_set_entry(run, run.reference).get("rules") or {}
    changed = [
        f"{k}={_option_text(v)} ({_option_text(ref_rules.get(k))} in the reference)"
        for k, v in rules.items()
        if k in ref_rules and _option_text(v) != _option_text(ref_rules.get(k))
    ]
    if rules and not changed:
        return f"  - `{label}`{preset}: the same options as `{run.reference}`"
    return f"  - `{label}`{preset}: {', '.join(changed) if changed else 'options not recorded'}"


def _matches_line(run: ComparisonFolder) -> str:
    m = run.manifest
    played = m.get("matches_played")
    if not isinstance(played, int | float):
        # Not a single number: what comparison.csv says each rule set played.
        per = run.comparison.groupby("rule_set", sort=False)["matches"].max()
        played = ", ".join(f"{r} {_num(int(per[r]))}" for r in run.rule_sets if r in per)
    else:
        played = _num(played)
    return f"{played} played of {_num(m.get('matches'))} requested, per rule set ({len(run.rule_sets)} rule sets)"


def _run_facts(run: ComparisonFolder) -> list[str]:
    m = run.manifest
    lineup = m.get("lineup") or seat_labels(run.comparison)[1]
    lines = [
        "## Run",
        "",
        f"- **Command:** `{m.get('command', 'n/a')}`",
        f"- **Lineup:** {', '.join(map(str, lineup))} ({run.players} players)",
        "- **Rule sets:**",
        *[_rule_set_line(run, label) for label in run.rule_sets],
    ]
    if run.sweep is not None:
        values = ", ".join(map(str, run.sweep.get("values") or []))
        base = f" on `{run.sweep['base']}`" if run.sweep.get("base") else ""
        lines.append(f"- **Sweep:** {run.sweep['option']} over {values}{base}")
    lines += [
        f"- **Matches:** {_matches_line(run)}",
        f"- **Seed:** {m.get('seed', 'n/a')}",
        f"- **Workers:** {m.get('workers', 'n/a')} (batch size {m.get('batch_size', 'n/a')})",
        f"- **Wall time:** {format_seconds(m.get('wall_seconds'))} "
        f"({_num(m.get('matches_per_s'), ',.0f')} matches/s over all rule sets)",
        f"- **Software:** nines-sim {m.get('version', 'n/a')}, Python {m.get('python', 'n/a')}, "
        f"numpy {m.get('numpy', 'n/a')}; started {m.get('started', 'n/a')}",
        "",
    ]
    return lines


def _seat(row: Any) -> str:
    return readable_label(entry_label("table", int(row.position), str(row.strategy)))


def _change_cell(row: Any, reference: str) -> str:
    if str(row.rule_set) == reference:
        return "reference"
    if not np.isfinite(row.delta_win_rate):
        return "n/a"
    mark = " *" if row.significant else ""
    return f"{_pp(row.delta_win_rate)} ({_pp(row.delta_low)} to {_pp(row.delta_high)}){mark}"


def results_table(run: ComparisonFolder) -> list[str]:
    """The key table as Markdown lines: one row per rule set and seat, in run order.

    Parameters
    ----------
    run : ComparisonFolder
        From ``load_comparison``.

    Returns
    -------
    list of str
        Header, separator, one row per row of ``comparison.csv`` and a note on the marks.
    """
    ref = run.reference
    apart = {c.label for c in coupling(run) if not c.coupled}
    lines = [
        f"| Rule set | Seat: strategy | Win rate (95% CI) | Change vs {_md_cell(ref)} (pp, 95% CI) "
        "| Mean total (points) | Hands per match | Turns per hand |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for row in run.comparison.itertuples(index=False):
        label = _md_cell(row.rule_set) + (" †" if row.rule_set in apart else "")
        ci = f"{_pct(row.win_rate)} ({_pct(row.win_rate_low)} to {_pct(row.win_rate_high)})"
        lines.append(
            f"| {label} | {_md_cell(_seat(row))} | {ci} | {_change_cell(row, ref)} | {_fixed(row.mean_total, 1)} "
            f"| {_fixed(row.mean_hands_per_match, 2)} | {_fixed(row.mean_turns_per_hand, 1)} |"
        )
    lines += [
        "",
        f"Changes are in percentage points (pp) of win rate against `{ref}` at the same seat; "
        f"* marks a significant shift (Holm-adjusted p < {ALPHA:g})."
        + (f" † marks a rule set whose deals differ from `{ref}`'s (no common random numbers)." if apart else ""),
    ]
    return lines


def shift_sentence(row: Any, reference: str) -> str:
    """One plain sentence for a significant shift (a row of ``comparison.csv``).

    Parameters
    ----------
    row : namedtuple
        A row of ``comparison.csv`` (``itertuples``).
    reference : str
        Label of the first rule set.

    Returns
    -------
    str
        E.g. "Under hard-nines, dump-faces (seat 2) wins 2.31 percentage points more than under classic
        (95% CI 1.92 to 2.70; exact McNemar test, Holm-adjusted p < 0.0001)."
    """
    est, lo, hi = float(row.delta_win_rate), float(row.delta_low), float(row.delta_high)
    direction = "more" if est >= 0 else "less"
    if np.isfinite(lo) and np.isfinite(hi) and lo * hi > 0:
        # The interval lies on one side of zero: give it in the same words as the estimate (sizes of the shift).
        a, b = sorted((abs(100 * lo), abs(100 * hi)))
        ci = f"95% CI {a:.2f} to {b:.2f}"
    else:
        ci = f"95% CI {_pp(lo)} to {_pp(hi)}"
    return (
        f"Under {row.rule_set}, {_seat(row)} wins {abs(100 * est):.2f} percentage points {direction} than under "
        f"{reference} ({ci}; {_test_name(row)}, Holm-adjusted {format_p(float(row.delta_p_holm))})."
    )


def _shift_method(tested: pd.DataFrame, ref: str) -> str:
    """The paragraph that says how the shifts were tested: the tests named in ``comparison.csv``'s ``test`` column."""
    holm = (
        f"The p-values are adjusted with the Holm correction across all {len(tested)} shifts together, and a shift "
        f"counts as significant when the adjusted p is below {ALPHA:g} (the 5% level)."
    )
    head = f"Each shift is the change of one seat's win rate under a rule set against `{ref}`"
    if "test" not in tested.columns:  # a folder written before the exact tests
        return (
            f"{head}, tested with a paired two-sided z-test of the per-match win-share difference under common "
            f"random numbers (the same match indices under both rule sets). {holm} The 95% CI is the estimate "
            "± 1.96 standard errors of the paired difference."
        )
    used = [str(t) for t in dict.fromkeys(tested["test"]) if isinstance(t, str) and t]
    names = " and the ".join(used) if used else "paired exact"
    return (
        f"{head}, paired over the same match indices under both rule sets (common random numbers) and tested "
        f"with the two-sided {names} test{'s' if len(used) > 1 else ''}: a binomial test of 1/2 on the matches in "
        "which the seat did better under one rule set than under the other (won under one and not the other, "
        "or took a larger share of a shared win), which holds its level at any number of matches. "
        f"{holm} The 95% CI is the Agresti-Min interval of the paired difference, which never has zero width."
    )


def _significance(run: ComparisonFolder) -> list[str]:
    ref = run.reference
    shifts = run.comparison[run.comparison["rule_set"] != ref]
    lines = ["## Which shifts are significant", ""]
    if too_small(run.manifest):
        return [*lines, "None is claimed: too few matches were played to test them (see the note at the top).", ""]
    if shifts.empty:
        return [*lines, "There is no rule set besides the reference, so there is nothing to test.", ""]
    tested = shifts[np.isfinite(shifts["delta_p_holm"].to_numpy(dtype=np.float64))]
    lines += [_shift_method(tested, ref), ""]
    hits = tested[tested["significant"]]
    lines += [f"- {shift_sentence(r, ref)}" for r in hits.itertuples(index=False)]
    misses = tested[~tested["significant"]]
    if len(misses):
        n = len(misses)
        if hits.empty:
            head = f"No shift is significant at the {ALPHA:.0%} level after the Holm correction:"
        else:
            head = (
                f"{n} of {len(tested)} shift{'s' if len(tested) != 1 else ''} {'was' if n == 1 else 'were'} "
                f"not significant at the {ALPHA:.0%} level after the Holm correction:"
            )
        lines += ["", head, ""] if len(hits) else [head, ""]
        for label in run.rule_sets[1:]:
            group = misses[misses["rule_set"] == label]
            if len(group):
                named = "; ".join(
                    f"{_seat(r)} {_pp(r.delta_win_rate)} pp ({_test_name(r)}, adjusted {format_p(r.delta_p_holm)})"
                    for r in group.itertuples(index=False)
                )
                lines.append(f"- under {label}: {named}")
    elif not hits.empty:
        lines += ["", f"All {len(tested)} shifts were significant at the {ALPHA:.0%} level after the Holm correction."]
    untested = shifts[~shifts.index.isin(tested.index)]
    if len(untested):
        names = ", ".join(sorted({str(r) for r in untested["rule_set"]}, key=run.rule_sets.index))
        lines += [
            "",
            f"Not tested ({len(untested)} row{'s' if len(untested) != 1 else ''}, no p-value in the file): {names}.",
        ]
    return [*lines, ""]


def _charts(run: ComparisonFolder) -> list[str]:
    present = [f for f in COMPARISON_CHART_FILES if (run.path / f).is_file()]
    if run.sweep is None:
        present = [f for f in present if f != "sweep.png"]
    if not present:
        return []
    fmt = {"players": run.players, "fair": 1.0 / run.players, "option": (run.sweep or {}).get("option", "")}
    lines = ["## Charts", ""]
    for i, name in enumerate(present, start=1):
        lines += [f"![{CHART_TITLES[name]}]({name})", "", f"*Figure {i}. {CAPTIONS[name].format(**fmt)}*", ""]
    return lines


def _reproduce(run: ComparisonFolder) -> list[str]:
    m = run.manifest
    lines = [
        "## Reproduce",
        "",
        f"With nines-sim {m.get('version', 'n/a')}, this command replays the run exactly (seed {m.get('seed', 'n/a')}; "
        "the results do not depend on the number of workers or the batch size):",
        "",
        "```bash",
        str(m.get("command", "n/a")),
        "```",
        "",
    ]
    if m.get("partial"):
        lines[2:2] = [f"The run above was partial; the command plays all {_num(m.get('matches'))} requested "
                      "matches per rule set.", ""]  # fmt: skip
        lines += kept_command_lines(m)
    return lines


def _partial_warning(run: ComparisonFolder) -> list[str]:
    m = run.manifest
    played, requested = m.get("matches_played"), m.get("matches")
    share = ""
    if isinstance(played, int | float) and isinstance(requested, int | float) and requested:
        share = f" ({played / requested:.0%})"
    return [
        f"> **PARTIAL RUN:** only {_num(played)} of {_num(requested)} requested matches per rule set were "
        f"played{share}. The run stopped early; the numbers below cover the matches played, with wider intervals. "
        "Only whole chunks of match indices, played under every rule set, were kept, so the comparison stays paired.",
        "",
    ]


def render_comparison_report(run: ComparisonFolder) -> str:
    """The whole comparison report as Markdown text.

    Parameters
    ----------
    run : ComparisonFolder
        From ``load_comparison``.

    Returns
    -------
    str
    """
    lines = [f"# Rule comparison: {' vs '.join(run.rule_sets)}", ""]
    if run.manifest.get("partial"):
        lines += _partial_warning(run)
    lines += too_small_note(run.manifest, "per rule set")
    lines += _run_facts(run)
    lines += coupling_paragraph(run)
    lines += ["## Results", "", *results_table(run), ""]
    lines += _significance(run)
    lines += _charts(run)
    lines += _reproduce(run)
    return "\n".join(lines)


def write_comparison_report(run_dir: Path | str) -> Path:
    """Write ``report.md`` into a comparison folder from its CSV files and manifest.

    Charts are embedded only if their PNG files already exist, so call
    ``save_all_comparison`` first.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        Folder written by ``nines compare-rules``.

    Returns
    -------
    pathlib.Path
        The report written.
    """
    run = load_comparison(run_dir)
    path = run.path / "report.md"
    path.write_text(render_comparison_report(run), encoding="utf-8")
    return path
