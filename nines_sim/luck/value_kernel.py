"""A fixed value's walk helpers (the ``scalar`` steps of :func:`nines_sim.luck.steps.walk`): each event's change of
the value as a number per seat, with no card block columns kept (issue 41's cost).

A run's own matches use a value fixed before they are played, so their walk adds, at each deal, draw and choice,
the change of that value to the hand's sum of its kind (:func:`hand_sums` at its end): the draws through per-card
tables built once a run (:func:`draw_tables`) and the stock's sums of them (:func:`stock_sums`), the deal through
the mean deal's blocks (:func:`deal_value`), a play's choices through their weight per suit and rank
(:func:`choice_values`).  The fit, which needs the columns, walks with :mod:`nines_sim.luck.kernel`'s helpers alone.
"""

from __future__ import annotations

import numpy as np
from numba import types

from nines_sim.engine.code_cache import seal_module
from nines_sim.game.cards import N_RANKS, NINE_RANK
from nines_sim.luck.features import COL_ACTIVE, COL_TOP, NB, NC, NJ, NJ0, NQ
from nines_sim.luck.kernel import NK, RANK, SUIT, next_dealt, sizes_phase, walk_jit


@walk_jit
def stock_sums(sr, dt, P, sums):
    """A fixed value's draw sums of the stock (:func:`draw_tables`) rebuilt from its counts by rank ``sr`` (1, 13):
    ``sums[NK + 2 q + b, p]``, the sum over the stock's cards of each rank column's weight, folded with the legal
    count's, for viewing seat ``p``, phase function ``q`` and block ``b`` (0: the drawer's own, 1: the others').
    A deal and a reshuffle rebuild them; each draw takes its card's weights off."""
    for p in range(P):
        for q in range(NQ):
            for b in range(2):
                s = 0.0
                for r in range(N_RANKS):
                    s += sr[0, r] * dt[p, q, b, r]
                sums[NK + 2 * q + b, p] = s


@walk_jit
def mean_dot(out, vh, a, b, scale, P):
    """``out[p] += vh[p] . (a[p] - b[p] / scale)`` (P seats, NJ columns): :func:`mean_into`'s difference as a fixed
    value's change, with no column kept."""
    for p in range(P):
        s = 0.0
        for j in range(NJ):
            s += vh[p, j] * (a[p, j] - b[p, j] / scale)
        out[p] += s


@walk_jit
def hand_sums(sums, W, vm, P, out):
    """A hand's corrections under a fixed value from its change per kind and seat ``sums[:NK]`` (its stage-1 luck,
    in points, :func:`nines_sim.luck.steps.walk`'s scalar steps) into ``out`` (3, P), the sums then cleared:
    ``out[k, p] += (W[p] . vm[k, p]) * sums[k, p]``, :func:`hand_corrections`'s factored products with the
    hand's dot products walked event by event."""
    for k in range(NK):
        for p in range(P):
            m = 0.0
            for c in range(NC):
                m += W[p, c] * vm[k, p, c]
            out[k, p] += m * sums[k, p]
            sums[k, p] = 0.0


