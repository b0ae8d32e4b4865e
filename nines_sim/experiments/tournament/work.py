"""Strategy tournaments on the one driver: the formats' plans (:func:`plan_tournament`) and the run
(:class:`TournamentWork` through :func:`nines_sim.runs.driver.run`, :func:`run_plan`).

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
                 (:mod:`nines_sim.experiments.tournament.league`), the strategies rated from the finishing orders.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from itertools import combinations
from typing import Any

from nines_sim.experiments.tournament.games import Collector, RunOutcome, play_games
from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP, FORMATS, RATED_FORMATS, Game, Plan, TournamentError
from nines_sim.game.rules import Rules
from nines_sim.runs import chunks, driver
from nines_sim.runs.backends import choose
from nines_sim.runs.pool import STOP_NOTICE
from nines_sim.runs.ranges import Range, cut
from nines_sim.runs.ranges import total as ranges_total
from nines_sim.strategy.registry import canonical_spec, make_lineup


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

    A league seats ``tables`` tables (default :func:`nines_sim.experiments.tournament.schedule.default_tables`) by a
    schedule
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
        from nines_sim.experiments.tournament.league import plan_league
        from nines_sim.experiments.tournament.schedule import default_tables

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


def unit_driver(plan: Plan, luck: tuple | None = None) -> tuple[Callable, type[Collector]]:
    """The function that plays a chunk of a plan and the collector that merges the chunks: a rated format
    (:data:`RATED_FORMATS`) also counts finishing orders (:mod:`nines_sim.experiments.tournament.league`); a
    table's ``--luck`` run (``luck``: its value as the luck walk reads it, pickled with the function for every
    chunk) also walks each match's luck as it is played."""
    if luck is not None:
        from nines_sim.experiments.tournament.games import LuckCollector

        return partial(play_games, luck=luck), LuckCollector
    if plan.format in RATED_FORMATS:
        from nines_sim.experiments.tournament.league import RatedCollector, play_rated_games

        return play_rated_games, RatedCollector
    return play_games, Collector


class TournamentWork:
    """A tournament (or league) as an experiment of :func:`nines_sim.runs.driver.run`: every game of a plan for
    matches ``0 .. n_matches-1`` of ``seed`` (or only ``ranges``).

    One game's chunks each keep their finished block when stopped, so they are large (one per worker, or a
    few where every seat plays compiled); several games are cut into small chunks, each played by every game
    and kept whole or not at all (:mod:`nines_sim.runs.chunks`).  Its outcome is a :class:`RunOutcome` (a rated
    format's: :class:`nines_sim.experiments.tournament.league.RatedOutcome`).  With ``luck`` (a table's value as
    the luck walk reads it), each match's luck is walked as it is played, into the outcome's ``luck``.
    """

    def __init__(
        self,
        plan: Plan,
        n_matches: int,
        seed: int,
        batch_size: int = 32768,
        save_matches: bool = False,
        ranges: list[Range] | None = None,
        luck: tuple | None = None,
    ) -> None:
        self.plan, self.seed, self.batch_size, self.save_matches = plan, seed, batch_size, save_matches
        self.ranges = ranges or [(0, n_matches)]
        self.matches = ranges_total(self.ranges)
        self.play, collector = unit_driver(plan, luck)
        self.collect = collector(plan, self.ranges)
        # a --luck run's chunks play the trace form and the walk, which its fit loaded here: no plain form to load
        self.warm = [(g.rules, g.lineup) for g in plan.games] if luck is None else None

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
    luck: tuple | None = None,
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
    luck : tuple, optional
        A table's value as the luck walk reads it (:func:`nines_sim.luck.compiled.value_factors`): play each match
        in the trace form and walk its luck as it is played (:func:`~.games.play_games` with it); the same tallies.

    Returns
    -------
    RunOutcome
        ``partial`` is True when Ctrl-C stopped the run; ``kept`` says which
        matches the tallies hold; with ``luck``, its ``luck`` the luck of every match (unless partial).
    """
    experiment = TournamentWork(plan, n_matches, seed, batch_size, save_matches, ranges, luck)
    return driver.run(experiment, choose(workers, client), on_progress, chunk, notice, meanwhile)
