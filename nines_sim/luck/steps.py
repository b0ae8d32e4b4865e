"""The compiled luck walk over one slot's raw event rows (:mod:`nines_sim.luck.compiled` feeds it): a step per
event kind (deal, draw, play or pair, declare, reshuffle, hand's end, match's end) and the loop between them.

The events, the parts and their exact expectations are the Python walk's (:mod:`nines_sim.luck.walk`); each step
is the compiled form of the walker's method of the same event.  Errors stop the walk with a code (``E_*``) and
the match; :data:`ERRORS` holds each code's words, the Python walk's.
"""

from __future__ import annotations

import numpy as np

from nines_sim.engine.bits import popcount
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.loop_constants import (
    EV_CHOICE,
    EV_DEAL,
    EV_DECLARE,
    EV_DRAW,
    EV_END,
    EV_MATCH_END,
    EV_PAIR,
    EV_PENALTY_DRAW,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_TURN,
)
from nines_sim.game.cards import N_FACES, N_RANKS, NINE_RANK
from nines_sim.luck.features import COL_ACTIVE, COL_TOP, NB, NC, NJ, NJ0, NQ
from nines_sim.luck.kernel import (
    NK,
    RANK,
    SUIT,
    apply_play,
    blocks,
    card_blocks,
    copy_into,
    count,
    deal_hands,
    hand_corrections,
    held_faces,
    is_heuristic,
    mean_into,
    move_card,
    next_dealt,
    sizes_phase,
    walk_inline,
    walk_jit,
    weights,
)
from nines_sim.luck.play_choices import expert_moves, heuristic_moves, play_choice
from nines_sim.luck.value_kernel import deal_value, draw_value, hand_sums, stock_sums
from nines_sim.luck.walk import SID_EXPERT, SID_SUIT_MAJORITY

# The stock's one row of counts is passed as np.int64(1), its seat as np.int64(0), not as literals: numba would
# compile count, blocks and move_card once more for each constant.
# The steps (and play_choices.py's) are inlined by numba (inline="always"), one level deep: their helpers
# (kernel.py) are compiled and cached on their own.  Compiled on its own and inlined by LLVM (forceinline), each
# step's machine code was made only to be copied into the walk and optimized again there: half the walk's first
# compile (issue 42; docs/explanation/benchmark-log.md), for the same speed.

# error codes of the compiled walk
E_NONE, E_RESHUFFLE, E_TOTALS, E_STOCK, E_PLAY, E_DECLARE, E_NO_SEAT, E_NO_PLAY_SETS, E_NO_DECLARE_SETS = range(9)
#: Each error's words, as the Python walk's (``a``, ``b``: the numbers the walk stopped on).
ERRORS = {
    E_RESHUFFLE: "a reshuffle of {a} cards, but the discard pile held {b}",
    E_TOTALS: "the totals walked disagree with the totals played",
    E_STOCK: "drew face {a}, which the stock does not hold",
    E_PLAY: "seat {a} played {b}, not one of its policy's choices",
    E_DECLARE: "seat {a} declared suit {b}, not one of its policy's choices",
    E_NO_SEAT: "a hand dealt to no seat",
    E_NO_PLAY_SETS: "seat {a} (expert) moved with no play choice logged before it",
    E_NO_DECLARE_SETS: "seat {a} (expert) moved with no declare choice logged before it",
}
#: The walk's state kept in ``ist`` between a slot's rows (:func:`walk`): the match, top, active suit, first seat,
#: regular hands, tie-break, after a draw; then ``expert``'s logged sets until its move (``choice`` rows): the seat
#: + 1 of a pending play (0: none), its tied naturals, its 9s, the suits a 9 replaces; a pending declaration's
#: seat + 1 and its tied suits.
IST_WIDTH = 13


