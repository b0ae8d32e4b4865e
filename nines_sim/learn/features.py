"""Features of one seat's observation, per candidate move: the one description that ``learned`` plays by and
``nines train`` fits to.

Every figure here comes from what the deciding seat may see (its own hand, the top card and active suit, the
seats' hand sizes, totals and the suits each drew on, the faces played this hand, the stock's size and the
rules' 9 penalty): never another hand or the stock's order.  The functions are compiled with numba and called
both inside the compiled turn loop (the ``learned`` seat's decision, :mod:`nines_sim.learn.decide`) and over
batches of positions in training (:func:`batch_card_features`), so that training and play describe a move
the same way.

Hand words are int64 count-coded sets of faces (word 1 holds second copies with two decks, else 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from nines_sim.engine.bits import (
    FACE_NAT_PEN,
    I_NATURALS,
    I_NINES,
    PEN_BIT_MASK,
    RANK_MASKS,
    SUIT_MASKS,
    face_rank,
    face_suit,
    popcount,
)
from nines_sim.engine.code_cache import seal_module

#: Features of a card to play (:func:`card_features`), in this order.
CARD_FEATURES = (
    "bias", "nine", "penalty", "held_suit_after", "playable_next", "same_rank_after", "nines_after",
    "hand_points_after", "cards_after", "goes_out", "next_one_card", "next_two_cards", "other_one_card",
    "next_drew_on_suit", "near_out_drew_on_suit", "suit_played", "suit_unseen", "stock", "own_total",
    "max_other_total", "own_minus_best_total", "changes_suit", "penalty_x_near_out", "penalty_x_cards_after",
    "nine_x_near_out", "nine_x_few_cards", "nine_x_nines_after", "playable_x_next_two", "penalty_x_max_total",
    "next_drew_x_next_two", "rank_played", "follows_suit", "face_card", "nine_x_cards_after",
)  # fmt: skip
#: Features of a suit to declare (:func:`suit_features`), in this order.
SUIT_FEATURES = (
    "held", "points_held", "none_held", "next_drew_on", "near_out_drew_on", "played", "unseen",
    "held_x_few_cards", "dearest_held", "held_x_near_out", "next_drew_x_next_two",
)  # fmt: skip
NFC = len(CARD_FEATURES)
NFS = len(SUIT_FEATURES)
#: Hidden units of a card model are summed this many at a time (:func:`mlp_score`): their number is a multiple.
UNITS_AT_ONCE = 4
#: An opponent with this many cards or fewer is near going out.
NEAR_OUT = 2


@njit(cache=True, inline="always", error_model="numpy")
def _count(h0, h1, mask):
    return popcount(h0 & mask) + popcount(h1 & mask)


@njit(cache=True, inline="always", error_model="numpy")
def _points(h0, h1, mask):
    """Natural penalty points of the faces of ``mask`` held (both decks): bit ``k`` of each face's penalty at a
    time (:data:`~nines_sim.engine.bits.PEN_BIT_MASK`), a few popcounts instead of a loop over the cards."""
    pts = 0
    for k in range(PEN_BIT_MASK.shape[0]):
        pts += _count(h0, h1, mask & PEN_BIT_MASK[k]) << k
    return float(pts)


@njit(cache=True, inline="always", error_model="numpy")
def _dearest(x):
    """The penalty of the dearest natural face of the set ``x`` (penalties rise with rank: the highest face)."""
    if x == 0:
        return 0.0
    x |= x >> 1
    x |= x >> 2
    x |= x >> 4
    x |= x >> 8
    x |= x >> 16
    x |= x >> 32
    return FACE_NAT_PEN[popcount(x) - 1]


@njit(cache=True, inline="always", error_model="numpy")
def others_context(sizes, drew_on, P, seat, dirbit):
    """What the other seats show every candidate move of one decision: (next seat's size, the suits the next
    seat drew on, the smallest other size, for each suit in 8 bits at ``8 * suit`` the near-out seats that
    drew on it); sizes of 0 (a seat out of a tie-break hand) are left out."""
    nxt = (seat + 1 - 2 * dirbit + P) % P
    # int64 from the start, not the literals 99 and 0: numba would also compile nine_suit_after_in for a tuple of
    # those constants, which no call uses
    smallest = np.int64(99)
    near_drew = np.int64(0)
    for p in range(P):
        sz = sizes[p]
        if p == seat or sz <= 0:
            continue
        smallest = min(smallest, sz)
        if sz <= NEAR_OUT:
            d = drew_on[p]
            near_drew += (d & 1) | ((d >> 1) & 1) << 8 | ((d >> 2) & 1) << 16 | ((d >> 3) & 1) << 24
    return sizes[nxt], drew_on[nxt], smallest, near_drew


@njit(cache=True, error_model="numpy")
def suit_features(s, h0, h1, played, sizes, drew_on, P, seat, dirbit):
    """The features of declaring suit ``s`` (:data:`SUIT_FEATURES`): a tuple of NFS floats (a tuple, not an
    array: the compiled decision allocates nothing).

    Parameters
    ----------
    s : int
        The suit, 0-3 (clubs, diamonds, hearts, spades).
    h0, h1 : int
        The seat's hand words as they will be after the declaration (the 9 played).
    played : int
        Faces played to the discard pile this hand (public).
    sizes, drew_on : numpy.ndarray
        int64 (P,): each seat's hand size, and the suits each drew on this hand (public).
    P, seat, dirbit : int
        Players, the deciding seat, 1 after a reverse (V3).
    """
    return suit_features_in(s, h0, h1, played, others_context(sizes, drew_on, P, seat, dirbit))


@njit(cache=True, inline="always", error_model="numpy")
def suit_features_in(s, h0, h1, played, others):
    """:func:`suit_features` with the decision's :func:`others_context` ``others`` given (the same floats)."""
    nsz, next_drew, smallest, near_drew_all = others
    ndrew = (next_drew >> s) & 1
    near_drew = float((near_drew_all >> (8 * s)) & 0xFF)
    m = SUIT_MASKS[s] & I_NATURALS
    held = _count(h0, h1, m)
    n_own = popcount(h0) + popcount(h1)
    dearest = _dearest((h0 | h1) & m)
    near = 1.0 if smallest <= NEAR_OUT else 0.0
    return (
        held / 5.0,
        _points(h0, h1, m) / 30.0,
        1.0 if held == 0 else 0.0,
        float(ndrew),
        near_drew,
        popcount(played & m) / 12.0,
        max(0, 12 - held - popcount(played & m)) / 12.0,
        held / 5.0 * (1.0 if n_own <= 3 else 0.0),
        dearest / 10.0,
        held / 5.0 * near,
        ndrew * (1.0 if nsz <= NEAR_OUT else 0.0),
    )


