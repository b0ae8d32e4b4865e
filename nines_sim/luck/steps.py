"""The compiled luck walk over one slot's raw event rows (:mod:`nines_sim.luck.compiled` feeds it): a step per
event kind (deal, draw, play or pair, declare, reshuffle, hand's end, match's end) and the loop between them.

The events, the parts and their exact expectations are the Python walk's (:mod:`nines_sim.luck.walk`); each step
is the compiled form of the walker's method of the same event.  Errors stop the walk with a code (``E_*``) and
the match; :data:`ERRORS` holds each code's words, the Python walk's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.loop_constants import (
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
    PEN,
    RANK,
    SUIT,
    add_choice,
    apply_play,
    blocks,
    card_blocks,
    copy_into,
    count,
    is_heuristic,
    mean_into,
    move_card,
    next_dealt,
    phase,
    phased,
    undo_play,
    weights,
)
from nines_sim.luck.walk import SID_DUMP_FACES, SID_HOLD_NINES, SID_RANDOM, SID_SUIT_MAJORITY

# The stock's one row of counts is passed as np.int64(1), its seat as np.int64(0), not as literals: numba would
# compile count, blocks and move_card once more for each constant.

# error codes of the compiled walk
E_NONE, E_RESHUFFLE, E_TOTALS, E_STOCK, E_PLAY, E_DECLARE, E_NO_SEAT = range(7)
#: Each error's words, as the Python walk's (``a``, ``b``: the numbers the walk stopped on).
ERRORS = {
    E_RESHUFFLE: "a reshuffle of {a} cards, but the discard pile held {b}",
    E_TOTALS: "the totals walked disagree with the totals played",
    E_STOCK: "drew face {a}, which the stock does not hold",
    E_PLAY: "seat {a} played {b}, not one of its policy's choices",
    E_DECLARE: "seat {a} declared suit {b}, not one of its policy's choices",
    E_NO_SEAT: "a hand dealt to no seat",
}


@njit(cache=True, forceinline=True)
def deal(rows, i, P, D, deal_mean, H, stock, pile, acc, hr, hs, sr, ss, blk, cb, mean, chosen):
    """A hand dealt (D2, D4-D7; Walker._deal): the hands and the stock from row ``i``, the deal's part into
    ``acc[0]``.  Returns the first seat to play (-1: a hand dealt to no seat) and the stock's size."""
    dealer, starter = rows[i, 2], rows[i, 3]
    H[:] = 0.0
    for p in range(P):
        for d in range(D):
            w = np.uint64(rows[i, 6 + 2 * p + d])
            for f in range(N_FACES):
                if (w >> np.uint64(f)) & np.uint64(1):
                    H[p, f] += 1.0
    first = next_dealt(dealer, H, P)
    if first < 0:
        return first, 0.0
    count(H, P, hr, hs)
    blocks(hr, hs, starter, SUIT[starter], P, blk)
    card_blocks(blk, first, first, P, cb)
    mean[:] = 0.0
    nd = 0.0  # a float, as the other calls' scale: numba compiles mean_into once (not for an int, nor the literal 0)
    for d in range(P if rows[i, 1] == 0 else 1):  # a match's first hand: over the first dealer too
        mover = next_dealt(d if rows[i, 1] == 0 else dealer, H, P)
        for p in range(P):
            size = 0.0
            for f in range(N_FACES):
                size += H[p, f]
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
    count(stock.reshape(1, N_FACES), np.int64(1), sr, ss)
    n_stock = 0.0
    for f in range(N_FACES):
        n_stock += stock[f]
    return first, n_stock


@njit(cache=True, forceinline=True)
def draw(seat, face, top, active, n_stock, P, H, hr, hs, stock, sr, ss, acc, blk, smean, base):
    """``seat`` draws ``face`` from the stock (T4, V2, V3; Walker._draw): the card drawn's row of the card matrix
    minus the stock's mean row into the draw's part, ``acc[1]``."""
    blocks(sr, ss, top, active, np.int64(1), blk)
    rank, nat = RANK[face], RANK[face] != NINE_RANK
    for j in range(NB):
        smean[j] = -blk[0, j] / n_stock
    smean[rank] += 1.0
    if nat and SUIT[face] == active:
        smean[COL_ACTIVE] += 1.0
    if nat and RANK[top] != NINE_RANK and rank == RANK[top]:
        smean[COL_TOP] += 1.0
    for p in range(P):
        for j in range(NJ0):
            base[p, j] = 0.0
    for j in range(NB):
        base[seat, j] += smean[j]
        for p in range(P):
            if p != seat:
                base[p, NB + j] += smean[j]
    lg = smean[COL_ACTIVE] + smean[COL_TOP] + smean[NINE_RANK]
    for p in range(P):
        if p != seat:
            base[p, 2 * NB + 1] += lg
    base[seat, 2 * NB] += lg
    ph = blk[:, NB:]
    for p in range(P):  # the hands' sizes after the draw (the drawer's one more): known before the card
        z = 0.0
        for r in range(N_RANKS):
            z += hr[p, r]
        ph[p, NQ] = z + (1.0 if p == seat else 0.0)
    phase(ph, P)
    phased(base, ph, P)
    for p in range(P):
        for j in range(NJ):
            acc[1, p, j] += base[p, j]
    move_card(H, hr, hs, seat, face, 1.0)
    move_card(stock.reshape(1, N_FACES), sr, ss, np.int64(0), face, -1.0)


