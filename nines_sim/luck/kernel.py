"""The compiled luck walk's small helpers (:mod:`nines_sim.luck.steps`): a hand's counts by rank and suit, its
card blocks and their differences, a play made and undone, the match weights.

Each is the compiled form of a piece of the Python walk (:mod:`nines_sim.luck.walk`,
:mod:`nines_sim.luck.features`), on arrays the walk keeps and changes in place (no array made per event).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from nines_sim.engine.bits import I_NATURALS, RANK_MASKS, SUIT_MASKS, popcount
from nines_sim.engine.code_cache import seal_module
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, N_RANKS, NINE_RANK
from nines_sim.luck.features import COL_ACTIVE, COL_TOP, NB, NC, NJ, NJ0, NQ
from nines_sim.luck.walk import HEURISTICS, NATURAL_PENALTY

RANK = FACE_RANK.astype(np.int64)
SUIT = FACE_SUIT.astype(np.int64)
PEN = NATURAL_PENALTY.astype(np.int64)
_HEUR = np.array(HEURISTICS, dtype=np.int64)
#: Kinds of event a value's change is kept for (deal, draw, choice): a fixed value's walk keeps each hand's change
#: per kind and seat in ``sums[:NK]`` (:func:`hand_sums`) and the stock's draw sums after them (:func:`stock_sums`).
NK = 3
#: ``1 / (1 + n)`` for every hand size ``n`` (at most two decks' cards): :func:`phase`'s quotients, done once.
RECIPROCAL = np.array([1.0 / (1.0 + n) for n in range(2 * N_FACES + 2)])

#: How the compiled walk's functions are compiled: without numba's reference counting, whose two calls (an atomic
#: count each) around every view of an array (``acc[k]``, ``blk[:, NB:]``, a seat's row) were in every step of the
#: walk, and with numpy's error model (no test before each division, which never divides by zero here).  The walk
#: makes no array: its scratch comes from :class:`~nines_sim.luck.compiled.RowWalker`.
walk_jit = njit(cache=True, error_model="numpy", _nrt=False)
#: A step of the walk (:mod:`nines_sim.luck.steps`, :mod:`nines_sim.luck.play_choices`): inlined by numba into the
#: walk, compiled there with the walk's flags (:data:`walk_jit`'s, given here too for a step compiled alone).
walk_inline = njit(inline="always", error_model="numpy", _nrt=False)


@walk_jit
def count(H, P, hr, hs):
    """Each row's cards by rank (``hr``, (P, 13)) and its naturals by suit (``hs``, (P, 4))."""
    for p in range(P):
        hr[p, :] = 0.0
        hs[p, :] = 0.0
        for f in range(N_FACES):
            c = H[p, f]
            if c != 0.0:
                hr[p, RANK[f]] += c
                if RANK[f] != NINE_RANK:
                    hs[p, SUIT[f]] += c


@walk_jit
def blocks(hr, hs, top, active, P, out):
    """``hands @ card_matrix(active, top)`` from the hands' counts (:func:`count`): exact, the counts being
    whole (the matrix's columns: the ranks, the active suit's naturals, the top rank's naturals)."""
    top_rank = RANK[top]
    for p in range(P):
        for r in range(N_RANKS):
            out[p, r] = hr[p, r]
        out[p, COL_ACTIVE] = hs[p, active]
        out[p, COL_TOP] = hr[p, top_rank] if top_rank != NINE_RANK else 0.0


@walk_jit
def move_card(H, hr, hs, seat, f, c):
    """``c`` copies of face ``f`` into (c > 0) or out of seat ``seat``'s hand, its counts kept."""
    H[seat, f] += c
    hr[seat, RANK[f]] += c
    if RANK[f] != NINE_RANK:
        hs[seat, SUIT[f]] += c


@walk_jit
def mean_into(acc_k, a, b, scale, P):
    """``acc_k += a - b / scale`` (P, NJ), with no array made."""
    for p in range(P):
        for j in range(NJ):
            acc_k[p, j] += a[p, j] - b[p, j] / scale


@walk_jit
def copy_into(src, dst):
    """``dst[:] = src`` for two 2-d arrays of one shape, element by element: numba's array assignment also
    compiles its shape check's error message (string formatting, several seconds of a cold compile in every
    function that inlines it), and these shapes are the walk's own."""
    for i in range(dst.shape[0]):
        for j in range(dst.shape[1]):
            dst[i, j] = src[i, j]


