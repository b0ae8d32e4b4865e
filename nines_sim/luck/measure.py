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
        Every hand's card block differences and penalties, the matches' in order (kept without a value: fitting;
        :class:`~nines_sim.luck.walk.MatchLuck`).
    hand_match, hand_weights : numpy.ndarray or None
        int64 (hands,) and float64 (hands, P, NC): each hand's match (its index less the range's start) and the
        match weights its blocks were weighted by: the parts again, without their size (a fit's way to them).
    """

    parts: np.ndarray | None
    corrections: np.ndarray | None
    shares: np.ndarray
    totals: np.ndarray
    hand_blocks: np.ndarray | None = None
    hand_penalties: np.ndarray | None = None
    hand_match: np.ndarray | None = None
    hand_weights: np.ndarray | None = None


def _chunk(rules, specs, seed, start, n, value, choices, keep_parts):  # noqa: ANN001, ANN202 - a worker's entry
    from nines_sim.luck.compiled import trace_luck
    from nines_sim.strategy.registry import make_lineup

    lineup = make_lineup(list(specs))
    if value is None:  # a fit: the hands, and the parts if kept (in a fresh array: they outlive the chunk)
        parts, shares, totals, *hands = trace_luck(rules, lineup, specs, seed, start, n, choices, True, not keep_parts,
                                                   keep_parts=keep_parts)  # fmt: skip
        return parts, None, shares, totals, *hands
    # a value's run: each match's corrections walked at once (no parts)
    corrections, shares, totals, *_ = trace_luck(rules, lineup, specs, seed, start, n, choices, False, True, value)
    return None, corrections, shares, totals, None, None, None, None


def measure_luck(rules, specs: Sequence[str], seed: int, start: int, n: int, value=None, workers: int = 1,
                 choices: bool = True, keep_parts: bool = True) -> Luck:  # noqa: ANN001 - Rules, LinearValue  # fmt: skip
    """Trace and walk matches ``start .. start + n - 1`` of ``seed``.

    Parameters
    ----------
    rules : nines_sim.game.rules.Rules
    specs : sequence of str
        The lineup, seat by seat.
    seed, start, n : int
        The run's seed and the match range.
    value : nines_sim.luck.value.LinearValue, optional
        With a value: the corrections (walked hand by hand, no parts kept: to rounding, the value's corrections of
        the parts); without: the parts.
    workers : int
        Worker processes (the numbers are identical for any value).
    choices : bool
        Correct the known random decisions too (False: chance events only).
    keep_parts : bool
        Without a value: keep the parts (False: only the hands, from which :func:`~nines_sim.luck.value.fit_value`
        builds them again, a tenth of the memory to gather).

    Returns
    -------
    Luck
    """
    from nines_sim.luck.compiled import value_factors

    # a value as the walk reads it, once (:func:`~nines_sim.luck.compiled.value_factors`), not in every chunk
    walked = None if value is None else value_factors(value)
    jobs = [(rules, tuple(specs), seed, s, min(CHUNK, start + n - s), walked, choices, keep_parts)
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

    out = [joined(i) for i in range(8)]
    if out[6] is not None:  # each chunk's hands name its matches from its own start
        out[6] = np.concatenate([d[6] + (j[3] - start) for d, j in zip(done, jobs, strict=True)])
    return Luck(*out)


def fit_reserved(rules, specs: Sequence[str], seed: int, n: int, workers: int = 1):  # noqa: ANN001, ANN201 - Rules, LinearValue
    """A value fitted on ``n`` reserved matches of ``seed`` (from :data:`FIT_START`, which no run plays).

    The matches are walked for their hands only (the parts built again from them in the fit: the same bits, a
    tenth of the memory).

    Returns
    -------
    nines_sim.luck.value.LinearValue
        :func:`~nines_sim.luck.value.fit_value`'s.
    """
    from nines_sim.luck.value import fit_value

    fit = measure_luck(rules, specs, seed, FIT_START, n, workers=workers, keep_parts=False)
    return fit_value(None, fit.shares, fit.hand_blocks, fit.hand_penalties, hand_match=fit.hand_match,
                     hand_weights=fit.hand_weights)  # fmt: skip
