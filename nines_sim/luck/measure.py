"""Matches traced on the compiled engine and walked for their luck in compiled code, in chunks, on worker
processes (:mod:`nines_sim.luck.compiled`).

The trace form of the loop plays each match exactly as any run does (same seed, same match index), so a match's
luck is the same whatever the chunk, batch or worker that plays it; chunks are fixed in size and gathered in
match order, so every array is byte-identical for any number of workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Matches one unit of work traces (fixed, so that the numbers do not depend on the workers).
CHUNK = 500
#: The first of the match indices reserved for fitting values: above any run's (at most 10**10 matches a run).
FIT_START = 2**61


@dataclass(frozen=True)
class Luck:
    """The luck of a range of matches.

    Attributes
    ----------
    parts : numpy.ndarray or None
        float64, shape (n, 3, P, N_FEATURES): each match's feature differences (kept when asked: fitting).
    corrections : numpy.ndarray or None
        float64, shape (n, 3, P): each match's corrections under the value, per part and seat.
    shares : numpy.ndarray
        float64, shape (n, P): win shares.
    totals : numpy.ndarray
        int64, shape (n, P): final totals.
    hand_blocks, hand_penalties : numpy.ndarray or None
        Every hand's card block differences and penalties, the matches' in order (kept with the parts: fitting;
        :class:`~nines_sim.luck.walk.MatchLuck`).
    """

    parts: np.ndarray | None
    corrections: np.ndarray | None
    shares: np.ndarray
    totals: np.ndarray
    hand_blocks: np.ndarray | None = None
    hand_penalties: np.ndarray | None = None


def _chunk(rules, specs, seed, start, n, value, choices):  # noqa: ANN001, ANN202 - a worker's entry
    from nines_sim.luck.compiled import trace_luck
    from nines_sim.strategy.registry import make_lineup

    lineup = make_lineup(list(specs))
    fit = value is None  # a value's run takes the parts' corrections at once: walked into reused arrays
    parts, shares, totals, blocks, penalties = trace_luck(rules, lineup, specs, seed, start, n, choices, fit, not fit)
    if fit:
        return parts, None, shares, totals, blocks, penalties
    return None, value.corrections(parts), shares, totals, None, None


def measure_luck(rules, specs: Sequence[str], seed: int, start: int, n: int, value=None, workers: int = 1,
                 choices: bool = True) -> Luck:  # noqa: ANN001 - Rules, LinearValue  # fmt: skip
    """Trace and walk matches ``start .. start + n - 1`` of ``seed``.

    Parameters
    ----------
    rules : nines_sim.game.rules.Rules
    specs : sequence of str
        The lineup, seat by seat.
    seed, start, n : int
        The run's seed and the match range.
    value : nines_sim.luck.value.LinearValue, optional
        With a value: the corrections (the parts are dropped, to keep memory small); without: the parts.
    workers : int
        Worker processes (the numbers are identical for any value).
    choices : bool
        Correct the known random decisions too (False: chance events only).

    Returns
    -------
    Luck
    """
    jobs = [(rules, tuple(specs), seed, s, min(CHUNK, start + n - s), value, choices)
            for s in range(start, start + n, CHUNK)]  # fmt: skip
    if workers <= 1 or len(jobs) == 1:
        done = [_chunk(*j) for j in jobs]
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        # the first chunk here: the workers forked after it inherit its compiled code instead of each loading it
        first = _chunk(*jobs[0])
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
            done = [first, *pool.map(_chunk, *zip(*jobs[1:], strict=True))]

    def joined(i: int) -> np.ndarray | None:
        return None if done[0][i] is None else np.concatenate([d[i] for d in done])

    return Luck(*(joined(i) for i in range(6)))
