"""The prototype's compiled walks (``proto.py`` times them): a value of the ranks, with or without the phase
functions and the naturals, over a trace's stored rows (:func:`make_walk`), and the rows read alone
(:func:`read_rows`), the control.

Each a copy in small of :func:`nines_sim.luck.steps.walk`'s loop, on its helpers (``nines_sim.luck.kernel``,
``play_choices``), with only a subset's steps; classic rules only (no V4 pair).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

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
from nines_sim.luck.features import NB, NC, NQ
from nines_sim.luck.kernel import (
    RANK,
    RECIPROCAL,
    SUIT,
    apply_play,
    deal_hands,
    is_heuristic,
    move_card,
    sizes_phase,
    walk_inline,
    walk_jit,
    weights,
)
from nines_sim.luck.play_choices import expert_moves, heuristic_moves
from nines_sim.luck.walk import SID_EXPERT, SID_SUIT_MAJORITY


@walk_inline
def phase_of(sz, P, seat, dz, ph):
    """``sizes_phase``'s numbers from the hands' sizes ``sz`` (P,) kept as they change, ``seat``'s changed by ``dz``."""
    low, second, at = 1e300, 1e300, -1
    for p in range(P):
        z = sz[p] + (dz if p == seat else 0.0)
        ph[p, NQ] = z
        if z < low:
            low, second, at = z, low, p
        elif z < second:
            second = z
    for p in range(P):
        ph[p, 0], ph[p, 1], ph[p, 2] = 1.0, RECIPROCAL[int(ph[p, NQ])], RECIPROCAL[int(second if p == at else low)]


@walk_inline
def choice_fast(seat, mv, k, tot, P, nq, nat, moves, probs, hr, hs, ph, wt, wn, tr, ts, dr, dsu, rl, sums):
    """A play's choices' correction per seat into ``sums[2]``: the chosen play less the choices' mean, taken once
    by rank (``dr``), by suit (``dsu``) and as a natural (``dn``), then per seat the ranks' weights and the naturals'
    four columns (each seat's of the suit and rank: ``hs``, ``hr``; all seats': ``ts``, ``tr``)."""
    inv_tot = 1.0 / tot
    for r in range(N_RANKS):
        dr[r] = 0.0
    for s in range(4):
        dsu[s] = 0.0
    dn = 0.0
    for j in range(k + 1):  # each choice with minus its weight, then the choice made
        f = moves[j] if j < k else mv
        w = -probs[j] * inv_tot if j < k else 1.0
        dr[RANK[f]] += w
        dsu[SUIT[f]] += w
        if RANK[f] != NINE_RANK:
            dn += w
    nr = 0
    for r in range(N_RANKS):
        if dr[r] != 0.0:
            rl[nr] = r
            nr += 1
    tsum, tt = 0.0, 0.0
    if nat:
        for s in range(4):
            c = 0.0
            for p in range(P):
                c += hs[p, s]
            tsum += dsu[s] * c
        for i in range(nr):
            r = rl[i]
            if r != NINE_RANK:
                c = 0.0
                for p in range(P):
                    c += hr[p, r]
                tt += dr[r] * c
    for p in range(P):
        own = p == seat
        b = 0 if own else 1
        a_own, a_oth, t_own, t_oth = 0.0, 0.0, 0.0, 0.0
        if nat:
            a = 0.0
            for s in range(4):
                a += dsu[s] * hs[p, s]
            t = 0.0
            for i in range(nr):
                r = rl[i]
                if r != NINE_RANK:
                    t += dr[r] * hr[p, r]
            a_own, a_oth = a - (dn if own else 0.0), (tsum - a) - (0.0 if own else dn)
            t_own, t_oth = t - (dn if own else 0.0), (tt - t) - (0.0 if own else dn)
        x = 0.0
        for q in range(nq):
            y = 0.0
            for i in range(nr):
                y -= dr[rl[i]] * wt[2, p, q, b, rl[i]]
            if nat:
                y += wn[2, p, q, 0, 0] * a_own + wn[2, p, q, 1, 0] * a_oth
                y += wn[2, p, q, 0, 1] * t_own + wn[2, p, q, 1, 1] * t_oth
            x += ph[p, q] * y
        sums[2, p] += x


