"""A league: many strategies at multi-seat tables, seated by a balanced schedule, rated together.

A league is a tournament whose games are the tables of
:func:`nines_sim.experiments.tournament.schedule.league_schedule`; each table plays the same match
indices of the run's seed, in chunks, like the games of a round robin, so the
tallies (and every CSV the other formats write) follow the same rules.  Its
chunks also count each match's finishing order, by table and by match group
(:func:`nines_sim.results.ratings.finish_codes`), for the ratings of
:mod:`nines_sim.results.ratings`; a round robin's chunks count them too, for its
Bradley-Terry ratings.  Counts merge by addition, so the ratings are the same
whatever the workers, chunks or batch size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nines_sim.experiments.tournament.games import Collector, RunOutcome, play_games
from nines_sim.experiments.tournament.plan import Game, Plan, TournamentError
from nines_sim.experiments.tournament.schedule import (
    MAX_TABLES,
    fewest_connecting_tables,
    fewest_tables_seating_all,
    groups_apart,
    league_schedule,
)
from nines_sim.experiments.tournament.tables import matches_per_game
from nines_sim.game.rules import Rules
from nines_sim.results.ratings import ANCHOR, ELO_PER_UNIT, MATCH_GROUPS, Ratings, finish_codes, order_data, rate
from nines_sim.results.records import MatchResults
from nines_sim.results.stats import too_small_to_rank
from nines_sim.results.tally import Tally


def plan_league(strategies: list[str], rules: Rules, players: int, tables: int, seed: int) -> Plan:
    """Seat a league: ``tables`` tables of ``players`` drawn from the strategies by the balanced schedule.

    Parameters
    ----------
    strategies : list of str
        Canonical strategy specs, each named once.
    rules : Rules
        The rules; their player count is replaced by ``players``.
    players : int
        Seats per table (RULES.md D1: 2 to 6).
    tables : int
        Tables (games) to seat, at least 1.
    seed : int
        The run's seed (it also seeds the schedule).

    Raises
    ------
    nines_sim.experiments.tournament.plan.TournamentError
        For one strategy, a pool smaller than a table, a repeated strategy, no tables, more than
        :data:`~nines_sim.experiments.tournament.schedule.MAX_TABLES` tables, tables too few to seat every strategy, or
        tables that
        leave the pool in groups that never sit together (their ratings could not be compared).
    """
    n = len(strategies)
    if len(set(strategies)) != n:
        raise TournamentError("each strategy may be named once in a league")
    if n < 2:
        raise TournamentError("a league needs at least two strategies")
    if n < players:
        raise TournamentError(
            f"a league of {players}-seat tables needs at least {players} strategies; {n} given "
            f"(name more, or lower --players)"
        )
    if tables < 1:
        raise TournamentError("a league needs at least one table (--tables)")
    if tables > MAX_TABLES:
        raise TournamentError(f"a league seats at most {MAX_TABLES:,} tables; --tables {tables:,} given")
    fewest = fewest_tables_seating_all(n, players)
    if tables < fewest:
        raise TournamentError(
            f"{tables} table(s) of {players} cannot seat all {n} strategies; use --tables {fewest} or more"
        )
    schedule = league_schedule(n, players, tables, seed)
    if (apart := groups_apart(schedule, n)) > 1:
        more = fewest_connecting_tables(n, players, tables, seed)
        hint = f" (--tables {more} connects them)" if more else ""
        raise TournamentError(
            f"the {tables} tables split the strategies into {apart} groups that never sit together, so their "
            f"ratings cannot be compared; add tables{hint}"
        )
    rp = rules.replace(players=players)
    games = []
    for t, row in enumerate(schedule):
        lineup = tuple(strategies[i] for i in row)
        games.append(Game(f"table {t + 1}", rp, lineup))
    return Plan("league", list(strategies), games)


# ---------------------------------------------------------------- running


def play_rated_games(
    games: tuple[tuple[Rules, tuple[str, ...]], ...],
    seed: int,
    start: int,
    n: int,
    batch_size: int,
    keep: bool,
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[tuple[Tally, list[pd.DataFrame], Counter]] | None:
    """One chunk of a rated tournament: :func:`nines_sim.experiments.tournament.games.play_games`, plus per game the
    matches of
    each ``(match group, finishing order)`` kept (a Counter)."""
    counts = [Counter() for _ in games]

    def observer(game: int) -> Callable[[MatchResults], None]:
        def count(done: MatchResults) -> None:
            base = done.totals.shape[1] ** done.totals.shape[1]  # codes are below P**P
            keys = (done.match % MATCH_GROUPS) * base + finish_codes(done.totals, done.win_share)
            found, n = np.unique(keys, return_counts=True)
            counts[game].update({(int(k) // base, int(k) % base): int(c) for k, c in zip(found, n)})

        return count

    out = play_games(games, seed, start, n, batch_size, keep, on_matches, should_stop,
                          observers=[observer(g) for g in range(len(games))])  # fmt: skip
    if out is None:
        return None
    return [(tally, rows, c) for (tally, rows), c in zip(out, counts)]


@dataclass
class RatedOutcome(RunOutcome):
    """A :class:`~nines_sim.experiments.tournament.games.RunOutcome` with each game's finishing orders kept:
    ``orders[key]`` counts matches per ``(match group, code)``."""

    orders: dict[str, Counter] = field(default_factory=dict)


class RatedCollector(Collector):
    """Merges a rated tournament's chunks: the tallies as :class:`~nines_sim.experiments.tournament.games.Collector`
    does, and
    the finishing orders."""

    def __init__(self, plan: Plan, ranges: list) -> None:
        super().__init__(plan, ranges)
        self.orders: dict[str, Counter] = {g.key: Counter() for g in plan.games}

    def take(self, tag: tuple[int, int], result: list | None) -> int:
        if result is None:
            return 0
        for g, (_, _, c) in zip(self.plan.games, result):
            self.orders[g.key].update(c)
        return super().take(tag, [(tally, rows) for tally, rows, _ in result])

    def outcome(self, partial: bool) -> RatedOutcome:
        base = super().outcome(partial)
        return RatedOutcome(**vars(base), orders=self.orders)


# ---------------------------------------------------------------- ratings


def ratings_of(plan: Plan, out: RatedOutcome, seed: int) -> Ratings:
    """The ratings of a league (Plackett-Luce) or round robin (Bradley-Terry): :func:`nines_sim.results.ratings.rate`.

    Parameters
    ----------
    plan : Plan
        A ``league`` or ``round-robin`` plan.
    out : RatedOutcome
        Its run, with the finishing orders counted.
    seed : int
        The run's seed (the bootstrap's stream derives from it).

    Returns
    -------
    Ratings
    """
    index = {s: i for i, s in enumerate(plan.strategies)}
    games = [(tuple(index[s] for s in g.lineup), dict(out.orders[g.key])) for g in plan.games]
    r = rate(order_data(games, len(plan.strategies)), plan.labels, seed)
    if too_small_to_rank(matches_per_game(out), out.partial):
        return unranked(r, plan)
    return r


def unranked(r: Ratings, plan: Plan) -> Ratings:
    """The ratings of a stopped run too small to rank (as ``summary.csv`` of such a run): no ranks, no
    difference claimed resolved, no calibration cell claimed to fail; the strategies in lineup order."""
    order = {label: i for i, label in enumerate(plan.labels)}
    ratings = r.ratings.assign(rank=pd.NA).sort_values("strategy", key=lambda s: s.map(order), kind="stable")
    return Ratings(
        ratings.reset_index(drop=True),
        r.differences.assign(resolved=None),
        r.calibration.assign(fails=None),
        r.samples,
        ranked=False,
    )


#: The data files a rated run (round robin, league) adds to its folder.
RATINGS_FILES = ("ratings.csv", "rating_differences.csv", "calibration.csv")


def write_ratings(run_dir: Path, plan: Plan, out: RatedOutcome, seed: int, rated: Ratings | None = None) -> Ratings:
    """Write ``ratings.csv``, ``rating_differences.csv`` and ``calibration.csv`` of a rated run.

    Parameters are those of :func:`ratings_of` and the run folder, and the ratings if already computed
    (``rated``); returns the ratings written.
    """
    from nines_sim.runs.output import write_csv

    r = rated if rated is not None else ratings_of(plan, out, seed)
    write_csv(r.ratings, run_dir / "ratings.csv")
    write_csv(r.differences, run_dir / "rating_differences.csv")
    write_csv(r.calibration, run_dir / "calibration.csv")
    return r


def ratings_manifest(plan: Plan, r: Ratings) -> dict:
    """What the manifest records of a rated run's ratings: ``model``, ``bootstrap_samples``, ``match_groups``,
    ``anchor`` (the mean rating) and ``points_per_unit`` (rating points per unit of log-strength)."""
    model = "Bradley-Terry" if plan.format == "round-robin" else "Plackett-Luce"
    return {"model": model, "bootstrap_samples": r.samples, "match_groups": MATCH_GROUPS, "anchor": ANCHOR,
            "points_per_unit": ELO_PER_UNIT}  # fmt: skip


def terminal_ratings(r: Ratings, plan: Plan, given: list[str] | None = None) -> str:
    """The ratings a user reads in the terminal, best first, and how many differences are resolved.

    Strategies are shown by their short labels (:func:`nines_sim.reporting.labels.label_map`; a parameter
    file of the specs ``given`` names its entry), as in the win-rate table above it.
    """
    from nines_sim.reporting.labels import label_map
    from nines_sim.results.rounding import decimal_text

    shown = label_map([str(s) for s in plan.labels], given)
    df = r.ratings.assign(strategy=lambda d: d["strategy"].map(lambda x: shown.get(str(x), x)))
    width = max(22, *(len(str(s)) for s in df["strategy"]))
    lines = [f"{'rank':>4}  {'strategy':<{width}} {'rating [95% CI]':<22} {'mean position [95% CI]':<24} "
             f"{'win rate [95% bootstrap]'}"]  # fmt: skip
    for x in df.itertuples():
        rating = f"{decimal_text(x.rating, 0)} [{decimal_text(x.rating_low, 0)}, {decimal_text(x.rating_high, 0)}]"
        pos = (f"{decimal_text(x.mean_position, 2)} [{decimal_text(x.mean_position_low, 2)}, "
               f"{decimal_text(x.mean_position_high, 2)}]")  # fmt: skip
        win = f"{decimal_text(x.win_rate, 4)} [{decimal_text(x.win_rate_low, 4)}, {decimal_text(x.win_rate_high, 4)}]"
        lines.append(f"{x.rank if r.ranked else '-':>4}  {x.strategy:<{width}} {rating:<22} {pos:<24} {win}")
    model = ratings_manifest(plan, r)["model"]
    head = (f"{model} ratings (mean 1500; 400 points = odds of 10 to 1), 95% bootstrap intervals over matches "
            f"({r.samples:,} samples)")  # fmt: skip
    if not r.ranked:
        lines.append(f"{head}: too few matches to rank; no difference is claimed resolved (see above)")
        return "\n".join(lines)
    resolved = int(r.differences["resolved"].sum())
    fails = int(r.calibration["fails"].sum())
    lines.append(
        f"{head}: {resolved} of {len(r.differences)} differences resolved; the model misses "
        f"{fails} of {len(r.calibration)} observed win rates by table (calibration.csv)"
    )
    return "\n".join(lines)
