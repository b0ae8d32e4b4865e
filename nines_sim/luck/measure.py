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


def reserved_place(seed: int):  # noqa: ANN201 - nines_sim.engine.broker.Hint
    """Where a failing decision was, as a strategy's error says it: a reserved match (from :data:`FIT_START`) as
    one of the luck fit's, by its place among them and its index (which ``nines replay --match`` takes), any
    other as ``in match M of seed S``."""

    def place(match: int) -> str:
        if match < FIT_START:
            return f"in match {match} of seed {seed}"
        return (f"in reserved match 2^61 + {match - FIT_START:,} of seed {seed}, one of the matches --luck fits its "
                f"value on before the run (match index {match})")  # fmt: skip

    return place


def _chunk(rules, specs, seed, start, n, value, choices, keep_parts, reuse=False):  # noqa: ANN001, ANN202 - a worker's entry
    """A chunk's luck (``reuse``: its hands in this thread's reused arrays, for a caller that reduces them at once)."""
    from nines_sim.engine.broker import replay_hint
    from nines_sim.luck.compiled import trace_luck
    from nines_sim.strategy.registry import make_lineup

    lineup = make_lineup(list(specs))
    # a failing strategy's error names its match and the command that replays it, reserved or not
    where = {"hint": replay_hint(rules, lineup, seed, list(specs)), "place": reserved_place(seed)}
    if value is None:  # a fit: the hands, and the parts if kept (in a fresh array: they outlive the chunk)
        parts, shares, totals, *hands = trace_luck(rules, lineup, specs, seed, start, n, choices, True, reuse,
                                                   keep_parts=keep_parts, **where)  # fmt: skip
        return parts, None, shares, totals, *hands
    # a value's run: each match's corrections walked at once (no parts)
    corrections, shares, totals, *_ = trace_luck(rules, lineup, specs, seed, start, n, choices, False, True, value,
                                                 **where)  # fmt: skip
    return None, corrections, shares, totals, None, None, None, None


def _map(fn, jobs: list[tuple], workers: int) -> list:  # noqa: ANN001 - a chunk function
    """``fn`` of each job, in order, on ``workers`` processes."""
    if workers <= 1 or len(jobs) == 1:
        return [fn(*j) for j in jobs]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    # the first chunk here: the workers forked after it inherit its compiled code instead of each loading it
    first = fn(*jobs[0])
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
        return [first, *pool.map(fn, *zip(*jobs[1:], strict=True))]


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
    done = _map(_chunk, jobs, workers)

    def joined(i: int) -> np.ndarray | None:
        return None if done[0][i] is None else np.concatenate([d[i] for d in done])

    out = [joined(i) for i in range(8)]
    if out[6] is not None:  # each chunk's hands name its matches from its own start
        out[6] = np.concatenate([d[6] + (j[3] - start) for d, j in zip(done, jobs, strict=True)])
    return Luck(*out)


def _fit_chunk(rules, specs, seed, start, n, points, choices):  # noqa: ANN001, ANN202 - a worker's entry
    """A chunk of reserved matches reduced to what the fit needs: without ``points``, stage 1's moments and the
    shares; with them, each match's stage-1 luck (n, P, NC).  Its hands' blocks are dropped here."""
    from nines_sim.luck.value import Moments, match_luck

    _, _, shares, _, blocks, pen, match, weights = _chunk(rules, specs, seed, start, n, None, choices, False, True)
    if points is None:
        return Moments.of(blocks, pen), shares
    kinds, P = points.shape[:2]
    luck = np.stack([sum(match_luck(k, p, n, blocks, match, weights, points[k, p]) for k in range(kinds))
                     for p in range(P)], axis=1)  # fmt: skip
    return luck, shares


def fit_reserved(rules, specs: Sequence[str], seed: int, n: int, workers: int = 1, choices: bool = True):  # noqa: ANN001, ANN201 - Rules, LinearValue
    """A value fitted on ``n`` reserved matches of ``seed`` (from :data:`FIT_START`, which no run plays).

    :func:`~nines_sim.luck.value.fit_value`'s two stages without any array of every hand: the matches are walked
    once for stage 1's moments (:class:`~nines_sim.luck.value.Moments`, gathered chunk by chunk in match order),
    and again, under stage 1's weights, for each match's stage-1 luck; each chunk's hands are dropped as it is
    reduced (at 4,000 five-seat matches, the blocks were 475 MB).  Its weights are ``fit_value``'s on the same
    matches to rounding (the sums taken in another order), identical for any number of workers.

    Returns
    -------
    nines_sim.luck.value.LinearValue
    """
    from threadpoolctl import threadpool_limits

    from nines_sim.luck.value import RIDGE_ALPHA, stage_two

    if n < 2:
        raise ValueError(f"a value needs at least 2 matches to fit, not {n}")
    starts = range(FIT_START, FIT_START + n, CHUNK)

    def reduce(points: np.ndarray | None) -> list[tuple]:
        jobs = [(rules, tuple(specs), seed, s, min(CHUNK, FIT_START + n - s), points, choices) for s in starts]
        return _map(_fit_chunk, jobs, workers)

    # one BLAS thread, as :func:`~nines_sim.luck.value.fit_value`'s
    with threadpool_limits(limits=1, user_api="blas"):
        stats = reduce(None)
        moments = stats[0][0]
        for m, _ in stats[1:]:
            moments = moments.merge(m)
        points = moments.ridge(RIDGE_ALPHA)
        luck = np.concatenate([d[0] for d in reduce(points)])
        return stage_two(points, luck, np.concatenate([d[1] for d in stats]), n)
