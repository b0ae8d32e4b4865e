"""Strategy tournaments: who sits where, running the games in chunks, the tables.

A tournament is a list of *games* (a lineup under a rule set) each played for
the same match indices of one seed.  Every (game, chunk) is a unit of work
that returns a :class:`~nines_sim.tally.Tally`; tallies merge by addition, so
the tables are identical whatever the workers, chunks or batch size.

Formats
-------
``table``        the given strategies sit clockwise in the given order (one game).
``round-robin``  every pair of the given strategies plays heads-up (2 players).
``field``        each given strategy sits at seat 0 against P-1 copies of a baseline.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from nines_sim.engine import BatchEngine
from nines_sim.pool import run_units
from nines_sim.registry import canonical_spec, display_name, make_lineup
from nines_sim.results import MatchResults
from nines_sim.rules import Rules
from nines_sim.simulate import chunks
from nines_sim.stats import holm, wilson, z_test
from nines_sim.tally import SHARE_UNIT, SeatStats, Tally

FORMATS = ("table", "round-robin", "field")
DEFAULT_LINEUP = ("random", "hold-nines", "dump-faces", "suit-majority")

SUMMARY_COLUMNS = [
    "position", "strategy", "matches", "wins", "win_rate", "win_rate_low", "win_rate_high",
    "mean_total", "sd_total", "go_out_rate", "mean_hand_penalty",
]  # fmt: skip
HANDS_COLUMNS = [
    "hands", "mean_turns_per_hand", "mean_hands_per_match", "blocked_rate", "capped_hands",
    "reshuffles_per_hand", "nine_starter_rate", "first_player_go_out_rate",
]  # fmt: skip
DISTRIBUTION_COLUMNS = ["strategy", "kind", "points", "count"]
SEAT_COLUMNS = ["seat_from_dealer", "hands", "go_outs", "go_out_rate"]
PAIRWISE_COLUMNS = ["comparison", "a", "b", "matches", "estimate", "se", "z", "p_value", "p_holm", "significant"]
HEAD_TO_HEAD_COLUMNS = ["strategy", "opponent", "matches", "win_rate", "win_rate_low", "win_rate_high"]
MATCH_COLUMNS_FIXED = ["game", "match", "hands", "tiebreak_hands", "first_dealer"]


class TournamentError(ValueError):
    """A tournament that cannot be set up as asked; the message says what to do."""


@dataclass(frozen=True)
class Game:
    """One lineup under one rule set: ``key`` names it in tables ("table", "random vs dump-faces")."""

    key: str
    rules: Rules
    lineup: tuple[str, ...]


@dataclass
class Plan:
    """What a tournament plays.

    Attributes
    ----------
    format : str
    strategies : list of str
        The strategy specs as given (for ``table``, one per seat).
    games : list of Game
    baseline : str or None
    labels : list of str
        The strategies' names, as tables show them.
    """

    format: str
    strategies: list[str]
    games: list[Game]
    baseline: str | None = None
    labels: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.labels:
            self.labels = [display_name(s) for s in make_lineup(self.strategies)]

    def label_of(self, spec: str) -> str:
        """The name a strategy spec is shown under (a class's ``name``, not its import path)."""
        return self.labels[self.strategies.index(spec)]


def plan_tournament(
    fmt: str, strategies: list[str], rules: Rules, players: int | None = None, baseline: str = "random"
) -> Plan:
    """Seat the strategies for a format.

    Raises
    ------
    TournamentError
        For an unknown format, a player count that disagrees with the lineup,
        too few strategies, or a repeated strategy where each must be distinct.
    nines_sim.rules.RulesError, nines_sim.registry.StrategyNotFound
        For impossible rules or unknown strategies.
    """
    if fmt not in FORMATS:
        raise TournamentError(f"unknown format {fmt!r}; formats are: {', '.join(FORMATS)}")
    # values inline and exact (a @file.json read here, once): the specs travel to workers and manifests
    names = [canonical_spec(s) for s in list(strategies) or list(DEFAULT_LINEUP)]
    baseline = canonical_spec(baseline) if fmt == "field" else baseline
    make_lineup(names + ([baseline] if fmt == "field" else []))  # fail early on unknown specs
    if fmt == "table":
        p = players if players is not None else len(names)
        if len(names) != p:
            raise TournamentError(
                f"--players {p} disagrees with the {len(names)} strategies given; a table seats one strategy "
                f"per player (repeat a name to seat it twice)"
            )
        return Plan(fmt, names, [Game("table", rules.replace(players=p), tuple(names))])
    if len(set(names)) != len(names):
        raise TournamentError(f"each strategy may be named once in a {fmt} tournament")
    if fmt == "round-robin":
        if players not in (None, 2):
            raise TournamentError("a round-robin is played heads-up: leave out --players or give 2")
        if len(names) < 2:
            raise TournamentError("a round-robin needs at least two strategies")
        r2 = rules.replace(players=2)
        games = [Game(f"{a} vs {b}", r2, (a, b)) for a, b in combinations(names, 2)]
        return Plan(fmt, names, games)
    p = players if players is not None else rules.players
    rp = rules.replace(players=p)
    games = [Game(f"{s} vs {p - 1} x {baseline}", rp, (s,) + (baseline,) * (p - 1)) for s in names]
    return Plan(fmt, names, games, baseline=baseline)


# ---------------------------------------------------------------- running


def _match_rows(res, rules: Rules) -> pd.DataFrame:  # noqa: ANN001
    data = {"match": res.match, "hands": res.hands, "tiebreak_hands": res.tiebreak_hands,
            "first_dealer": res.first_dealer}  # fmt: skip
    for p in range(rules.players):
        data[f"total_{p}"] = res.totals[:, p]
    for p in range(rules.players):
        data[f"share_{p}"] = res.win_share[:, p]
    return pd.DataFrame(data)


def play_range(
    rules: Rules,
    lineup: tuple[str, ...],
    seed: int,
    start: int,
    n: int,
    batch_size: int,
    keep: bool,
    on_matches: Callable[[int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    every: int = 25,
) -> tuple[Tally, list[pd.DataFrame]]:
    """Play matches ``start .. start+n-1`` of one game, tallying finished matches as it goes.

    The engine's batch stays full across the whole range; every ``every``
    steps the finished matches below the lowest unfinished index are tallied
    (so memory stays flat), reported to ``on_matches``, and ``should_stop`` is
    asked whether to stop early (Ctrl-C): then the tally holds the matches
    ``start .. k-1`` for the first unfinished ``k``, an unbiased block.
    """
    engine = BatchEngine(rules, make_lineup(list(lineup)), seed, start, n, min(batch_size, n), specs=lineup)
    tally = Tally(rules.players)
    rows: list[pd.DataFrame] = []
    waiting: list[MatchResults] = []

    def take() -> None:
        # Count only matches below the lowest unfinished one: a run stopped early then keeps
        # a whole block of match indices, not a sample biased towards short matches.
        nonlocal tally, waiting
        got = engine.harvest()
        if got.n_matches:
            waiting.append(got)
        if not waiting:
            return
        pool = MatchResults.concat(waiting)
        below = pool.match < engine.lowest_unfinished()
        waiting = [pool.select(~below)] if (~below).any() else []
        if below.any():
            done = pool.select(below)
            tally = tally + Tally.from_results(done)
            if keep:
                rows.append(_match_rows(done, rules))
            if on_matches:
                on_matches(done.n_matches)

    engine.start_run()
    steps = 0
    while engine.B:
        engine.advance()
        steps += 1
        if steps % every == 0:
            take()
            if should_stop and should_stop():
                break
    take()
    return tally, rows


@dataclass
class RunOutcome:
    """Tallies per game key, the matches played, and whether the run was cut short."""

    tallies: dict[str, Tally]
    matches_played: dict[str, int]
    partial: bool
    wall_seconds: float
    match_rows: list[pd.DataFrame] = field(default_factory=list)

    @property
    def total_matches(self) -> int:
        return sum(self.matches_played.values())


def run_plan(
    plan: Plan,
    n_matches: int,
    seed: int,
    workers: int = 1,
    batch_size: int = 32768,
    save_matches: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> RunOutcome:
    """Play every game of a plan for matches ``0 .. n_matches-1`` of ``seed``.

    Each game's matches are cut into as many contiguous ranges as keep the
    workers busy; each range runs in one engine whose batch stays full.

    Parameters
    ----------
    on_progress : callable, optional
        Called with the number of matches just finished (for a progress bar).

    Returns
    -------
    RunOutcome
        ``partial`` is True when Ctrl-C stopped the run; every match that
        finished is counted, none that did not.
    """
    per_game = max(1, math.ceil(workers / len(plan.games))) if workers > 1 else 1
    size = math.ceil(n_matches / per_game)
    tasks = [(g, s, n) for g in plan.games for s, n in chunks(0, n_matches, size)]
    tallies: dict[str, Tally] = {g.key: Tally(g.rules.players) for g in plan.games}
    played = {g.key: 0 for g in plan.games}
    rows: list[pd.DataFrame] = []
    t0 = time.perf_counter()

    def take(g: Game, result: tuple[Tally, list[pd.DataFrame]]) -> None:
        tally, dfs = result
        tallies[g.key] = tallies[g.key] + tally
        played[g.key] += tally.matches
        for df in dfs:
            df.insert(0, "game", g.key)
            rows.append(df)

    units = [(g, (g.rules, g.lineup, seed, s, n, batch_size, save_matches)) for g, s, n in tasks]
    partial = run_units(play_range, units, workers, take, on_progress)
    return RunOutcome(tallies, played, partial, time.perf_counter() - t0, rows)


# ---------------------------------------------------------------- tables


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
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


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
    """``pairwise.csv``: z-tests of win-rate differences, Holm-adjusted across all rows."""
    rows = []

    def add(comparison: str, a: str, b: str, n: int, est: float, se: float) -> None:
        z, p = z_test(est, se)
        rows.append([comparison, a, b, n, est, se, z, p])

    stats = seat_stats(plan, out)
    if plan.format == "table":
        t = out.tallies["table"]
        n, P = t.matches, t.players
        if n > 1:
            x = t.share_xprod / SHARE_UNIT**2 / n
            mean = t.wins60 / SHARE_UNIT / n
            for a, b in combinations(range(P), 2):
                d = mean[a] - mean[b]
                var = max(x[a, a] + x[b, b] - 2 * x[a, b] - d * d, 0.0) * n / (n - 1)
                add("paired-difference", _label(plan, a), _label(plan, b), n, d, math.sqrt(var / n))
    if plan.format in ("table", "field"):
        P = plan.games[0].rules.players
        for pos, st in enumerate(stats):
            if st.matches > 1:
                add("vs-fair-share", _label(plan, pos), "fair share", st.matches, st.win_rate - 1 / P, st.share_se)
    if plan.format == "round-robin":
        for g in plan.games:
            t = out.tallies[g.key]
            st = SeatStats.of(t, 0)
            if st.matches > 1:
                a, b = plan.label_of(g.lineup[0]), plan.label_of(g.lineup[1])
                add("head-to-head", a, b, st.matches, st.win_rate - 0.5, st.share_se)
    df = pd.DataFrame(rows, columns=PAIRWISE_COLUMNS[:-2])
    df["p_holm"] = holm(df["p_value"].tolist()) if len(df) else []
    df["significant"] = df["p_holm"] < 0.05
    return df


def head_to_head_frame(plan: Plan, out: RunOutcome) -> pd.DataFrame:
    """``head_to_head.csv`` (round-robin): each strategy's heads-up win rate against each opponent."""
    rows = []
    for g in plan.games:
        t = out.tallies[g.key]
        for seat in (0, 1):
            st = SeatStats.of(t, seat)
            lo, hi = wilson(st.wins, st.matches)
            a, b = plan.label_of(g.lineup[seat]), plan.label_of(g.lineup[1 - seat])
            rows.append((a, b, st.matches, st.win_rate, lo, hi))
    return pd.DataFrame(rows, columns=HEAD_TO_HEAD_COLUMNS)


def terminal_table(summary: pd.DataFrame, plan: Plan) -> str:
    """The ranked summary a user reads in the terminal."""
    df = summary.sort_values("win_rate", ascending=False, kind="stable")
    head = f"{'rank':>4}  {'strategy':<22} {'win rate [95% CI]':<26} {'mean total':>10} {'go-out rate':>11} "
    head += f"{'hand penalty':>12}"
    lines = [head]
    for rank, r in enumerate(df.itertuples(), 1):
        label = f"{r.position}:{r.strategy}" if plan.format == "table" else r.strategy
        ci = f"{r.win_rate:.4f} [{r.win_rate_low:.4f}, {r.win_rate_high:.4f}]"
        lines.append(
            f"{rank:>4}  {label:<22} {ci:<26} {r.mean_total:>10.2f} {r.go_out_rate:>11.4f} {r.mean_hand_penalty:>12.2f}"
        )
    return "\n".join(lines)
