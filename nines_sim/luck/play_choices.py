"""The compiled luck walk's plays chosen at random (:mod:`nines_sim.luck.steps` calls them): the plays a policy
chooses among, the heuristics' (:func:`heuristic_moves`) and ``expert``'s from the sets its trace logs
(:func:`expert_moves`), and a play's correction over them (:func:`play_choice`).

Each is the compiled form of the Python walk's method of the same job (:class:`nines_sim.luck.walk.Walker`),
inlined by numba into the walk as its steps are (:mod:`nines_sim.luck.steps`).
"""

from __future__ import annotations

import numpy as np

from nines_sim.engine.bits import lowest_face, popcount
from nines_sim.engine.code_cache import seal_module
from nines_sim.game.cards import N_RANKS, NINE_RANK
from nines_sim.luck.features import NB, NJ
from nines_sim.luck.kernel import (
    PEN,
    RANK,
    SUIT,
    apply_play,
    blocks,
    card_blocks,
    choice_columns,
    copy_into,
    mean_into,
    play_columns,
    sizes_phase,
    undo_play,
    walk_inline,
)
from nines_sim.luck.value_kernel import after_play, choice_values, mean_dot
from nines_sim.luck.walk import SID_DUMP_FACES, SID_HOLD_NINES, SID_RANDOM


@walk_inline
def heuristic_moves(seat, sid, top, active, P, legal, no_nine_out, pair_rule, nine_on_nine, H, held, hr, moves,
                    probs):  # fmt: skip
    """The plays ``seat``'s heuristic policy ``sid`` chooses among (Walker._play_choices) into ``moves`` (faces; -2:
    the pair) and their weights into ``probs`` (each physical card one choice).  Returns how many and whether the
    pair is one."""
    size = 0.0  # the hand's cards and 9s from its rank counts (whole numbers: the same sums as over the faces)
    for r in range(N_RANKS):
        size += hr[seat, r]
    nines = hr[seat, NINE_RANK]
    any_nat, max_pen, n_legal = False, -1, 0
    row = top * 4 + active
    x = held[seat] & legal[row]
    while x != 0:  # the legal faces held, in face order, into ``moves`` (filtered below)
        f = lowest_face(x)
        x &= x - 1
        if not (no_nine_out and size == 1.0 and RANK[f] == NINE_RANK):
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
    return k, pair


@walk_inline
def expert_moves(tied, nines, nine_suits, moves, probs):
    """The plays ``expert`` chooses among, from the sets its trace logged (Walker._expert_choices), into ``moves``
    and their weights into ``probs``: each tied natural ``len(9s)`` unless its suit is one a 9 replaces, each 9 the
    number of tied naturals a 9 replaces (with no tied natural, each 9 one).  Returns how many."""
    n9 = popcount(nines)
    to_nine = 0
    x = tied
    while x != 0:
        f = lowest_face(x)
        x &= x - 1
        to_nine += (nine_suits >> SUIT[f]) & 1
    k = 0
    x = tied
    while x != 0:
        f = lowest_face(x)
        x &= x - 1
        if not (nine_suits >> SUIT[f]) & 1:
            moves[k] = f
            probs[k] = float(n9) if n9 > 0 else 1.0
            k += 1
    if to_nine > 0 or tied == 0:
        x = nines
        while x != 0:
            moves[k] = lowest_face(x)
            probs[k] = float(to_nine) if tied != 0 else 1.0
            x &= x - 1
            k += 1
    return k


@walk_inline
def play_choice(seat, mv, k, pair, first, P, H, hr, hs, acc, blk, cb, mean, chosen, moves, probs, scalar, vh, sums):
    """``seat``'s play ``mv`` (a face, or -2: the pair) as a choice among the ``k`` plays ``moves`` of its policy,
    of weights ``probs`` (``pair``: the pair is one; :func:`heuristic_moves`, :func:`expert_moves`): the chosen
    play's card blocks minus their mean over the choices into the choice part, ``acc[2]`` (Walker._choose); with
    ``scalar`` (a fixed value's walk), their value under the choices' weights ``vh`` (P, NJ) into ``sums[2]``
    (:func:`choice_values`).  Returns False if ``mv`` is not one of the choices."""
    idx = np.int64(-1)  # not a literal: choice_values would be compiled for -1 too
    tot = 0.0
    for j in range(k):
        tot += probs[j]
        if moves[j] == mv:
            idx = j
    if idx < 0:
        return False
    if k > 1 and pair:
        # The pair leaves the hand a card shorter than a card does, so its phase differs from the other choices':
        # every column's chosen minus mean, each choice's whole card blocks (rare: a random seat holding two 9s).
        mean[:] = 0.0
        for j in range(k):
            t, under = apply_play(H, hr, hs, seat, moves[j])
            blocks(hr, hs, t, SUIT[t], P, blk)
            undo_play(H, hr, hs, seat, t, under)
            card_blocks(blk, seat, first, P, cb)
            w = probs[j] / tot
            for p in range(P):
                for q in range(NJ):
                    mean[p, q] += w * cb[p, q]
            if j == idx:
                copy_into(cb, chosen)
        if scalar:
            mean_dot(sums[2], vh, chosen, mean, 1.0, P)
        else:
            mean_into(acc[2], chosen, mean, 1.0, P)
    elif k > 1:
        # A play changes only the seat's count of the rank played, each seat's naturals of the new active suit and
        # of the new top's rank, and the mover's legal count: those columns' card blocks (their values as
        # card_blocks() sums them, the seat's rank as the change), the mean over the choices and the choice made;
        # every other column's chosen minus mean is 0 (before, a rounding residue of a mean of equal values).
        # Every choice leaves the hand one card shorter: one phase, known before the play, scales them all.  Only
        # those columns are cleared, phased and added (choice_columns): the others would add 0.0, which changes
        # no sum (a hand's sums start at +0.0, and x + 0.0 is x for every x but -0.0).
        ranks = np.int64(0)  # the ranks the choices play (bit r; not a literal: one signature of choice_values)
        for j in range(k):
            ranks |= 1 << RANK[moves[j]]
        sizes_phase(hr, P, seat, -1.0, blk[:, NB:])  # the sizes after the play (blk's columns from NB: its scratch)
        if scalar:
            choice_values(seat, idx, k, P, hr, hs, blk, ranks, tot, moves, probs, vh, cb, sums)
            return True
        choice_columns(mean, chosen, acc[2], blk, P, ranks, np.int64(0))  # cleared (not a literal: one signature)
        for j in range(k):
            w, f = probs[j] / tot, moves[j]
            r = RANK[f]
            sa, st, lg = after_play(seat, f, P, hr, hs, blk)
            play_columns(mean, w, P, seat, r, -1.0, lg, sa, st, blk)
            if j == idx:
                play_columns(chosen, 1.0, P, seat, r, -1.0, lg, sa, st, blk)
        choice_columns(mean, chosen, acc[2], blk, P, ranks, np.int64(1))  # phased and added
    return True


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