@intrinsic
def spill(typingctx, tup):  # noqa: ANN001, ANN201, ARG001 - a numba intrinsic's form
    """A pointer to the items of a homogeneous tuple stored in the compiled function's frame: ``spill(x)[i]`` is
    one load, where numba reads ``x[i]`` at a run-time ``i`` through a switch over every item (a jump the CPU
    mispredicts, at each read).  Valid while the calling function runs."""
    if not isinstance(tup, types.UniTuple):
        return None

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        ptr = cgutils.alloca_once_value(builder, args[0])
        return builder.bitcast(ptr, context.get_value_type(types.CPointer(tup.dtype)))

    return types.CPointer(tup.dtype)(tup), codegen


@njit(cache=True, inline="always", error_model="numpy")
def score(w, x):
    """A linear model's score ``w . x`` of a move's features ``x`` (a tuple, or its :func:`spill`), summed in
    feature order (the training path, :func:`nines_sim.learn.collect.linear_scores`, sums in the same order)."""
    sc = 0.0
    for i in range(w.shape[0]):
        sc += w[i] * x[i]
    return sc


@njit(cache=True, inline="always", error_model="numpy")
def mlp_score(w, hw_t, hb, ow, x):
    """A card model's score of features ``x``: the linear part ``w . x`` plus a hidden layer of rectified units,
    ``sum_j ow[j] * max(0, hb[j] + sum_i hw_t[i, j] x[i])`` (none for a linear model).

    ``hw_t``: the hidden weights transposed, float64 (NFC, H), H a multiple of :data:`UNITS_AT_ONCE`.  The units
    are summed four side by side in registers (independent sums, no scratch array to allocate); each unit's sum
    runs over the features in order, as the training path's :func:`nines_sim.learn.decide.model_scores` sums,
    so both give the same floats.
    """
    p = spill(x)
    sc = score(w, p)
    for b in range(0, hb.shape[0], UNITS_AT_ONCE):
        a0, a1, a2, a3 = hb[b], hb[b + 1], hb[b + 2], hb[b + 3]
        for i in range(hw_t.shape[0]):
            xi = p[i]
            a0 += hw_t[i, b] * xi
            a1 += hw_t[i, b + 1] * xi
            a2 += hw_t[i, b + 2] * xi
            a3 += hw_t[i, b + 3] * xi
        if a0 > 0.0:
            sc += ow[b] * a0
        if a1 > 0.0:
            sc += ow[b + 1] * a1
        if a2 > 0.0:
            sc += ow[b + 2] * a2
        if a3 > 0.0:
            sc += ow[b + 3] * a3
    return sc


