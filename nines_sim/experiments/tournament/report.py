"""The report of a ``nines tournament`` run folder (a table, a round robin or a field), assembled from shared parts.

``render_report`` turns a :class:`~nines_sim.reporting.folders.RunFolder` into
Markdown: the run facts, the ranked results table, which differences are
significant in plain sentences, hand statistics, the charts that exist and the
command that reproduces the run.  ``write_report`` writes it as ``report.md``;
draw the charts first (``charts.save_all``) so that the report embeds them.
Numbers, intervals and the shared sections come from
:mod:`nines_sim.reporting.markdown`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nines_sim.experiments.tournament.report_league import ratings_section
from nines_sim.reporting.folders import (
    RunFolder,
    as_bool,
    entry_label,
    label_key,
    load_run,
    readable_label,
    reference_rate,
    shown_specs,
)
from nines_sim.reporting.labels import short_label
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
    options_text,
    pct,
    pp,
    reproduce,
    run_facts_tail,
    share_of,
    test_name,
    too_small,
    too_small_note,
)
from nines_sim.results.stats import Z95, competition_ranks

#: One-line caption per chart file.
CAPTIONS = {
    "win_rates.png": "Win rate of each {entry} with its 95% Wilson interval; the dashed line is {reference}.",
    "final_totals.png": "Distribution of final match totals per strategy (points; lower wins).",
    "hand_penalties.png": "Distribution of penalty points taken per hand per strategy (log scale; 0 = went out).",
    "go_out_by_seat.png": "Share of hands in which each seat went out, seats counted from the dealer's left "
    "(the last seat is the dealer), with 95% intervals.",
    "head_to_head.png": "Heads-up win rate of the row strategy against the column opponent; blue above 0.5, red below.",
}

CHART_TITLES = {
    "win_rates.png": "Win rates",
    "final_totals.png": "Final totals",
    "hand_penalties.png": "Hand penalties",
    "go_out_by_seat.png": "Go-out rate by seat",
    "head_to_head.png": "Head-to-head win rates",
}


def matches_requested(manifest: dict[str, Any]) -> int | None:
    """Matches the command asked for in all: ``matches`` is per game, and a round robin or field plays several games.

    Parameters
    ----------
    manifest : dict
        ``manifest.json``; ``games`` (a list, one entry per game) is optional and counts as one game when absent.

    Returns
    -------
    int or None
        None when the manifest has no ``matches``.
    """
    per_game = manifest.get("matches")
    if not isinstance(per_game, int | float):
        return None
    games = manifest.get("games")
    return int(per_game) * (len(games) if isinstance(games, list) and games else 1)


def _matches_line(m: dict[str, Any]) -> str:
    requested = matches_requested(m)
    games = m.get("games")
    per_game = ""
    if isinstance(games, list) and len(games) > 1:
        per_game = f" ({num(m.get('matches'))} per game, {len(games)} games)"
    return f"{num(m.get('matches_played'))} played of {num(requested)} requested{per_game}"


def _settings(run: RunFolder) -> list[str]:
    m = run.manifest
    rules = m.get("rules") or {}
    lineup = m.get("lineup") or list(run.summary["strategy"])
    shown = shown_specs(lineup, m) if m.get("lineup") else lineup
    lines = [
        "## Run",
        "",
        command_line(m),
        f"- **Format:** {run.format}, {run.players} players per table",
        f"- **Rules:** preset `{m.get('preset', rules.get('preset', 'n/a'))}`; {options_text(rules)}",
        f"- **Lineup:** {', '.join(map(str, shown))}",
    ]
    if m.get("lineup") and (key := label_key(lineup, m)):
        lines.append(key)
    strategies = m.get("strategies")
    if strategies and list(strategies) != list(lineup):
        lines.append(f"- **Strategies:** {', '.join(shown_specs(strategies, m))}")
    if m.get("baseline"):
        lines.append(f"- **Baseline:** {short_label(str(m['baseline']))}")
    from nines_sim.strategy.hidden_cards import hidden_card_note

    if note := hidden_card_note(list(strategies or lineup)):
        lines.append(f"- **{note.split(':')[0]}:**{note.split(':', 1)[1]}")
    return [*lines, f"- **Matches:** {_matches_line(m)}", *run_facts_tail(m, _luck_fit_note(m))]


def _luck_fit_note(m: dict[str, Any]) -> str:
    """Words after a ``--luck`` run's speed: its time holds the fit on its reserved matches ('' without)."""
    fit = m.get("luck", {}).get("fit_matches") if isinstance(m.get("luck"), dict) else None
    if not isinstance(fit, dict) or not isinstance(fit.get("start"), int) or not isinstance(fit.get("end"), int):
        return ""
    return f", the luck's fit on {fit['end'] - fit['start']:,} reserved matches in the time"