@walk_inline
def deal(rows, i, P, D, deal_mean, H, held, stock, pile, acc, hr, hs, sr, ss, blk, cb, mean, chosen, scalar, vh,
         dt, sums, u):  # fmt: skip
    """A hand dealt (D2, D4-D7; Walker._deal): the hands and the stock from row ``i``, the deal's part into
    ``acc[0]`` (with ``scalar``, its value under the deal's weights ``vh`` (P, NJ) into ``sums[0]``,
    :func:`~nines_sim.luck.value_kernel.deal_value`, ``u`` its scratch, and the stock's draw sums rebuilt,
    :func:`~nines_sim.luck.value_kernel.stock_sums`).  Returns the first seat to play (-1: a hand dealt to no seat) and
    the stock's size."""
    dealer, starter = rows[i, 2], rows[i, 3]
    deal_hands(rows, i, P, D, H, held, hr, hs)
    first = next_dealt(dealer, held, P)
    if first < 0:
        return first, 0.0
    blocks(hr, hs, starter, SUIT[starter], P, blk)
    if scalar:
        deal_value(blk, hr, deal_mean, held, first, dealer, rows[i, 1] == 0, P, vh, u, sums[0])
    else:
        card_blocks(blk, first, first, P, cb)
        mean[:] = 0.0
        nd = 0.0  # a float, as the other calls' scale: numba compiles mean_into once (not an int, nor the literal 0)
        for d in range(P if rows[i, 1] == 0 else 1):  # a match's first hand: over the first dealer too
            mover = next_dealt(d if rows[i, 1] == 0 else dealer, held, P)
            for p in range(P):
                size = 0.0
                for r in range(N_RANKS):
                    size += hr[p, r]
                for j in range(NB):
                    blk[p, j] = size * deal_mean[j]
            card_blocks(blk, mover, mover, P, chosen)
            for p in range(P):
                for j in range(NJ):
                    mean[p, j] += chosen[p, j]
            nd += 1.0
        mean_into(acc[0], cb, mean, nd, P)
    deck = float(D)
    for f in range(N_FACES):
        s = deck
        for p in range(P):
            s -= H[p, f]
        stock[f] = s
        pile[f] = 0.0
    stock[starter] -= 1.0
    # the stock's counts: the deck's less the hands' and the starter (whole numbers: count()'s, exactly)
    n_stock = N_FACES * deck - 1.0
    for r in range(N_RANKS):
        c = 4.0 * deck
        for p in range(P):
            c -= hr[p, r]
        sr[0, r] = c
        n_stock -= 4.0 * deck - c
    for su in range(4):
        c = (N_RANKS - 1.0) * deck
        for p in range(P):
            c -= hs[p, su]
        ss[0, su] = c
    sr[0, RANK[starter]] -= 1.0
    if RANK[starter] != NINE_RANK:
        ss[0, SUIT[starter]] -= 1.0
    if scalar:
        stock_sums(sr, dt, P, sums)
    return first, n_stock


@walk_inline
def draw(seat, face, top, active, n_stock, P, H, held, hr, hs, stock, sr, ss, acc, blk, smean, scalar, dt, sums):
    """``seat`` draws ``face`` from the stock (T4, V2, V3; Walker._draw): the card drawn's row of the card matrix
    minus the stock's mean row into the draw's part, ``acc[1]``, in each phase copy scaled by the hand's phase
    after the draw (``blk[:, NB:]``: the phase's scratch).

    With ``scalar`` (a fixed value's walk), that row's value instead, into ``sums[1]``
    (:func:`~nines_sim.luck.value_kernel.draw_value`)."""
    rank, nat = RANK[face], RANK[face] != NINE_RANK
    if scalar:
        draw_value(seat, face, top, active, n_stock, P, hr, sr, ss, blk, dt, sums)
    else:
        top_rank = RANK[top]
        for r in range(N_RANKS):  # the stock's mean row: its counts' card blocks (blocks()) over its size
            smean[r] = -sr[0, r] / n_stock
        smean[COL_ACTIVE] = -ss[0, active] / n_stock
        smean[COL_TOP] = -(sr[0, top_rank] if top_rank != NINE_RANK else 0.0) / n_stock
        smean[rank] += 1.0
        if nat and SUIT[face] == active:
            smean[COL_ACTIVE] += 1.0
        if nat and top_rank != NINE_RANK and rank == top_rank:
            smean[COL_TOP] += 1.0
        lg = smean[COL_ACTIVE] + smean[COL_TOP] + smean[NINE_RANK]
        ph = blk[:, NB:]
        sizes_phase(hr, P, seat, 1.0, ph)  # the drawer's hand one card more: the sizes after the draw, known before it
        # The drawer's own columns and its legal count, the others' sum columns and their legal count: a draw's only
        # non-zero columns, in each phase copy (the first phase function is 1: the block itself, to the bit).
        for q in range(NQ):
            o = q * NJ0
            for p in range(P):
                w = ph[p, q]
                if p == seat:
                    for j in range(NB):
                        acc[1, p, o + j] += w * smean[j]
                    acc[1, p, o + 2 * NB] += w * lg
                else:
                    for j in range(NB):
                        acc[1, p, o + NB + j] += w * smean[j]
                    acc[1, p, o + 2 * NB + 1] += w * lg
    move_card(H, hr, hs, seat, face, 1.0)
    held[seat] |= np.int64(1) << face
    stock[face] -= 1.0
    sr[0, rank] -= 1.0
    if nat:
        ss[0, SUIT[face]] -= 1.0