@walk_jit
def play_columns(out, x, P, seat, r, dr, legal, sa, st, blk):
    """One play's columns of the card blocks, times ``x``, into ``out`` (P, NJ): each seat's naturals of the active
    suit and of the top's rank (``blk[:, 0]`` and ``blk[:, 1]``, their sums ``sa`` and ``st``: its own and the
    others' columns), the seat's change ``dr`` of rank ``r`` (and the others' sum of it), the mover's (the
    seat's) legal count ``legal``."""
    for p in range(P):
        out[p, COL_ACTIVE] += x * blk[p, 0]
        out[p, NB + COL_ACTIVE] += x * (sa - blk[p, 0])
        out[p, COL_TOP] += x * blk[p, 1]
        out[p, NB + COL_TOP] += x * (st - blk[p, 1])
        if p == seat:
            out[p, r] += x * dr
            out[p, 2 * NB] += x * legal
        else:
            out[p, NB + r] += x * dr
            out[p, 2 * NB + 1] += x * legal


@walk_jit
def phase(ph, P):
    """:func:`nines_sim.luck.features.phase` of the hand sizes in ``ph[:, NQ]`` into ``ph[:, :NQ]`` (``ph``:
    float64, shape (P, NQ + 1), a scratch the caller keeps: no array made per event)."""
    for p in range(P):
        lo = 1e300
        for q in range(P):
            if q != p and ph[q, NQ] < lo:
                lo = ph[q, NQ]
        a, b = 1.0 / (1.0 + ph[p, NQ]), 1.0 / (1.0 + lo)
        ph[p, 0], ph[p, 1], ph[p, 2] = 1.0, a, b


@walk_jit
def sizes_phase(hr, P, seat, dz, ph):
    """:func:`phase` of the hand sizes from the seats' rank counts ``hr``, ``seat``'s changed by ``dz`` (the sizes
    after an event, known before it), into ``ph[:, :NQ]`` (``ph``: (P, NQ + 1), :func:`phase`'s scratch).

    The sizes are whole numbers, so their sums are exact in any order (added as a tree: no chain of 13 dependent
    adds) and the phase's ``1 / (1 + size)`` is read from :data:`RECIPROCAL`: :func:`phase`'s bits, without its two
    divisions a seat (a draw's and a choice's every time).  The smallest other hand is the smallest hand but for the
    seat that holds it (the first, in seat order), whose is the second smallest: one pass, not one per seat."""
    low, second, at = 1e300, 1e300, -1
    for p in range(P):
        a = hr[p]
        z = (((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))) + (
            ((a[8] + a[9]) + (a[10] + a[11])) + a[12]
        )
        z += dz if p == seat else 0.0
        ph[p, NQ] = z
        if z < low:
            low, second, at = z, low, p
        elif z < second:
            second = z
    for p in range(P):
        ph[p, 0], ph[p, 1], ph[p, 2] = 1.0, RECIPROCAL[int(ph[p, NQ])], RECIPROCAL[int(second if p == at else low)]


@walk_jit
def phased(out, ph, P):
    """Each seat's base block ``out[p, :NJ0]`` scaled by its phase functions ``ph[p, :NQ]`` into the columns
    after it (phase-major; the first function is 1, the base itself)."""
    for p in range(P):
        for q in range(1, NQ):
            w = ph[p, q]
            for j in range(NJ0):
                out[p, q * NJ0 + j] = w * out[p, j]


@walk_jit
def card_blocks(blk, mover, first, P, out):
    """:func:`nines_sim.luck.features.card_blocks` of the blocks ``blk[:, :NB]`` into ``out`` (P, NJ); ``blk``'s
    columns after NB (NQ + 1 of them) are the phase's scratch (:func:`phase`)."""
    for j in range(NB):
        s = 0.0
        for p in range(P):
            s += blk[p, j]
        for p in range(P):
            out[p, j] = blk[p, j]
            out[p, NB + j] = s - blk[p, j]
    legal = blk[mover, COL_ACTIVE] + blk[mover, COL_TOP] + blk[mover, NINE_RANK]
    for p in range(P):
        out[p, 2 * NB] = legal if p == mover else 0.0
        out[p, 2 * NB + 1] = 0.0 if p == mover else legal
        out[p, 2 * NB + 2] = 1.0 if p == first else 0.0
        z = 0.0
        for r in range(N_RANKS):  # a hand's size is the sum of its rank counts
            z += blk[p, r]
        blk[p, NB + NQ] = z
    ph = blk[:, NB:]
    phase(ph, P)
    phased(out, ph, P)


@walk_jit
def next_dealt(seat, held, P):
    """The first seat after ``seat`` (itself last) dealt a hand (``held``, (P,): each seat's faces held); -1 if
    none is."""
    for k in range(1, P + 1):
        q = (seat + k) % P
        if held[q] != 0:
            return q
    return -1


@walk_jit
def held_faces(H, P, held):
    """Each seat's faces held (int64 sets of faces, bit ``face``) from its hand's copies ``H`` into ``held``."""
    for p in range(P):
        x = np.int64(0)
        for f in range(N_FACES):
            if H[p, f] > 0:
                x |= np.int64(1) << f
        held[p] = x


