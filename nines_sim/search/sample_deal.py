"""The sampler's deal, compiled: the unseen cards of each game into the other hands and the stock.

:func:`deal_samples` deals ``K`` samples of every game of a decision in one
call of machine code (a numpy version cost more than the rollouts).  Per game it
gets the unseen physical cards, which of them must be in a hand, and a weight
per seat and face; per sample it

1. picks the cards that go to the hands from the cards that may be in the
   stock (weighted by how likely a hand holds each), and adds the cards that
   must be in a hand,
2. deals those cards to the other seats in seat order (weighted per seat; the
   last seat dealt takes what is left),
3. with two or more other seats dealt and some weight not 1, makes Metropolis
   swaps of cards between those hands and the stock (:func:`~.swaps.swap`), so that
   every seat's hand follows its own weights whatever its place in the order
   (steps 1 and 2 alone weigh the cards of the last seat by an average over the
   seats, or not at all),
4. shuffles what is left into the stock.

With count bounds (``tries`` above 0, ``lookahead:counts=obey``), a sample whose hands break a bound after step 3
(a seat holding more cards of the faces its draw turns showed it lacked than it drew since:
:func:`nines_sim.search.sampler.count_bounds`) is drawn again, steps 1-3, from streams of its own, up to
``tries`` times: the samples are then exactly the unbounded ones conditioned on the bounds, and a sample
within them at its first draw is the unbounded sample itself.  Where every draw breaks a bound (a bound that binds
hard: few deals keep it), the last draw is brought within the bounds by trades of the cards over them for cards
with no bound there (:func:`~.swaps.repair`), then step 3's swaps refuse any trade that would break a bound, so
they move it towards the law restricted to the bounds.

The law aimed at gives a deal a probability proportional to the product, over
the other hands' cards, of their seat's weight (draws as independent evidence
on each card, as :func:`nines_sim.search.sampler.hand_weights` sets them).  Heads-up
step 1 already weighs by the one other seat (sequential draws, close to that
law), and step 3 is skipped, so heads-up samples are those of the first
version.  With every weight 1 each step is a uniform choice: the deal is
uniform among all deals that agree with the public sizes and with the cards
that must be in a hand.  Weighted picks are sequential draws without replacement, each card
with probability proportional to its weight.  Each sample draws its random
words from the decision's stream with its own counters (those of step 3 under
their own purpose), so it is the same in any batch or process.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.turn_loop import below, stream
from nines_sim.game import rng
from nines_sim.game.cards import N_FACES
from nines_sim.search.swaps import count_ages, repair, swap, within_bounds

#: Random words one sample may use (its counters are ``k * WORDS + i``).
WORDS = 1 << 10
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def purpose_word(purpose: int) -> np.uint64:
    """A stream purpose as the kernel's premultiplied word (see :mod:`nines_sim.game.rng`)."""
    return np.uint64((purpose * rng.PURPOSE) & rng.M64)


@njit(cache=True, inline="always", error_model="numpy")
def _unit(x):
    return np.float64(x >> np.uint64(11)) * _TO_UNIT


@njit(cache=True, inline="always", error_model="numpy")
def _pick(ids, lo, hi, w, uniform, x, total):
    """Move a card drawn from ``ids[lo:hi]`` (probability ~ ``w[id % 52]``) to ``ids[lo]``.

    ``total`` is the weight of ``ids[lo:hi]``; returns the weight of what is left.
    """
    if uniform:
        j = lo + below(x, hi - lo)
    else:
        u = _unit(x) * total
        j = hi - 1
        acc = 0.0
        for i in range(lo, hi):
            acc += w[ids[i] % 52]
            if u < acc:
                j = i
                break
    t = ids[lo]
    ids[lo] = ids[j]
    ids[j] = t
    return total - w[ids[lo] % 52]  # the drawn card's weight leaves the pool, not the one swapped into its place


@njit(cache=True, inline="always", error_model="numpy")
def _weight(ids, lo, hi, w):
    total = 0.0
    for i in range(lo, hi):
        total += w[ids[i] % 52]
    return total


