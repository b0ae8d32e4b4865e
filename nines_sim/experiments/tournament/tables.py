"""The tables of a tournament: summary, hands, score distributions, seats, pairwise tests and the terminal table.

Each is built from a :class:`~nines_sim.experiments.tournament.plan.Plan` and its merged
:class:`~nines_sim.experiments.tournament.games.RunOutcome`, with the columns declared in
:mod:`nines_sim.experiments.tournament.work`; :mod:`nines_sim.runs.output` writes them as CSVs.
"""

from __future__ import annotations

import math
import sys
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nines_sim import __version__
from nines_sim.results.rounding import FLOAT_FORMAT, decimal_text
from nines_sim.results.stats import (
    TestResult,
    competition_ranks,
    holm,
    paired_test,
    proportion_test,
    too_small_to_rank,
    wilson,
)
from nines_sim.results.tally import SHARE_UNIT, SeatStats, Tally
from nines_sim.runs.output import run_fields, write_csv

if TYPE_CHECKING:
    import pandas as pd

from nines_sim.experiments.tournament.games import RunOutcome
from nines_sim.experiments.tournament.plan import (
    DISTRIBUTION_COLUMNS,
    HANDS_COLUMNS,
    HEAD_TO_HEAD_COLUMNS,
    PAIRWISE_COLUMNS,
    SEAT_COLUMNS,
    SUMMARY_COLUMNS,
    TOO_SMALL_NOTE,
    Plan,
)


def _label(plan: Plan, position: int) -> str:
    return f"{position}:{plan.labels[position]}" if plan.format == "table" else plan.labels[position]


def seat_stats(plan: Plan, out: RunOutcome) -> list[SeatStats]:
    """Per lineup position (table) or per strategy (round-robin, field), merged over its games."""
    if plan.format == "table":
        t = out.tallies["table"]
        return [SeatStats.of(t, p) for p in range(t.players)]
    stats = [SeatStats() for _ in plan.strategies]
    for g in plan.games:
        t = out.tallies[g.key]
        if plan.format == "field":
            stats[plan.strategies.index(g.lineup[0])] += SeatStats.of(t, 0)
        else:
            for seat, name in enumerate(g.lineup):
                stats[plan.strategies.index(name)] += SeatStats.of(t, seat)
    return stats


def summary_frame(plan: Plan, out: RunOutcome) -> pd.DataFrame:
    """``summary.csv``: one row per position (table) or strategy (round-robin, field)."""
    import pandas as pd

    rows = []
    for pos, st in enumerate(seat_stats(plan, out)):
        n, h = st.matches, st.hands
        lo, hi = wilson(st.wins, n)
        mean = st.total_sum / n if n else math.nan
        var = (st.total_sq / n - mean * mean) * n / (n - 1) if n > 1 else math.nan
        rows.append({
            "position": pos, "strategy": plan.labels[pos], "matches": n, "wins": st.wins,
            "win_rate": st.win_rate, "win_rate_low": lo, "win_rate_high": hi, "mean_total": mean,
            "sd_total": math.sqrt(max(var, 0.0)) if n > 1 else math.nan,
            "go_out_rate": st.go_outs / h if h else math.nan,
            "mean_hand_penalty": st.penalty_sum / h if h else math.nan,
        })  # fmt: skip
    df = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    df["rank"] = competition_ranks(df["win_rate"].to_numpy(dtype=np.float64)) if len(df) else []
    return df


def merged_tally(out: RunOutcome) -> Tally | None:
    """All games' tallies merged (they share one table size within a tournament)."""
    ts = [t for t in out.tallies.values() if t.matches]
    if not ts:
        return None
    total = ts[0]
    for t in ts[1:]:
        total = total + t
    return total


def hands_frame(out: RunOutcome) -> pd.DataFrame:
    """``hands.csv``: one row for the run (regular hands of every game)."""
    import pandas as pd

    t = merged_tally(out)
    if t is None or t.hands == 0:
        return pd.DataFrame([dict.fromkeys(HANDS_COLUMNS, 0)], columns=HANDS_COLUMNS)
    h = t.hands
    row = {
        "hands": h, "mean_turns_per_hand": t.turns / h, "mean_hands_per_match": h / t.matches,
        "blocked_rate": t.blocked / h, "capped_hands": t.capped, "reshuffles_per_hand": t.reshuffles / h,
        "nine_starter_rate": t.nine_starters / h,
        "first_player_go_out_rate": int(t.go_outs_from_dealer[1 % t.players]) / h,
    }  # fmt: skip
    return pd.DataFrame([row], columns=HANDS_COLUMNS)


