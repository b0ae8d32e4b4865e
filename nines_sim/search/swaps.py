"""The sampler's Metropolis swaps, and the count bounds they keep (``lookahead:counts=obey``).

:func:`swap` trades cards between the other hands and the stock so that every seat's hand follows its own weights
(step 3 of :func:`nines_sim.search.sample_deal.deal_samples`); with count bounds it refuses a trade that would
leave a seat holding more of the faces its draw turns showed it lacked than it drew since (RULES.md T2, T4; V2's
drawn legal card always played), and :func:`repair` first brings a deal within them.  Apart from
:mod:`~nines_sim.search.sample_deal` so that each module holds one job.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.turn_loop import below, stream
from nines_sim.game.cards import N_FACES

_LOW32 = np.uint64(0xFFFFFFFF)
_TO_UNIT32 = 1.0 / 4294967296.0  # 2**-32


@njit(cache=True, inline="always", error_model="numpy")
def fits(cnt_s, out_age, in_age, slack):
    """Whether a seat's hand stays within its count bound, or gets no further over it at any age, when a card
    of age ``out_age`` leaves it and one of ``in_age`` comes in (-1: no bound).  ``cnt_s``: its cards by age
    0, 1, 2; the bound at age ``j`` is ``j + slack`` cards of ages 0 to ``j``."""
    before = 0
    after = 0
    for j in range(3):
        before += cnt_s[j]
        after += cnt_s[j] - (1 if out_age == j else 0) + (1 if in_age == j else 0)
        if after > j + slack and after > before:
            return False
    return True


@njit(cache=True, inline="always", error_model="numpy")
def trade(age_g, slack, cnt, hi, fi, hj, fj):
    """Card ``fi`` of holder ``hi`` for card ``fj`` of holder ``hj`` (the stock, ``cnt.shape[0] - 1``, has no
    bound), if neither seat's hand goes further over its count bound; ``cnt`` is kept.  Returns whether made."""
    P = cnt.shape[0] - 1
    ai_i = age_g[hi, fi] if hi < P else -1
    ai_j = age_g[hi, fj] if hi < P else -1
    aj_j = age_g[hj, fj] if hj < P else -1
    aj_i = age_g[hj, fi] if hj < P else -1
    if hi < P and not fits(cnt[hi], ai_i, ai_j, slack):
        return False
    if hj < P and not fits(cnt[hj], aj_j, aj_i, slack):
        return False
    recount(cnt, hi, ai_i, ai_j)
    recount(cnt, hj, aj_j, aj_i)
    return True


@njit(cache=True, inline="always", error_model="numpy")
def recount(cnt, h, gone, came):
    if h < cnt.shape[0] - 1:
        if gone >= 0:
            cnt[h, gone] -= 1
        if came >= 0:
            cnt[h, came] += 1


@njit(cache=True, error_model="numpy")
def count_ages(face, H, holder, age_g, cnt):
    """Each seat's hand cards ``face[:H]`` (ids or faces) by their age in its own log, into ``cnt`` (P + 1, 3)."""
    cnt[:, :] = 0
    for i in range(H):
        a = age_g[holder[i], face[i] % N_FACES]
        if a >= 0:
            cnt[holder[i], a] += 1


@njit(cache=True, error_model="numpy")
def within_bounds(cnt, slack):
    """Whether every seat holds at most ``j + slack`` cards of ages 0 to ``j`` (j = 0, 1, 2), by its counts."""
    for s in range(cnt.shape[0] - 1):
        if over_bound(cnt[s], 0, slack):
            return False
    return True


@njit(cache=True, inline="always", error_model="numpy")
def over_bound(cnt_s, a, slack):
    """Whether a seat holds more than ``j + slack`` cards of ages 0 to ``j`` for some ``j`` from ``a`` on."""
    c = 0
    for j in range(3):
        c += cnt_s[j]
        if j >= a and c > j + slack:
            return True
    return False