@njit(cache=True, error_model="numpy")
def _split_unseen(unseen_g, must_hand_g, H, st_n, a_ids, b_ids):
    """A game's unseen physical cards (``c * 52 + face``): those that must be in a hand to ``a_ids``, the rest
    (which may be in the stock) to ``b_ids``.  Returns ``(na, nb, dropped)``: when the must-be-in-a-hand cards do
    not fit the ``H`` cards of the hands, or too few are left for the ``st_n`` of the stock (not a state any deal
    reaches: a hand-built position), the constraint is dropped and every card goes to ``b_ids``."""
    na = 0
    nb = 0
    for f in range(N_FACES):
        for c in range(unseen_g[f]):
            if must_hand_g[f]:
                a_ids[na] = c * N_FACES + f
                na += 1
            else:
                b_ids[nb] = c * N_FACES + f
                nb += 1
    if na > H or nb < st_n:
        for i in range(na):
            b_ids[nb] = a_ids[i]
            nb += 1
        return 0, nb, True
    return na, nb, False


@njit(cache=True, error_model="numpy")
def _stock_weights(sizes_g, weight_g, H, b_ids, nb, q):
    """Step 1's weight per face of a card that sits in a hand (``q``: the seats' weights averaged by their sizes),
    and whether the stock's cards fall into two weight classes (heads-up: a class is picked, then a card in it,
    with no scan), their cards ordered first class first.

    Returns
    -------
    tuple
        ``(uniform, two, qa, qb, nh)``: every weight 1; two classes, of weights ``qa`` and ``qb``, the first
        class's ``nh`` cards first in ``b_ids``.
    """
    P = sizes_g.shape[0]
    uniform = True
    for f in range(N_FACES):
        tot = 0.0
        for s in range(P):
            if sizes_g[s] > 0:
                tot += sizes_g[s] * weight_g[s, f]
                if weight_g[s, f] != 1.0:
                    uniform = False
        q[f] = tot / H if H > 0 else 1.0
    two = not uniform and nb > 0
    qa = q[b_ids[0] % N_FACES] if nb > 0 else 1.0
    qb = qa
    if two:
        for i in range(nb):
            v = q[b_ids[i] % N_FACES]
            if v != qa:
                if qb == qa:
                    qb = v
                elif v != qb:
                    two = False
                    break
    nh = 0
    if two:
        for i in range(nb):
            if q[b_ids[i] % N_FACES] == qa:
                t = b_ids[nh]
                b_ids[nh] = b_ids[i]
                b_ids[i] = t
                nh += 1
    return uniform, two, qa, qb, nh


@njit(cache=True, error_model="numpy")
def _holders(sizes_g, holder):
    """Each hand slot's seat in ``holder`` (seat order).  Returns ``(last, hidden)``: the last seat dealt to, and
    how many seats are dealt to."""
    last = -1
    hidden = 0
    lo = 0
    for s in range(sizes_g.shape[0]):
        if sizes_g[s] > 0:
            last = s
            hidden += 1
            for i in range(lo, lo + sizes_g[s]):
                holder[i] = s
            lo += sizes_g[s]
    return last, hidden


@njit(cache=True, error_model="numpy")
def _swap_weights(weight_g, must_hand_g, dropped, H, S, holder, wt):
    """Step 3's holders of the stock's slots (``P``) and the weight of each face at each holder (``wt``: a seat's
    own weights; in the stock 1, or 0 for a card that must be in a hand)."""
    P = weight_g.shape[0]
    for i in range(H, S):
        holder[i] = P
    for s in range(P):
        for f in range(N_FACES):
            wt[s, f] = weight_g[s, f]
    for f in range(N_FACES):
        wt[P, f] = 1.0 if dropped or not must_hand_g[f] else 0.0