@walk_inline
def declare(hr, hs, seat, suit, mover, top, sids, P, acc, blk, tied, scalar, vh, sums):
    """A declared suit (T3, D6), corrected when ``seat``'s policy declares at random (Walker._declare): ``expert``
    among the suits of ``tied``, the set its trace logged (0: none logged) (``blk[:, NB:]``: the phase's
    scratch).  With ``scalar``, the columns' change under the choices' weights ``vh`` (P, NJ) into ``sums[2]``
    instead of ``acc[2]``."""
    sid = sids[seat]
    if sid == SID_EXPERT:
        if tied == 0:
            return E_NO_DECLARE_SETS
        suits = tied
    elif is_heuristic(sid):
        most = 0.0
        for s in range(4):
            most = max(most, hs[seat, s])
        suits = 0
        for s in range(4):  # suit-majority: the suits it holds the most naturals of; the others: any
            if sid != SID_SUIT_MAJORITY or hs[seat, s] == most:
                suits |= 1 << s
    else:
        return E_NONE
    if not (suits >> suit) & 1:
        return E_DECLARE
    k = popcount(suits)
    if k == 1:
        return E_NONE
    # A suit changes only each seat's naturals of the active suit (its own and in the others' sum) and the mover's
    # legal count: every other column is the same whole number for each suit, so its chosen minus mean is exactly
    # 0 and is left out; these are the sums card_blocks() and mean_into() make, in their order: the same bits.
    scale = float(k)
    top_col = hr[mover, RANK[top]] if RANK[top] != NINE_RANK else 0.0
    m_legal = 0.0
    for s in range(4):
        if (suits >> s) & 1:
            m_legal += hs[mover, s] + top_col + hr[mover, NINE_RANK]
    legal = (hs[mover, suit] + top_col + hr[mover, NINE_RANK]) - m_legal / scale
    ph = blk[:, NB:]
    sizes_phase(hr, P, seat, 0.0, ph)  # a suit changes no hand's size: one phase for every suit
    for p in range(P):
        m_own, m_others = 0.0, 0.0
        for s in range(4):
            if (suits >> s) & 1:
                total = 0.0
                for q in range(P):
                    total += hs[q, s]
                m_own += hs[p, s]
                m_others += total - hs[p, s]
        total = 0.0
        for q in range(P):
            total += hs[q, suit]
        own, others = hs[p, suit] - m_own / scale, (total - hs[p, suit]) - m_others / scale
        col = 2 * NB if p == mover else 2 * NB + 1
        x = 0.0
        for q in range(NQ):  # each phase copy (the first phase function is 1: the block itself, to the bit)
            o, w = q * NJ0, ph[p, q]
            if scalar:
                x += w * (vh[p, o + COL_ACTIVE] * own + vh[p, o + NB + COL_ACTIVE] * others + vh[p, o + col] * legal)
            else:
                acc[2, p, o + COL_ACTIVE] += w * own
                acc[2, p, o + NB + COL_ACTIVE] += w * others
                acc[2, p, o + col] += w * legal
        sums[2, p] += x
    return E_NONE


