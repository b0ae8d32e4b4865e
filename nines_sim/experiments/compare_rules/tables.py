"""The tables of a rule comparison: ``comparison.csv``, ``score_distribution.csv`` and the terminal table.

Each is built from the comparison's rule sets and its merged
:class:`~nines_sim.experiments.compare_rules.work.CompareOutcome`;
:mod:`nines_sim.experiments.compare_rules.setup` writes them into the run folder.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.experiments.compare_rules.rule_sets import RuleSet
from nines_sim.results.rounding import decimal_text
from nines_sim.results.stats import MIN_MATCHES_TO_RANK, describe_test, holm, paired_test, too_small_to_rank, wilson
from nines_sim.results.tally import SHARE_UNIT, SeatStats

if TYPE_CHECKING:
    import pandas as pd

    from nines_sim.experiments.compare_rules.work import CompareOutcome

COMPARISON_COLUMNS = [
    "rule_set", "sweep_value", "position", "strategy", "matches", "win_rate", "win_rate_low", "win_rate_high",
    "mean_total", "mean_hands_per_match", "mean_turns_per_hand", "delta_win_rate", "delta_low", "delta_high",
    "test", "delta_p_value", "delta_p_holm", "significant",
]  # fmt: skip
DISTRIBUTION_COLUMNS = ["rule_set", "strategy", "kind", "points", "count"]


def comparison_frame(rule_sets: list[RuleSet], labels: list[str], out: CompareOutcome) -> pd.DataFrame:
    """``comparison.csv``: the rows of :func:`comparison_rows`, the shifts' p-values Holm-adjusted together."""
    import pandas as pd

    df = pd.DataFrame(comparison_rows(rule_sets, labels, out))
    tested = df["delta_p_value"].notna()
    df["delta_p_holm"] = math.nan
    if tested.any():
        df.loc[tested, "delta_p_holm"] = holm(df.loc[tested, "delta_p_value"].tolist())
    df["significant"] = tested & (df["delta_p_holm"] < 0.05)
    if too_small_to_rank(out.matches_played, out.partial):
        df["significant"] = None  # written empty: a stopped run too small to claim anything (stats.MIN_MATCHES_TO_RANK)
    return df[COMPARISON_COLUMNS]


def comparison_rows(rule_sets: list[RuleSet], labels: list[str], out: CompareOutcome) -> list[dict]:
    """Per rule set and seat, the win rate and its paired shift against the first (before the Holm adjustment).

    The shift is tested with the exact McNemar test (whole wins) or the exact sign test (shared wins) on
    the matches in which the seat did better under one rule set than under the other, and its interval
    is the Agresti-Min paired interval (see :mod:`nines_sim.results.stats`); ``test`` names the test.
    """
    rows = []
    base = out.tallies[0]
    for r, (rs, t) in enumerate(zip(rule_sets, out.tallies)):
        n = t.matches
        for p in range(t.players):
            st = SeatStats.of(t, p)
            lo, hi = wilson(st.wins, n)
            d = dlo = dhi = pval = math.nan
            test = ""
            if n > 0 and base.matches == n:
                d, dlo, dhi, test = 0.0, 0.0, 0.0, "reference"
                if r:
                    sum_d = (t.wins60[p] - base.wins60[p]) / SHARE_UNIT
                    sum_d2 = (t.share_xprod[p, p] + base.share_xprod[p, p] - 2 * out.cross[r][p]) / SHARE_UNIT**2
                    whole = t.wins_outright[p] == t.wins_any[p] and base.wins_outright[p] == base.wins_any[p]
                    res = paired_test(int(out.gain[r][p]), int(out.loss[r][p]), n, sum_d, sum_d2, bool(whole))
                    d, dlo, dhi, test, pval = sum_d / n, res.low, res.high, res.test, res.p_value
            rows.append({
                "rule_set": rs.label, "sweep_value": rs.value, "position": p, "strategy": labels[p], "matches": n,
                "win_rate": st.win_rate, "win_rate_low": lo, "win_rate_high": hi,
                "mean_total": st.total_sum / n if n else math.nan,
                "mean_hands_per_match": t.hands / n if n else math.nan,
                "mean_turns_per_hand": t.turns / t.hands if t.hands else math.nan,
                "delta_win_rate": d, "delta_low": dlo, "delta_high": dhi, "test": test, "delta_p_value": pval,
            })  # fmt: skip
    return rows


def distribution_frame(rule_sets: list[RuleSet], labels: list[str], out: CompareOutcome) -> pd.DataFrame:
    """``score_distribution.csv``: final-total and hand-penalty histograms per rule set and strategy name."""
    import pandas as pd

    rows = []
    for rs, t in zip(rule_sets, out.tallies):
        by_name: dict[str, SeatStats] = {}
        for p in range(t.players):
            st = SeatStats.of(t, p)
            by_name[labels[p]] = by_name[labels[p]] + st if labels[p] in by_name else st
        for name, st in by_name.items():
            for kind, hist in (("final_total", st.total_hist), ("hand_penalty", st.penalty_hist)):
                for pts in np.flatnonzero(hist).tolist():
                    rows.append((rs.label, name, kind, pts, int(hist[pts])))
    return pd.DataFrame(rows, columns=DISTRIBUTION_COLUMNS)


def terminal_table(df: pd.DataFrame, given: list[str] | None = None) -> str:
    """The comparison a user reads in the terminal; columns widen to the longest rule set and seat label.

    Strategies are shown by their short labels (:func:`nines_sim.reporting.labels.label_map`; a parameter
    file of the specs ``given``, in seat order, names its seat).
    """
    from nines_sim.reporting.labels import label_map

    seats = df.drop_duplicates("position").sort_values("position")
    shown = label_map([str(s) for s in seats["strategy"]], given)
    rows = []
    for r in df.itertuples():
        ci = f"{decimal_text(r.win_rate, 4)} [{decimal_text(r.win_rate_low, 4)}, {decimal_text(r.win_rate_high, 4)}]"
        if isinstance(r.delta_p_value, float) and not math.isnan(r.delta_p_value):
            mark = " *" if r.significant else ""
            shift = [decimal_text(v, 2, signed=True, scale=100) for v in (r.delta_win_rate, r.delta_low, r.delta_high)]
            delta = f"{shift[0]} pp [{shift[1]}, {shift[2]}]{mark}"
        else:
            delta = "(reference)"
        rows.append((str(r.rule_set), f"{r.position}:{shown.get(str(r.strategy), r.strategy)}", ci, delta))
    head = ("rule set", "seat:strategy", "win rate [95% CI]", "change vs first [95% CI]")
    widths = [max(w, *(len(row[i]) for row in rows)) for i, w in enumerate((28, 20, 26, 28))]
    lines = [" ".join(f"{c:<{w}}" for c, w in zip(row, widths)).rstrip() for row in [head, *rows]]
    if df["significant"].isna().any():
        lines.append(f"stopped with too few matches to test the shifts (fewer than {MIN_MATCHES_TO_RANK} per rule set)")
    else:
        tests = sorted({t for t in df["test"] if t and t != "reference"})
        named = ", ".join(describe_test(t) for t in tests) or "paired test"
        # the star is Holm's, the bracket is not: a shift whose interval leaves out 0 may go unstarred
        lines.append(
            f"* significant at 5% after Holm correction ({named}, common random numbers); intervals not adjusted"
        )
    return "\n".join(lines)
