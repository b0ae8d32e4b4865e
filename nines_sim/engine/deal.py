"""The start of a hand in the compiled turn loop: the deck's order, the deal, and the stock's draws.

A deal orders the cards of one or two decks by their keys from the hand's card stream (:func:`sort_packed`),
deals the hands from that order and turns up the starter (D4-D7); a draw takes the stock's next card and
rebuilds an empty stock from the discard pile (T4-T6, :func:`reshuffle`).  A hand is a set of faces, an
int64 of 52 bits stored as uint64, with a second word for the second copies of two decks.  Every function
here is compiled into the turn loop (:mod:`nines_sim.engine.turn_loop`), inlined or called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.bits import (
    U_DEAL,
    U_RESH,
    face_rank,
    face_suit,
    hand_key,
    lowest_face,
    out_of_line,
    shared_inline,
    stream,
)
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.draw_log import log_reset
from nines_sim.engine.loop_constants import PH_DEALER_DECL, PH_TURN, R_DECKS, R_HS, R_LOG, R_P
from nines_sim.engine.slots import (
    K_CHK,
    K_CMK,
    K_DHK,
    K_DMK,
    S_ACTIVE,
    S_DEALER,
    S_DIR,
    S_DRAWN,
    S_END,
    S_HAND_SEQ,
    S_MASK,
    S_N_IN,
    S_NINE_START,
    S_PHASE,
    S_POS,
    S_RESH,
    S_SEAT,
    S_STREAK,
    S_TOP,
    S_TURN,
)
from nines_sim.game.codes import NINE_RANK

#: Low bits of a packed sort value (:func:`sort_packed`) that hold the card: deck << 6 | face.
PACK_BITS = 7
ID_MASK = np.uint64((1 << PACK_BITS) - 1)
FACE_BITS = np.uint64(63)
KEY_MASK = ~ID_MASK
ONES8 = np.uint64(0x0101010101010101)
U56, U57, U255 = np.uint64(56), np.uint64(57), np.uint64(255)


@shared_inline
def card_id(d, f):
    """The packed id of deck ``d``'s face ``f``: ascending in ``52 d + f``, and its face is ``id & 63``."""
    return np.uint64((d << 6) | f)


@njit(cache=True, error_model="numpy", _nrt=False)
def sort_packed(vals, n, full, buf, cw):
    """Order cards by their stream keys, ascending, equal keys by card (numpy's stable argsort of the keys).

    ``vals[:n]`` holds ``key & KEY_MASK | id`` per card, ids ascending in the cards' order
    (:func:`card_id`), and ``full[id]`` the whole key.  One array of distinct values sorts faster than
    keys with ids beside them: a counting pass on the top 7 bits (8 above 64 cards) with byte counters
    eight to a word, whose prefix sums are a multiplication a word, then insertion.  Two keys equal in
    all but their low 7 bits (about once in 10^14 deals) are put in the order of their whole keys.

    Parameters
    ----------
    vals : uint64 (>= n,)
        Sorted in place.
    full : uint64 (128,)
        The whole key of each id.
    buf : uint64 (>= n,)
        Scratch.
    cw : uint64 (32,)
        Scratch: 256 byte counters.
    """
    shift = U57 if n <= 64 else U56
    nw = 16 if n <= 64 else 32
    for w in range(nw):
        cw[w] = 0
    for j in range(n):
        bk = vals[j] >> shift
        cw[bk >> np.uint64(3)] += np.uint64(1) << ((bk & np.uint64(7)) << np.uint64(3))
    base = np.uint64(0)
    for w in range(nw):
        x = cw[w]
        inc = x * ONES8  # byte i: the counts of bytes 0..i
        cw[w] = inc - x + base * ONES8
        base += inc >> U56
    for j in range(n):
        v = vals[j]
        bk = v >> shift
        w = bk >> np.uint64(3)
        sh = (bk & np.uint64(7)) << np.uint64(3)
        x = cw[w]
        cw[w] = x + (np.uint64(1) << sh)
        buf[np.int64((x >> sh) & U255)] = v
    for j in range(n):
        v = buf[j]
        m = j - 1
        while m >= 0 and vals[m] > v:
            vals[m + 1] = vals[m]
            m -= 1
        vals[m + 1] = v
    for j in range(1, n):
        if (vals[j] & KEY_MASK) == (vals[j - 1] & KEY_MASK):
            # a tie in the packed bits: order the run by whole key, then id (insertion is stable)
            v = vals[j]
            m = j - 1
            while m >= 0 and (vals[m] & KEY_MASK) == (v & KEY_MASK) and full[vals[m] & ID_MASK] > full[v & ID_MASK]:
                vals[m + 1] = vals[m]
                m -= 1
            vals[m + 1] = v


# ----------------------------------------------------------------- card moves
@shared_inline
def add_to_hand(hands, ncards, D, b, s, f):
    bit = np.int64(1) << f
    h0 = np.int64(hands[0, b, s])
    if D == 2 and (h0 & bit) != 0:
        hands[1, b, s] = np.uint64(np.int64(hands[1, b, s]) | bit)
    else:
        hands[0, b, s] = np.uint64(h0 | bit)
    ncards[b, s] += 1


@shared_inline
def remove_from_hand(hands, ncards, D, b, s, f):
    bit = np.int64(1) << f
    if D == 2 and (np.int64(hands[1, b, s]) & bit) != 0:
        hands[1, b, s] = np.uint64(np.int64(hands[1, b, s]) & ~bit)
    else:
        hands[0, b, s] = np.uint64(np.int64(hands[0, b, s]) & ~bit)
    ncards[b, s] -= 1