@walk_jit
def deal_value(blk, hr, deal_mean, held, first, dealer, every, P, vh, diff, out):
    """A deal's change of a fixed value (the deal step's ``scalar`` form) into ``out`` (P,): per seat, the value of
    its card block less the block's mean over the deal (each hand ``size`` times the deal's mean card block
    ``deal_mean``, the first dealer too when ``every``: :func:`card_blocks` and :func:`mean_into`'s numbers) under
    the deal's weights ``vh`` (P, NJ), from the dealt hands' blocks ``blk`` (:func:`blocks`; its columns from NB the
    phase's scratch) and ``first``, the seat to play.

    The mean's blocks are the same for every first dealer but for the mover's legal count and the first seat's
    column, so they are made once, each column's difference taken before its weight (``diff``, (NJ,): scratch),
    the three phase copies' sums side by side."""
    ph = blk[:, NB:]
    sizes_phase(hr, P, np.int64(0), 0.0, ph)  # a deal's sizes are the hands': the same for the mean
    legal = blk[first, COL_ACTIVE] + blk[first, COL_TOP] + blk[first, NINE_RANK]
    for p in range(P):  # the mean over first dealers of the mover's columns: own legal, others' legal, first
        diff[NJ0 + p] = 0.0
        diff[NJ0 + P + p] = 0.0
        diff[NJ0 + 2 * P + p] = 0.0
    nd = 0.0
    for d in range(P if every else 1):
        mover = next_dealt(d if every else dealer, held, P)
        z = ph[mover, NQ]
        m_legal = z * deal_mean[COL_ACTIVE] + z * deal_mean[COL_TOP] + z * deal_mean[NINE_RANK]
        for p in range(P):
            if p == mover:
                diff[NJ0 + p] += m_legal
                diff[NJ0 + 2 * P + p] += 1.0
            else:
                diff[NJ0 + P + p] += m_legal
        nd += 1.0
    total = 0.0
    for p in range(P):
        total += ph[p, NQ]
    for p in range(P):
        z = ph[p, NQ]
        for j in range(NB):
            s = 0.0
            for q in range(P):
                s += blk[q, j]
            diff[j] = blk[p, j] - z * deal_mean[j]
            diff[NB + j] = (s - blk[p, j]) - (total - z) * deal_mean[j]
        mine = p == first
        own, others, first_col = diff[NJ0 + p], diff[NJ0 + P + p], diff[NJ0 + 2 * P + p]
        diff[2 * NB] = (legal if mine else 0.0) - own / nd
        diff[2 * NB + 1] = (0.0 if mine else legal) - others / nd
        diff[2 * NB + 2] = (1.0 if mine else 0.0) - first_col / nd
        d0, d1, d2 = 0.0, 0.0, 0.0
        for j in range(NJ0):
            x = diff[j]
            d0 += vh[p, j] * x
            d1 += vh[p, NJ0 + j] * x
            d2 += vh[p, 2 * NJ0 + j] * x
        out[p] += d0 + ph[p, 1] * d1 + ph[p, 2] * d2


@walk_jit
def after_play(seat, f, P, hr, hs, blk):
    """The columns a play of face ``f`` by ``seat`` sets, after it: each seat's naturals of the active suit and of
    the top's rank into ``blk[:, 0]`` and ``blk[:, 1]``; returns their sums and the mover's legal count."""
    r, nat = RANK[f], RANK[f] != NINE_RANK
    a, tr = SUIT[f], RANK[f]
    sa, st = 0.0, 0.0
    for p in range(P):
        mine = p == seat
        blk[p, 0] = hs[p, a] - (1.0 if mine and nat and SUIT[f] == a else 0.0)
        blk[p, 1] = (hr[p, tr] - (1.0 if mine and r == tr else 0.0)) if tr != NINE_RANK else 0.0
        sa += blk[p, 0]
        st += blk[p, 1]
    lg = blk[seat, 0] + blk[seat, 1] + (hr[seat, NINE_RANK] - (1.0 if r == NINE_RANK else 0.0))
    return sa, st, lg