@cache
def make_walk(nq: int, nat: bool, skip: int, fast: bool = False):  # noqa: ANN201 - a compiled function
    """The walk of a value of the ranks for ``nq`` phase functions, with the naturals' columns or not, ``skip``'s
    steps left out: each a compile-time constant (numba folds them: no test of them in the loop, no dead code).

    ``fast``: the hands' sizes kept as they change (not summed from the rank counts at each event, as a turn loop
    holds them), and a play's choices taken as the chosen play less their mean by rank, suit and naturalness, once
    for every seat (each seat then a few products, not a few for each choice)."""

    @njit(error_model="numpy", _nrt=False)
    def rank_walk(rows, P, D, sids, legal, dm, target, fixed, start, wt, wn, coef, corr, shares, scr):
        """The corrections of a value of the ranks (``wt`` (3, P, NQ, 2, 13): per kind, seat, phase function, block
        (own, the others') and rank), with ``nat`` its naturals' columns (``wn`` (3, P, NQ, 2, 2): per block, the active
        suit's and the top rank's), ``nq`` phase functions (1: none but the block itself), the match weights'
        coefficients ``coef`` (P, NC), into ``corr`` (n, 3, P).  ``skip``: steps left out, to time the others (bits:
        1 the deal's value, 2 the draws', 4 the choices', 8 the hands' ends'); 0 for the corrections."""
        H, held, hr, hs, ph, moves, probs, S, sums, W, sr, ss, pile, totals, tr, ts, vm, sz, dr, dsu, rl = scr
        m, top, active, regular, tiebreak, after_draw = 0, 0, 0, 0, False, False
        tied, nines, nine_suits, decl_seat, decl_tied = 0, 0, 0, 0, 0
        n_stock = 0.0
        for i in range(rows.shape[0]):
            kind = rows[i, 0]
            if kind == EV_TURN:
                after_draw = False
            elif kind == EV_CHOICE:
                if sids[rows[i, 1]] == SID_EXPERT and rows[i, 2] == 1:
                    tied, nines, nine_suits = rows[i, 3], rows[i, 4], rows[i, 5]
                elif sids[rows[i, 1]] == SID_EXPERT:
                    decl_seat, decl_tied = rows[i, 1] + 1, rows[i, 3]
            elif kind == EV_DEAL:
                if rows[i, 1] == 0:
                    m = rows[i, 4] - start
                    corr[m] = 0.0
                    totals[:] = 0
                    regular, tiebreak = 0, False
                sums[:] = 0.0
                deal_hands(rows, i, P, D, H, held, hr, hs)
                starter = rows[i, 3]
                top, active = starter, SUIT[starter]
                after_draw = False
                if not skip & 1 or fast:
                    sizes_phase(hr, P, 0, 0.0, ph)
                if fast:
                    for p in range(P):
                        sz[p] = ph[p, NQ]
                ntot = 0.0
                for r in range(N_RANKS):
                    c = 0.0
                    for p in range(P):
                        c += hr[p, r]
                    tr[r] = c
                    ntot += c
                for s in range(4):
                    c = 0.0
                    for p in range(P):
                        c += hs[p, s]
                    ts[s] = c
                for p in range(0 if skip & 1 else P):  # each hand's ranks less the mean deal's: size times the mean's
                    size = ph[p, NQ]
                    x = 0.0
                    for q in range(nq):
                        y = 0.0
                        for r in range(N_RANKS):
                            y += wt[0, p, q, 0, r] * (hr[p, r] - size * dm[r])
                            y += wt[0, p, q, 1, r] * ((tr[r] - hr[p, r]) - (ntot - size) * dm[r])
                        if nat:
                            tcol = RANK[top] != NINE_RANK
                            a_own, a_oth = hs[p, active], ts[active] - hs[p, active]
                            t_own = hr[p, RANK[top]] if tcol else 0.0
                            t_oth = tr[RANK[top]] - hr[p, RANK[top]] if tcol else 0.0
                            y += wn[0, p, q, 0, 0] * (a_own - size * dm[NB - 2])
                            y += wn[0, p, q, 0, 1] * (t_own - size * dm[NB - 1])
                            y += wn[0, p, q, 1, 0] * (a_oth - (ntot - size) * dm[NB - 2])
                            y += wn[0, p, q, 1, 1] * (t_oth - (ntot - size) * dm[NB - 1])
                        x += ph[p, q] * y
                    sums[0, p] += x
                n_stock = N_FACES * D - ntot - 1.0
                for r in range(N_RANKS):
                    sr[r] = 4.0 * D - tr[r]
                    pile[r] = 0.0
                for s in range(4):
                    ss[s] = (N_RANKS - 1.0) * D - ts[s]
                    pile[N_RANKS + s] = 0.0
                sr[RANK[starter]] -= 1.0
                if RANK[starter] != NINE_RANK:
                    ss[SUIT[starter]] -= 1.0
                for p in range(0 if skip & 2 else P):  # the stock's sums of each rank's weight
                    for q in range(nq):
                        for b in range(2):
                            x = 0.0
                            for r in range(N_RANKS):
                                x += sr[r] * wt[1, p, q, b, r]
                            S[p, q, b] = x
            elif kind == EV_DRAW or kind == EV_PENALTY_DRAW:
                seat, face = rows[i, 1], rows[i, 2]
                r = RANK[face]
                if fast and not skip & 2:
                    phase_of(sz, P, seat, 1.0, ph)
                elif not skip & 2:
                    sizes_phase(hr, P, seat, 1.0, ph)
                if fast:
                    sz[seat] += 1.0
                inv = 1.0 / n_stock
                da, dtp = 0.0, 0.0
                if nat:
                    tcol = RANK[top] != NINE_RANK
                    da = (1.0 if (r != NINE_RANK and SUIT[face] == active) else 0.0) - ss[active] * inv
                    dtp = ((1.0 if r == RANK[top] else 0.0) - sr[RANK[top]] * inv) if tcol else 0.0
                for p in range(0 if skip & 2 else P):
                    b = 0 if p == seat else 1
                    x = 0.0
                    for q in range(nq):
                        y = wt[1, p, q, b, r] - S[p, q, b] * inv
                        if nat:
                            y += wn[1, p, q, b, 0] * da + wn[1, p, q, b, 1] * dtp
                        x += ph[p, q] * y
                    sums[1, p] += x
                    for q in range(nq):
                        S[p, q, 0] -= wt[1, p, q, 0, r]
                        S[p, q, 1] -= wt[1, p, q, 1, r]
                move_card(H, hr, hs, seat, face, 1.0)
                held[seat] |= np.int64(1) << face
                sr[r] -= 1.0
                if r != NINE_RANK:
                    ss[SUIT[face]] -= 1.0
                n_stock -= 1.0
                after_draw = kind == EV_DRAW
            elif kind == EV_PLAY or kind == EV_PAIR or kind == EV_DECLARE:
                if kind == EV_DECLARE:
                    d_seat, d_suit = rows[i, 1], rows[i, 2]
                else:
                    seat = rows[i, 1]
                    mv = rows[i, 2]
                    suit = rows[i, 3]
                    sid = sids[seat]
                    k = -1
                    if not after_draw and is_heuristic(sid):
                        no = False
                        k, _ = heuristic_moves(seat, sid, top, active, P, legal, no, no, no, H, held, hr, moves, probs)
                    elif not after_draw and sid == SID_EXPERT:
                        k = expert_moves(tied, nines, nine_suits, moves, probs)
                    if k > 1 and not skip & 4:
                        tot = 0.0
                        for j in range(k):
                            tot += probs[j]
                        if fast:
                            phase_of(sz, P, seat, -1.0, ph)
                            choice_fast(seat, mv, k, tot, P, nq, nat, moves, probs, hr, hs, ph, wt, wn, tr, ts, dr,
                                        dsu, rl, sums)  # fmt: skip
                        else:
                            sizes_phase(hr, P, seat, -1.0, ph)
                            if nat:  # the seats' naturals by suit and cards by rank, summed once for every seat
                                for s in range(4):
                                    c = 0.0
                                    for p in range(P):
                                        c += hs[p, s]
                                    ts[s] = c
                                for r in range(N_RANKS):
                                    c = 0.0
                                    for p in range(P):
                                        c += hr[p, r]
                                    tr[r] = c
                            for p in range(P):
                                b = 0 if p == seat else 1
                                own = p == seat
                                if nat:  # the naturals' weights under this seat's phase (one for every choice)
                                    for c4 in range(4):
                                        vm[c4] = 0.0
                                    for q in range(nq):
                                        vm[0] += ph[p, q] * wn[2, p, q, 0, 0]
                                        vm[1] += ph[p, q] * wn[2, p, q, 1, 0]
                                        vm[2] += ph[p, q] * wn[2, p, q, 0, 1]
                                        vm[3] += ph[p, q] * wn[2, p, q, 1, 1]
                                x = 0.0
                                for j in range(k + 1):  # each choice with minus its weight, then the choice made
                                    f = moves[j] if j < k else mv
                                    w = -probs[j] / tot if j < k else 1.0
                                    r = RANK[f]
                                    v = 0.0
                                    for q in range(nq):
                                        v -= ph[p, q] * wt[2, p, q, b, r]
                                    if nat:
                                        nf = r != NINE_RANK
                                        a_own = hs[p, SUIT[f]] - (1.0 if own and nf else 0.0)
                                        a_oth = ts[SUIT[f]] - hs[p, SUIT[f]] - (1.0 if (not own) and nf else 0.0)
                                        t_own, t_oth = 0.0, 0.0
                                        if nf:
                                            t_own = hr[p, r] - (1.0 if own else 0.0)
                                            t_oth = tr[r] - hr[p, r] - (0.0 if own else 1.0)
                                        v += vm[0] * a_own + vm[1] * a_oth + vm[2] * t_own + vm[3] * t_oth
                                    x += w * v
                                sums[2, p] += x
                    t, under = apply_play(H, hr, hs, seat, mv)
                    if fast:
                        sz[seat] -= 1.0
                    if H[seat, t] == 0.0:
                        held[seat] &= ~(np.int64(1) << t)
                    pile[RANK[top]] += 1.0
                    if RANK[top] != NINE_RANK:
                        pile[N_RANKS + SUIT[top]] += 1.0
                    top, active = t, SUIT[t]
                    d_seat, d_suit = seat, suit
                if d_suit >= 0:
                    sid = sids[d_seat]
                    suits = 0
                    if sid == SID_EXPERT:
                        suits = decl_tied if decl_seat == d_seat + 1 else 0
                    elif is_heuristic(sid):
                        most = 0.0
                        for s in range(4):
                            most = max(most, hs[d_seat, s])
                        for s in range(4):
                            if sid != SID_SUIT_MAJORITY or hs[d_seat, s] == most:
                                suits |= 1 << s
                    decl_seat = 0
                    ns = 0
                    for s in range(4):
                        ns += (suits >> s) & 1
                    # a suit changes each seat's naturals of the active suit, nothing of the ranks
                    if nat and ns > 1 and not skip & 4:
                        if fast:
                            phase_of(sz, P, d_seat, 0.0, ph)
                        else:
                            sizes_phase(hr, P, d_seat, 0.0, ph)
                        for s in range(4):
                            c = 0.0
                            for p in range(P):
                                c += hs[p, s]
                            ts[s] = c
                        for p in range(P):
                            mo, mt = 0.0, 0.0
                            for s in range(4):
                                if (suits >> s) & 1:
                                    mo += hs[p, s]
                                    mt += ts[s] - hs[p, s]
                            own = hs[p, d_suit] - mo / ns
                            oth = (ts[d_suit] - hs[p, d_suit]) - mt / ns
                            x = 0.0
                            for q in range(nq):
                                x += ph[p, q] * (wn[2, p, q, 0, 0] * own + wn[2, p, q, 1, 0] * oth)
                            sums[2, p] += x
                    active = d_suit
            elif kind == EV_RESHUFFLE:
                for r in range(N_RANKS):
                    sr[r] += pile[r]
                    pile[r] = 0.0
                for s in range(4):
                    ss[s] += pile[N_RANKS + s]
                    pile[N_RANKS + s] = 0.0
                n_stock = float(rows[i, 1])
                for p in range(0 if skip & 2 else P):
                    for q in range(nq):
                        for b in range(2):
                            x = 0.0
                            for r in range(N_RANKS):
                                x += sr[r] * wt[1, p, q, b, r]
                            S[p, q, b] = x
            elif kind == EV_END:
                mx = 0
                for p in range(P):
                    mx = max(mx, totals[p])
                progress = regular / fixed if fixed else mx / target
                if not skip & 8:
                    weights(totals, progress, target, P, W)
                for p in range(0 if skip & 8 else P):
                    c = 0.0
                    for j in range(NC):
                        c += W[p, j] * coef[p, j]
                    for k2 in range(3):
                        corr[m, k2, p] += c * sums[k2, p]
                        sums[k2, p] = 0.0
                if not tiebreak:
                    for p in range(P):
                        totals[p] += rows[i, 6 + p]
                    regular += 1
                    mx = 0
                    for p in range(P):
                        mx = max(mx, totals[p])
                    tiebreak = regular >= fixed if fixed else mx >= target
            elif kind == EV_MATCH_END:
                mask = rows[i, 1]
                wins = 0
                for p in range(P):
                    wins += (mask >> p) & 1
                for p in range(P):
                    shares[m, p] = 1.0 / wins if (mask >> p) & 1 else 0.0

    return rank_walk