def results_table(run: RunFolder) -> list[str]:
    """The key table as Markdown lines: entries ranked by win rate, best first; equal rates share a rank.

    Parameters
    ----------
    run : RunFolder
        From ``folders.load_run``.

    Returns
    -------
    list of str
        Header, separator and one row per summary row.
    """
    ranked = not too_small(run.manifest)
    s = run.summary
    if "rank" not in s.columns:  # a folder written before summary.csv had ranks
        s = s.assign(rank=competition_ranks(s["win_rate"].to_numpy(dtype=np.float64)))
    s = s.sort_values(["rank", "position"] if ranked else "position", kind="stable")
    entry = "Seat: strategy" if run.format == "table" else "Strategy"
    lines = [
        f"| Rank | {entry} | Win rate (95% CI) | Mean total (points) | Go-out rate | Mean hand penalty (points) |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for row in s.itertuples(index=False):
        rank = int(row.rank)
        label = readable_label(entry_label(run.format, int(row.position), row.strategy))
        ci = f"{pct(row.win_rate)} ({pct(row.win_rate_low)} to {pct(row.win_rate_high)})"
        total = f"{fixed(row.mean_total, 1)} (sd {fixed(row.sd_total, 1)})"
        rates = f"{pct(row.go_out_rate, 1)} | {fixed(row.mean_hand_penalty, 2)}"
        lines.append(f"| {rank if ranked else '-'} | {cell(label)} | {ci} | {total} | {rates} |")
    return lines


def significance_sentence(row: Any, players: int) -> str:
    """One plain sentence for one row of ``pairwise.csv``.

    Parameters
    ----------
    row : namedtuple
        A row of ``pairwise.csv`` (``itertuples``): comparison, a, b, estimate, se, p_holm, ...
    players : int
        Players per table, for the fair share.

    Returns
    -------
    str
        E.g. "**hold-nines** won more often than the fair share of 1/4 = 25.00%: +3.10 percentage
        points (95% CI +1.20 to +5.00), exact binomial test, Holm-adjusted p = 0.0012."  A paired
        difference or a head-to-head result is worded with the stronger side first.
    """
    a, b = readable_label(str(row.a)), readable_label(str(row.b))
    est = float(row.estimate)
    lo, hi = _interval(row)
    if row.comparison in ("paired-difference", "head-to-head") and est < 0:
        # Both are antisymmetric (a - b = -(b - a); heads-up rates sum to 1): name the stronger side first.
        a, b, est, lo, hi = b, a, -est, -hi, -lo
    direction = "more" if est > 0 else "less"
    ci = f"95% CI {pp(lo)} to {pp(hi)}"
    tail = f"{pp(est)} percentage points ({ci}), {test_name(row)}, Holm-adjusted {format_p(float(row.p_holm))}."
    if row.comparison == "paired-difference":
        return f"**{a}** won {direction} often than **{b}** at the same table: {tail}"
    if row.comparison == "vs-fair-share":
        return f"**{a}** won {direction} often than the fair share of 1/{players} = {pct(1 / players)}: {tail}"
    if row.comparison == "head-to-head":
        return (
            f"Heads-up, **{a}** beat **{b}** {direction} often than half the time (win rate {pct(0.5 + est)}): {tail}"
        )
    return f"**{a}** against **{b}** ({row.comparison}): estimate {tail}"


#: What each kind of comparison in ``pairwise.csv`` tests, for the method paragraph.
TEST_DESCRIPTIONS = {
    "paired-difference": "for two positions at one table, the difference of their win rates, paired over "
    "the same matches",
    "vs-fair-share": "for each {entry}, its win rate against the fair share 1/{players}",
    "head-to-head": "for each pair in the round robin, the heads-up win rate against 0.5",
}

#: How each test in the ``test`` column of ``pairwise.csv`` works, in one clause.
TEST_METHODS = {
    "exact binomial": "the exact binomial test counts whole wins against the share expected under the null",
    "exact binomial bound": "with shared wins in a small run, the exact binomial bound tests the matches won "
    "outright and the matches with any share, which bracket the shared wins (conservative)",
    "score z-test": "with shared wins in a large run, the score z-test uses the variance the rate would have "
    "if every win were whole, the largest it can have (conservative)",
    "exact McNemar": "the exact McNemar test is a binomial test of 1/2 on the matches that one position won "
    "and the other did not",
    "exact sign test": "with shared wins, the exact sign test is a binomial test of 1/2 on the matches in which "
    "one position took a larger share than the other",
}


def _interval(row: Any) -> tuple[float, float]:
    """The row's 95% interval: its own columns, or estimate ± 1.96 se in a folder written before they existed."""
    if hasattr(row, "ci_low") and hasattr(row, "ci_high"):
        return float(row.ci_low), float(row.ci_high)
    est, se = float(row.estimate), float(row.se)
    return est - Z95 * se, est + Z95 * se


def _method(pw: pd.DataFrame, run_format: str, players: int) -> str:
    """The paragraph that says which tests were run: those of the comparison kinds in ``pairwise.csv``."""
    entry = "position" if run_format == "table" else "strategy"
    kinds = dict.fromkeys(pw["comparison"])
    tests = "; ".join(TEST_DESCRIPTIONS.get(k, k).format(entry=entry, players=players) for k in kinds)
    holm = (
        f"The p-values are adjusted with the Holm-Bonferroni correction across all {len(pw)} comparisons "
        f"together, and a result counts as significant when the adjusted p is below {ALPHA:g} (the 5% level). "
    )
    if "test" not in pw.columns:  # a folder written before the exact tests
        return (
            f"Each comparison is a two-sided z-test of an estimate against its standard error ({tests}). {holm}"
            "Estimates are differences of win rate in percentage points; the 95% CI is the estimate ± 1.96 "
            "standard errors."
        )
    used = [t for t in dict.fromkeys(pw["test"].astype(str)) if t]
    how = "; ".join(TEST_METHODS.get(t, t) for t in used)
    return (
        f"Each comparison is a two-sided test that holds its 5% level at any number of matches ({tests}); "
        f"each sentence names its test: {how}. {holm}"
        "Estimates are differences of win rate in percentage points. The 95% CI of a rate against a fixed share "
        "is the Clopper-Pearson interval (Wilson for the score z-test), and that of a paired difference the "
        "Agresti-Min interval; none of them has zero width."
    )


def _readable(label: object) -> str:
    return readable_label(str(label))


def _significance(run: RunFolder) -> list[str]:
    lines = ["## Which differences are significant", ""]
    if too_small(run.manifest):
        return [*lines, NONE_CLAIMED, ""]
    pw = run.pairwise
    if pw is None or pw.empty:
        return [*lines, "No comparisons were recorded (`pairwise.csv` is missing or empty).", ""]
    lines += [_method(pw, run.format, run.players), ""]
    sig = as_bool(pw["significant"])
    hits = pw[sig].sort_values(["comparison", "p_holm", "a"], kind="stable")
    if hits.empty:
        lines.append("No difference is significant.")
    else:
        lines += [f"- {significance_sentence(r, run.players)}" for r in hits.itertuples(index=False)]
    n_not = int((~sig).sum())
    if n_not:
        rest = not_significant(n_not, len(pw), "comparison")
        misses = pw[~sig]
        if len(misses) <= 12:  # name them while the list stays readable
            named = "; ".join(f"{_readable(r.a)} vs {_readable(r.b)} ({test_name(r)}, adjusted {format_p(r.p_holm)})"
                              for r in misses.itertuples(index=False))  # fmt: skip
            rest += f": {named}"
        rest += "."
    else:
        rest = all_significant(len(pw), "comparison")
    lines += ["", rest, ""]
    return lines


def _hand_stats(run: RunFolder) -> list[str]:
    if run.hands is None or run.hands.empty:
        return []
    h = run.hands.iloc[0]

    def get(name: str) -> float:
        return float(h[name]) if name in h and pd.notna(h[name]) else float("nan")

    hands = get("hands")
    capped = get("capped_hands")
    lines = [
        "## Hands",
        "",
        f"- **Hands played:** {num(int(hands)) if np.isfinite(hands) else 'n/a'} "
        f"({fixed(get('mean_hands_per_match'), 2)} per match, {fixed(get('mean_turns_per_hand'), 1)} turns per hand)",
        f"- **Blocked hands** (nobody could go out): {pct(get('blocked_rate'))}",
        f"- **Hands stopped by the turn cap:** {num(int(capped)) if np.isfinite(capped) else 'n/a'}",
        f"- **Reshuffles of the discard pile:** {fixed(get('reshuffles_per_hand'), 3)} per hand",
        f"- **Starter was a 9:** {pct(get('nine_starter_rate'))} of hands",
        f"- **First player (the dealer's left) went out:** {pct(get('first_player_go_out_rate'))} of hands",
        "",
    ]
    return lines


def _charts(run: RunFolder) -> list[str]:
    entry = "seat" if run.format == "table" else "strategy"
    ref = reference_rate(run.format, run.players)
    reference = "an even heads-up 0.5" if run.format == "round-robin" else f"the fair share 1/{run.players} = {ref:.3g}"
    captions = {
        name: (CHART_TITLES[name], CAPTIONS[name].format(entry=entry, reference=reference)) for name in CAPTIONS
    }
    return charts_section(run.path, captions)


def _reproduce(run: RunFolder) -> list[str]:
    m = run.manifest
    return reproduce(
        m, f"The run above was partial; the command plays all {num(matches_requested(m))} requested matches."
    )


def render_report(run: RunFolder) -> str:
    """The whole report as Markdown text.

    Parameters
    ----------
    run : RunFolder
        From ``folders.load_run``.

    Returns
    -------
    str
    """
    m = run.manifest
    # A table has a lineup; a round robin or field only a list of strategies.
    names = m.get("lineup") or m.get("strategies")
    names = shown_specs(names, m) if names else list(dict.fromkeys(run.summary["strategy"]))
    lines = [f"# Nines {run.format} tournament: {', '.join(map(str, names))}", ""]
    if m.get("partial"):
        played, requested = m.get("matches_played"), matches_requested(m)
        lines += [
            f"> **PARTIAL RUN:** only {num(played)} of {num(requested)} requested matches were played"
            f"{share_of(played, requested)}. "
            "The run stopped early; the numbers below cover the matches kept, with wider intervals. They are "
            "whole ranges of match indices (`kept_ranges` in manifest.json), the same for every game, so short "
            "matches are not over-represented.",
            "",
        ]
    lines += too_small_note(m, "per game")
    lines += _settings(run)
    lines += ["## Results", "", *results_table(run), ""]
    lines += _significance(run)
    lines += ratings_section(run.path, m)  # a league or round robin: ratings.csv
    lines += _hand_stats(run)
    lines += _charts(run)
    lines += _reproduce(run)
    return "\n".join(lines)


def write_report(run_dir: Path | str) -> Path:
    """Write ``report.md`` into a run folder from its CSV files and manifest.

    Charts are embedded only if their PNG files already exist, so call
    ``charts.save_all`` first.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        Folder written by the tournament runner.

    Returns
    -------
    pathlib.Path
        The report written.
    """
    run = load_run(run_dir)
    path = run.path / "report.md"
    path.write_text(render_report(run), encoding="utf-8")
    return path
