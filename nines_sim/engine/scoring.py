"""The end of a hand and of a match in the compiled turn loop, and the start of the next match.

:func:`end_hand_phase` scores the hand (C2: :func:`penalty`; S1, S4: :func:`record_hand`), then settles the
match (S2, S3: :func:`settle_regular`, or :func:`settle_tiebreak` after a tie-break hand) and writes its record;
:func:`next_match_phase` starts the slot's next match (D1).  Every function here is compiled into the turn loop
(:mod:`nines_sim.engine.turn_loop`), inlined or called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.bits import I_NINES, PEN_BIT_MASK, U_FIRST, below, popcount, shared_inline, stream, traced_forms
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.loop_constants import (
    BUFFER_FULL,
    DONE,
    EV_END,
    EV_MATCH_END,
    GO,
    H_DEALER,
    H_DRAWN,
    H_HAND,
    H_MATCH,
    H_NINE,
    H_OUTCOME,
    H_RESH,
    H_TURNS,
    M_FIRST,
    M_HANDS,
    M_MATCH,
    M_TB,
    PH_DEAL,
    PH_END,
    PH_NEW,
    R_FIXED,
    R_NINE_PEN,
    R_SHARE,
    R_TARGET,
)
from nines_sim.engine.slots import (
    K_CMK,
    K_DMK,
    S_DEALER,
    S_DRAWN,
    S_FIRST,
    S_HAND_SEQ,
    S_HANDS,
    S_HAVE_ANS,
    S_IN_TB,
    S_MASK,
    S_MATCH,
    S_N_IN,
    S_NINE_START,
    S_OUTCOME,
    S_RESH,
    S_TB_HANDS,
    S_TURN,
)
from nines_sim.engine.trace_log import log_seats


@njit(cache=True, error_model="numpy", _nrt=False)
def penalty(hands, D, b, p, nine_pen):
    """Penalty points of seat ``p``'s hand (C2): the natural cards' points bit by bit, one population count
    per bit of the largest natural penalty (``PEN_BIT_MASK``), and the 9s at ``nine_pen`` each."""
    total = 0
    for d in range(D):
        w = np.int64(hands[d, b, p])
        for k in range(PEN_BIT_MASK.shape[0]):
            total += popcount(w & PEN_BIT_MASK[k]) << k
        total += nine_pen * popcount(w & I_NINES)
    return total


@shared_inline
def record_hand(st, totals, hrec, hpen, hcount, pen, b, out, turn, P):
    """Record a regular hand (S1, S4) and add its penalties to the totals; the deal passes to the left (D2)."""
    h = hcount[0]
    hrec[h, H_MATCH] = st[b, S_MATCH]
    hrec[h, H_HAND] = st[b, S_HANDS]
    hrec[h, H_DEALER] = st[b, S_DEALER]
    hrec[h, H_OUTCOME] = out
    hrec[h, H_TURNS] = turn
    hrec[h, H_DRAWN] = st[b, S_DRAWN]
    hrec[h, H_RESH] = st[b, S_RESH]
    hrec[h, H_NINE] = st[b, S_NINE_START]
    for p in range(P):
        hpen[h, p] = pen[p]
        totals[b, p] += pen[p]
    hcount[0] = h + 1
    st[b, S_HANDS] += 1
    st[b, S_DEALER] = (st[b, S_DEALER] + 1) % P


@shared_inline
def settle_regular(st, totals, mshare, mcount, rp, next_tab, b, P, mask, n_in):
    """After a regular hand: is the match over (S2: a target reached, or the fixed number of hands), and who
    wins it (S3: the lowest total; a tie shares the win or starts tie-break hands among the tied seats).

    Returns
    -------
    tuple
        ``(finished, mask, n_in)``: whether the match is decided (its shares written), and the seats in play.
    """
    if rp[R_FIXED] > 0:
        over = st[b, S_HANDS] >= rp[R_FIXED]
    else:
        hi = totals[b, 0]
        for p in range(1, P):
            hi = max(hi, totals[b, p])
        over = hi >= rp[R_TARGET]
    if not over:
        return False, mask, n_in
    lo = totals[b, 0]
    for p in range(1, P):
        lo = min(lo, totals[b, p])
    tmask = 0
    k = 0
    for p in range(P):
        if totals[b, p] == lo:
            tmask |= 1 << p
            k += 1
    if k == 1 or rp[R_SHARE] != 0:
        m = mcount[0]
        for p in range(P):
            mshare[m, p] = (1.0 / k) if (tmask >> p) & 1 else 0.0
        return True, mask, n_in
    st[b, S_IN_TB] = 1
    st[b, S_DEALER] = next_tab[(tmask * 2) * P + (st[b, S_DEALER] + P - 1) % P]
    return False, tmask, k


@shared_inline
def settle_tiebreak(st, mshare, mcount, next_tab, pen, b, out, P, mask, n_in):
    """After a tie-break hand (S3): the seat that went out wins, else the lowest penalty among the tied;
    a new tie plays another hand among those still tied.

    Returns
    -------
    tuple
        ``(finished, mask, n_in)`` as :func:`settle_regular`.
    """
    st[b, S_TB_HANDS] += 1
    m = mcount[0]
    if out >= 0:
        for p in range(P):
            mshare[m, p] = 1.0 if p == out else 0.0
        return True, mask, n_in
    lo = np.iinfo(np.int64).max
    for p in range(P):
        if (mask >> p) & 1 and pen[p] < lo:
            lo = pen[p]
    tmask = 0
    k = 0
    for p in range(P):
        if (mask >> p) & 1 and pen[p] == lo:
            tmask |= 1 << p
            k += 1
    if k == 1:
        for p in range(P):
            mshare[m, p] = 1.0 if (tmask >> p) & 1 else 0.0
        return True, mask, n_in
    st[b, S_DEALER] = next_tab[(tmask * 2) * P + st[b, S_DEALER]]
    return False, tmask, k


def _end_hand_phase(trace: bool):  # noqa: ANN202 - returns the function to compile
    def end_hand_phase(st, hands, totals, rp, next_tab, hrec, hpen, hcount, mrec, mtot, mshare, mcount, b, turn, mask,
                       n_in, P, D, work):  # fmt: skip
        """The hand is over: score it (C2, S1, S4), then end the match (S2, S3) or go on to the next hand.

        Returns
        -------
        tuple
            ``(phase, mask, n_in, code)``: ``PH_NEW`` after the match, ``PH_DEAL`` for its next hand; ``code`` is
            ``BUFFER_FULL`` (nothing done) when the record buffers have no room, else ``GO``.
        """
        if hcount[0] >= hrec.shape[0] or mcount[0] >= mrec.shape[0]:
            return PH_END, mask, n_in, BUFFER_FULL
        st[b, S_TURN] = turn
        out = st[b, S_OUTCOME]
        pen = work[4]
        for p in range(P):
            pen[p] = penalty(hands, D, b, p, rp[R_NINE_PEN])
        if trace:
            log_seats(work[8], work[9], b, np.int64(EV_END), out, pen, P)
        if st[b, S_IN_TB] == 0:
            record_hand(st, totals, hrec, hpen, hcount, pen, b, out, turn, P)
            finished, mask, n_in = settle_regular(st, totals, mshare, mcount, rp, next_tab, b, P, mask, n_in)
        else:
            finished, mask, n_in = settle_tiebreak(st, mshare, mcount, next_tab, pen, b, out, P, mask, n_in)
        if not finished:
            st[b, S_MASK] = mask
            st[b, S_N_IN] = n_in
            return PH_DEAL, mask, n_in, GO
        m = mcount[0]
        mrec[m, M_MATCH] = st[b, S_MATCH]
        mrec[m, M_HANDS] = st[b, S_HANDS]
        mrec[m, M_TB] = st[b, S_TB_HANDS]
        mrec[m, M_FIRST] = st[b, S_FIRST]
        for p in range(P):
            mtot[m, p] = totals[b, p]
        if trace:
            wmask = np.int64(0)  # int64 from the start, as the kind: one signature of log_seats (trace_log.NIL)
            for p in range(P):
                if mshare[m, p] > 0:
                    wmask |= 1 << p
            log_seats(work[8], work[9], b, np.int64(EV_MATCH_END), wmask, totals[b], P)
        mcount[0] = m + 1
        st[b, S_MATCH] = -1
        return PH_NEW, mask, n_in, GO

    return end_hand_phase


end_hand_phase, end_hand_phase_trace = traced_forms(_end_hand_phase)


@shared_inline
def next_match_phase(st, keys, totals, mkeys, next_match, b, start, n_matches, started, max_new, P):
    """The slot takes the next match of the range (D1: a first dealer drawn from the match's card stream).

    Returns
    -------
    tuple
        ``(phase, started, code)``: ``PH_DEAL`` and ``GO``, or ``DONE`` (the slot idles) when no match is left
        to start in this call.
    """
    j = next_match[0]
    if j >= n_matches or started >= max_new:
        st[b, S_MATCH] = -1
        return PH_NEW, started, DONE
    next_match[0] = j + 1
    st[b, S_MATCH] = start + j
    keys[b, K_CMK] = mkeys[j, 0]
    keys[b, K_DMK] = mkeys[j, 1]
    first = below(stream(mkeys[j, 0], U_FIRST, 0), P)
    st[b, S_FIRST] = first
    st[b, S_DEALER] = first
    st[b, S_HAND_SEQ] = 0
    st[b, S_HANDS] = 0
    st[b, S_TB_HANDS] = 0
    for p in range(P):
        totals[b, p] = 0
    st[b, S_IN_TB] = 0
    st[b, S_MASK] = (1 << P) - 1
    st[b, S_N_IN] = P
    st[b, S_HAVE_ANS] = 0
    return PH_DEAL, started + 1, GO


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
