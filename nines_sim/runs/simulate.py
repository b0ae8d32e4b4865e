"""Run many matches: split the match range into chunks, play them, merge.

The results of match ``k`` depend only on (seed, k, rules, lineup), so the
chunking, the batch size and the number of worker processes change only the
speed, never the numbers.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence

from nines_sim.game.rules import Rules
from nines_sim.results.records import MatchResults
from nines_sim.runs import chunks as chunks_policy
from nines_sim.runs import driver
from nines_sim.runs.backends import Local
from nines_sim.runs.pool import Progress
from nines_sim.runs.ranges import cut
from nines_sim.strategy.base import Strategy
from nines_sim.strategy.registry import make_lineup

DEFAULT_BATCH = chunks_policy.DEFAULT_BATCH
#: What a Ctrl-C prints at once: :func:`simulate` returns every record or none.
STOP_NOTICE = "Stopping (Ctrl-C): a simulation keeps nothing of a stopped run."


def simulate_range(rules: Rules, lineup: Sequence[str | Strategy], seed: int, start: int, n: int, batch_size: int,
                   on_matches: Progress | None = None, should_stop: Callable[[], bool] | None = None
                   ) -> MatchResults | None:  # fmt: skip
    """One unit of :func:`simulate`: every record of matches ``start .. start+n-1``, or None when stopped.

    ``should_stop`` is asked before the engine starts and after every step; a stopped simulation keeps
    nothing, so neither does a stopped unit.  ``on_matches`` is not called (a simulation has no bar).
    """
    from nines_sim.engine.batch import make_engine  # the engine loads when a run reaches play

    if should_stop and should_stop():
        return None
    engine = make_engine(rules, make_lineup(list(lineup)), seed, start, n, batch_size)
    engine.start_run()
    while engine.B:
        engine.advance()
        if should_stop and should_stop():
            return None
    return engine.results()


def chunks(start: int, n_matches: int, size: int) -> list[tuple[int, int]]:
    """``(start, count)`` pieces covering ``n_matches`` matches from ``start``."""
    return cut([(start, start + n_matches)], size)


def default_chunk_size(n_matches: int, workers: int, batch_size: int) -> int:
    """Matches per chunk of :func:`simulate`: :func:`nines_sim.runs.chunks.chunk_size` for units that return every
    record (one chunk in one process; about four per worker, at least 2,000 matches, at most four batches)."""
    shape = chunks_policy.Shape(chunks_policy.Keeps.RECORDS, batch_size=batch_size)
    return chunks_policy.chunk_size(n_matches, workers, shape)


class SimulationWork:
    """A simulation as an experiment of :func:`nines_sim.runs.driver.run`: every record of matches
    ``start .. start + n_matches - 1``, in match order; a stopped run keeps nothing (KeyboardInterrupt)."""

    play = staticmethod(simulate_range)

    def __init__(
        self,
        rules: Rules,
        players: list[Strategy],
        n_matches: int,
        seed: int,
        batch_size: int,
        start: int,
        on_chunk: Callable[[MatchResults], None] | None = None,
    ) -> None:
        self.rules, self.players, self.seed, self.batch_size, self.start = rules, players, seed, batch_size, start
        self.matches, self.on_chunk = n_matches, on_chunk
        self.warm = [(rules, players)]
        self.parts: dict[int, MatchResults] = {}

    def shape(self) -> chunks_policy.Shape:
        return chunks_policy.Shape(chunks_policy.Keeps.RECORDS, batch_size=self.batch_size)

    def units(self, size: int, portable: Callable) -> Iterator[tuple[int, tuple]]:
        # the lineup's strategies travel as instances: a simulation runs on local processes only
        for s, n in chunks(self.start, self.matches, size):
            yield s, (self.rules, self.players, self.seed, s, n, self.batch_size)

    def take(self, start: int, part: MatchResults | None) -> int:
        if part is None:
            return 0
        self.parts[start] = part
        if self.on_chunk:
            self.on_chunk(part)
        return part.n_matches

    def outcome(self, partial: bool) -> MatchResults:
        if partial:
            raise KeyboardInterrupt
        return MatchResults.concat([self.parts[s] for s in sorted(self.parts)])


def simulate(
    rules: Rules,
    lineup: Sequence[str | Strategy],
    n_matches: int,
    seed: int = 0,
    batch_size: int = DEFAULT_BATCH,
    start: int = 0,
    workers: int = 1,
    chunk_size: int | None = None,
    on_chunk: Callable[[MatchResults], None] | None = None,
) -> MatchResults:
    """Play matches ``start .. start + n_matches - 1`` of ``seed`` and return their results.

    Parameters
    ----------
    rules : Rules
    lineup : sequence of str or Strategy
        One strategy (name, spec or instance) per seat, seat 0 first.
    n_matches : int
        Matches to play, >= 1.
    seed : int
        0 <= seed < 2**64.
    batch_size : int
        Games in play at once per process.
    start : int
        First match index.
    workers : int
        Worker processes (1 plays in this process).
    chunk_size : int, optional
        Matches per unit of work (default: :func:`default_chunk_size`).
    on_chunk : callable, optional
        Called with each chunk's results as it completes (progress).

    Returns
    -------
    MatchResults
        Identical for any ``batch_size``, ``workers`` and ``chunk_size``.

    Raises
    ------
    ValueError
        For a lineup of the wrong length or non-positive sizes.
    nines_sim.engine.broker.IllegalMoveError, nines_sim.engine.broker.StrategyError
        When a strategy misbehaves.
    KeyboardInterrupt
        When Ctrl-C stopped the run (within a step of each engine; nothing partial is returned).
    """
    if n_matches < 1:
        raise ValueError(f"n_matches must be >= 1, not {n_matches}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, not {workers}")
    players = make_lineup(list(lineup))
    if len(players) != rules.players:
        raise ValueError(f"the lineup has {len(players)} strategies but the rules seat {rules.players} players")
    size = chunk_size or default_chunk_size(n_matches, workers, batch_size)
    experiment = SimulationWork(rules, players, n_matches, seed, batch_size, start, on_chunk)
    # no more processes than chunks: a single chunk plays in this process
    return driver.run(experiment, Local(min(workers, math.ceil(n_matches / size))), chunk=size, notice=STOP_NOTICE)


def cpu_count() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