@njit(cache=True, forceinline=True)
def play_choice(seat, mv, sid, top, active, first, P, legal, no_nine_out, pair_rule, nine_on_nine, H, hr, hs, acc,
                blk, cb, mean, chosen, moves, probs):  # fmt: skip
    """``seat``'s play ``mv`` (a face, or -2: the pair) as a choice of its heuristic policy ``sid``
    (Walker._play_choices): the chosen play's card blocks minus their mean over the policy's choices into the
    choice part, ``acc[2]``.  Returns False if ``mv`` is not one of the choices."""
    size = 0.0  # the hand's cards and 9s from its rank counts (whole numbers: the same sums as over the faces)
    for r in range(N_RANKS):
        size += hr[seat, r]
    nines = hr[seat, NINE_RANK]
    any_nat, max_pen, n_legal = False, -1, 0
    row = top * 4 + active
    for f in range(N_FACES):  # the legal faces held, in face order, into ``moves`` (filtered below)
        if H[seat, f] > 0 and legal[row, f] and not (no_nine_out and size == 1.0 and RANK[f] == NINE_RANK):
            moves[n_legal] = f
            n_legal += 1
            if RANK[f] != NINE_RANK:
                any_nat = True
                max_pen = max(max_pen, PEN[f])
    k = 0
    for i in range(n_legal):
        f = moves[i]
        nat = RANK[f] != NINE_RANK
        if sid == SID_HOLD_NINES and any_nat and not nat:
            continue
        if sid == SID_DUMP_FACES and any_nat and not (nat and PEN[f] == max_pen):
            continue
        moves[k] = f  # k <= i: a face not yet read is never overwritten
        probs[k] = H[seat, f]
        k += 1
    pair = (sid == SID_RANDOM and pair_rule and nines >= 2 and (RANK[top] != NINE_RANK or nine_on_nine)
            and not (no_nine_out and size == 2.0))  # fmt: skip
    if pair:
        moves[k] = -2
        probs[k] = 1.0
        k += 1
    idx = -1
    tot = 0.0
    for j in range(k):
        tot += probs[j]
        if moves[j] == mv:
            idx = j
    if idx < 0:
        return False
    if k > 1:
        mean[:] = 0.0
        for j in range(k):
            t, under = apply_play(H, hr, hs, seat, moves[j])
            blocks(hr, hs, t, SUIT[t], P, blk)
            undo_play(H, hr, hs, seat, t, under)
            card_blocks(blk, seat, first, P, cb)
            add_choice(cb, j == idx, probs[j] / tot, P, mean, chosen)
        mean_into(acc[2], chosen, mean, 1.0, P)
    return True


@njit(cache=True, forceinline=True)
def declare(hr, hs, seat, suit, mover, first, top, sids, P, acc, blk, cb, mean, chosen):
    """A declared suit (T3, D6), corrected when ``seat``'s policy declares at random (Walker._declare)."""
    sid = sids[seat]
    if not is_heuristic(sid):
        return E_NONE
    most = 0.0
    for s in range(4):
        most = max(most, hs[seat, s])
    k = 0
    for s in range(4):  # suit-majority: the suits it holds the most naturals of; the others: any
        k += sid != SID_SUIT_MAJORITY or hs[seat, s] == most
    if sid == SID_SUIT_MAJORITY and hs[seat, suit] != most:
        return E_DECLARE
    if k == 1:
        return E_NONE
    mean[:] = 0.0
    for s in range(4):
        if sid != SID_SUIT_MAJORITY or hs[seat, s] == most:
            blocks(hr, hs, top, s, P, blk)
            card_blocks(blk, mover, first, P, cb)
            add_choice(cb, s == suit, 1.0, P, mean, chosen)
    mean_into(acc[2], chosen, mean, float(k), P)  # a float, as the other calls' scale: one compile of it
    return E_NONE


@njit(cache=True, forceinline=True)
def end_hand(rows, i, m, P, fixed, target, totals, regular, tiebreak, acc, parts, W):
    """A hand's end (S1-S3): its parts, weighted by the match's standing before it, into match ``m``'s; its
    penalties into the totals unless a tie-break's.  Returns the regular hands played and whether in tie-break."""
    mx = 0
    for p in range(P):
        mx = max(mx, totals[p])
    progress = regular / fixed if fixed else mx / target
    weights(totals, progress, target, P, W)
    for k in range(3):
        for p in range(P):
            out = parts[m, k, p]  # one add per feature and hand: any order gives the same sums
            a = acc[k, p]
            for c in range(NC):
                w = W[p, c]
                base = c * NJ
                for j in range(NJ):
                    out[base + j] += w * a[j]
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