@walk_jit
def choice_values(seat, idx, k, P, hr, hs, blk, ranks, tot, moves, probs, vh, g, sums):
    """A play's choices under a fixed value (:func:`~nines_sim.luck.play_choices.play_choice`'s ``scalar`` walk):
    the chosen play's value less the choices' mean value into ``sums[2]``, over only the columns a play changes
    (:func:`~nines_sim.luck.kernel.choice_columns`'s), each column's weight summed over the phase functions
    first (``g`` (P, NJ): scratch; the phase in ``blk[:, NB:]``).

    A play's columns (:func:`after_play`) are each seat's naturals of the played card's suit and the count of its
    rank, less the card itself for the mover, and sums of them: linear in them, so their mean over the choices is
    the value of their mean, taken from the choices' weight per suit (``g[seat, 2 NB + 2:]``, four columns)
    and per choice only for the rank columns: a few products a seat and choice instead of a play's whole columns.
    """
    ph = blk[:, NB:]
    for c in range(NB + NB + 2):
        r = c - NB if NB <= c < 2 * NB else c
        if r < NB and r != COL_ACTIVE and r != COL_TOP and not (ranks >> r) & 1:
            continue
        for p in range(P):
            g[p, c] = vh[p, c] + ph[p, 1] * vh[p, NJ0 + c] + ph[p, 2] * vh[p, 2 * NJ0 + c]
    ws = 2 * NB + 2  # the choices' weight per suit, in g[seat, ws: ws + 4]
    for su in range(4):
        g[seat, ws + su] = 0.0
    w_nat, w_nine, m_st = 0.0, 0.0, 0.0
    for j in range(k):
        w, r = probs[j] / tot, RANK[moves[j]]
        g[seat, ws + SUIT[moves[j]]] += w
        if r == NINE_RANK:
            w_nine += w
        else:
            w_nat += w
            total = 0.0
            for p in range(P):
                total += hr[p, r]
            m_st += w * (total - 1.0)
    m_sa = 0.0
    for su in range(4):
        total = 0.0
        for p in range(P):
            total += hs[p, su]
        m_sa += g[seat, ws + su] * total
    m_sa -= w_nat
    # the mean's blocks of the mover first: its legal count, every seat's column, is of them
    m_a_seat, m_t_seat = 0.0, 0.0
    for su in range(4):
        m_a_seat += g[seat, ws + su] * hs[seat, su]
    m_a_seat -= w_nat
    for j in range(k):
        r = RANK[moves[j]]
        if r != NINE_RANK:
            m_t_seat += probs[j] / tot * (hr[seat, r] - 1.0)
    m_lg = m_a_seat + m_t_seat + (hr[seat, NINE_RANK] - w_nine)
    sa, st, lg = after_play(seat, moves[idx], P, hr, hs, blk)  # the chosen play's columns
    r_idx = RANK[moves[idx]]
    for p in range(P):
        other = 0 if p == seat else 1
        if p == seat:
            m_a, m_t = m_a_seat, m_t_seat
        else:
            m_a, m_t = 0.0, 0.0
            for su in range(4):
                m_a += g[seat, ws + su] * hs[p, su]
        m_rank = 0.0
        for j in range(k):
            w, r = probs[j] / tot, RANK[moves[j]]
            m_rank += w * g[p, other * NB + r]
            if p != seat and r != NINE_RANK:
                m_t += w * hr[p, r]
        mean = (g[p, COL_ACTIVE] * m_a + g[p, NB + COL_ACTIVE] * (m_sa - m_a) + g[p, COL_TOP] * m_t
                + g[p, NB + COL_TOP] * (m_st - m_t) - m_rank + g[p, 2 * NB + other] * m_lg)  # fmt: skip
        chosen = (g[p, COL_ACTIVE] * blk[p, 0] + g[p, NB + COL_ACTIVE] * (sa - blk[p, 0]) + g[p, COL_TOP] * blk[p, 1]
                  + g[p, NB + COL_TOP] * (st - blk[p, 1]) - g[p, other * NB + r_idx]
                  + g[p, 2 * NB + other] * lg)  # fmt: skip
        sums[2, p] += chosen - mean


@walk_jit
def draw_value(seat, face, top, active, n_stock, P, hr, sr, ss, blk, dt, sums):
    """A draw's change of a fixed value (the draw step's ``scalar`` form, :func:`nines_sim.luck.steps.draw`) into
    ``sums[1]``: per seat, each phase function's weight of the card drawn (its columns' weights, ``dt``:
    :func:`draw_tables`) less the stock's mean weight (the stock's sums of them, kept in ``sums[NK:]`` as cards
    leave it, over its size), scaled by the phase of the sizes after the draw (``blk[:, NB:]``: its scratch); the
    card then leaves the stock's sums.  A few products a seat and phase function instead of a block's columns."""
    rank, nat, top_rank = RANK[face], RANK[face] != NINE_RANK, RANK[top]
    ph = blk[:, NB:]
    sizes_phase(hr, P, seat, 1.0, ph)  # the drawer's hand one card more: the sizes after the draw
    on_active = nat and SUIT[face] == active
    on_top = nat and top_rank != NINE_RANK and rank == top_rank
    s_active = ss[0, active]
    s_top = sr[0, top_rank] if top_rank != NINE_RANK else 0.0
    for p in range(P):
        b = 0 if p == seat else 1
        x = 0.0
        for q in range(NQ):
            w_a, w_t = dt[p, q, b, COL_ACTIVE], dt[p, q, b, COL_TOP]
            card = dt[p, q, b, rank] + (w_a if on_active else 0.0) + (w_t if on_top else 0.0)
            x += ph[p, q] * (card - (sums[NK + 2 * q + b, p] + s_active * w_a + s_top * w_t) / n_stock)
            sums[NK + 2 * q, p] -= dt[p, q, 0, rank]  # the card leaves the stock's sums
            sums[NK + 2 * q + 1, p] -= dt[p, q, 1, rank]
        sums[1, p] += x