def distribution_frame(plan: Plan, out: RunOutcome) -> pd.DataFrame:
    """``score_distribution.csv``: histograms of final totals and hand penalties per strategy name."""
    import pandas as pd

    by_name: dict[str, SeatStats] = {}
    for pos, st in enumerate(seat_stats(plan, out)):
        name = plan.labels[pos]
        by_name[name] = by_name[name] + st if name in by_name else st
    rows = []
    for name, st in by_name.items():
        for kind, hist in (("final_total", st.total_hist), ("hand_penalty", st.penalty_hist)):
            for pts in np.flatnonzero(hist).tolist():
                rows.append((name, kind, pts, int(hist[pts])))
    return pd.DataFrame(rows, columns=DISTRIBUTION_COLUMNS)


def seat_frame(out: RunOutcome) -> pd.DataFrame:
    """``seat_go_out.csv``: go-out rate by seat relative to the dealer (1 = dealer's left, P = dealer)."""
    import pandas as pd

    t = merged_tally(out)
    if t is None:
        return pd.DataFrame(columns=SEAT_COLUMNS)
    P = t.players
    rows = []
    for k in range(1, P + 1):
        g = int(t.go_outs_from_dealer[k % P])
        rows.append((k, t.hands, g, g / t.hands if t.hands else math.nan))
    return pd.DataFrame(rows, columns=SEAT_COLUMNS)


def pairwise_frame(plan: Plan, out: RunOutcome) -> pd.DataFrame:
    """``pairwise.csv``: the rows of :func:`pairwise_rows`, their p-values Holm-adjusted together."""
    import pandas as pd

    df = pd.DataFrame(pairwise_rows(plan, out), columns=PAIRWISE_COLUMNS[:-2])
    df["p_holm"] = holm(df["p_value"].tolist()) if len(df) else []
    df["significant"] = df["p_holm"] < 0.05
    if too_small_to_rank(matches_per_game(out), out.partial):
        df["significant"] = None  # written empty: a stopped run too small to claim anything (stats.MIN_MATCHES_TO_RANK)
    return df


def pairwise_rows(plan: Plan, out: RunOutcome) -> list[list]:
    """The tests of ``pairwise.csv`` before the Holm adjustment: one list per row, in ``PAIRWISE_COLUMNS`` order.

    Rows: ``paired-difference`` (two positions at one table, exact McNemar / sign test on the matches
    one won and the other did not), ``vs-fair-share`` (table, field, league: a rate against 1/P)
    and ``head-to-head`` (round-robin: the first strategy's heads-up rate against 0.5), both exact
    binomial tests; see :mod:`nines_sim.results.stats` for the tests and intervals.  ``se`` is the sample
    standard error of the estimate, for reference only: no test or interval is built on it.
    """
    rows = []

    def add(comparison: str, a: str, b: str, n: int, est: float, se: float, res: TestResult) -> None:
        rows.append([comparison, a, b, n, est, se, res.low, res.high, res.test, res.p_value])

    def one_rate(comparison: str, a: str, b: str, st: SeatStats, p0: float) -> None:
        res = proportion_test(st.wins, st.wins_outright, st.wins_any, st.matches, p0)
        add(comparison, a, b, st.matches, st.win_rate - p0, st.share_se, res)

    stats = seat_stats(plan, out)
    if plan.format == "table":
        t = out.tallies["table"]
        n, P = t.matches, t.players
        if n > 0:
            x = t.share_xprod / SHARE_UNIT**2
            wins = t.wins60 / SHARE_UNIT
            whole = t.wins_outright == t.wins_any
            for a, b in combinations(range(P), 2):
                sum_d, sum_d2 = wins[a] - wins[b], x[a, a] + x[b, b] - 2 * x[a, b]
                d = sum_d / n
                var = max(sum_d2 / n - d * d, 0.0) * n / (n - 1) if n > 1 else math.nan
                res = paired_test(int(t.beats[a, b]), int(t.beats[b, a]), n, sum_d, sum_d2, bool(whole[a] and whole[b]))
                add("paired-difference", _label(plan, a), _label(plan, b), n, d, math.sqrt(var / n), res)
    if plan.format in ("table", "field", "league"):
        P = plan.games[0].rules.players
        for pos, st in enumerate(stats):
            if st.matches > 0:
                one_rate("vs-fair-share", _label(plan, pos), "fair share", st, 1 / P)
    if plan.format == "round-robin":
        for g in plan.games:
            st = SeatStats.of(out.tallies[g.key], 0)
            if st.matches > 0:
                one_rate("head-to-head", plan.label_of(g.lineup[0]), plan.label_of(g.lineup[1]), st, 0.5)
    return rows


def matches_per_game(out: RunOutcome) -> int:
    """Matches each game kept (the same for all games of a run)."""
    return min(out.matches_played.values(), default=0)


