"""Run many matches: split the match range into chunks, play them, merge.

The results of match ``k`` depend only on (seed, k, rules, lineup), so the
chunking, the batch size and the number of worker processes change only the
speed, never the numbers.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence

from nines_sim.ranges import cut
from nines_sim.registry import make_lineup
from nines_sim.results import MatchResults
from nines_sim.rules import Rules
from nines_sim.strategy import Strategy

DEFAULT_BATCH = 32768


def _play_range(rules: Rules, lineup: Sequence, seed: int, start: int, n: int, batch_size: int) -> MatchResults:
    from nines_sim.compiled import make_engine

    return make_engine(rules, make_lineup(list(lineup)), seed, start, n, batch_size).run()


def chunks(start: int, n_matches: int, size: int) -> list[tuple[int, int]]:
    """``(start, count)`` pieces covering ``n_matches`` matches from ``start``."""
    return cut([(start, start + n_matches)], size)


def default_chunk_size(n_matches: int, workers: int, batch_size: int) -> int:
    """Matches per chunk of :func:`simulate`.

    One process plays the whole range as one chunk: every result is kept anyway, and merging chunks is
    one more pass over all the hand records (a tenth of a table of built-ins' time).  Several workers get
    about four chunks each (at least 2,000 matches, at most ``4 * batch_size``), so that a worker slowed
    by other load does not hold up the run, and most chunks' results travel back while others still play.
    """
    if workers <= 1:
        return max(1, n_matches)
    return max(1, min(4 * batch_size, max(2_000, -(-n_matches // (4 * workers)))))


def whole_chunk_size(n_matches: int, workers: int) -> int:
    """Matches per chunk of work that is kept whole or not at all (several games or rule sets).

    At most 20,000: a Ctrl-C loses at most one such chunk per worker; at least
    2,000, so that each engine's batch stays large enough to be fast; about
    four chunks per worker in between, to balance the workers.
    """
    return int(min(20_000, max(2_000, math.ceil(n_matches / (4 * max(workers, 1))))))


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
    nines_sim.engine.IllegalMoveError, nines_sim.engine.StrategyError
        When a strategy misbehaves.
    """
    if n_matches < 1:
        raise ValueError(f"n_matches must be >= 1, not {n_matches}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, not {workers}")
    from concurrent.futures import ProcessPoolExecutor

    from nines_sim.compiled import make_engine, warm_up  # the engine loads when a run reaches play

    players = make_lineup(list(lineup))
    if len(players) != rules.players:
        raise ValueError(f"the lineup has {len(players)} strategies but the rules seat {rules.players} players")
    size = chunk_size or default_chunk_size(n_matches, workers, batch_size)
    pieces = chunks(start, n_matches, size)
    parts: list[MatchResults] = []
    if workers == 1 or len(pieces) == 1:
        for s, n in pieces:
            part = make_engine(rules, players, seed, s, n, batch_size).run()
            parts.append(part)
            if on_chunk:
                on_chunk(part)
    else:
        warm_up(rules=[rules])  # forked workers inherit the loaded kernel instead of each loading it
        with ProcessPoolExecutor(max_workers=min(workers, len(pieces))) as pool:
            futures = [pool.submit(_play_range, rules, players, seed, s, n, batch_size) for s, n in pieces]
            for f in futures:
                part = f.result()
                parts.append(part)
                if on_chunk:
                    on_chunk(part)
    return MatchResults.concat(parts)


def cpu_count() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