@njit(cache=True, error_model="numpy")
def _take_two_class(ids, pool, na, nb, nh, take, qa, qb, key, purpose, ctr, tmp):
    """Step 1 with two weight classes: ``take`` cards of ``ids[:nb]`` (class ``qa`` first, ``nh`` of them) to
    ``pool[na:]``, a class drawn by weight and then a card in it; the cards left go to ``ids[take:nb]``.
    Returns the stream counter after the draws."""
    h0 = 0
    l0 = nh
    for i in range(take):
        rem_h = nh - h0
        rem_l = nb - l0
        x = stream(key, purpose, ctr)
        y = stream(key, purpose, ctr + 1)
        ctr += 2
        if _unit(x) * (rem_h * qa + rem_l * qb) < rem_h * qa:
            j = h0 + below(y, rem_h)
            pool[na + i] = ids[j]
            ids[j] = ids[h0]
            ids[h0] = pool[na + i]
            h0 += 1
        else:
            j = l0 + below(y, rem_l)
            pool[na + i] = ids[j]
            ids[j] = ids[l0]
            ids[l0] = pool[na + i]
            l0 += 1
    m = 0
    for i in range(h0, nh):
        tmp[m] = ids[i]
        m += 1
    for i in range(l0, nb):
        tmp[m] = ids[i]
        m += 1
    for i in range(m):
        ids[take + i] = tmp[i]
    return ctr


@njit(cache=True, error_model="numpy")
def _take_weighted(ids, pool, na, nb, take, q, uniform, key, purpose, ctr, wv):
    """Step 1 otherwise: ``take`` sequential weighted draws (``q``) from ``ids[:nb]`` to ``pool[na:]``.  Returns
    the stream counter after the draws.

    The draws are :func:`_pick`'s, number for number (the same sums in the same order), with each card's weight
    looked up once into ``wv`` (float64, scratch) and moved with its card: the scans then read the weights in
    order, not each card's face and its weight, a sample's main cost here."""
    if uniform:
        for i in range(take):
            _pick(ids, i, nb, q, True, stream(key, purpose, ctr), 0.0)
            ctr += 1
    else:
        total = 0.0
        for i in range(nb):
            wv[i] = q[ids[i] % 52]
            total += wv[i]
        for i in range(take):
            u = _unit(stream(key, purpose, ctr)) * total
            ctr += 1
            j = nb - 1
            acc = 0.0
            for m in range(i, nb):
                acc += wv[m]
                if u < acc:
                    j = m
                    break
            t = ids[i]
            tw = wv[i]
            ids[i] = ids[j]
            wv[i] = wv[j]
            ids[j] = t
            wv[j] = tw
            total -= wv[i]  # as _pick: the drawn card's weight, now at ``i``
    for i in range(take):
        pool[na + i] = ids[i]
    return ctr


@njit(cache=True, error_model="numpy")
def _deal_hands(pool, H, sizes_g, weight_g, last, uniform, key, purpose, ctr):
    """Step 2: the hands' cards ``pool[:H]`` ordered seat after seat, each seat's drawn by its weights; the last
    seat dealt to takes what is left.  Returns the stream counter after the draws."""
    lo = 0
    for s in range(sizes_g.shape[0]):
        h = sizes_g[s]
        if h == 0:
            continue
        if s != last:
            total = 0.0 if uniform else _weight(pool, lo, H, weight_g[s])
            for i in range(lo, lo + h):
                total = _pick(pool, i, H, weight_g[s], uniform, stream(key, purpose, ctr), total)
                ctr += 1
        lo += h
    return ctr


@njit(cache=True, error_model="numpy")
def _swap_step(pool, ids, H, take, nb, face, holder, wt, key, swap_purpose, ctr, proposals, age_g, slack, cnt,
               bounded, repair_purpose):  # fmt: skip
    """Step 3: the hands' and the stock's cards as faces, :func:`~.swaps.swap`'s proposals on them, and back.  With
    ``bounded`` the hands are first brought within their count bounds (:func:`~.swaps.repair`) and the swaps keep them
    there.  Returns whether every hand is within its bound (true when not ``bounded``)."""
    for i in range(H):
        face[i] = pool[i] % N_FACES
    for i in range(take, nb):
        face[H + i - take] = ids[i] % N_FACES
    T = H + nb - take
    ok = True
    if bounded:
        count_ages(face, H, holder, age_g, cnt)
        ok = repair(face, holder, T, H, age_g, slack, wt, cnt, key, repair_purpose, ctr)
    swap(face, holder, T, H, wt, key, swap_purpose, ctr, proposals, age_g, slack, cnt, bounded)
    for i in range(H):
        pool[i] = face[i]
    for i in range(take, nb):
        ids[i] = face[H + i - take]
    return ok