@shared_inline
def add_under(under, D, b, f):
    bit = np.int64(1) << f
    u0 = np.int64(under[0, b])
    if D == 2 and (u0 & bit) != 0:
        under[1, b] = np.uint64(np.int64(under[1, b]) | bit)
    else:
        under[0, b] = np.uint64(u0 | bit)


@njit(cache=True, error_model="numpy", _nrt=False)
def reshuffle(st, keys, under, stock, D, b, sv, sfull, sbuf, scw):
    """Rebuild the stock from the discard pile below the top card (T5)."""
    n = np.int64(0)  # not the literal 0: numba would also compile sort_packed for the constant 0, which no call uses
    base = np.uint64(st[b, S_RESH] * 256)
    key = keys[b, K_CHK]
    for d in range(D):
        w = np.int64(under[d, b])
        while w != 0:
            f = lowest_face(w)
            w &= w - 1
            x = stream(key, U_RESH, np.uint64(d * 52 + f) + base)
            cid = card_id(d, f)
            sfull[cid] = x
            sv[n] = (x & KEY_MASK) | cid
            n += 1
    sort_packed(sv, n, sfull, sbuf, scw)
    for j in range(n):
        stock[b, j] = np.int8(sv[j] & FACE_BITS)
    st[b, S_POS] = 0
    st[b, S_END] = n
    for d in range(D):
        under[d, b] = np.uint64(0)
    st[b, S_RESH] += 1


#: :func:`reshuffle`, called out of the turn loop's line (a rare path).
reshuffle_apart = out_of_line(reshuffle)


@shared_inline
def draw(st, keys, hands, ncards, under, stock, D, b, s, sv, sfull, sbuf, scw):
    """Seat ``s`` draws one card (T4), rebuilding an empty stock first (T5); -1 if none (T6)."""
    if st[b, S_POS] >= st[b, S_END] and under[0, b] != 0:
        reshuffle_apart((st, keys, under, stock, D, b, sv, sfull, sbuf, scw))
    pos = st[b, S_POS]
    if pos >= st[b, S_END]:
        return -1
    f = np.int64(stock[b, pos])
    add_to_hand(hands, ncards, D, b, s, f)
    st[b, S_POS] = pos + 1
    st[b, S_DRAWN] += 1
    return f


def _compile_deal(one_deck: bool):  # noqa: ANN202 - returns a numba dispatcher
    """Compile :func:`deal` with the decks read from the rules, or (``one_deck``) as the constant 1: the
    one-deck form, which the classic form of the turn loop calls (its loops have constant bounds)."""

    def deal(st, keys, hands, ncards, under, stock, played, drew_on, rp, next_tab, b, sv, sfull, sbuf, scw):
        """Deal a hand (D4-D7); ``S_DEALER``, ``S_MASK`` and ``S_N_IN`` are set."""
        P = rp[R_P]
        D = 1 if one_deck else rp[R_DECKS]
        S = 52 * D
        seq = st[b, S_HAND_SEQ]
        keys[b, K_CHK] = hand_key(keys[b, K_CMK], seq)
        keys[b, K_DHK] = hand_key(keys[b, K_DMK], seq)
        st[b, S_HAND_SEQ] = seq + 1
        key = keys[b, K_CHK]
        for d in range(D):
            for f in range(52):
                x = stream(key, U_DEAL, d * 52 + f)
                cid = card_id(d, f)
                sfull[cid] = x
                sv[d * 52 + f] = (x & KEY_MASK) | cid
        sort_packed(sv, S, sfull, sbuf, scw)
        for d in range(D):
            under[d, b] = np.uint64(0)
            for p in range(P):
                hands[d, b, p] = np.uint64(0)
        for p in range(P):
            ncards[b, p] = 0
            drew_on[b, p] = 0
            if rp[R_LOG]:
                log_reset(st, b, p)
        k = st[b, S_N_IN]
        h = rp[R_HS + k - 2]
        mask = st[b, S_MASK]
        s = st[b, S_DEALER]
        first = 0
        for i in range(k):
            s = next_tab[(mask * 2) * P + s]
            if i == 0:
                first = s
            # the hand is built in registers and stored once (count-coded: a second copy goes to word 1)
            h0 = np.int64(0)
            h1 = np.int64(0)
            for j in range(h):
                bit = np.int64(1) << np.int64(sv[i + j * k] & FACE_BITS)
                if D == 2 and (h0 & bit) != 0:
                    h1 |= bit
                else:
                    h0 |= bit
            hands[0, b, s] = np.uint64(h0)
            if D == 2:
                hands[1, b, s] = np.uint64(h1)
            ncards[b, s] = h
        starter = np.int64(sv[k * h] & FACE_BITS)
        rest = S - k * h - 1
        for j in range(rest):
            stock[b, j] = np.int8(sv[k * h + 1 + j] & FACE_BITS)
        st[b, S_POS] = 0
        st[b, S_END] = rest
        st[b, S_TOP] = starter
        st[b, S_ACTIVE] = face_suit(starter)
        st[b, S_SEAT] = first
        st[b, S_DIR] = 0
        st[b, S_TURN] = 0
        st[b, S_STREAK] = 0
        st[b, S_DRAWN] = 0
        st[b, S_RESH] = 0
        played[b] = np.uint64(np.int64(1) << starter)
        nine = face_rank(starter) == NINE_RANK
        st[b, S_NINE_START] = nine
        st[b, S_PHASE] = PH_DEALER_DECL if nine else PH_TURN

    deal.__qualname__ = deal.__name__ = "deal_one_deck" if one_deck else "deal"  # a cache index each (see above)
    return njit(cache=True, error_model="numpy", _nrt=False)(deal)


#: Deal a hand under any rules (:func:`_compile_deal`).
deal = _compile_deal(False)
#: Deal a hand of one deck.
deal_one_deck = _compile_deal(True)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
