"""Candidate leaf-value features beyond the shipped 20 (offline study, issue 40): each from the searching seat's
observation only (its hand, the draw log, the faces played, counts, the active suit and top card, the totals)."""

import numpy as np
from numba import njit

from nines_sim.engine.bits import I_NINES, RANK_MASKS, SUIT_MASKS, face_rank, popcount
from nines_sim.engine.slots import (DRAW_LOG_WORDS, S_ACTIVE, S_DIR, S_DRAW_LOG, S_DRAWN, S_END, S_POS, S_SEAT,
                                    S_STREAK, S_TOP,
                                    S_TURN)
from nines_sim.learn.value import ALL_FACES, _points

NAMES = (
    "ex0_frac", "ex01_frac", "exall_frac", "unseen_active", "opp_active_ex", "opp_void_active", "unseen_nines",
    "opp_nines_ex", "opp_legal_ex", "opp_stuck", "guess2", "opp_decl_active", "own_active", "own_suits",
    "own_max_suit", "own_top_rank", "played_n", "played_active", "streak", "drawn", "turn", "own_total",
    "opp_total", "guess2_x_own_near", "own_pts_x_opp_legal_ex", "opp_legal_ex_x_to_move", "own_cards_x_opp_legal_ex",
    "own_active_x_to_move", "own_pts_x_opp_stuck", "opp_cards_x_opp_legal_ex", "own_pts_x_opp_cards",
    "guess2_x_to_move", "unseen_active_x_to_move", "own_pts_sq", "opp_cards_sq", "own_nines_x_opp_near",
    "own_pts_in_opp_void", "own_cards_in_opp_void", "opp_one_x_to_move", "own_playable_x_to_move",
    "opp_nines_exp", "opp_playable_exp", "opp_points_exp", "opp_playable_exp_x_to_move", "own_pts_x_opp_playable_exp",
)
#: The sampler's weights of a face by the cards drawn since a draw turn showed it lacking (``draws=log``).
W_NATURAL = np.array([0.03, 0.2, 0.5, 1.0])
W_NINE = np.array([0.25, 0.4, 0.7, 1.0])
NX = len(NAMES)


