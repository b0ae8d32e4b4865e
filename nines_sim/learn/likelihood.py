"""The learned model's likelihood of an opponent's recorded plays, over a batch of sampled worlds, as one compiled
function: play inference by the model (``lookahead:infer_plays=1,play_model=learned``) at compiled speed.

:func:`likelihood_for` closes a numba function over a model's weights, as :func:`nines_sim.learn.decide.make_decide`
does for its decision (the weights frozen into the code, one cached entry per model), and scores the cards with the
same compiled features (:data:`nines_sim.learn.decide.SHARED_FEATURES`) and the same sums, so a card's score is the
decision's float for float.  For each recorded play and each sampled world of its game it rebuilds the opponent's
hand at that play (the world's hand and the cards it played since), scores every card legal then, and adds to the
world's log-weight ``infer`` times the log of the played card's softmax probability at ``temp`` points, and for a 9
the log of the declared suit's softmax probability over the four suits, each at least ``log_floor``.  The numpy
form it replaces (:func:`nines_sim.search.play_likelihood.log_likelihoods_numpy`) spent about two fifths of such a
search's time computing the card scores over the batch (issue 40).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba import types as nbt

from nines_sim.engine.bits import lowest_face
from nines_sim.engine.code_cache import DigestCache
from nines_sim.learn.decide import card_features_in, closed_weights, seat_context, suit_after
from nines_sim.learn.features import mlp_score, others_context, score, suit_features_in

_KERNELS: dict[str, Any] = {}
_V, _M = nbt.int64[::1], nbt.int64[:, ::1]
#: The one signature the likelihood is compiled for (:func:`likelihood_for`'s arguments, in order).
SIGNATURE = nbt.none(_M, _V, nbt.int64, _V, _V, _V, _V, _V, _V, _V, _M, _M, _M, _V, _V, _V, nbt.int64, nbt.float64,
                     nbt.float64, nbt.float64, nbt.float64[::1])  # fmt: skip


def make_likelihood(model: Any) -> Any:
    """The compiled ``log_likelihoods(...)`` of a :class:`~nines_sim.learn.model.Model` (see :func:`likelihood_for`
    for its arguments); its machine code is cached on disk, keyed by the model's weights."""
    wc, ws, hw_t, hb, ow, _, pw, pair_sum, tv, tree_sum = closed_weights(model)

    def log_likelihoods(hands, first, M, opp, later, card, suit, top, active, played, sizes, totals, drew_on,
                        dirbit, stock, legal_tab, nine_pen, temp, infer, log_floor, log_w):  # fmt: skip
        R = card.shape[0]
        P = sizes.shape[1]
        s = np.empty(52)
        for r in range(R):
            seat = opp[r]
            bit = np.int64(1) << card[r]
            lt = legal_tab[top[r] * 4 + active[r]]
            others = others_context(sizes[r], drew_on[r], P, seat, dirbit[r])
            for m in range(M):
                w = first[r] + m
                h0 = hands[w, seat] | later[r]
                x = h0 & lt
                # every legal card's score (the numpy form's order: faces ascending), then the softmax at temp
                ctx = seat_context(h0, np.int64(0), sizes[r], totals[r], drew_on[r], P, seat, dirbit[r])
                nine_suit = -1
                top_s = -np.inf
                while x != 0:
                    f = lowest_face(x)
                    x &= x - 1
                    s_after, nine_suit = suit_after(f, nine_suit, ws, h0, np.int64(0), played[r], ctx)
                    fc = card_features_in(f, s_after, h0, np.int64(0), top[r], active[r], played[r], ctx, nine_pen,
                                          stock[r])  # fmt: skip
                    v = (mlp_score(wc, hw_t, hb, ow, fc) + pair_sum(pw, fc) + tree_sum(tv, fc)) / temp
                    s[f] = v
                    top_s = max(top_s, v)
                if (h0 & lt & bit) == 0:  # not legal in this world: the floor
                    logp = log_floor
                else:
                    z = 0.0
                    y = h0 & lt
                    while y != 0:
                        f = lowest_face(y)
                        y &= y - 1
                        z += np.exp(s[f] - top_s)
                    logp = max(s[card[r]] - (np.log(z) + top_s), log_floor)
                if suit[r] >= 0:
                    rest = h0 & ~bit
                    ss = (
                        score(ws, suit_features_in(0, rest, np.int64(0), played[r], others)) / temp,
                        score(ws, suit_features_in(1, rest, np.int64(0), played[r], others)) / temp,
                        score(ws, suit_features_in(2, rest, np.int64(0), played[r], others)) / temp,
                        score(ws, suit_features_in(3, rest, np.int64(0), played[r], others)) / temp,
                    )
                    t = max(max(ss[0], ss[1]), max(ss[2], ss[3]))
                    zs = np.exp(ss[0] - t) + np.exp(ss[1] - t) + np.exp(ss[2] - t) + np.exp(ss[3] - t)
                    logp += max(ss[suit[r]] - (np.log(zs) + t), log_floor)
                log_w[w] += infer * logp

    compiled = njit(cache=True, error_model="numpy")(log_likelihoods)
    compiled._cache = DigestCache(log_likelihoods, form="-likelihood")
    # one signature, compiled (or loaded from the cache) here: the search's forms build it ahead (``nines warm-up``)
    compiled.compile(SIGNATURE)
    compiled.disable_compile()
    return compiled


def likelihood_for(model: Any) -> Any:
    """The compiled log-likelihood of a model, one per set of weights (its digest).

    The function, ``log_likelihoods(hands, first, M, opp, later, card, suit, top, active, played, sizes, totals,
    drew_on, dirbit, stock, legal_tab, nine_pen, temp, infer, log_floor, log_w) -> None``, adds each recorded
    play's term to ``log_w`` (float64 (W,), the worlds' log-weights) in place:

    - ``hands``: int64 (W, P), each sampled world's hands (one deck: T2's 52 faces as bits);
    - ``first``, ``M``: play ``r``'s worlds are rows ``first[r]`` to ``first[r] + M - 1``;
    - ``opp``, ``later``, ``card``, ``suit``: int64 (R,), per recorded play the seat that played, the cards it has
      played from that play on (its hand then is the world's hand and these), the card, the suit declared (-1: none);
    - ``top``, ``active``, ``played``, ``dirbit``, ``stock``: int64 (R,), and ``sizes``, ``totals``, ``drew_on``:
      int64 (R, P): the public state before the play;
    - ``legal_tab``: int64 (208,), the legal faces on each ``top * 4 + active`` (T1, V6); ``nine_pen``: a 9's
      penalty (C2, V1); ``temp``: the softmax's temperature in points; ``infer``: the exponent; ``log_floor``:
      the least log-probability a play counts for.
    """
    if model.digest not in _KERNELS:
        _KERNELS[model.digest] = make_likelihood(model)
    return _KERNELS[model.digest]
