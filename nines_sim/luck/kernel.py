"""The compiled luck walk's small helpers (:mod:`nines_sim.luck.steps`): a hand's counts by rank and suit, its
card blocks and their differences, a play made and undone, the match weights.

Each is the compiled form of a piece of the Python walk (:mod:`nines_sim.luck.walk`,
:mod:`nines_sim.luck.features`), on arrays the walk keeps and changes in place (no array made per event).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from nines_sim.engine.bits import I_NATURALS, RANK_MASKS, SUIT_MASKS, popcount, shared_inline
from nines_sim.engine.code_cache import seal_module
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, N_RANKS, NINE_RANK
from nines_sim.luck.features import COL_ACTIVE, COL_TOP, NB, NC, NJ, NJ0, NQ
from nines_sim.luck.walk import HEURISTICS, NATURAL_PENALTY

RANK = FACE_RANK.astype(np.int64)
SUIT = FACE_SUIT.astype(np.int64)
PEN = NATURAL_PENALTY.astype(np.int64)
_HEUR = np.array(HEURISTICS, dtype=np.int64)
#: Kinds of event a value's change is kept for (deal, draw, choice): a fixed value's walk keeps each hand's change
#: per kind and seat in ``sums[:NK]`` (:func:`~nines_sim.luck.value_kernel.hand_sums`) and the stock's draw sums
#: after them (:func:`~nines_sim.luck.value_kernel.stock_sums`).
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


@shared_inline
def choice_columns(mean, chosen, acc2, blk, P, ranks, add):
    """The columns a play's choices change (each seat's own and the others' naturals of the active suit and of the
    top's rank, the legal counts, and the ranks of ``ranks``, bit r): with ``add`` 0, cleared in ``mean`` and
    ``chosen`` (P, NJ); with ``add`` 1, ``chosen`` minus ``mean`` added into the choice part ``acc2`` in each phase
    copy, scaled by the phase in ``blk[:, NB:]`` (:func:`sizes_phase`): the numbers
    :func:`phased` then :func:`mean_into` (scale 1) give those columns, to the bit.  Compiled on its own and inlined
    by LLVM into the choices' step (:func:`~nines_sim.engine.bits.shared_inline`), not by numba, whose copies of it a
    second level down (the step inlined into the walk) made the walk's first compile about 2 s of processor time
    longer; called instead, the walk was about 5% slower."""
    ph = blk[:, NB:]
    for c in range(NB + NB + 2):
        if c < NB:
            r = c
        elif c < 2 * NB:
            r = c - NB
        else:
            r = -1  # the legal counts (2 NB, 2 NB + 1)
        if r >= 0 and r != COL_ACTIVE and r != COL_TOP and not (ranks >> r) & 1:
            continue
        for p in range(P):
            if add == 0:
                mean[p, c] = 0.0
                chosen[p, c] = 0.0
                continue
            x, y = chosen[p, c], mean[p, c]
            acc2[p, c] += x - y
            for q in range(1, NQ):
                w = ph[p, q]
                acc2[p, q * NJ0 + c] += w * x - w * y


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
    (choice_columns, (_F2, _F2, _F2, _F2, _I, _I, _I)),
    (weights, (_I1, _F, _F, _I, _F2)),
    (hand_corrections, (_F3, _F2, _F3, _F3, _F3, _I2, _I, _F1, _F2, _F2)),
)


def compile_helpers() -> None:
    """Compile the walk's helpers (:data:`HELPERS`) into numba's cache, without the walk: a process beside the one
    that compiles the walk does it while the walk's own compile is still inlining its steps (its first seconds), so
    that the walk's type inference then loads each helper from the cache instead of compiling it (issue 42).  A
    fixed value's helpers are :func:`nines_sim.luck.value_kernel.compile_helpers`'s."""
    for fn, sig in HELPERS:
        fn.compile(sig)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