@walk_jit
def deal_hands(rows, i, P, D, H, held, hr, hs):
    """Each seat's hand from deal row ``i``'s words (D words a seat, bit ``face``): its copies into ``H``, its
    faces into ``held``, its cards by rank and naturals by suit into ``hr`` and ``hs`` (:func:`count`'s numbers,
    by a population count of each word)."""
    for p in range(P):
        held[p] = 0
        for f in range(N_FACES):
            H[p, f] = 0.0
        for r in range(N_RANKS):
            hr[p, r] = 0.0
        for s in range(4):
            hs[p, s] = 0.0
        for d in range(D):
            w = rows[i, 6 + 2 * p + d]
            held[p] |= w
            for f in range(N_FACES):
                H[p, f] += float((w >> f) & 1)
            for r in range(N_RANKS):
                hr[p, r] += float(popcount(w & RANK_MASKS[r]))
            for s in range(4):
                hs[p, s] += float(popcount(w & SUIT_MASKS[s] & I_NATURALS))


@walk_jit
def apply_play(H, hr, hs, seat, mv):
    """``seat`` plays ``mv`` (a face, or -2: the pair) from ``H`` in place; the new top and the 9 under it (-1
    for a card).  The engine's pair: the highest 9 held twice, else the highest held; the first ends on top."""
    if mv != -2:
        move_card(H, hr, hs, seat, mv, -1.0)
        return mv, -1
    first, second = np.int64(-1), np.int64(-1)  # not literals: numba would compile move_card for -1 too
    for k in range(2):
        f = np.int64(-1)
        for g in range(N_FACES):
            if RANK[g] == NINE_RANK and H[seat, g] > 1:
                f = g
        if f < 0:
            for g in range(N_FACES):
                if RANK[g] == NINE_RANK and H[seat, g] > 0:
                    f = g
        move_card(H, hr, hs, seat, f, -1.0)
        if k == 0:
            first = f
        else:
            second = f
    return first, second


@walk_jit
def undo_play(H, hr, hs, seat, top, under):
    """:func:`apply_play` undone: ``top`` and the 9 under it (``under``, -1 for none) back in ``seat``'s hand."""
    move_card(H, hr, hs, seat, top, 1.0)
    if under >= 0:
        move_card(H, hr, hs, seat, under, 1.0)


@walk_jit
def is_heuristic(sid):
    """Whether kernel strategy id ``sid`` is a built-in heuristic's (its random decisions are corrected)."""
    for h in _HEUR:
        if sid == h:
            return True
    return False


@walk_jit
def weights(totals, progress, target, P, W):
    """:func:`nines_sim.luck.features.match_weights` into ``W`` (P, NC): each seat's weights of the match's
    standing (``progress`` through it, its total's lead over the lowest other, in targets)."""
    for p in range(P):
        lo = 1e300
        for q in range(P):
            if q != p and totals[q] < lo:
                lo = float(totals[q])
        x = progress
        y = (totals[p] - lo) / target
        W[p, 0], W[p, 1], W[p, 2], W[p, 3], W[p, 4] = 1.0, x, y, x * x, y * y
        W[p, 5], W[p, 6], W[p, 7], W[p, 8], W[p, 9] = x * y, x**3, y**3, x * x * y, x * y * y