@njit(cache=True, error_model="numpy")
def best_suit(ws, h0, h1, played, sizes, drew_on, P, seat, dirbit):
    """The suit a model with suit weights ``ws`` (float64 (NFS,)) declares: the highest score, the lowest suit
    among equals (the other arguments as :func:`suit_features`)."""
    return best_suit_in(ws, h0, h1, played, others_context(sizes, drew_on, P, seat, dirbit))


@njit(cache=True, inline="always", error_model="numpy")
def best_suit_in(ws, h0, h1, played, others):
    """:func:`best_suit` with the decision's :func:`others_context` ``others`` given."""
    best, best_s = -np.inf, 0
    for s in range(4):
        sc = score(ws, suit_features_in(s, h0, h1, played, others))
        if sc > best:
            best, best_s = sc, s
    return best_s


@njit(cache=True, inline="always", error_model="numpy")
def seat_context(h0, h1, sizes, totals, drew_on, P, seat, dirbit):
    """What every candidate card of one decision shares (:func:`card_features_in`): the loops over the seats
    and over the hand's penalty bits, done once a decision instead of once a candidate (the per-candidate
    loops made a 4-seat table slower than a heads-up one).

    Returns
    -------
    tuple of int
        (:func:`others_context`'s four, then own total, highest and lowest other total, the
        hand's natural penalty points, its cards, its 9s); sizes of 0 (a seat out of a tie-break hand) are
        left out of the sizes, as in :func:`suit_features`.
    """
    max_other, min_other = 0, 1 << 30
    for p in range(P):
        if p != seat:
            max_other = max(max_other, totals[p])
            min_other = min(min_other, totals[p])
    pts = 0
    for k in range(PEN_BIT_MASK.shape[0]):
        pts += _count(h0, h1, I_NATURALS & PEN_BIT_MASK[k]) << k
    return others_context(sizes, drew_on, P, seat, dirbit) + (
        totals[seat], max_other, min_other, pts, popcount(h0) + popcount(h1), _count(h0, h1, I_NINES))  # fmt: skip


@njit(cache=True, inline="always", error_model="numpy")
def card_features(f, s_after, h0, h1, top, active, played, sizes, totals, drew_on, P, seat, dirbit, nine_pen,
                  stock):  # fmt: skip
    """The features of playing face ``f`` (:data:`CARD_FEATURES`): a tuple of NFC floats.

    Parameters
    ----------
    f : int
        The face to play (legal here: T1, V6).
    s_after : int
        The suit active after the play: ``f``'s suit, or for a 9 the suit to be declared (T3).
    h0, h1 : int
        The seat's hand words before the play.
    top, active, played : int
        The top card, the active suit, the faces played this hand.
    sizes, totals, drew_on : numpy.ndarray
        int64 (P,): hand sizes, running totals (points), suits drawn on, per seat.
    P, seat, dirbit, nine_pen, stock : int
        Players, the deciding seat, 1 after a reverse, a 9's penalty (C2, V1), cards in the stock.
    """
    ctx = seat_context(h0, h1, sizes, totals, drew_on, P, seat, dirbit)
    return card_features_in(f, s_after, h0, h1, top, active, played, ctx, nine_pen, stock)