def draw_tables(vh: np.ndarray) -> np.ndarray:
    """A fixed value's draw weights per card column (:func:`stock_sums`, the draw step's scalar form), once a run.

    Parameters
    ----------
    vh : numpy.ndarray
        float64 (P, NJ): the draws' card block weights of each seat (a fitted value's
        :attr:`~nines_sim.luck.value.LinearValue.points` of kind 1).

    Returns
    -------
    numpy.ndarray
        float64 (P, NQ, 2, NB): for viewing seat ``p``, phase function ``q`` and block ``b`` (0: the drawer's own
        columns and the mover's legal count, 1: the others' sums and their legal count), each of the NB columns'
        weight, the legal count's added to the columns it counts (the active suit's naturals, the top's rank's
        naturals, the 9s): a drawn card's change of the value is its columns' weights, less the stock's mean.
    """
    P = vh.shape[0]
    out = np.zeros((P, NQ, 2, NB))
    for q in range(NQ):
        for b in range(2):
            o = q * NJ0 + b * NB
            out[:, q, b] = vh[:, o : o + NB]
            legal = vh[:, q * NJ0 + 2 * NB + b]
            for c in (COL_ACTIVE, COL_TOP, NINE_RANK):
                out[:, q, b, c] += legal
    return out


# Each as the walk calls it, for its one signature (C-ordered arrays): compiled ahead by :func:`compile_helpers`.
_F, _I, _B = types.float64, types.int64, types.boolean
_F1, _F2, _F3, _F4 = types.float64[::1], types.float64[:, ::1], types.float64[:, :, ::1], types.float64[:, :, :, ::1]
_I1 = types.int64[::1]
#: Each helper of a fixed value's walk with the argument types the walk calls it with (``tests/test_luck_compiled.py``
#: checks them against numba's type inference of the walk, beside :data:`nines_sim.luck.kernel.HELPERS`).  About 2.4 s
#: of compiling: in the walk's own process before it (the ``scalar-helpers`` work of
#: :data:`nines_sim.engine.build_forms.AHEAD`), which evens out the two building processes (the other compiles the
#: kernel's helpers and the trace form); the walk's type inference asks for every helper within a second of its
#: start, about 2 s into its compile, when the other process's could not all be built.  ``choice_values`` comes
#: first: ``deal_value`` asks for the kernel's ``next_dealt``, compiled in the other process meanwhile.
HELPERS = (
    (choice_values, (_I, _I, _I, _I, _F2, _F2, _F2, _I, _F, _I1, _F1, _F2, _F2, _F2)),
    (after_play, (_I, _I, _I, _F2, _F2, _F2)),
    (deal_value, (_F2, _F2, _F1, _I1, _I, _I, _B, _I, _F2, _F1, _F1)),
    (draw_value, (_I, _I, _I, _I, _F, _I, _F2, _F2, _F2, _F2, _F4, _F2)),
    (stock_sums, (_F2, _F4, _I, _F2)),
    (mean_dot, (_F1, _F2, _F2, _F2, _F, _I)),
    (hand_sums, (_F2, _F2, _F3, _I, _F2)),
)


def compile_helpers() -> None:
    """Compile the helpers of :data:`HELPERS` into numba's cache: in the walk's process, before the walk."""
    for fn, sig in HELPERS:
        fn.compile(sig)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