@walk_jit
def hand_corrections(acc, W, vw, vm, vh, rank1, P, u, dots, out):
    """A hand's corrections under a value into ``out`` (3, P): ``out[k, p] += sum_c W[p, c] * (vw[k, p, c * NJ:
    (c + 1) * NJ] . acc[k, p])``, the value's change over the hand's events of kind ``k`` (their card blocks'
    differences ``acc``, weighted by the match weights ``W`` (P, NC) of the hand).  ``u`` (NJ,), ``dots`` (3, P):
    scratch.

    Where ``rank1[k, p]``, the weights are the outer product of ``vm[k, p]`` (NC,) and ``vh[k, p]`` (NJ,) (a
    fitted value's two stages, :func:`nines_sim.luck.compiled.value_factors`): the hand's luck in points times the
    match weights' coefficients, NC + NJ = 109 products instead of 990.  Else the hand's weights first (``u``: one
    independent sum per card column, no chain of dependent adds), then one dot product with the blocks.  Either is
    the parts' products (:func:`nines_sim.luck.steps.end_hand`) in another order.

    A seat's three dot products with ``vh`` (one per kind) go column by column together: each is still its own
    sum, its terms added in column order (the same bits), but the processor adds three side by side instead of
    waiting on each add of one long chain (a sixth of the walk's time heads-up, one sum at a time).
    """
    for p in range(P):  # a seat's three sums side by side, in registers
        a0, a1, a2, h0, h1, h2 = acc[0, p], acc[1, p], acc[2, p], vh[0, p], vh[1, p], vh[2, p]
        d0, d1, d2 = 0.0, 0.0, 0.0
        for j in range(NJ):
            d0 += h0[j] * a0[j]
            d1 += h1[j] * a1[j]
            d2 += h2[j] * a2[j]
        dots[0, p], dots[1, p], dots[2, p] = d0, d1, d2
    for k in range(3):
        for p in range(P):
            if rank1[k, p]:
                m = 0.0
                for c in range(NC):
                    m += W[p, c] * vm[k, p, c]
                out[k, p] += m * dots[k, p]
                continue
            a = acc[k, p]
            w = vw[k, p]
            for j in range(NJ):
                u[j] = W[p, 0] * w[j]
            for c in range(1, NC):
                wc = W[p, c]
                base = c * NJ
                for j in range(NJ):
                    u[j] += wc * w[base + j]
            s = 0.0
            for j in range(NJ):
                s += u[j] * a[j]
            out[k, p] += s


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
    (:func:`~nines_sim.luck.play_choices.choice_columns`'s), each column's weight summed over the phase functions
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


# The walk's helpers as it calls them, each for its one signature (C-ordered arrays, but the phase's scratch: a view
# of ``blk[:, NB:]``): compiled ahead by :func:`compile_helpers`.
_F, _I = types.float64, types.int64
_F1, _F2, _F3, _FV = types.float64[::1], types.float64[:, ::1], types.float64[:, :, ::1], types.float64[:, :]
_F4, _B = types.float64[:, :, :, ::1], types.boolean
_I1, _I2 = types.int64[::1], types.int64[:, ::1]
#: Each helper the walk (:func:`nines_sim.luck.steps.walk`, its steps inlined) calls, with the argument types it
#: calls it with (``tests/test_luck_compiled.py`` checks them against numba's type inference of the walk).
HELPERS = (
    (count, (_F2, _I, _F2, _F2)),
    (held_faces, (_F2, _I, _I1)),
    (deal_hands, (_I2, _I, _I, _I, _F2, _I1, _F2, _F2)),
    (next_dealt, (_I, _I1, _I)),
    (blocks, (_F2, _F2, _I, _I, _I, _F2)),
    (card_blocks, (_F2, _I, _I, _I, _F2)),
    (mean_into, (_F2, _F2, _F2, _F, _I)),
    (sizes_phase, (_F2, _I, _I, _F, _FV)),
    (move_card, (_F2, _F2, _F2, _I, _I, _F)),
    (is_heuristic, (_I,)),
    (apply_play, (_F2, _F2, _F2, _I, _I)),
    (undo_play, (_F2, _F2, _F2, _I, _I, _I)),
    (copy_into, (_F2, _F2)),
    (play_columns, (_F2, _F, _I, _I, _I, _F, _F, _F, _F, _F2)),
    (weights, (_I1, _F, _F, _I, _F2)),
    (hand_corrections, (_F3, _F2, _F3, _F3, _F3, _I2, _I, _F1, _F2, _F2)),
    (stock_sums, (_F2, _F4, _I, _F2)),
    (mean_dot, (_F1, _F2, _F2, _F2, _F, _I)),
    (hand_sums, (_F2, _F2, _F3, _I, _F2)),
    (deal_value, (_F2, _F2, _F1, _I1, _I, _I, _B, _I, _F2, _F1, _F1)),
    (draw_value, (_I, _I, _I, _I, _F, _I, _F2, _F2, _F2, _F2, _F4, _F2)),
    (choice_values, (_I, _I, _I, _I, _F2, _F2, _F2, _I, _F, _I1, _F1, _F2, _F2, _F2)),
    (after_play, (_I, _I, _I, _F2, _F2, _F2)),
)


#: The helpers of a fixed value's walk (its ``scalar`` steps, 2 s of compiling): compiled in the walk's own process
#: before it (:func:`compile_scalar_helpers`), not beside it with the others, which the walk asks for from its third
#: second: compiled after those in the other process, the walk's process met them first and compiled them too.
SCALAR_HELPERS = (stock_sums, mean_dot, hand_sums, deal_value, draw_value, after_play, choice_values)


def compile_helpers(scalar: bool = False) -> None:
    """Compile the walk's helpers (:data:`HELPERS`, but those of :data:`SCALAR_HELPERS`; with ``scalar``, those alone)
    into numba's cache, without the walk: a process beside the one that compiles the walk does it while the walk's
    own compile is still inlining its steps (its first seconds), so that the walk's type inference then loads each
    helper from the cache instead of compiling it (issue 42)."""
    for fn, sig in HELPERS:
        if (fn in SCALAR_HELPERS) == scalar:
            fn.compile(sig)


def compile_scalar_helpers() -> None:
    """Compile the helpers of :data:`SCALAR_HELPERS` into numba's cache: in the walk's process, before the walk."""
    compile_helpers(scalar=True)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