@njit(cache=True, inline="always", error_model="numpy")
def card_features_in(f, s_after, h0, h1, top, active, played, ctx, nine_pen, stock):
    """:func:`card_features` with the decision's :func:`seat_context` ``ctx`` given (the same floats)."""
    nsz, next_drew, smallest, near_drew_all, own_total, max_other, min_other, pts, n_hand, nines_hand = ctx
    bit = np.int64(1) << f
    if h1 & bit:  # the second copy leaves first, as the engine takes it
        a0, a1 = h0, h1 & ~bit
    else:
        a0, a1 = h0 & ~bit, h1
    rank = face_rank(f)
    nine = 1.0 if (bit & I_NINES) != 0 else 0.0
    pen = (nine_pen if nine else FACE_NAT_PEN[f]) / 10.0
    m_suit = SUIT_MASKS[s_after] & I_NATURALS
    held = _count(a0, a1, m_suit)
    same_rank = 0 if nine else _count(a0, a1, RANK_MASKS[rank] & I_NATURALS)
    nines_after = nines_hand - (1 if nine else 0)
    playable = held + same_rank + nines_after
    if not nine:  # a card of both the suit and the rank counts once
        playable -= _count(a0, a1, m_suit & RANK_MASKS[rank])
    n_after = n_hand - 1
    # penalties are whole points: the hand's less the card's is exact
    pts_after = float(pts if nine else pts - np.int64(FACE_NAT_PEN[f]))
    ndrew = (next_drew >> s_after) & 1
    near_drew = float((near_drew_all >> (8 * s_after)) & 0xFF)
    near = 1.0 if smallest <= NEAR_OUT else 0.0
    next_two = 1.0 if nsz <= NEAR_OUT else 0.0
    suit_played = popcount(played & m_suit)
    # two tuples joined: CPython builds a literal of more than 30 items through a list, which numba cannot type
    first = (
        1.0,
        nine,
        pen,
        held / 5.0,
        playable / 5.0,
        same_rank / 3.0,
        float(nines_after),
        (pts_after + nine_pen * nines_after) / 50.0,
        n_after / 10.0,
        1.0 if n_after == 0 else 0.0,
        1.0 if nsz == 1 else 0.0,
        1.0 if nsz == 2 else 0.0,
        1.0 if smallest == 1 else 0.0,
        float(ndrew),
        near_drew,
        suit_played / 12.0,
        max(0, 12 - held - suit_played) / 12.0,
    )
    return first + (
        stock / 40.0,
        own_total / 100.0,
        max_other / 100.0,
        (own_total - min_other) / 100.0,
        1.0 if s_after != active else 0.0,
        pen * near,
        pen * n_after / 10.0,
        nine * near,
        nine * (1.0 if n_after <= 2 else 0.0),
        nine * nines_after,
        playable / 5.0 * next_two,
        pen * max(own_total, max_other) / 100.0,
        ndrew * next_two,
        0.0 if nine else popcount(played & RANK_MASKS[rank]) / 3.0,
        1.0 if face_suit(f) == face_suit(top) and not nine else 0.0,
        1.0 if FACE_NAT_PEN[f] == 10.0 else 0.0,
        nine * n_after / 10.0,
    )


@njit(cache=True, error_model="numpy")
def nine_suit_after(f, ws, h0, h1, played, sizes, drew_on, P, seat, dirbit):
    """The suit active after playing ``f``: its own suit, or for a 9 the suit the model declares next with the
    9 gone (:func:`best_suit`)."""
    return nine_suit_after_in(f, ws, h0, h1, played, others_context(sizes, drew_on, P, seat, dirbit))


@njit(cache=True, error_model="numpy")
def nine_suit_after_in(f, ws, h0, h1, played, others):
    """:func:`nine_suit_after` with the decision's :func:`others_context` ``others`` given."""
    bit = np.int64(1) << f
    if (bit & I_NINES) == 0:
        return face_suit(f)
    if h1 & bit:
        return best_suit_in(ws, h0, h1 & ~bit, played, others)
    return best_suit_in(ws, h0 & ~bit, h1, played, others)


@njit(cache=True, error_model="numpy")
def batch_card_features(ws, faces, h0, h1, top, active, played, sizes, totals, drew_on, seat, dirbit, nine_pen,
                        stock):  # fmt: skip
    """:func:`card_features` of ``n`` candidate moves at once, for training (a 9 with the suit ``ws`` declares).

    Parameters
    ----------
    ws : numpy.ndarray
        float64 (NFS,): the suit weights that choose a 9's suit.
    faces, h0, h1, top, active, played, seat, dirbit, stock : numpy.ndarray
        int64 (n,): per candidate, as :func:`card_features`.
    sizes, totals, drew_on : numpy.ndarray
        int64 (n, P).
    nine_pen : int

    Returns
    -------
    numpy.ndarray
        float64 (n, NFC).
    """
    n = faces.shape[0]
    P = sizes.shape[1]
    out = np.zeros((n, NFC))
    for i in range(n):
        s_after = nine_suit_after(faces[i], ws, h0[i], h1[i], played[i], sizes[i], drew_on[i], P, seat[i],
                                  dirbit[i])  # fmt: skip
        x = card_features(faces[i], s_after, h0[i], h1[i], top[i], active[i], played[i], sizes[i], totals[i],
                          drew_on[i], P, seat[i], dirbit[i], nine_pen, stock[i])  # fmt: skip
        for j in range(NFC):
            out[i, j] = x[j]
    return out


@njit(cache=True, error_model="numpy")
def batch_suit_features(h0, h1, played, sizes, drew_on, seat, dirbit):
    """:func:`suit_features` of the 4 suits of ``n`` declarations: float64 (n, 4, NFS) (arguments as there,
    int64 (n,) or (n, P))."""
    n = h0.shape[0]
    P = sizes.shape[1]
    out = np.zeros((n, 4, NFS))
    for i in range(n):
        for s in range(4):
            x = suit_features(s, h0[i], h1[i], played[i], sizes[i], drew_on[i], P, seat[i], dirbit[i])
            for j in range(NFS):
                out[i, s, j] = x[j]
    return out


seal_module(globals())
