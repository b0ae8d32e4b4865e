"""A model's decisions as a compiled function: the ``decide`` of a compiled plug-in, called inside the turn loop.

:func:`make_decide` closes a function of the plug-in form (:mod:`nines_sim.strategy.per_game_compiled`) over a
model's weights: numba freezes them into the machine code, so a ``learned`` seat decides at the speed of a
built-in, and the weights key numba's on-disk cache (one compiled entry per model).  The features it computes
are compiled once for every model (:data:`SHARED_FEATURES`) and inlined by LLVM into each model's code: a new
model compiles only its own scoring (issue 42).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from numba import njit

from nines_sim.engine.bits import I_NINES, face_suit, lowest_face
from nines_sim.engine.code_cache import DigestCache
from nines_sim.engine.loop_constants import (
    G_ACTIVE,
    G_CARD,
    G_DIRECTION,
    G_LEGAL,
    G_NINE_PENALTY,
    G_PLAYED,
    G_PLAYERS,
    G_SEAT,
    G_STOCK,
    G_TOP,
)
from nines_sim.game.codes import K_DEALER_DECLARE, K_DECLARE, K_PLAY_DRAWN
from nines_sim.learn import features
from nines_sim.learn.features import NFC, best_suit, mlp_score, nine_suit_after, nine_suit_after_in

#: A drawn 9 is kept unless the seat then holds this many cards or fewer (``expert``'s ``shed_nine_at``): the
#: rule for the drawn card (T4) of a model without ``drawn_weights``.
SHED_NINE_AT = 2


def _shared(fn: Any) -> Any:
    """The features function ``fn`` (one numba inlines into its callers: ``inline="always"``) compiled once on its
    own, filed in numba's disk cache apart from ``fn``'s entries, and inlined by LLVM into each model's decision
    (``forceinline``, as :func:`nines_sim.engine.bits.shared_inline` does for the turn loop's phases).

    numba's own inlining copied and typed the features again in every model's decision: a new model's decision
    compiled in 3.0-3.5 s of processor time, now 1.0-1.2 s; a ``learned`` table plays 1-6.5% fewer matches
    a second with LLVM's inlining (the benchmark log, 2026-12-07).  A decision that read the weights as arguments,
    compiled once for every model, played half as many."""
    compiled = njit(cache=True, forceinline=True, error_model="numpy", _nrt=False)(fn.py_func)
    compiled._cache = DigestCache(fn.py_func, form="-shared")
    return compiled


card_features = _shared(features.card_features)
card_features_in = _shared(features.card_features_in)
seat_context = _shared(features.seat_context)
#: The features every model's decision calls, compiled once for all (:func:`_shared`).
SHARED_FEATURES = (card_features, card_features_in, seat_context)


@njit(inline="always", error_model="numpy")
def suit_after(f, nine_suit, ws, h0, h1, played, ctx):  # noqa: ANN001, ANN201 - numba-typed
    """``(the suit active after playing f, nine_suit)`` for a decision's candidate ``f``: its own suit, or for a 9
    the suit the model declares (:func:`~nines_sim.learn.features.nine_suit_after_in`), found at the decision's
    first 9 and passed on in ``nine_suit`` (-1: none yet): the same whichever 9 leaves the hand (9s are not
    naturals).  ``ctx``: the decision's :func:`seat_context`."""
    if ((np.int64(1) << f) & I_NINES) == 0:
        return face_suit(f), nine_suit
    if nine_suit < 0:
        nine_suit = nine_suit_after_in(f, ws, h0, h1, played, ctx[:4])
    return nine_suit, nine_suit


def closed_weights(model: Any) -> tuple:
    """A :class:`~nines_sim.learn.model.Model`'s weights as a compiled function closes over them (frozen into its
    code): ``(wc, ws, hw_t, hb, ow, dw, pw, pair_sum, tv, tree_sum)``, the card, suit, hidden (transposed), hidden
    bias, output and drawn-card weights and the pairs' weights (contiguous float64), the compiled sum of the pair
    products, the trees' leaf values (flat) and the compiled sum of the trees.  A card's score is
    ``mlp_score(wc, hw_t, hb, ow, x) + pair_sum(pw, x) + tree_sum(tv, x)`` (the order :func:`model_scores` sums in).
    """
    wc, ws, hw, hb, ow, dw = (np.ascontiguousarray(w, dtype=np.float64) for w in list(model.arrays().values())[:6])
    pw = np.ascontiguousarray(model.pair_weights, dtype=np.float64)
    pair_sum = pair_sum_function(model.pair_index)
    tv = np.ascontiguousarray(model.tree_value, dtype=np.float64).ravel()
    tree_sum = tree_sum_function(model.tree_feature, model.tree_threshold, model.tree_children)
    return wc, ws, np.ascontiguousarray(hw.T), hb, ow, dw, pw, pair_sum, tv, tree_sum


def make_decide(model: Any) -> Any:
    """The plug-in ``decide(kind, g, hand, hand_sizes, totals, drew_on) -> int`` of a
    :class:`~nines_sim.learn.model.Model`.

    Plays the legal card of highest score (the lowest face among equals), declares the suit of highest score,
    and plays the drawn card when its ``drawn_weights`` score is above 0 (a model without them: a drawn
    natural, a drawn 9 only with :data:`SHED_NINE_AT` cards or fewer left).  It never plays two 9s together
    (V4).
    """
    wc, ws, hw_t, hb, ow, dw, pw, pair_sum, tv, tree_sum = closed_weights(model)
    no_hw_t, no_units = np.zeros((NFC, 0)), np.zeros(0)

    def decide(kind, g, hand, hand_sizes, totals, drew_on):  # noqa: ANN001, ANN202 - numba-typed
        h0 = np.int64(hand[0])
        h1 = np.int64(hand[1])
        seat = g[G_SEAT]
        P = g[G_PLAYERS]
        dirbit = 1 if g[G_DIRECTION] < 0 else 0
        if kind == K_PLAY_DRAWN:
            f = g[G_CARD]
            nine = ((np.int64(1) << f) & I_NINES) != 0
            if dw.shape[0] == 0:
                return 1 if (not nine or hand_sizes[seat] - 1 <= SHED_NINE_AT) else 0
            s_after = (
                nine_suit_after(f, ws, h0, h1, g[G_PLAYED], hand_sizes, drew_on, P, seat, dirbit)
                if nine
                else face_suit(f)
            )
            fc = card_features(f, s_after, h0, h1, g[G_TOP], g[G_ACTIVE], g[G_PLAYED], hand_sizes, totals, drew_on,
                               P, seat, dirbit, g[G_NINE_PENALTY], g[G_STOCK])  # fmt: skip
            return 1 if mlp_score(dw, no_hw_t, no_units, no_units, fc) > 0.0 else 0
        if kind == K_DECLARE or kind == K_DEALER_DECLARE:
            return best_suit(ws, h0, h1, g[G_PLAYED], hand_sizes, drew_on, P, seat, dirbit)
        x = g[G_LEGAL]
        if (x & (x - 1)) == 0:  # one legal card: nothing to score
            return lowest_face(x)
        best, best_f = -np.inf, -1
        # the seats' sizes, totals and draws, and the hand's points, once for all the candidates
        ctx = seat_context(h0, h1, hand_sizes, totals, drew_on, P, seat, dirbit)
        nine_suit = -1  # the suit after any one 9 (suit_after)
        while x != 0:
            f = lowest_face(x)
            x &= x - 1
            s_after, nine_suit = suit_after(f, nine_suit, ws, h0, h1, g[G_PLAYED], ctx)
            fc = card_features_in(f, s_after, h0, h1, g[G_TOP], g[G_ACTIVE], g[G_PLAYED], ctx, g[G_NINE_PENALTY],
                                  g[G_STOCK])  # fmt: skip
            sc = mlp_score(wc, hw_t, hb, ow, fc) + pair_sum(pw, fc) + tree_sum(tv, fc)
            if sc > best:
                best, best_f = sc, f
        return best_f

    return decide


_DECIDERS: dict[str, Any] = {}
_PAIR_SUMS: dict[bytes, Any] = {}
#: Independent sums of the pair products (:func:`pair_sum_function`).
PAIR_LANES = 4


def _compiled(code: str, name: str, uuid: str) -> Any:
    """The function ``name`` of ``code`` (Python written here), compiled to be inlined into the decision, with a
    stable ``uuid``: numba's disk cache keys the decision by its closure, this function among it, pickled with a
    random id; one from the function's constants instead lets a later process load the compiled decision, not
    compile it again."""
    from numba import njit

    namespace: dict[str, Any] = {}
    exec(code, namespace)  # noqa: S102 - the code is digits and names written here
    compiled = njit(inline="always", error_model="numpy")(namespace[name])
    compiled._set_uuid(uuid)
    return compiled


def pair_sum_function(pairs: np.ndarray) -> Any:
    """A compiled ``pair_sum(pw, x) -> float``: ``sum_k pw[k] * (x[i_k] * x[j_k])`` over the features ``x``
    (a tuple) for the pairs ``(i_k, j_k)`` of ``pairs`` (int64 (K, 2)), pair ``k`` summed into lane ``k % 4``
    from 0, the lanes added as ``(l0 + l1) + (l2 + l3)`` (as :func:`model_scores`).

    The indices are written into its code: each is an item of the tuple known when compiling, where an index
    read from an array at run time costs numba a switch over the tuple's items at every read; the four lanes
    are independent sums, where one would wait for each addition in turn (together, a ``learned`` table with
    40 pairs plays at 0.33 of ``expert``'s speed instead of 0.21 with an indexed, single sum).
    """
    key = np.ascontiguousarray(pairs, dtype=np.int64).tobytes()
    if key not in _PAIR_SUMS:
        body = "".join(f"    s{k % PAIR_LANES} += pw[{k}] * (x[{i}] * x[{j}])\n"
                       for k, (i, j) in enumerate(pairs.tolist()))  # fmt: skip
        code = f"def pair_sum(pw, x):\n    s0 = s1 = s2 = s3 = 0.0\n{body}    return (s0 + s1) + (s2 + s3)\n"
        _PAIR_SUMS[key] = _compiled(code, "pair_sum", f"nines-learned-pairs-{hashlib.sha256(key).hexdigest()[:32]}")
    return _PAIR_SUMS[key]


_TREE_SUMS: dict[bytes, Any] = {}


def tree_sum_function(feature: np.ndarray, threshold: np.ndarray, children: np.ndarray) -> Any:
    """A compiled ``tree_sum(tv, x) -> float``: the sum over the trees (:class:`~nines_sim.learn.model.Model`'s
    ``tree_*``, T trees of N nodes) of the value of the leaf each reaches from the features ``x`` (a tuple),
    ``tv[t * N + n]`` of leaf ``n`` of tree ``t``, summed in the trees' order from 0.0 (as :func:`model_scores`).

    The trees are written into its code as nested ``if x[i] <= threshold:`` with the indices and thresholds
    (``repr``: the same float64) as constants, as the pairs' indices are (:func:`pair_sum_function`); the
    leaves' values are read from ``tv``.  No trees: 0.0.
    """
    feature = np.ascontiguousarray(feature, dtype=np.int64)
    threshold = np.ascontiguousarray(threshold, dtype=np.float64)
    children = np.ascontiguousarray(children, dtype=np.int64)
    key = b"".join(a.tobytes() for a in (feature, threshold, children)) + repr(feature.shape).encode()
    if key not in _TREE_SUMS:
        N = feature.shape[1] if feature.ndim == 2 else 0
        lines = ["def tree_sum(tv, x):", "    t = 0.0"]

        def node(tree: int, n: int, indent: str) -> None:
            i = int(feature[tree, n])
            if i < 0:
                lines.append(f"{indent}t += tv[{tree * N + n}]")
                return
            lines.append(f"{indent}if x[{i}] <= {float(threshold[tree, n])!r}:")
            node(tree, int(children[tree, n, 0]), indent + "    ")
            lines.append(f"{indent}else:")
            node(tree, int(children[tree, n, 1]), indent + "    ")

        for tree in range(feature.shape[0]):
            node(tree, 0, "    ")
        code = "\n".join([*lines, "    return t", ""])
        _TREE_SUMS[key] = _compiled(code, "tree_sum", f"nines-learned-trees-{hashlib.sha256(key).hexdigest()[:32]}")
    return _TREE_SUMS[key]


def decide_for(model: Any) -> Any:
    """:func:`make_decide` of a :class:`~nines_sim.learn.model.Model`, one function per set of weights (the
    compiled forms are cached by the function)."""
    if model.digest not in _DECIDERS:
        _DECIDERS[model.digest] = make_decide(model)
    return _DECIDERS[model.digest]


def observation_arrays(obs: Any) -> dict[str, np.ndarray]:
    """The arrays of a batch :class:`~nines_sim.strategy.base.Observation` that the features read (int64)."""
    n = obs.n
    return {
        "h0": obs.hand[0].view(np.int64),
        "h1": obs.hand[1].view(np.int64) if len(obs.hand) == 2 else np.zeros(n, dtype=np.int64),
        "top": obs.top.astype(np.int64),
        "active": obs.active_suit.astype(np.int64),
        "played": obs.played.view(np.int64),
        "sizes": np.ascontiguousarray(obs.hand_sizes, dtype=np.int64),
        "totals": np.ascontiguousarray(obs.totals, dtype=np.int64),
        "drew_on": np.ascontiguousarray(obs.drew_on, dtype=np.int64),
        "seat": obs.seat.astype(np.int64),
        "dirbit": (obs.direction < 0).astype(np.int64),
        "stock": obs.stock_size.astype(np.int64),
    }


def candidate_rows(legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(game, face) of every legal face of a batch of play decisions (games in order, faces ascending)."""
    bits = (legal[:, None] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)
    return np.nonzero(bits)


def suit_weights_seen(model_suit_weights: np.ndarray) -> np.ndarray:
    """The suit weights as the compiled features read them: float64 (NFS,), contiguous and read-only, as the
    compiled decision holds its weights (a constant of its closure).  A writable array would make numba compile
    the suit choice once more for it (``nine_suit_after``, ``best_suit_in``), in every process that trains."""
    ws = np.ascontiguousarray(model_suit_weights, dtype=np.float64).view()
    ws.flags.writeable = False
    return ws


def candidate_features(model_suit_weights: np.ndarray, obs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features of every legal card of a batch of play decisions: ``(game, face, features)``, the features
    float64 (m, NFC) (:func:`nines_sim.learn.features.batch_card_features`)."""
    from nines_sim.learn.features import batch_card_features

    a = observation_arrays(obs)
    game, face = candidate_rows(obs.legal)
    x = batch_card_features(
        suit_weights_seen(model_suit_weights), face.astype(np.int64), a["h0"][game],
        a["h1"][game], a["top"][game], a["active"][game], a["played"][game], a["sizes"][game], a["totals"][game],
        a["drew_on"][game], a["seat"][game], a["dirbit"][game], obs.nine_penalty, a["stock"][game],
    )  # fmt: skip
    return game, face, x


def drawn_features(model_suit_weights: np.ndarray, obs: Any, card: np.ndarray) -> np.ndarray:
    """Features of playing each game's drawn card (T4), as a card to play: float64 (n, NFC)."""
    from nines_sim.learn.features import batch_card_features

    a = observation_arrays(obs)
    return batch_card_features(
        suit_weights_seen(model_suit_weights), card.astype(np.int64), a["h0"], a["h1"],
        a["top"], a["active"], a["played"], a["sizes"], a["totals"], a["drew_on"], a["seat"], a["dirbit"],
        obs.nine_penalty, a["stock"],
    )  # fmt: skip


def drawn_plays(model: Any, obs: Any, card: np.ndarray) -> np.ndarray:
    """Whether ``model`` plays each game's drawn card, decided in Python over the batch as the compiled
    decision decides it: bool (n,)."""
    if model.drawn_weights.shape[0]:
        return linear_scores(drawn_features(model.suit_weights, obs, card), model.drawn_weights) > 0.0
    own = obs.hand_sizes[np.arange(obs.n), obs.seat]
    return (card % 13 != 8) | (own - 1 <= SHED_NINE_AT)


def linear_scores(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``x @ w`` summed feature by feature in order, as the compiled decision sums (the same float64 result)."""
    out = np.zeros(x.shape[:-1])
    for i in range(w.shape[0]):
        out = out + w[i] * x[..., i]
    return out


def batch_scores(model: Any, obs: Any) -> np.ndarray:
    """Each legal card's score under ``model`` for a batch of play decisions: float64 (n, 52), -inf elsewhere."""
    game, face, x = candidate_features(model.suit_weights, obs)
    out = np.full((obs.n, 52), -np.inf)
    out[game, face] = model_scores(model, x)
    return out


def model_scores(model: Any, x: np.ndarray) -> np.ndarray:
    """The card scores of features ``x`` (float64 (m, NFC)) under ``model``, summed in the order of the compiled
    :func:`~nines_sim.learn.features.mlp_score` (the same float64 results): float64 (m,)."""
    out = linear_scores(x, model.card_weights)
    for j in range(model.hidden_bias.shape[0]):
        a = np.full(x.shape[0], model.hidden_bias[j])
        for i in range(x.shape[1]):
            a = a + model.hidden_weights[j, i] * x[:, i]
        out = np.where(a > 0.0, out + model.out_weights[j] * a, out)
    lanes = [np.zeros(x.shape[0]) for _ in range(PAIR_LANES)]
    for k, (i, j) in enumerate(model.pair_index):
        lanes[k % PAIR_LANES] = lanes[k % PAIR_LANES] + model.pair_weights[k] * (x[:, i] * x[:, j])
    out = out + ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
    if model.tree_value.size:  # (the compiled decision adds 0.0 for none: the same comparisons)
        out = out + tree_scores(model, x)
    return out


def tree_leaves(model: Any, x: np.ndarray) -> np.ndarray:
    """The leaf each row of features ``x`` (float64 (m, NFC)) reaches in each of the model's trees: int64 (m, T)."""
    feat, thr, kids = model.tree_feature, model.tree_threshold, model.tree_children
    T = feat.shape[0]
    rows = np.arange(x.shape[0])
    at = np.zeros((x.shape[0], T), dtype=np.int64)
    for t in range(T):
        n = at[:, t]
        while True:
            i = feat[t, n]
            split = i >= 0
            if not split.any():
                break
            left = x[rows, np.maximum(i, 0)] <= thr[t, n]
            n = np.where(split, np.where(left, kids[t, n, 0], kids[t, n, 1]), n)
        at[:, t] = n
    return at


def tree_scores(model: Any, x: np.ndarray) -> np.ndarray:
    """The sum of the model's trees' leaves for features ``x`` (float64 (m, NFC)), tree by tree from 0.0 as the
    compiled :func:`tree_sum_function` sums: float64 (m,)."""
    at = tree_leaves(model, x)
    total = np.zeros(x.shape[0])
    for t in range(at.shape[1]):
        total = total + model.tree_value[t, at[:, t]]
    return total