@walk_inline
def end_hand(rows, i, m, P, fixed, target, totals, regular, tiebreak, acc, parts, value, corr, W, u, dots, scalar,
             sums):  # fmt: skip
    """A hand's end (S1-S3): its parts, weighted by the match's standing before it, into match ``m``'s (when
    ``parts`` has rows), and its corrections under ``value`` (``(vw, vm, vh, rank1)``,
    :func:`~nines_sim.luck.kernel.hand_corrections`) into ``corr[m]`` (when ``corr`` has rows); its penalties into
    the totals unless a tie-break's; with ``scalar`` (a fixed value's walk), from the hand's change per kind in
    ``sums`` (:func:`~nines_sim.luck.value_kernel.hand_sums`).  Returns the regular hands played and whether in
    tie-break."""
    mx = 0
    for p in range(P):
        mx = max(mx, totals[p])
    progress = regular / fixed if fixed else mx / target
    weights(totals, progress, target, P, W)
    vw, vm, vh, rank1 = value
    if scalar:
        hand_sums(sums, W, vm, P, corr[m])
    elif corr.shape[0] > 0:
        hand_corrections(acc, W, vw, vm, vh, rank1, P, u, dots, corr[m])
    for k in range(3 if parts.shape[0] > 0 else 0):
        for p in range(P):
            out = parts[m, k, p]  # one add per feature and hand: any order gives the same sums
            a = acc[k, p]
            for c in range(NC):
                w = W[p, c]
                base = c * NJ
                for j in range(NJ):
                    out[base + j] += w * a[j]
    if not scalar:
        acc[:] = 0.0
    if not tiebreak:
        for p in range(P):
            totals[p] += rows[i, 6 + p]
        regular += 1
        mx = 0
        for p in range(P):
            mx = max(mx, totals[p])
        tiebreak = regular >= fixed if fixed else mx >= target
    return regular, tiebreak


@walk_inline
def end_match(rows, i, m, P, totals, shares, totals_out):
    """A match's end (S2, S4): its win shares and totals; False if the totals walked disagree with row ``i``'s."""
    for p in range(P):
        if totals[p] != rows[i, 6 + p]:
            return False
    mask = rows[i, 1]
    wins = 0
    for p in range(P):
        wins += (mask >> p) & 1
    for p in range(P):
        shares[m, p] = 1.0 / wins if (mask >> p) & 1 else 0.0
        totals_out[m, p] = totals[p]
    return True


def walk_scratch(P: int) -> tuple[np.ndarray, ...]:
    """The arrays :func:`walk` works in for a table of ``P`` seats (made once per walker: the walk makes none):
    each seat's cards by rank and naturals by suit, the stock's, each seat's faces held, the card blocks and the
    phase's scratch (:func:`~nines_sim.luck.kernel.card_blocks`), three card blocks' rows (a choice's), the match
    weights, a value's scratch, a choice's moves and weights, the stock's mean row, a hand's dot products per kind
    and seat."""
    return (np.zeros((P, N_RANKS)), np.zeros((P, 4)), np.zeros((1, N_RANKS)), np.zeros((1, 4)),
            np.zeros(P, dtype=np.int64), np.zeros((P, NB + NQ + 1)), np.zeros((P, NJ)), np.zeros((P, NJ)),
            np.zeros((P, NJ)), np.zeros((P, NC)), np.zeros(NJ), np.zeros(N_FACES + 1, dtype=np.int64),
            np.zeros(N_FACES + 1), np.zeros(NB), np.zeros((3, P)))  # fmt: skip


