"""Rule comparisons: one lineup under several rule sets, with common random numbers.

Every rule set plays the same seed and match indices.  Deals depend only on
(seed, match, hand number) and the deck, so wherever two rule sets have the
same deck, players and hand sizes, their matches start from the same deals and
stay coupled as long as play allows; the per-match win shares are then paired
and a shift in win rate is measured with the variance of the paired
difference, which is much smaller than that of two independent runs.

Work is cut into chunks of match indices; a chunk plays every rule set at once
(one engine each, in lockstep), so a run stopped by Ctrl-C keeps, of each
chunk, the block of matches that every rule set finished: the same matches for
all rule sets, still paired.

The rule sets are read in :mod:`~nines_sim.experiments.compare_rules.rule_sets`; the tables of the merged
outcome are built in :mod:`~nines_sim.experiments.compare_rules.tables`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nines_sim import _moved
from nines_sim.experiments.compare_rules.rule_sets import RuleSet
from nines_sim.results.records import MatchResults
from nines_sim.results.tally import SHARE_UNIT, Tally
from nines_sim.runs import driver
from nines_sim.runs.backends import choose
from nines_sim.runs.chunks import Keeps, Shape
from nines_sim.runs.ranges import KeptBlocks, Range, cut
from nines_sim.runs.ranges import total as ranges_total
from nines_sim.strategy.registry import make_lineup


def __getattr__(name: str) -> Any:
    return _moved.moved_name(__name__, name)  # the rule sets and the tables, deprecated here


@dataclass
class CompareChunk:
    """Tallies of one chunk under every rule set, and the paired counts against the first.

    ``cross[r]``: (P,) int64, sum over matches of ``s_r * s_0`` in 3600ths; ``gain[r]`` and ``loss[r]``:
    (P,) int64, matches in which a seat's win share under rule set ``r`` was larger / smaller than under
    the first (the discordant matches of the paired exact test).
    """

    tallies: list[Tally]
    cross: list[np.ndarray]
    gain: list[np.ndarray]
    loss: list[np.ndarray]


def compare_range(
    rule_sets: list[RuleSet],
    lineup: tuple[str, ...],
    seed: int,
    start: int,
    n: int,
    batch_size: int,
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    every: int = 25,
) -> CompareChunk | None:
    """Play matches ``start .. start+n-1`` under every rule set, the rule sets' engines in lockstep.

    One engine per rule set, each advanced in turn.  ``should_stop`` is asked
    before the engines start and after every engine's step; every ``every``
    rounds (and when stopping) the matches below the lowest unfinished index of
    *every* engine are tallied under each rule set.  A stopped chunk therefore
    keeps the block ``start .. start+k-1`` common to all rule sets (``k`` may
    be below ``n``): the rule sets hold the same matches, still paired, and a
    whole block of match indices, not a sample biased towards short matches.
    The counts do not depend on how the chunk was cut into blocks.

    Parameters
    ----------
    on_matches : callable, optional
        ``on_matches(played, kept)``: matches finished since the last call (over
        all rule sets), and how many more are now kept (the block's growth
        times the number of rule sets).
    every : int
        Rounds of steps between tallies of the finished block (a numpy engine).

    Returns
    -------
    CompareChunk or None
        The tallies and paired counts of the kept block; None if stopped before any match was kept.
    """
    from nines_sim.engine.batch import make_engine

    R = len(rule_sets)
    P = rule_sets[0].rules.players
    if should_stop and should_stop():
        return None
    engines = [
        make_engine(rs.rules, make_lineup(list(lineup)), seed, start, n, min(batch_size, n), specs=lineup,
                    harvested=True)
        for rs in rule_sets
    ]  # fmt: skip
    tallies = [Tally(P) for _ in range(R)]
    cross = [np.zeros(P, dtype=np.int64) for _ in range(R)]
    gain = [np.zeros(P, dtype=np.int64) for _ in range(R)]
    loss = [np.zeros(P, dtype=np.int64) for _ in range(R)]
    waiting: list[list[MatchResults]] = [[] for _ in range(R)]
    kept_to = start  # the matches start .. kept_to-1 are tallied under every rule set
    reported = 0

    def take() -> None:
        nonlocal kept_to, reported
        end = min(e.lowest_unfinished() for e in engines)
        for i, e in enumerate(engines):
            got = e.harvest()
            if got.n_matches:
                waiting[i].append(got)
        grown = end - kept_to
        if grown > 0:
            shares = []
            for i in range(R):
                pool = MatchResults.concat(waiting[i])  # ordered by match: the rule sets' rows align
                below = pool.match < end
                waiting[i] = [pool.select(~below)] if (~below).any() else []
                done = pool.select(below)
                tallies[i] = tallies[i] + Tally.from_results(done)
                shares.append(np.rint(done.win_share * SHARE_UNIT).astype(np.int64))
            for i, (c, g, lo) in enumerate(zip(*paired_counts(shares))):
                cross[i], gain[i], loss[i] = cross[i] + c, gain[i] + g, loss[i] + lo
            kept_to = end
        played = sum(e.matches_done for e in engines)
        if on_matches and (played > reported or grown > 0):
            on_matches(played - reported, max(grown, 0) * R)
            reported = played

    for e in engines:
        e.start_run()
    rounds = 0
    stopped = False
    while not stopped and any(e.B for e in engines):
        for e in engines:
            if e.B:
                e.advance()
                if should_stop and should_stop():
                    stopped = True
                    break
        rounds += 1
        if not stopped and rounds % min(every, *(e.check_every for e in engines)) == 0:
            take()
    take()
    if kept_to == start:
        return None
    return CompareChunk(tallies, cross, gain, loss)


def paired_counts(shares: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The paired sums of :class:`CompareChunk` from each rule set's per-match win shares.

    Parameters
    ----------
    shares : list of numpy.ndarray
        int64, (n, P) each, in 60ths, the same match indices in the same order; the first is the reference.

    Returns
    -------
    cross, gain, loss : list of numpy.ndarray
        int64, (P,) per rule set (see :class:`CompareChunk`).
    """
    cross = [(s * shares[0]).sum(axis=0) for s in shares]
    gain = [(s > shares[0]).sum(axis=0).astype(np.int64) for s in shares]
    loss = [(s < shares[0]).sum(axis=0).astype(np.int64) for s in shares]
    return cross, gain, loss