@njit(cache=True, forceinline=True)
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


@njit(cache=True)
def walk(rows, P, D, sids, legal, deal_mean, target, fixed, no_nine_out, pair_rule, nine_on_nine, start, H,
         stock, pile, acc, totals, ist, parts, shares, totals_out, hand_blocks, hand_pen, hand_match, hand_w,
         err):  # fmt: skip
    """Walk the rows of one slot, going on from its state (``H`` .. ``ist``, changed in place); results by match
    index - ``start``, each hand's into ``hand_*`` (when they have rows: its card blocks, penalties, match and match
    weights).  ``err``: (code, match, a, b, -, ends)."""
    hr, hs = np.zeros((P, N_RANKS)), np.zeros((P, 4))
    sr, ss = np.zeros((1, N_RANKS)), np.zeros((1, 4))  # the stock's counts
    count(H, P, hr, hs)
    count(stock.reshape(1, N_FACES), np.int64(1), sr, ss)
    n_stock = 0.0
    for f in range(N_FACES):
        n_stock += stock[f]
    blk = np.zeros((P, NB + NQ + 1))  # the blocks, then the phase's scratch (kernel.card_blocks)
    cb = np.zeros((P, NJ))
    mean = np.zeros((P, NJ))
    chosen = np.zeros((P, NJ))
    W = np.zeros((P, NC))
    moves = np.zeros(N_FACES + 1, dtype=np.int64)
    probs = np.zeros(N_FACES + 1)
    smean = np.zeros(NB)
    dbase = np.zeros((P, NJ))  # a draw's blocks
    m, top, active, first, regular = ist[0], ist[1], ist[2], ist[3], ist[4]
    tiebreak, after_draw = ist[5] != 0, ist[6] != 0
    keep = hand_blocks.shape[0] > 0
    nh = 0
    for i in range(rows.shape[0]):
        kind = rows[i, 0]
        if kind == EV_TURN:
            after_draw = False
        elif kind == EV_DEAL:
            if rows[i, 1] == 0:  # a match's first hand
                m = rows[i, 4] - start
                parts[m] = 0.0
                totals[:] = 0
                regular, tiebreak = 0, False
            acc[:] = 0.0
            first, n_stock = deal(rows, i, P, D, deal_mean, H, stock, pile, acc, hr, hs, sr, ss, blk, cb, mean, chosen)
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
            draw(seat, face, top, active, n_stock, P, H, hr, hs, stock, sr, ss, acc, blk, smean, dbase)
            n_stock -= 1.0
            after_draw = kind == EV_DRAW
        elif kind == EV_PLAY or kind == EV_PAIR:
            seat = rows[i, 1]
            mv = rows[i, 2] if kind == EV_PLAY else -2
            suit = rows[i, 3] if kind == EV_PLAY else rows[i, 2]
            sid = sids[seat]
            if (kind == EV_PAIR or not after_draw) and is_heuristic(sid):
                if not play_choice(seat, mv, sid, top, active, first, P, legal, no_nine_out, pair_rule, nine_on_nine,
                                   H, hr, hs, acc, blk, cb, mean, chosen, moves, probs):  # fmt: skip
                    err[0], err[1], err[2], err[3] = E_PLAY, m + start, seat, mv
                    return
            t, under = apply_play(H, hr, hs, seat, mv)
            pile[top] += 1.0
            if under >= 0:
                pile[under] += 1.0
            top, active = t, SUIT[t]
            if suit >= 0:
                code = declare(hr, hs, seat, suit, seat, first, top, sids, P, acc, blk, cb, mean, chosen)
                if code != E_NONE:
                    err[0], err[1], err[2], err[3] = code, m + start, seat, suit
                    return
                active = suit
        elif kind == EV_DECLARE:
            code = declare(hr, hs, rows[i, 1], rows[i, 2], first, first, top, sids, P, acc, blk, cb, mean, chosen)
            if code != E_NONE:
                err[0], err[1], err[2], err[3] = code, m + start, rows[i, 1], rows[i, 2]
                return
            active = rows[i, 2]
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
            n_stock = s
        elif kind == EV_END:
            if keep:
                for k in range(3):
                    copy_into(acc[k], hand_blocks[nh, k])
                hand_match[nh] = m + start
                for p in range(P):
                    hand_pen[nh, p] = rows[i, 6 + p]
                nh += 1
            regular, tiebreak = end_hand(rows, i, m, P, fixed, target, totals, regular, tiebreak, acc, parts, W)
            if keep:
                copy_into(W, hand_w[nh - 1])  # the match weights the hand's blocks were weighted by
        elif kind == EV_MATCH_END:
            if not end_match(rows, i, m, P, totals, shares, totals_out):
                err[0], err[1] = E_TOTALS, m + start
                return
            err[5] += 1  # matches ended
    ist[0], ist[1], ist[2], ist[3], ist[4] = m, top, active, first, regular
    ist[5], ist[6] = tiebreak, after_draw


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
