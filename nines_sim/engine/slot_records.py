"""What a batch of positions keeps of the records its slots leave, compiled
(:class:`~nines_sim.engine.positions.PositionSlots`).

A search plays a batch of thousands of slots a decision, each of which records its hand (and its match) as it
ends; picking each slot's first hand record out of them with numpy (a sort to find the first, then masks over
narrow rows) cost more than a tenth of a heads-up search's time outside its rollouts.  One pass in order does the
same.
"""

from __future__ import annotations

from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.loop_constants import H_MATCH, M_MATCH


@njit(cache=True, error_model="numpy")
def keep_records(hrec, hpen, h, penalties, scored, mrec, mshare, mc, finished, share):  # noqa: ANN001, ANN201, PLR0913
    """Keep each slot's first hand record (the hand being played) and mark the slots whose match ended.

    Parameters
    ----------
    hrec, hpen : numpy.ndarray
        int64, (N, NH) and (N, P): the loop's hand records and their penalties; the first ``h`` are new, in the
        order the hands ended.
    h : int
    penalties : numpy.ndarray
        int64, (B, P): each slot's penalties of the hand being played, written for its first record only.
    scored : numpy.ndarray
        bool, (B,): the slots whose first record is kept (set here; a slot set before keeps its record).
    mrec, mshare : numpy.ndarray
        int64 (N, NM) and float64 (N, P): the match records and their win shares; the first ``mc`` are new.
    mc : int
    finished : numpy.ndarray
        bool, (B,): set for each slot whose match ended.
    share : numpy.ndarray
        float64, (B, P) or (0, P): each slot's win shares (none kept when it has no rows).
    """
    for i in range(h):
        b = hrec[i, H_MATCH]
        if not scored[b]:
            for p in range(hpen.shape[1]):
                penalties[b, p] = hpen[i, p]
            scored[b] = True
    for i in range(mc):
        b = mrec[i, M_MATCH]
        finished[b] = True
        if share.shape[0]:
            for p in range(mshare.shape[1]):
                share[b, p] = mshare[i, p]
    return 0


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