@njit(cache=True, error_model="numpy")
def repair(face, holder, T, H, age_g, slack, wt, cnt, key, purpose, ctr):
    """Bring every hand within its count bound: each card over it is traded for a card of another holder (the
    first that fits, from a random slot on) that has no bound in that hand, where the other holder allows it (a
    card that must be in a hand never goes to the stock); where no such trade fits, passed round three holders
    (:func:`rotate`).  Returns whether every hand is within its bound."""
    P = cnt.shape[0] - 1
    for i in range(H):
        s = holder[i]
        a = age_g[s, face[i]]
        if a < 0 or not over_bound(cnt[s], a, slack):
            continue
        start = below(stream(key, purpose, ctr + i), T)
        for t in range(T):
            j = start + t if start + t < T else start + t - T
            hj = holder[j]
            if hj == s or age_g[s, face[j]] >= 0 or wt[hj, face[i]] == 0.0:
                continue
            gone = age_g[hj, face[j]] if hj < P else -1
            came = age_g[hj, face[i]] if hj < P else -1
            if hj < P and not fits(cnt[hj], gone, came, slack):
                continue
            recount(cnt, s, a, -1)
            recount(cnt, hj, gone, came)
            f = face[i]
            face[i] = face[j]
            face[j] = f
            break
        if over_bound(cnt[s], a, slack):  # no trade of two cards fits: pass three round
            rotate(face, holder, T, i, age_g, slack, wt, cnt, below(stream(key, purpose, ctr + H + i), T))
    return within_bounds(cnt, slack)


@njit(cache=True, error_model="numpy")
def rotate(face, holder, T, i, age_g, slack, wt, cnt, start):
    """Card ``i``, over its seat's count bound, passed on round three holders: to holder ``B`` for a card ``j``
    that goes to a third holder ``C`` for a card ``k`` that has no bound in the first seat, where each holder
    allows what comes in (:func:`fits`; a card that must be in a hand never goes to the stock).  Under V2 a
    bound has no slack and every card of a hand may be bounded in the other, so no two-way trade may fit where
    a three-way one does.  Returns whether one was made."""
    P = cnt.shape[0] - 1
    s = holder[i]
    x = face[i]
    a = age_g[s, x]
    for t in range(T):
        j = start + t if start + t < T else start + t - T
        hb = holder[j]
        if hb == s or wt[hb, x] == 0.0:
            continue
        y = face[j]
        b_out = age_g[hb, y] if hb < P else -1
        b_in = age_g[hb, x] if hb < P else -1
        if hb < P and not fits(cnt[hb], b_out, b_in, slack):
            continue
        for u in range(T):
            k = start + u if start + u < T else start + u - T
            hc = holder[k]
            z = face[k]
            if hc == s or hc == hb or age_g[s, z] >= 0 or wt[hc, y] == 0.0:
                continue
            c_out = age_g[hc, z] if hc < P else -1
            c_in = age_g[hc, y] if hc < P else -1
            if hc < P and not fits(cnt[hc], c_out, c_in, slack):
                continue
            recount(cnt, s, a, -1)
            recount(cnt, hb, b_out, b_in)
            recount(cnt, hc, c_out, c_in)
            face[i] = z
            face[j] = x
            face[k] = y
            return True
    return False


@njit(cache=True, inline="always", error_model="numpy")
def swap(face, holder, T, H, wt, key, purpose, ctr, proposals, age_g, slack, cnt, bounded):  # noqa: PLR0913
    """Metropolis swaps of two cards between holders (other seats, the stock) of one sample.

    ``face[:H]`` are the hands' cards (seat ``holder[i]``), ``face[H:T]`` the
    stock's (holder ``P``); ``wt[holder, face]`` is a card's weight at a holder
    (a seat's own weight; in the stock 1, or 0 for a card that must be in a
    hand).  Proposal ``p`` takes hand slot ``p % H`` and a slot drawn uniformly
    from all ``T`` (a symmetric proposal); the two cards change holders with
    probability ``min(1, ratio)`` of the deal's weight after and before, the
    weight of a deal being the product of its cards' weights at their holders.
    Each proposal keeps the law proportional to that weight, so the swaps only
    move the deal towards it.  One random word per proposal: its high half picks
    the slot, its low half accepts.  With ``bounded``, a swap that would take a
    seat's hand over its count bound (:func:`fits`; ``cnt`` its counts by age)
    is refused, so the swaps keep the law restricted to the deals within the bounds.
    """
    i = -1
    for p in range(proposals):
        i = i + 1 if i + 1 < H else 0
        x = stream(key, purpose, ctr + p)
        j = below(x, T)
        hi = holder[i]
        hj = holder[j]
        if hi == hj:
            continue
        fi = face[i]
        fj = face[j]
        before = wt[hi, fi] * wt[hj, fj]
        after = wt[hi, fj] * wt[hj, fi]
        if after >= before or np.float64(x & _LOW32) * _TO_UNIT32 * before < after:
            if bounded and not trade(age_g, slack, cnt, hi, fi, hj, fj):
                continue
            face[i] = fj
            face[j] = fi


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