@njit(cache=True, error_model="numpy")
def extra_features(hands, ncards, played, st, totals, rows, seat, nine_pen):
    P = hands.shape[2]
    B = rows.shape[0]
    out = np.zeros((B, NX))
    for i in range(B):
        b = rows[i]
        s = seat[i]
        own = np.int64(hands[0, b, s])
        pl = np.int64(played[b])
        U = ALL_FACES & ~own & ~pl
        nu = popcount(U)
        act = SUIT_MASKS[st[b, S_ACTIVE]] & ~I_NINES
        top = st[b, S_TOP]
        legal = SUIT_MASKS[st[b, S_ACTIVE]] | I_NINES | (RANK_MASKS[face_rank(top)] if top >= 0 else 0)
        mover = st[b, S_SEAT]
        step = -1 if st[b, S_DIR] else 1
        n = (s + step) % P
        c = S_DRAW_LOG + n * DRAW_LOG_WORDS
        e0 = st[b, c]
        e01 = e0 | st[b, c + 1]
        eall = e01 | st[b, c + 2] | st[b, c + 3]
        decl = (st[b, c + 4] & 0xFF) - 1
        ua = popcount(U & act)
        un9 = popcount(U & I_NINES)
        ul = popcount(U & legal)
        x = out[i]
        x[0] = popcount(U & e0) / max(nu, 1)
        x[1] = popcount(U & e01) / max(nu, 1)
        x[2] = popcount(U & eall) / max(nu, 1)
        x[3] = ua
        x[4] = popcount(U & act & e01) / max(ua, 1)
        x[5] = 1.0 if ua == popcount(U & act & e01) else 0.0
        x[6] = un9
        x[7] = popcount(U & I_NINES & e01) / max(un9, 1)
        x[8] = popcount(U & legal & e01) / max(ul, 1)
        x[9] = 1.0 if ul == popcount(U & legal & e01) else 0.0
        free = U & ~e01
        exc = U & e01
        wsum = popcount(free) + 0.15 * popcount(exc)
        mp = (_points(free, nine_pen) + 0.15 * _points(exc, nine_pen)) / wsum if wsum > 0 else 0.0
        x[10] = ncards[b, n] * mp
        x[11] = 1.0 if decl == st[b, S_ACTIVE] else 0.0
        x[12] = popcount(own & act)
        ns, mx = 0, 0
        for q in range(4):
            k = popcount(own & SUIT_MASKS[q] & ~I_NINES)
            ns += k > 0
            mx = max(mx, k)
        x[13] = ns
        x[14] = mx
        x[15] = popcount(own & RANK_MASKS[face_rank(top)]) if top >= 0 else 0
        x[16] = popcount(pl)
        x[17] = popcount(pl & act)
        x[18] = st[b, S_STREAK]
        x[19] = st[b, S_DRAWN]
        x[20] = st[b, S_TURN]
        x[21] = totals[b, s]
        x[22] = totals[b, n]
        own_pts = _points(own, nine_pen)
        own_n = ncards[b, s]
        opp_n = ncards[b, n]
        to_move = 1.0 if mover == s else 0.0
        x[23] = x[10] * (1.0 if own_n <= 2 else 0.0)
        x[24] = own_pts * x[8]
        x[25] = x[8] * to_move
        x[26] = own_n * x[8]
        x[27] = x[12] * to_move
        x[28] = own_pts * x[9]
        x[29] = opp_n * x[8]
        x[30] = own_pts * opp_n
        x[31] = x[10] * to_move
        x[32] = ua * to_move
        x[33] = own_pts * own_pts / 100.0
        x[34] = opp_n * opp_n
        x[35] = popcount(own & I_NINES) * (1.0 if 0 < opp_n <= 2 else 0.0)
        vp, vc = 0, 0
        for q in range(4):
            us = U & SUIT_MASKS[q] & ~I_NINES
            if us != 0 and (us & ~e01) == 0:
                vp += _points(own & SUIT_MASKS[q] & ~I_NINES, nine_pen)
                vc += popcount(own & SUIT_MASKS[q] & ~I_NINES)
        x[36] = vp
        x[37] = vc
        x[38] = (1.0 if opp_n == 1 else 0.0) * to_move
        playable = popcount(own & legal)
        x[39] = playable * to_move
        # the other hand's 9s, playable cards and points expected from the draw log (the sampler's weights)
        wsum, w9, wl, wp = 0.0, 0.0, 0.0, 0.0
        for f in range(52):
            if (U >> f) & 1:
                wt = 1.0
                for k in range(3):
                    if (st[b, c + k] >> f) & 1:
                        wt = W_NINE[k] if (I_NINES >> f) & 1 else W_NATURAL[k]
                wsum += wt
                if (I_NINES >> f) & 1:
                    w9 += wt
                    wp += wt * nine_pen
                else:
                    wp += wt * _points(np.int64(1) << f, 0)
                if (legal >> f) & 1:
                    wl += wt
        if wsum > 0:
            x[40] = opp_n * w9 / wsum
            x[41] = opp_n * wl / wsum
            x[42] = opp_n * wp / wsum
        x[43] = x[41] * to_move
        x[44] = own_pts * x[41]
    return out


CHEAT = ("opp_points", "opp_nines", "opp_playable", "opp_active", "opp_max_suit", "stock_next_pts", "stock_next_legal")


@njit(cache=True, error_model="numpy")
def cheat_features(hands, st, stock, rows, seat, nine_pen):
    """Features that read the other hand and the stock (never shippable): how much the hidden cards explain."""

    P = hands.shape[2]
    out = np.zeros((rows.shape[0], len(CHEAT)))
    for i in range(rows.shape[0]):
        b = rows[i]
        n = (seat[i] + (-1 if st[b, S_DIR] else 1)) % P
        h = np.int64(hands[0, b, n])
        top = st[b, S_TOP]
        legal = SUIT_MASKS[st[b, S_ACTIVE]] | I_NINES | (RANK_MASKS[face_rank(top)] if top >= 0 else 0)
        out[i, 0] = _points(h, nine_pen)
        out[i, 1] = popcount(h & I_NINES)
        out[i, 2] = popcount(h & legal)
        out[i, 3] = popcount(h & SUIT_MASKS[st[b, S_ACTIVE]] & ~I_NINES)
        mx = 0
        for q in range(4):
            mx = max(mx, popcount(h & SUIT_MASKS[q] & ~I_NINES))
        out[i, 4] = mx
        pts, lg = 0, 0
        for j in range(st[b, S_POS], min(st[b, S_POS] + 3, st[b, S_END])):
            f = np.int64(stock[b, j])
            pts += _points(np.int64(1) << f, nine_pen)
            lg += ((legal >> f) & 1)
        out[i, 5] = pts
        out[i, 6] = lg
    return out