@dataclass
class CompareOutcome:
    """Merged tallies per rule set, paired counts (see :class:`CompareChunk`), and whether the run was cut short.

    ``ranges`` are the match indices asked for, ``kept`` those the tallies hold
    (each chunk's finished block, the same under every rule set).
    """

    tallies: list[Tally]
    cross: list[np.ndarray]
    partial: bool
    wall_seconds: float
    matches_played: int = 0
    extra: dict = field(default_factory=dict)
    gain: list[np.ndarray] = field(default_factory=list)
    loss: list[np.ndarray] = field(default_factory=list)

    @classmethod
    def empty(cls, players: int, rule_sets: int) -> CompareOutcome:
        """No matches yet, for ``rule_sets`` rule sets at a table of ``players``."""
        tallies = [Tally(players) for _ in range(rule_sets)]
        return cls(tallies, [np.zeros(players, dtype=np.int64) for _ in range(rule_sets)], False, 0.0)

    def add(self, c: CompareChunk) -> None:
        """Merge one finished chunk in (counts add, so the order of chunks does not matter)."""
        P = self.tallies[0].players
        if not self.gain:
            self.gain = [np.zeros(P, dtype=np.int64) for _ in self.tallies]
            self.loss = [np.zeros(P, dtype=np.int64) for _ in self.tallies]
        for i, t in enumerate(c.tallies):
            self.tallies[i] = self.tallies[i] + t
            self.cross[i] = self.cross[i] + c.cross[i]
            self.gain[i] = self.gain[i] + c.gain[i]
            self.loss[i] = self.loss[i] + c.loss[i]
        self.matches_played += c.tallies[0].matches

    ranges: list[Range] = field(default_factory=list)
    kept: list[Range] = field(default_factory=list)