def head_to_head_frame(plan: Plan, out: RunOutcome) -> pd.DataFrame:
    """``head_to_head.csv`` (round-robin): each strategy's heads-up win rate against each opponent."""
    import pandas as pd

    rows = []
    for g in plan.games:
        t = out.tallies[g.key]
        for seat in (0, 1):
            st = SeatStats.of(t, seat)
            lo, hi = wilson(st.wins, st.matches)
            a, b = plan.label_of(g.lineup[seat]), plan.label_of(g.lineup[1 - seat])
            rows.append((a, b, st.matches, st.win_rate, lo, hi))
    return pd.DataFrame(rows, columns=HEAD_TO_HEAD_COLUMNS)


def terminal_table(summary: pd.DataFrame, plan: Plan, ranked: bool = True, given: list[str] | None = None) -> str:
    """The ranked summary a user reads in the terminal; equal win rates share a rank (1, 1, 3).

    When not ``ranked`` (a stopped run too small to rank), in lineup order without ranks.  Strategies are
    shown by their short labels (:func:`nines_sim.reporting.labels.label_map`; a parameter file of the
    specs ``given`` names its entry), so a tuned strategy does not widen the table.  The interval is
    Wilson's over the strategy's matches, headed so in a round robin or league, whose ratings table gives
    the same rate a bootstrap interval.
    """
    from nines_sim.reporting.labels import label_map

    shown = label_map(list(summary.sort_values("position", kind="stable")["strategy"]), given)
    df = summary.sort_values(["rank", "position"], kind="stable") if ranked else summary
    labels = [f"{r.position}:{shown[r.strategy]}" if plan.format == "table" else shown[r.strategy]
              for r in df.itertuples()]  # fmt: skip
    width = max(22, *(len(x) for x in labels))  # a long strategy name widens the column, not the row
    # a round robin's or league's ratings table below gives the same rate a bootstrap interval: name this one
    ci_head = "win rate [95% CI]" if plan.format == "table" else "win rate [95% Wilson]"
    head = f"{'rank':>4}  {'strategy':<{width}} {ci_head:<26} {'mean total':>10} {'go-out rate':>11} "
    head += f"{'hand penalty':>12}"
    lines = [head]
    for label, r in zip(labels, df.itertuples()):
        ci = f"{decimal_text(r.win_rate, 4)} [{decimal_text(r.win_rate_low, 4)}, {decimal_text(r.win_rate_high, 4)}]"
        tail = (f"{decimal_text(r.mean_total, 2):>10} {decimal_text(r.go_out_rate, 4):>11} "
                f"{decimal_text(r.mean_hand_penalty, 2):>12}")  # fmt: skip
        lines.append(f"{r.rank if ranked else '-':>4}  {label:<{width}} {ci:<26} {tail}")
    if not ranked:
        lines.append(TOO_SMALL_NOTE)
    return "\n".join(lines)


def write_tables(run_dir: Path, plan: Plan, out: RunOutcome) -> list[Path]:
    """Write every CSV of a tournament run folder."""
    import pandas as pd

    paths = [
        write_csv(summary_frame(plan, out), run_dir / "summary.csv"),
        write_csv(hands_frame(out), run_dir / "hands.csv"),
        write_csv(distribution_frame(plan, out), run_dir / "score_distribution.csv"),
        write_csv(seat_frame(out), run_dir / "seat_go_out.csv"),
        write_csv(pairwise_frame(plan, out), run_dir / "pairwise.csv"),
    ]
    if plan.format == "round-robin":
        paths.append(write_csv(head_to_head_frame(plan, out), run_dir / "head_to_head.csv"))
    if out.match_rows:
        df = pd.concat(out.match_rows, ignore_index=True).sort_values(["game", "match"], kind="stable")
        path = run_dir / "matches.csv.gz"
        df.to_csv(path, index=False, float_format=FLOAT_FORMAT, lineterminator="\n",
                  compression={"method": "gzip", "mtime": 0})  # fmt: skip
        paths.append(path)
    return paths


def manifest(
    command: str,
    plan: Plan,
    out: RunOutcome,
    seed: int,
    n_matches: int,
    workers: int,
    batch_size: int,
    compile_seconds: float = 0.0,
    **extra,
) -> dict:
    """What reproduces the run, and how it went (``compile_seconds``: see :func:`speed_fields`)."""
    import pandas as pd

    rules = plan.games[0].rules
    played = out.total_matches
    return {
        "command": command,
        "version": __version__,
        "seed": seed,
        "format": plan.format,
        "preset": rules.preset,
        "rules": rules.options() | {"hand_sizes": list(rules.hand_sizes)},
        "players": rules.players,
        "lineup": list(plan.games[0].lineup) if plan.format == "table" else None,
        "strategies": plan.strategies,
        "baseline": plan.baseline,
        "games": [
            {"key": g.key, "lineup": list(g.lineup), "matches_played": out.matches_played[g.key]} for g in plan.games
        ],  # fmt: skip
        "matches": n_matches,
        "matches_played": played,
        **run_fields(workers, batch_size, out.wall_seconds, compile_seconds, played, out.partial),
        "pandas": pd.__version__,
        "platform": sys.platform,
        **extra,
    }
