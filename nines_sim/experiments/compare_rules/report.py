"""The report of a ``nines compare-rules`` run folder (rule sets or a sweep), assembled from shared parts.

``render_comparison_report`` turns a
:class:`~nines_sim.reporting.folders.ComparisonFolder` into Markdown: the run
facts with each rule set's changed options, which rule sets share deals with
the first (common random numbers), the results table of win rates and paired
shifts, which shifts are significant in plain sentences, the charts that exist
and the command that reproduces the run.  ``write_comparison_report`` writes it
as ``report.md``; draw the charts first (``charts.save_all_comparison``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nines_sim.experiments.compare_rules.coupling import Coupling, coupling, coupling_paragraph, deal_differences  # noqa: F401
from nines_sim.reporting.folders import (
    ComparisonFolder,
    entry_label,
    label_key,
    load_comparison,
    readable_label,
    seat_labels,
    shown_specs,
)
from nines_sim.reporting.markdown import (
    ALPHA,
    NONE_CLAIMED,
    all_significant,
    cell,
    charts_section,
    command_line,
    fixed,
    format_p,
    not_significant,
    num,
    option_text,
    options_text,
    pct,
    pp,
    pp_size,
    reproduce,
    run_facts_tail,
    share_of,
    test_name,
    too_small,
    too_small_note,
)

CHART_TITLES = {
    "win_rates_by_rule_set.png": "Win rates by rule set",
    "shifts_by_rule_set.png": "Paired shifts by rule set",
    "final_totals_by_rule_set.png": "Final totals by rule set",
    "sweep.png": "Win rates along the sweep",
}

CAPTIONS = {
    "win_rates_by_rule_set.png": "Win rate of each seat under each rule set, with 95% Wilson intervals; "
    "the dashed line is the fair share 1/{players} = {fair:.3g}.",
    "shifts_by_rule_set.png": "Change of each seat's win rate under each rule set against `{reference}`, in "
    "percentage points, with its paired 95% interval (the finding: measured on the same matches, it is narrower than "
    "the win-rate intervals above suggest); filled markers are significant after the Holm correction.",
    "final_totals_by_rule_set.png": "Distribution of final match totals under each rule set, all seats together "
    "(share of seat-matches per bin; lower wins).",
    "sweep.png": "Win rate of each seat against {option}, with its 95% Wilson band; "
    "the dashed line is the fair share 1/{players} = {fair:.3g}.",
}


# --------------------------------------------------------------------------- coupling of deals


# --------------------------------------------------------------------------- report sections


def _rule_set_entry(run: ComparisonFolder, label: str) -> dict[str, Any]:
    for e in run.manifest.get("rule_sets") or []:
        if isinstance(e, dict) and str(e.get("label")) == label:
            return e
    return {}


def _rule_set_line(run: ComparisonFolder, label: str) -> str:
    """``- `hard-nines` (preset hard-nines): nine_penalty=25 (classic: 15)`` for the run facts."""
    entry = _rule_set_entry(run, label)
    rules = entry.get("rules") or {}
    preset = f" (preset `{entry['preset']}`)" if entry.get("preset") else ""
    if label == run.reference:
        return f"  - `{label}`{preset}, the reference: {options_text(rules)}"
    ref_rules = _rule_set_entry(run, run.reference).get("rules") or {}
    changed = [
        f"{k}={option_text(v)} ({option_text(ref_rules.get(k))} in the reference)"
        for k, v in rules.items()
        if k in ref_rules and option_text(v) != option_text(ref_rules.get(k))
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
        played = ", ".join(f"{r} {num(int(per[r]))}" for r in run.rule_sets if r in per)
    else:
        played = num(played)
    return f"{played} played of {num(m.get('matches'))} requested, per rule set ({len(run.rule_sets)} rule sets)"


def _run_facts(run: ComparisonFolder) -> list[str]:
    m = run.manifest
    lineup = shown_specs(m["lineup"], m) if m.get("lineup") else seat_labels(run.comparison)[1]
    lines = [
        "## Run",
        "",
        command_line(m),
        f"- **Lineup:** {', '.join(map(str, lineup))} ({run.players} players)",
        *([key] if m.get("lineup") and (key := label_key(m["lineup"], m)) else []),
        "- **Rule sets:**",
        *[_rule_set_line(run, label) for label in run.rule_sets],
    ]
    if run.sweep is not None:
        values = ", ".join(map(str, run.sweep.get("values") or []))
        base = f" on `{run.sweep['base']}`" if run.sweep.get("base") else ""
        lines.append(f"- **Sweep:** {run.sweep['option']} over {values}{base}")
    lines += [
        f"- **Matches:** {_matches_line(run)}",
        *run_facts_tail(m, " over all rule sets"),
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
    return f"{pp(row.delta_win_rate)} ({pp(row.delta_low)} to {pp(row.delta_high)}){mark}"


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
        f"| Rule set | Seat: strategy | Win rate (95% CI) | Change vs {cell(ref)} (pp, 95% CI) "
        "| Mean total (points) | Hands per match | Turns per hand |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for row in run.comparison.itertuples(index=False):
        label = cell(row.rule_set) + (" †" if row.rule_set in apart else "")
        ci = f"{pct(row.win_rate)} ({pct(row.win_rate_low)} to {pct(row.win_rate_high)})"
        lines.append(
            f"| {label} | {cell(_seat(row))} | {ci} | {_change_cell(row, ref)} | {fixed(row.mean_total, 1)} "
            f"| {fixed(row.mean_hands_per_match, 2)} | {fixed(row.mean_turns_per_hand, 1)} |"
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
        a, b = sorted((abs(lo), abs(hi)))
        ci = f"95% CI {pp_size(a)} to {pp_size(b)}"
    else:
        ci = f"95% CI {pp(lo)} to {pp(hi)}"
    return (
        f"Under {row.rule_set}, {_seat(row)} wins {pp_size(est)} percentage points {direction} than under "
        f"{reference} ({ci}; {test_name(row)}, Holm-adjusted {format_p(float(row.delta_p_holm))})."
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
        return [*lines, NONE_CLAIMED, ""]
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
            head = not_significant(n, len(tested), "shift") + ":"
        lines += ["", head, ""] if len(hits) else [head, ""]
        for label in run.rule_sets[1:]:
            group = misses[misses["rule_set"] == label]
            if len(group):
                named = "; ".join(
                    f"{_seat(r)} {pp(r.delta_win_rate)} pp ({test_name(r)}, adjusted {format_p(r.delta_p_holm)})"
                    for r in group.itertuples(index=False)
                )
                lines.append(f"- under {label}: {named}")
    elif not hits.empty:
        lines += ["", all_significant(len(tested), "shift")]
    untested = shifts[~shifts.index.isin(tested.index)]
    if len(untested):
        names = ", ".join(sorted({str(r) for r in untested["rule_set"]}, key=run.rule_sets.index))
        lines += [
            "",
            f"Not tested ({len(untested)} row{'s' if len(untested) != 1 else ''}, no p-value in the file): {names}.",
        ]
    return [*lines, ""]


def _charts(run: ComparisonFolder) -> list[str]:
    fmt = {"players": run.players, "fair": 1.0 / run.players, "option": (run.sweep or {}).get("option", ""),
           "reference": run.reference}  # fmt: skip
    # A stale sweep.png in a folder that is no sweep is not shown.
    shown = [n for n in CAPTIONS if n != "sweep.png" or run.sweep is not None]
    return charts_section(run.path, {n: (CHART_TITLES[n], CAPTIONS[n].format(**fmt)) for n in shown})


def _reproduce(run: ComparisonFolder) -> list[str]:
    m = run.manifest
    note = f"The run above was partial; the command plays all {num(m.get('matches'))} requested matches per rule set."
    return reproduce(m, note, note_first=True)


def _partial_warning(run: ComparisonFolder) -> list[str]:
    m = run.manifest
    played, requested = m.get("matches_played"), m.get("matches")
    return [
        f"> **PARTIAL RUN:** only {num(played)} of {num(requested)} requested matches per rule set were "
        f"played{share_of(played, requested)}. The run stopped early; the numbers below cover the matches played, "
        "with wider intervals. "
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