def compare_units(
    rule_sets: list[RuleSet], lineup: tuple[str, ...], ranges: list[Range], size: int, seed: int, batch_size: int
) -> Iterator[tuple[tuple[int, int], tuple]]:
    """The units of :func:`compare_range`, lazily: ``((start, n), args)`` per chunk of the ranges."""
    for s, n in cut(ranges, size):
        yield (s, n), (rule_sets, lineup, seed, s, n, batch_size)


class CompareCollector:
    """Merges the kept blocks of a comparison's chunks as they finish (``take``) into a :class:`CompareOutcome`."""

    def __init__(self, rule_sets: list[RuleSet], ranges: list[Range]) -> None:
        self.out = CompareOutcome.empty(rule_sets[0].rules.players, len(rule_sets))
        self.out.ranges = ranges
        self.kept = KeptBlocks()
        self.t0 = time.perf_counter()

    def take(self, tag: tuple[int, int], c: CompareChunk | None) -> int:
        """Merge one chunk's kept block (None: stopped before any); returns the matches kept per rule set."""
        if c is None:
            return 0
        self.out.add(c)
        return self.kept.add(tag[0], c.tallies[0].matches)

    def outcome(self, partial: bool) -> CompareOutcome:
        self.out.partial, self.out.kept = partial, self.kept.ranges()
        self.out.wall_seconds = time.perf_counter() - self.t0
        return self.out


class ComparisonWork:
    """A rule comparison as an experiment of :func:`nines_sim.runs.driver.run`: the lineup under every rule set
    for matches ``0 .. n_matches-1`` of ``seed`` (or only ``ranges``), each chunk played by every rule set and
    keeping, when stopped, the block every rule set finished; its outcome is a :class:`CompareOutcome`."""

    play = staticmethod(compare_range)

    def __init__(
        self,
        rule_sets: list[RuleSet],
        lineup: tuple[str, ...],
        n_matches: int,
        seed: int,
        batch_size: int = 32768,
        ranges: list[Range] | None = None,
    ) -> None:
        self.rule_sets, self.lineup, self.seed, self.batch_size = rule_sets, lineup, seed, batch_size
        self.ranges = ranges or [(0, n_matches)]
        self.matches = ranges_total(self.ranges)
        self.collect = CompareCollector(rule_sets, self.ranges)
        self.warm = [(rs.rules, lineup) for rs in rule_sets]

    def shape(self) -> Shape:
        # chunks small enough to lose little to a Ctrl-C (a stopped chunk keeps the block every rule set finished)
        return Shape(Keeps.WHOLE)

    def units(self, size: int, portable: Callable[[tuple[str, ...]], tuple[str, ...]]) -> Iterator:
        return compare_units(self.rule_sets, portable(self.lineup), self.ranges, size, self.seed, self.batch_size)

    def take(self, tag: tuple[int, int], c: CompareChunk | None) -> int:
        return self.collect.take(tag, c) * len(self.rule_sets)

    def outcome(self, partial: bool) -> CompareOutcome:
        return self.collect.outcome(partial)


def run_comparison(
    rule_sets: list[RuleSet],
    lineup: tuple[str, ...],
    n_matches: int,
    seed: int,
    workers: int = 1,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    ranges: list[Range] | None = None,
    client: Any = None,
) -> CompareOutcome:
    """Play the lineup under every rule set on ``workers`` local processes, or on the Dask cluster of
    ``client`` (the same numbers): :class:`ComparisonWork` on the backend of
    :func:`nines_sim.runs.backends.choose` through :func:`nines_sim.runs.driver.run`.

    Returns
    -------
    CompareOutcome
        ``partial`` when Ctrl-C stopped the run; each chunk's block finished under every rule set is kept.
    """
    experiment = ComparisonWork(rule_sets, lineup, n_matches, seed, batch_size, ranges)
    return driver.run(experiment, choose(workers, client), on_progress, chunk_size)