@walk_jit
def walk(rows, P, D, sids, legal, deal_mean, target, fixed, no_nine_out, pair_rule, nine_on_nine, start, H,
         stock, pile, acc, totals, ist, parts, value, corr, shares, totals_out, hand_blocks, hand_pen, hand_match,
         hand_w, err, scr, scalar, dt, sums):  # fmt: skip
    """Walk the rows of one slot, going on from its state (``H`` .. ``ist``, changed in place); results by match
    index - ``start``: the parts when ``parts`` has rows, the corrections under ``value`` (``(vw, vm, vh, rank1)``,
    :func:`~nines_sim.luck.kernel.hand_corrections`) when ``corr`` (n, 3, P) has rows, each hand's into ``hand_*``
    when they have rows (its card blocks, penalties, match and match weights).  ``err``: (code, match, a, b, -,
    ends).  ``scr``: :func:`walk_scratch`'s arrays (zeroed here, as new ones would be).

    With ``scalar`` (a fixed value's run, ``value``'s weights all factored, no hands kept), each event's change of the
    value is walked as numbers, not columns: the value's card block weights ``vh`` dotted with the columns an event
    changes as it happens (the draws' through ``dt``, :func:`~nines_sim.luck.value_kernel.draw_tables`), each hand's per
    kind and seat summed in ``sums[:NK]`` (the slot's, (NK + 2 NQ, P), kept between rows as ``acc``, with the
    stock's draw sums after them) and multiplied by the match weights' coefficients at the hand's end.  The same
    corrections as the columns' dot products at the hand's end, the products summed in another order (1e-15)."""
    hr, hs, sr, ss, held, blk, cb, mean, chosen, W, u, moves, probs, smean, dots = scr
    for a in (hr, hs, sr, ss, blk, cb, mean, chosen, W, dots):
        a[:] = 0.0
    held[:] = 0
    moves[:] = 0
    u[:] = 0.0
    probs[:] = 0.0
    smean[:] = 0.0
    count(H, P, hr, hs)
    held_faces(H, P, held)
    count(stock.reshape(1, N_FACES), np.int64(1), sr, ss)
    n_stock = 0.0
    for f in range(N_FACES):
        n_stock += stock[f]
    m, top, active, first, regular = ist[0], ist[1], ist[2], ist[3], ist[4]
    tiebreak, after_draw = ist[5] != 0, ist[6] != 0
    play_seat, tied, nines, nine_suits, decl_seat, decl_tied = ist[7], ist[8], ist[9], ist[10], ist[11], ist[12]
    keep = hand_blocks.shape[0] > 0
    nh = 0
    for i in range(rows.shape[0]):
        kind = rows[i, 0]
        if kind == EV_TURN:
            after_draw = False
        elif kind == EV_CHOICE:  # expert's sets, until its move (seat + 1: 0 is none)
            if sids[rows[i, 1]] == SID_EXPERT and rows[i, 2] == 1:
                play_seat, tied, nines, nine_suits = rows[i, 1] + 1, rows[i, 3], rows[i, 4], rows[i, 5]
            elif sids[rows[i, 1]] == SID_EXPERT:
                decl_seat, decl_tied = rows[i, 1] + 1, rows[i, 3]
        elif kind == EV_DEAL:
            if rows[i, 1] == 0:  # a match's first hand
                m = rows[i, 4] - start
                if parts.shape[0] > 0:
                    parts[m] = 0.0
                if corr.shape[0] > 0:
                    corr[m] = 0.0
                totals[:] = 0
                regular, tiebreak = 0, False
            if scalar:
                sums[:NK] = 0.0
            else:
                acc[:] = 0.0
            first, n_stock = deal(rows, i, P, D, deal_mean, H, held, stock, pile, acc, hr, hs, sr, ss, blk, cb, mean,
                                  chosen, scalar, value[2][0], dt, sums, u)  # fmt: skip
            if first < 0:
                err[0], err[1] = E_NO_SEAT, m + start
                return
            top, active = rows[i, 3], SUIT[rows[i, 3]]
            after_draw = False
        elif kind == EV_DRAW or kind == EV_PENALTY_DRAW:
            seat, face = rows[i, 1], rows[i, 2]
            if stock[face] <= 0:
                err[0], err[1], err[2] = E_STOCK, m + start, face
                return
            draw(seat, face, top, active, n_stock, P, H, held, hr, hs, stock, sr, ss, acc, blk, smean, scalar, dt, sums)
            n_stock -= 1.0
            after_draw = kind == EV_DRAW
        elif kind == EV_PLAY or kind == EV_PAIR or kind == EV_DECLARE:  # one call of declare: numba inlines it once
            if kind == EV_DECLARE:
                d_seat, d_suit, d_mover = rows[i, 1], rows[i, 2], first
            else:
                seat = rows[i, 1]
                mv = rows[i, 2] if kind == EV_PLAY else -2
                suit = rows[i, 3] if kind == EV_PLAY else rows[i, 2]
                sid = sids[seat]
                k = -1  # the policy's choices, when it has some (-1: none asked)
                pair = False
                if (kind == EV_PAIR or not after_draw) and is_heuristic(sid):
                    k, pair = heuristic_moves(seat, sid, top, active, P, legal, no_nine_out, pair_rule, nine_on_nine, H,
                                              held, hr, moves, probs)  # fmt: skip
                elif not after_draw and sid == SID_EXPERT:
                    if play_seat != seat + 1:
                        err[0], err[1], err[2] = E_NO_PLAY_SETS, m + start, seat
                        return
                    k = expert_moves(tied, nines, nine_suits, moves, probs)
                    play_seat = 0
                if k >= 0 and not play_choice(seat, mv, k, pair, first, P, H, hr, hs, acc, blk, cb, mean, chosen, moves,
                                              probs, scalar, value[2][2], sums):  # fmt: skip
                    err[0], err[1], err[2], err[3] = E_PLAY, m + start, seat, mv
                    return
                t, under = apply_play(H, hr, hs, seat, mv)
                for g in (t, under):  # a face no longer held leaves the seat's set
                    if g >= 0 and H[seat, g] == 0.0:
                        held[seat] &= ~(np.int64(1) << g)
                pile[top] += 1.0
                if under >= 0:
                    pile[under] += 1.0
                top, active = t, SUIT[t]
                d_seat, d_suit, d_mover = seat, suit, seat  # a 9's suit (-1: none)
            if d_suit >= 0:
                code = declare(hr, hs, d_seat, d_suit, d_mover, top, sids, P, acc, blk,
                               decl_tied if decl_seat == d_seat + 1 else 0, scalar, value[2][2], sums)  # fmt: skip
                decl_seat = 0
                if code != E_NONE:
                    err[0], err[1], err[2], err[3] = code, m + start, d_seat, d_suit
                    return
                active = d_suit
        elif kind == EV_RESHUFFLE:
            s = 0.0
            for f in range(N_FACES):
                stock[f] += pile[f]
                pile[f] = 0.0
                s += stock[f]
            if s != rows[i, 1]:
                err[0], err[1], err[2], err[3] = E_RESHUFFLE, m + start, rows[i, 1], int(s)
                return
            count(stock.reshape(1, N_FACES), np.int64(1), sr, ss)
            if scalar:
                stock_sums(sr, dt, P, sums)
            n_stock = s
        elif kind == EV_END:
            if keep:
                for k in range(3):
                    copy_into(acc[k], hand_blocks[nh, k])
                hand_match[nh] = m + start
                for p in range(P):
                    hand_pen[nh, p] = rows[i, 6 + p]
                nh += 1
            regular, tiebreak = end_hand(rows, i, m, P, fixed, target, totals, regular, tiebreak, acc, parts,
                                         value, corr, W, u, dots, scalar, sums)  # fmt: skip
            if keep:
                copy_into(W, hand_w[nh - 1])  # the match weights the hand's blocks were weighted by
        elif kind == EV_MATCH_END:
            if not end_match(rows, i, m, P, totals, shares, totals_out):
                err[0], err[1] = E_TOTALS, m + start
                return
            err[5] += 1  # matches ended
    ist[0], ist[1], ist[2], ist[3], ist[4] = m, top, active, first, regular
    ist[5], ist[6] = tiebreak, after_draw
    ist[7], ist[8], ist[9], ist[10], ist[11], ist[12] = play_seat, tied, nines, nine_suits, decl_seat, decl_tied


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
