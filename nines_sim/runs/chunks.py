"""How many matches one unit of work plays: the one chunk-size policy of every run.

The numbers never depend on it: match ``k`` depends only on the seed, ``k``, the
rules and the lineup, and the units' results merge by addition.  The chunk size
changes only the speed, how evenly the workers finish, how much memory a unit
holds and how much a Ctrl-C loses.  What decides it is what a unit keeps when it
is stopped (:class:`Keeps`) and how the backend hears of progress:

- ``BLOCK``: a unit plays one game and a stopped one keeps its finished block of
  matches from its start.  Large chunks lose nothing to a Ctrl-C, so each worker
  gets one chunk (``games`` played side by side in separate units share the
  workers), and each engine's batch of games stays full for Python seats.
  Where every seat plays inside the compiled loop there is no batch to keep full:
  about :data:`COMPILED_CHUNKS_PER_WORKER` chunks per worker (at least
  :data:`LEAST` matches) keep a worker slowed by other load from holding up the
  run's end; a run of fewer than two such chunks is one (starting worker
  processes would cost more than the run).  A backend that hears of progress only as units finish (Dask) gets
  about two chunks per worker, at most :data:`MOST_UNHEARD`, so that its bar moves.
- ``WHOLE``: a unit plays several games or rule sets and is kept whole or not at
  all.  At most :data:`MOST_WHOLE` matches, so that a Ctrl-C loses at most one such
  chunk per worker; at least :data:`LEAST`, so that each engine's batch stays large
  enough to be fast; about four chunks per worker in between, to balance them.
- ``RECORDS``: a unit returns every hand record (:func:`nines_sim.runs.simulate.simulate`)
  and a stopped run keeps nothing.  One process plays the whole range as one chunk
  (merging chunks is one more pass over all the records); several workers get
  about four chunks each, at least :data:`LEAST` and at most four batches, so that
  most chunks' records travel back while others still play.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

#: The fewest matches in a chunk that is cut for balance (an engine's batch stays large enough to be fast).
LEAST = 2_000
#: Chunks per worker for one game whose seats all play compiled.
COMPILED_CHUNKS_PER_WORKER = 16
#: The most matches in a chunk kept whole or not at all (what a Ctrl-C may lose per worker).
MOST_WHOLE = 20_000
#: The most matches in a block-kept chunk on a backend that hears of progress only as chunks finish.
MOST_UNHEARD = 100_000
#: Games in play at once per process, unless a run says otherwise.
DEFAULT_BATCH = 32768


class Keeps(Enum):
    """What a unit of work keeps when a Ctrl-C stops it (see the module docstring)."""

    BLOCK = "block"
    WHOLE = "whole"
    RECORDS = "records"


@dataclass(frozen=True)
class Shape:
    """What the chunk size of a run depends on, besides its matches and workers.

    Attributes
    ----------
    keeps : Keeps
        What a stopped unit keeps.
    games : int
        ``BLOCK``: games played side by side by separate units (a tuning trial's rotations); they share
        the workers, one chunk per worker in all.
    compiled : bool
        ``BLOCK``: every seat plays inside the compiled loop (:func:`nines_sim.engine.seats.plays_compiled`).
    batch_size : int
        ``RECORDS``: games in play at once per process.
    """

    keeps: Keeps
    games: int = 1
    compiled: bool = False
    batch_size: int = DEFAULT_BATCH


def _between(size: int, least: int, most: int) -> int:
    return int(min(most, max(least, size)))


def chunk_size(n_matches: int, workers: int, shape: Shape, live_progress: bool = True) -> int:
    """Matches per unit of work of a run (the numbers do not depend on it; see the module docstring).

    Parameters
    ----------
    n_matches : int
        Matches the run plays (per game), >= 0.
    workers : int
        Units that run at once (worker processes, or Dask workers).
    shape : Shape
        What a unit keeps when stopped, and what else matters for its kind.
    live_progress : bool
        False where the backend hears of progress only as units finish (Dask).

    Returns
    -------
    int
        At least 1.
    """
    w = max(workers, 1)
    if shape.keeps is Keeps.WHOLE:
        return _between(math.ceil(n_matches / (4 * w)), LEAST, MOST_WHOLE)
    if shape.keeps is Keeps.RECORDS:
        if w == 1:
            return max(1, n_matches)
        return max(1, _between(math.ceil(n_matches / (4 * w)), LEAST, 4 * shape.batch_size))
    if not live_progress:
        return _between(math.ceil(n_matches / (2 * w)), LEAST, MOST_UNHEARD)
    per_worker = max(1, math.ceil(n_matches / math.ceil(w / max(shape.games, 1))))
    if w > 1 and shape.compiled:
        if n_matches < 2 * LEAST:  # too small to be worth two units: one (a pool plays one unit in this process)
            return max(1, n_matches)
        return min(per_worker, max(LEAST, math.ceil(per_worker / COMPILED_CHUNKS_PER_WORKER)))
    return per_worker