@walk_jit
def read_rows(rows, P, D, sids, legal, scr):
    """The rows read alone: each row's kind, the hands, stock and pile kept (what a choice set and a draw's mean
    need), the heuristics' choice sets found, no value.  A count, so that nothing is left out as unused."""
    H, held, hr, hs, ph, moves, probs, S, sums, W, sr, ss, pile, totals, tr, ts, vm, sz, dr, dsu, rl = scr
    top, active, after_draw = 0, 0, False
    tied, nines, nine_suits = 0, 0, 0
    n = 0
    for i in range(rows.shape[0]):
        kind = rows[i, 0]
        if kind == EV_TURN:
            after_draw = False
        elif kind == EV_CHOICE:
            if sids[rows[i, 1]] == SID_EXPERT and rows[i, 2] == 1:
                tied, nines, nine_suits = rows[i, 3], rows[i, 4], rows[i, 5]
        elif kind == EV_DEAL:
            deal_hands(rows, i, P, D, H, held, hr, hs)
            top, active = rows[i, 3], SUIT[rows[i, 3]]
            after_draw = False
        elif kind == EV_DRAW or kind == EV_PENALTY_DRAW:
            seat, face = rows[i, 1], rows[i, 2]
            move_card(H, hr, hs, seat, face, 1.0)
            held[seat] |= np.int64(1) << face
            sr[RANK[face]] -= 1.0
            after_draw = kind == EV_DRAW
        elif kind == EV_PLAY:
            seat, mv = rows[i, 1], rows[i, 2]
            sid = sids[seat]
            if not after_draw and is_heuristic(sid):
                k, _ = heuristic_moves(seat, sid, top, active, P, legal, False, False, False, H, held, hr, moves, probs)
                n += k
            elif not after_draw and sid == SID_EXPERT:
                n += expert_moves(tied, nines, nine_suits, moves, probs)
            t, under = apply_play(H, hr, hs, seat, mv)
            if H[seat, t] == 0.0:
                held[seat] &= ~(np.int64(1) << t)
            pile[RANK[top]] += 1.0
            top, active = t, SUIT[t]
            if rows[i, 3] >= 0:
                active = rows[i, 3]
        elif kind == EV_DECLARE:
            active = rows[i, 2]
        elif kind == EV_RESHUFFLE:
            for r in range(N_RANKS):
                sr[r] += pile[r]
                pile[r] = 0.0
        elif kind == EV_END:
            n += 1
    return n


def scratch(P: int) -> tuple[np.ndarray, ...]:
    return (np.zeros((P, N_FACES)), np.zeros(P, dtype=np.int64), np.zeros((P, N_RANKS)), np.zeros((P, 4)),
            np.zeros((P, NQ + 1)), np.zeros(N_FACES + 1, dtype=np.int64), np.zeros(N_FACES + 1), np.zeros((P, NQ, 2)),
            np.zeros((3, P)), np.zeros((P, NC)), np.zeros(N_RANKS), np.zeros(4), np.zeros(N_RANKS + 4),
            np.zeros(P, dtype=np.int64), np.zeros(N_RANKS), np.zeros(4), np.zeros(4), np.zeros(P), np.zeros(N_RANKS),
            np.zeros(4), np.zeros(N_RANKS, dtype=np.int64))  # fmt: skip