@njit(cache=True, error_model="numpy")
def _write_hands(pool, sizes_g, hands, r):
    """The hands' cards ``pool`` (seat after seat) into sample ``r``'s count-coded hand words."""
    D = hands.shape[0]
    lo = 0
    for s in range(sizes_g.shape[0]):
        h = sizes_g[s]
        for i in range(lo, lo + h):
            f = pool[i] % N_FACES
            bit = np.uint64(1) << np.uint64(f)
            if D > 1 and hands[0, r, s] & bit:
                hands[1, r, s] |= bit
            else:
                hands[0, r, s] |= bit
        lo += h


@njit(cache=True, error_model="numpy")
def _shuffle_stock(ids, take, nb, stock_r, key, purpose, ctr):
    """Step 4: the cards left, ``ids[take:nb]``, shuffled into the stock ``stock_r``, next card first."""
    for i in range(take, nb):
        j = i + below(stream(key, purpose, ctr), nb - i)
        ctr += 1
        t = ids[i]
        ids[i] = ids[j]
        ids[j] = t
        stock_r[i - take] = ids[i] % N_FACES


def _deal_form(step_3: bool):  # noqa: ANN202 - returns a numba dispatcher
    """Compile :func:`deal_samples` with step 3 and the count bounds, or (not ``step_3``) without them: the form of
    tables with one hidden seat and no count bounds, where step 3 never runs (heads-up ``lookahead``, ``nines
    train``'s labels), whose first compile took the swaps and the bounds' code with it (about 4 s of processor
    time of the sampler's 9-12) though no call reaches them.  The same samples: the calls made are the same."""

    def deal_samples(base, purpose, K, unseen, must_hand, weight, sizes, stock_size, hands, stock, swap_purpose, sweeps,
                     age, slack, tries, retry, tally):  # noqa: PLR0913  # fmt: skip
        """Deal ``K`` samples of each of ``n`` games.

        Parameters
        ----------
        base : numpy.ndarray
            uint64, (n,): the decision's random word per game.
        purpose : numpy.uint64
            The stream purpose (:func:`purpose_word`).
        K : int
            Samples per game.
        unseen : numpy.ndarray
            int64, (n, 52): unseen copies of each face.
        must_hand : numpy.ndarray
            bool, (n, 52): unseen copies of the face are in some hand, not the stock.
        weight : numpy.ndarray
            float64, (n, P, 52): relative weight of a face in a seat's hand (1: nothing known).
        sizes : numpy.ndarray
            int64, (n, P): cards to deal to each seat (0 for the own seat).
        stock_size : numpy.ndarray
            int64, (n,).
        hands : numpy.ndarray
            uint64, (D, n K, P), zeros: filled with the dealt hands, count-coded.
        stock : numpy.ndarray
            int8, (n K, 52 D), zeros: filled with the stock, next card first.
        swap_purpose : numpy.uint64
            The stream purpose of step 3's swaps (:func:`purpose_word`).
        sweeps : int
            Swaps per sample in step 3: ``sweeps`` times the cards dealt to the other
            hands (at most :data:`WORDS`); 0 skips step 3.
        age : numpy.ndarray
            int64, (n, P, 52): a face's count bound in a seat's hand, by the cards the seat drew since its draw turns
            showed it lacked the face (0, 1, 2; -1: no bound): the seat holds at most ``j + slack`` cards of ages 0
            to ``j`` (:func:`nines_sim.search.sampler.count_bounds`).
        slack : int
            The cards a draw turn itself may have brought in of the faces it showed lacked (1, or 0 under V2).
        tries : int
            0: the bounds are not read.  Else a sample over a bound is drawn again, up to ``tries`` times, from the
            streams ``retry[0]`` (cards) and ``retry[1]`` (swaps) with counters ``(try << 26) + k * WORDS + i``;
            the last draw is brought within the bounds by trades and bounded swaps (``retry[2]``,
            :func:`~.swaps.repair`).
        retry : numpy.ndarray
            uint64, (3,): the purposes of the draws after the first (:func:`purpose_word`).
        tally : numpy.ndarray
            int64, (n, 3), zeros: per game, the draws made again, the samples repaired, and the samples a repair
            left over a bound (not a state any deal reaches: a hand-built position).

        Returns
        -------
        numpy.ndarray
            bool, (n,): whether a game's cards that must be in a hand did not fit
            the public sizes (that constraint was then dropped for the game).
        """
        n = base.shape[0]
        P = sizes.shape[1]
        D = hands.shape[0]
        S = N_FACES * D
        a_ids = np.empty(S, dtype=np.int64)
        b_ids = np.empty(S, dtype=np.int64)
        ids = np.empty(S, dtype=np.int64)
        pool = np.empty(S, dtype=np.int64)
        tmp = np.empty(S, dtype=np.int64)
        q = np.empty(N_FACES, dtype=np.float64)
        wv = np.empty(S, dtype=np.float64)
        dropped = np.zeros(n, dtype=np.bool_)
        holder = np.empty(S, dtype=np.int64)
        face = np.empty(S, dtype=np.int64)
        wt = np.empty((P + 1, N_FACES), dtype=np.float64)
        cnt = np.zeros((P + 1, 3), dtype=np.int64)
        for g in range(n):
            H = np.int64(0)  # not the literal 0: numba would also compile every callee taking H for the constant 0
            for s in range(P):
                H += sizes[g, s]
            na, nb, drop = _split_unseen(unseen[g], must_hand[g], H, stock_size[g], a_ids, b_ids)
            dropped[g] = drop
            uniform, two, qa, qb, nh = _stock_weights(sizes[g], weight[g], H, b_ids, nb, q)
            last, hidden = _holders(sizes[g], holder)
            swaps = hidden > 1 and sweeps > 0
            if step_3 and (swaps or tries > 0):
                _swap_weights(weight[g], must_hand[g], drop, H, S, holder, wt)
            key = base[g]
            age_g = age[g]
            for k in range(K):
                r = g * K + k
                attempt = 0
                while True:
                    # a draw again (attempt > 0) takes its own streams: the first is the sample without the bounds
                    cp = purpose if attempt == 0 else retry[0]
                    sp = swap_purpose if attempt == 0 else retry[1]
                    c0 = k * WORDS + (attempt << 26)
                    ctr = c0
                    for i in range(nb):
                        ids[i] = b_ids[i]
                    for i in range(na):
                        pool[i] = a_ids[i]
                    # 1. the stock's complement: the cards of the may-be-in-stock kind that sit in hands
                    take = H - na
                    if two:
                        ctr = _take_two_class(ids, pool, na, nb, nh, take, qa, qb, key, cp, ctr, tmp)
                    else:
                        ctr = _take_weighted(ids, pool, na, nb, take, q, uniform, key, cp, ctr, wv)
                    # 2. the hands, seat after seat; the last seat dealt to takes what is left
                    ctr = _deal_hands(pool, H, sizes[g], weight[g], last, uniform, key, cp, ctr)
                    # 3. several hidden seats with evidence: swaps towards each seat's own weights; the last resort
                    # of the count bounds: trades into the bounds, then swaps that keep them
                    fix = tries > 0 and attempt == tries
                    if step_3 and ((swaps and not uniform) or fix):
                        ok = _swap_step(pool, ids, H, take, nb, face, holder, wt, key, sp, c0,
                                        min(max(sweeps, 1) * H, WORDS), age_g, slack, cnt, fix, retry[2])  # fmt: skip
                        if fix:
                            tally[g, 1] += 1
                            tally[g, 2] += 0 if ok else 1
                    if not step_3 or tries == 0 or fix:
                        break
                    count_ages(pool, H, holder, age_g, cnt)
                    if within_bounds(cnt, slack):
                        break
                    attempt += 1
                    tally[g, 0] += 1
                _write_hands(pool, sizes[g], hands, r)
                # 4. the stock: the rest, shuffled
                _shuffle_stock(ids, take, nb, stock[r], key, cp, ctr)
        return dropped

    if not step_3:
        deal_samples.__name__ = deal_samples.__qualname__ = "deal_samples_one_hidden"
    return njit(cache=True, error_model="numpy")(deal_samples)


deal_samples = _deal_form(True)
#: :func:`deal_samples` for games with one hidden seat each and ``tries`` 0 (:func:`_deal_form`).
deal_samples_one_hidden = _deal_form(False)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
# (the deal takes in bits.py)
seal_module(globals())
