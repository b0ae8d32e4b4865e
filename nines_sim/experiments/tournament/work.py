"""Strategy tournaments: who sits where, running the games in chunks, the tables.

A tournament is a list of *games* (a lineup under a rule set) each played for
the same match indices of one seed.  Every (game, chunk) is a unit of work
that returns a :class:`~nines_sim.results.tally.Tally`; tallies merge by addition, so
the tables are identical whatever the workers, chunks or batch size.

Formats
-------
``table``        the given strategies sit clockwise in the given order (one game).
``round-robin``  every pair of the given strategies plays heads-up (2 players).
``field``        each given strategy sits at seat 0 against P-1 copies of a baseline.
``league``       tables of P drawn from the strategies by a balanced, seeded schedule
                 (:mod:`nines_sim.runs.league`), the strategies rated from the finishing orders.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from nines_sim.game.rules import Rules
from nines_sim.results.records import MatchResults
from nines_sim.results.stats import (
    MIN_MATCHES_TO_RANK,
)
from nines_sim.results.tally import Tally
from nines_sim.runs import chunks, driver
from nines_sim.runs.backends import choose
from nines_sim.runs.pool import STOP_NOTICE
from nines_sim.runs.ranges import KeptBlocks, Range, cut
from nines_sim.runs.ranges import total as ranges_total
from nines_sim.strategy.registry import canonical_spec, display_name, make_lineup

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("table", "round-robin", "field", "league")
#: Formats whose runs are rated from the finishing orders (:mod:`nines_sim.runs.league`).
RATED_FORMATS = ("round-robin", "league")
#: With no strategies named: the four one-line heuristics and ``expert`` (the fast, fair built-ins) at a 5-seat table.
DEFAULT_LINEUP = ("random", "hold-nines", "dump-faces", "suit-majority", "expert")

SUMMARY_COLUMNS = [
    "position", "rank", "strategy", "matches", "wins", "win_rate", "win_rate_low", "win_rate_high",
    "mean_total", "sd_total", "go_out_rate", "mean_hand_penalty",
]  # fmt: skip
HANDS_COLUMNS = [
    "hands", "mean_turns_per_hand", "mean_hands_per_match", "blocked_rate", "capped_hands",
    "reshuffles_per_hand", "nine_starter_rate", "first_player_go_out_rate",
]  # fmt: skip
DISTRIBUTION_COLUMNS = ["strategy", "kind", "points", "count"]
SEAT_COLUMNS = ["seat_from_dealer", "hands", "go_outs", "go_out_rate"]
PAIRWISE_COLUMNS = [
    "comparison", "a", "b", "matches", "estimate", "se", "ci_low", "ci_high", "test", "p_value", "p_holm",
    "significant",
]  # fmt: skip
HEAD_TO_HEAD_COLUMNS = ["strategy", "opponent", "matches", "win_rate", "win_rate_low", "win_rate_high"]
MATCH_COLUMNS_FIXED = ["game", "match", "hands", "tiebreak_hands", "first_dealer"]
TOO_SMALL_NOTE = (
    f"stopped with too few matches to rank (under {MIN_MATCHES_TO_RANK} per game): no ranks, no significance claims"
)


class TournamentError(ValueError):
    """A tournament that cannot be set up as asked; the message says what to do."""


@dataclass(frozen=True)
class Game:
    """One lineup under one rule set: ``key`` names it in tables ("table", "random vs dump-faces")."""

    key: str
    rules: Rules
    lineup: tuple[str, ...]


def entry_names(specs: list[str]) -> list[str]:
    """The names the CSVs give a lineup's strategies: each one's ``display_name`` (values to 4 digits,
    ``expert(w_follow=2.5)``), or its spec where two different specs would share a name (``expert:w_follow=2.5001``
    and ``expert:w_follow=2.5002``), so that no two strategies of a run have one name.

    Parameters
    ----------
    specs : list of str
        Strategy specs, one per entry (a spec may repeat: one strategy in several seats).

    Returns
    -------
    list of str
    """
    names = [display_name(s) for s in make_lineup(list(specs))]
    specs_of: dict[str, set[str]] = {}
    for spec, name in zip(specs, names):
        specs_of.setdefault(name, set()).add(str(spec))
    return [str(spec) if len(specs_of[name]) > 1 else name for spec, name in zip(specs, names)]


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
            self.labels = entry_names(self.strategies)

    def label_of(self, spec: str) -> str:
        """The name a strategy spec is shown under (a class's ``name``, not its import path)."""
        return self.labels[self.strategies.index(spec)]


def plan_tournament(
    fmt: str,
    strategies: list[str],
    rules: Rules,
    players: int | None = None,
    baseline: str = "random",
    tables: int | None = None,
    seed: int = 0,
) -> Plan:
    """Seat the strategies for a format.

    A league seats ``tables`` tables (default :func:`nines_sim.runs.schedule.default_tables`) by a schedule
    seeded from ``seed``; the other formats use neither.

    Raises
    ------
    TournamentError
        For an unknown format, a player count that disagrees with the lineup,
        too few strategies, or a repeated strategy where each must be distinct.
    nines_sim.game.rules.RulesError, nines_sim.strategy.registry.StrategyNotFound
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
    if fmt == "league":
        from nines_sim.runs.league import plan_league
        from nines_sim.runs.schedule import default_tables

        p = players if players is not None else rules.players
        return plan_league(names, rules, p, tables if tables is not None else default_tables(len(names), p), seed)
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
    import pandas as pd

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
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    every: int = 25,
    observe: Callable[[MatchResults], None] | None = None,
) -> tuple[Tally, list[pd.DataFrame]]:
    """Play matches ``start .. start+n-1`` of one game, tallying finished matches as it goes.

    The engine's batch stays full across the whole range.  ``should_stop`` is
    asked before the engine starts and after every step; every ``every`` steps
    (and when stopping) the finished matches below the lowest unfinished index
    are tallied, so memory stays flat and a stopped range keeps the matches
    ``start .. k-1`` for its first unfinished ``k``: a whole block of match
    indices, not a sample biased towards short matches.

    Parameters
    ----------
    on_matches : callable, optional
        ``on_matches(played, kept)``: matches finished since the last call, and
        how many more are now tallied (kept).
    observe : callable, optional
        ``observe(results)`` with each block of matches as it is tallied.

    Returns
    -------
    (Tally, list of pandas.DataFrame)
        The tally of matches ``start .. start + tally.matches - 1``, and their
        rows when ``keep``.
    """
    from nines_sim.engine.batch import make_engine

    tally = Tally(rules.players)
    rows: list[pd.DataFrame] = []
    if should_stop and should_stop():
        return tally, rows
    engine = make_engine(
        rules, make_lineup(list(lineup)), seed, start, n, min(batch_size, n), specs=lineup, harvested=True
    )
    waiting: list[MatchResults] = []
    reported = 0

    def take() -> None:
        nonlocal tally, waiting, reported
        got = engine.harvest()
        if got.n_matches:
            waiting.append(got)
        kept = 0
        if waiting:
            pool = MatchResults.concat(waiting)
            below = pool.match < engine.lowest_unfinished()
            waiting = [pool.select(~below)] if (~below).any() else []
            if below.any():
                done = pool.select(below)
                tally = tally + Tally.from_results(done)
                kept = done.n_matches
                if observe:
                    observe(done)
                if keep:
                    rows.append(_match_rows(done, rules))
        if on_matches and (engine.matches_done > reported or kept):
            on_matches(engine.matches_done - reported, kept)
            reported = engine.matches_done

    engine.start_run()
    steps = 0
    while engine.B:
        engine.advance()
        steps += 1
        if should_stop and should_stop():
            break
        if steps % min(every, engine.check_every) == 0:
            take()
    take()
    return tally, rows


def play_games(
    games: tuple[tuple[Rules, tuple[str, ...]], ...],
    seed: int,
    start: int,
    n: int,
    batch_size: int,
    keep: bool,
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    observers: list[Callable[[MatchResults], None]] | None = None,
) -> list[tuple[Tally, list[pd.DataFrame]]] | None:
    """One chunk of a tournament: matches ``start .. start+n-1`` of every game, one game after the other.

    With one game, a stopped chunk keeps its finished block of matches (see
    :func:`play_range`).  With several, a chunk is kept whole or not at all
    (None), so that every game of a stopped run holds the same match indices.
    ``observers``, one per game, hear of each block of that game's matches as it is tallied.
    """
    watch = observers or [None] * len(games)
    if len(games) == 1:
        rules, lineup = games[0]
        return [play_range(rules, lineup, seed, start, n, batch_size, keep, on_matches, should_stop, observe=watch[0])]

    def played_only(played: int, kept: int) -> None:
        if on_matches:
            on_matches(played, 0)

    out = []
    for (rules, lineup), observe in zip(games, watch):
        tally, rows = play_range(rules, lineup, seed, start, n, batch_size, keep, played_only, should_stop,
                                 observe=observe)  # fmt: skip
        if tally.matches < n:
            return None
        out.append((tally, rows))
    if on_matches:
        on_matches(0, n * len(games))
    return out


@dataclass
class RunOutcome:
    """Tallies per game key, the matches played, and whether the run was cut short.

    ``ranges`` are the match indices asked for; ``kept`` those whose results
    the tallies hold (the same for every game), sorted and merged.
    """

    tallies: dict[str, Tally]
    matches_played: dict[str, int]
    partial: bool
    wall_seconds: float
    match_rows: list[pd.DataFrame] = field(default_factory=list)
    ranges: list[Range] = field(default_factory=list)
    kept: list[Range] = field(default_factory=list)

    @property
    def total_matches(self) -> int:
        return sum(self.matches_played.values())


def chunk_size(plan: Plan, ranges: list[Range], workers: int) -> int:
    """Matches per chunk of :func:`run_plan` on local workers: :func:`nines_sim.runs.chunks.chunk_size` for the plan
    (the numbers do not depend on it)."""
    return chunks.chunk_size(ranges_total(ranges), workers, plan_shape(plan))


def plan_shape(plan: Plan) -> chunks.Shape:
    """What a plan's chunk size depends on (:mod:`nines_sim.runs.chunks`): one game's chunks keep their finished
    block when stopped (the kernel's own loop plays them when every seat is compiled); several games' are kept
    whole or not at all."""
    if len(plan.games) > 1:
        return chunks.Shape(chunks.Keeps.WHOLE)
    from nines_sim.engine.seats import plays_compiled

    return chunks.Shape(chunks.Keeps.BLOCK, compiled=plays_compiled(make_lineup(list(plan.games[0].lineup))))


def plan_units(
    plan: Plan,
    ranges: list[Range],
    size: int,
    seed: int,
    batch_size: int,
    save_matches: bool,
    lineups: dict[str, tuple[str, ...]] | None = None,
) -> Iterator[tuple[tuple[int, int], tuple]]:
    """The units of :func:`play_games`, lazily: ``((start, n), args)`` per chunk of the ranges."""
    games = tuple((g.rules, (lineups or {}).get(g.key, g.lineup)) for g in plan.games)
    for s, n in cut(ranges, size):
        yield (s, n), (games, seed, s, n, batch_size, save_matches)


class Collector:
    """Merges the chunks of a tournament as they finish (``take``) into a :class:`RunOutcome`."""

    def __init__(self, plan: Plan, ranges: list[Range]) -> None:
        self.plan = plan
        self.ranges = ranges
        self.tallies: dict[str, Tally] = {g.key: Tally(g.rules.players) for g in plan.games}
        self.played = {g.key: 0 for g in plan.games}
        self.rows: list[pd.DataFrame] = []
        self.kept = KeptBlocks()
        self.t0 = time.perf_counter()

    def take(self, tag: tuple[int, int], result: list[tuple[Tally, list[pd.DataFrame]]] | None) -> int:
        """Merge one chunk's result; returns the matches kept per game."""
        if result is None:
            return 0
        for g, (tally, dfs) in zip(self.plan.games, result):
            self.tallies[g.key] = self.tallies[g.key] + tally
            self.played[g.key] += tally.matches
            for df in dfs:
                df.insert(0, "game", g.key)
                self.rows.append(df)
        return self.kept.add(tag[0], result[0][0].matches)

    def outcome(self, partial: bool) -> RunOutcome:
        return RunOutcome(self.tallies, self.played, partial, time.perf_counter() - self.t0, self.rows,
                          self.ranges, self.kept.ranges())  # fmt: skip


def unit_driver(plan: Plan) -> tuple[Callable, type[Collector]]:
    """The function that plays a chunk of a plan and the collector that merges the chunks: a rated format
    (:data:`RATED_FORMATS`) also counts finishing orders (:mod:`nines_sim.runs.league`)."""
    if plan.format in RATED_FORMATS:
        from nines_sim.runs.league import RatedCollector, play_rated_games

        return play_rated_games, RatedCollector
    return play_games, Collector


class TournamentWork:
    """A tournament (or league) as an experiment of :func:`nines_sim.runs.driver.run`: every game of a plan for
    matches ``0 .. n_matches-1`` of ``seed`` (or only ``ranges``).

    One game's chunks each keep their finished block when stopped, so they are large (one per worker, or a
    few where every seat plays compiled); several games are cut into small chunks, each played by every game
    and kept whole or not at all (:mod:`nines_sim.runs.chunks`).  Its outcome is a :class:`RunOutcome` (a rated
    format's: :class:`nines_sim.runs.league.RatedOutcome`).
    """

    def __init__(
        self,
        plan: Plan,
        n_matches: int,
        seed: int,
        batch_size: int = 32768,
        save_matches: bool = False,
        ranges: list[Range] | None = None,
    ) -> None:
        self.plan, self.seed, self.batch_size, self.save_matches = plan, seed, batch_size, save_matches
        self.ranges = ranges or [(0, n_matches)]
        self.matches = ranges_total(self.ranges)
        self.play, collector = unit_driver(plan)
        self.collect = collector(plan, self.ranges)
        self.warm = [(g.rules, g.lineup) for g in plan.games]

    def shape(self) -> chunks.Shape:
        return plan_shape(self.plan)

    def units(self, size: int, portable: Callable[[tuple[str, ...]], tuple[str, ...]]) -> Iterator:
        lineups = {g.key: portable(g.lineup) for g in self.plan.games}
        return plan_units(self.plan, self.ranges, size, self.seed, self.batch_size, self.save_matches, lineups)

    def take(self, tag: tuple[int, int], result: list | None) -> int:
        return self.collect.take(tag, result) * len(self.plan.games)

    def outcome(self, partial: bool) -> RunOutcome:
        return self.collect.outcome(partial)


def run_plan(
    plan: Plan,
    n_matches: int,
    seed: int,
    workers: int = 1,
    batch_size: int = 32768,
    save_matches: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    ranges: list[Range] | None = None,
    chunk: int | None = None,
    notice: str = STOP_NOTICE,
    meanwhile: Callable[[], None] | None = None,
    client: Any = None,
) -> RunOutcome:
    """Play every game of a plan on ``workers`` local processes or a Dask cluster: :class:`TournamentWork` on
    the backend of :func:`nines_sim.runs.backends.choose` through :func:`nines_sim.runs.driver.run`.

    Parameters
    ----------
    on_progress : callable, optional
        ``on_progress(played, kept)`` with the matches just finished (for a progress bar).
    ranges : list of (int, int), optional
        Half-open ranges of match indices to play instead of ``0 .. n_matches-1``.
    chunk : int, optional
        Matches per unit of work (default: :func:`chunk_size`); the numbers do not depend on it.
    notice : str
        What a Ctrl-C prints at once (by default that finished work is kept; ``nines bench`` keeps none).
    meanwhile : callable, optional
        Work for this process while a worker plays (:attr:`nines_sim.runs.backends.Job.meanwhile`).
    client : distributed.Client, optional
        Play on this Dask cluster (:func:`nines_sim.runs.cluster.connect`) instead of local processes; the
        same numbers.

    Returns
    -------
    RunOutcome
        ``partial`` is True when Ctrl-C stopped the run; ``kept`` says which
        matches the tallies hold.
    """
    experiment = TournamentWork(plan, n_matches, seed, batch_size, save_matches, ranges)
    return driver.run(experiment, choose(workers, client), on_progress, chunk, notice, meanwhile)
