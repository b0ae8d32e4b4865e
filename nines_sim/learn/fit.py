"""The fits of a training round's model: the card ranker (linear, with chosen pair products, or a hidden layer),
boosted trees after it, and the drawn card's value, from labelled decisions (:mod:`nines_sim.learn.collect`,
:mod:`nines_sim.learn.returns`).
"""

from __future__ import annotations

import numpy as np

from nines_sim.learn.features import NFC

#: The ridge penalty per row of the linear fits (features are scaled to about 0-1).
RIDGE = 1e-3
#: Passes over the data of a hidden-layer fit (Adam; early stopping on a tenth held out).
MLP_EPOCHS = 100


def fit_ranker(x: np.ndarray, y: np.ndarray, g: np.ndarray, ridge: float) -> np.ndarray:
    """Weights ``w`` that rank each decision's candidates by value: ridge least squares on the candidates'
    features and values centred within their decision (a feature equal for every candidate of a decision
    tells nothing apart, and drops out).

    Parameters
    ----------
    x : numpy.ndarray
        float64 (m, F).
    y : numpy.ndarray
        float64 (m,), centred within decisions.
    g : numpy.ndarray
        int64 (m,): decision of each row.
    ridge : float
        The penalty on the squared weights, per row.

    Returns
    -------
    numpy.ndarray
        float64 (F,).
    """
    if not x.shape[0]:
        return np.zeros(x.shape[1])
    xc = centred_within(x, g)
    a = xc.T @ xc + ridge * x.shape[0] * np.eye(x.shape[1])
    return np.linalg.solve(a, xc.T @ y)


def fit_drawn(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Weights ``w`` whose dot product with a drawn card's features estimates the value of playing it over
    keeping it (ridge least squares; the ``bias`` feature carries the mean): float64 (NFC,), or (0,) with no
    data (``expert``'s rule then decides).

    Parameters
    ----------
    x : numpy.ndarray
        float64 (m, NFC).
    y : numpy.ndarray
        float64 (m,): the value of playing minus that of keeping.
    ridge : float
        The penalty on the squared weights, per row.
    """
    if not x.shape[0]:
        return np.zeros(0)
    return np.linalg.solve(x.T @ x + ridge * x.shape[0] * np.eye(x.shape[1]), x.T @ y)


#: Rows at most of the pair selection's fit (whole decisions, every k-th): its cost is rows x pairs squared.
PAIR_ROWS = 60_000


def pair_products(x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The products of the feature pairs ``pairs`` (int64 (K, 2)) of rows ``x`` (float64 (m, F)): (m, K)."""
    return x[:, pairs[:, 0]] * x[:, pairs[:, 1]]


def centred_within(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``x`` minus the mean of its decision's rows (``g``), row by row."""
    _, inv, cnt = np.unique(g, return_inverse=True, return_counts=True)
    means = np.zeros((cnt.size, x.shape[1]))
    np.add.at(means, inv, x)
    return x - (means / cnt[:, None])[inv]


def select_pairs(x: np.ndarray, y: np.ndarray, g: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` products of two features (a square among them) that best add to a linear card score, chosen by
    orthogonal matching pursuit (scikit-learn's ``orthogonal_mp_gram``, deterministic) on the values and the
    features and products, all centred within their decision and scaled to unit variance; from every n-th
    decision so that at most :data:`PAIR_ROWS` rows are used.

    Returns
    -------
    numpy.ndarray
        int64 (k', 2), k' <= k: the pairs' feature indices, in the order chosen; none with the constant
        ``bias`` (its products are the features themselves).
    """
    every = all_pairs(x.shape[1])
    step = max(1, -(-x.shape[0] // PAIR_ROWS))
    rows = g % step == 0
    if k <= 0 or not rows.any():
        return np.zeros((0, 2), dtype=np.int64)
    xs, gs = x[rows], g[rows]
    design = centred_within(np.concatenate([xs, pair_products(xs, every)], axis=1), gs)
    return every[pursue(design, centred_within(y[rows, None], gs)[:, 0], x.shape[1], k)]


def all_pairs(nf: int) -> np.ndarray:
    """Every product of two of ``nf`` features (a square among them), none with the constant ``bias``: int64
    (K, 2)."""
    iu = np.triu_indices(nf)
    keep = (iu[0] != 0) & (iu[1] != 0)
    return np.stack([iu[0][keep], iu[1][keep]], axis=1).astype(np.int64)


def pursue(design: np.ndarray, y: np.ndarray, lead: int, k: int) -> list[int]:
    """The indices (among the columns after the first ``lead``) of the ``k`` candidate columns of ``design``
    (float64 (m, lead + K), centred) that orthogonal matching pursuit picks beside the ``lead`` ones to fit
    ``y`` (centred), the columns scaled to unit variance; the largest coefficient first.  ``design`` is
    scaled in place."""
    from sklearn.linear_model import orthogonal_mp_gram

    scale = design.std(axis=0)
    scale[scale == 0] = 1.0  # a column equal within every decision tells nothing apart: never chosen
    design /= scale
    coef = orthogonal_mp_gram(design.T @ design, design.T @ y, n_nonzero_coefs=min(lead + k, design.shape[1]))
    chosen = [c - lead for c in np.flatnonzero(coef) if c >= lead]
    chosen.sort(key=lambda c: -abs(coef[lead + c]))
    return chosen[:k]


def fit_card_model(x: np.ndarray, y: np.ndarray, g: np.ndarray, hidden: int, seed: int,
                   pairs: int = 0) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The card model's weights: ``(card_weights, hidden_weights, hidden_bias, out_weights, pair_index,
    pair_weights)``.

    ``hidden`` = 0: the linear ranker of :func:`fit_ranker`, on the features and, with ``pairs`` > 0, that many
    products of two features chosen by :func:`select_pairs`.  Else a multilayer perceptron with one hidden
    layer of ``hidden`` rectified units (scikit-learn's ``MLPRegressor``, Adam, seeded by ``seed``) fitted to
    the candidates' values centred within their decision, its output bias put on the ``bias`` feature.
    """
    no_pairs = np.zeros((0, 2), dtype=np.int64), np.zeros(0)
    if hidden == 0:
        chosen = select_pairs(x, y, g, pairs)
        w = fit_ranker(np.concatenate([x, pair_products(x, chosen)], axis=1), y, g, RIDGE)
        return w[:NFC], np.zeros((0, NFC)), np.zeros(0), np.zeros(0), chosen, w[NFC:]
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor

    net = MLPRegressor(hidden_layer_sizes=(hidden,), alpha=1e-3, max_iter=MLP_EPOCHS, early_stopping=True,
                       random_state=seed)  # fmt: skip
    with warnings.catch_warnings():  # a fixed number of epochs is the budget, not a failure
        warnings.simplefilter("ignore", ConvergenceWarning)
        net.fit(x, y)
    linear = np.zeros(NFC)
    linear[0] = float(net.intercepts_[1][0])  # feature 0 is the constant 1
    return (linear, np.ascontiguousarray(net.coefs_[0].T), net.intercepts_[0].copy(), net.coefs_[1][:, 0].copy(),
            *no_pairs)  # fmt: skip


#: The shrinkage of each tree's leaves (:func:`fit_trees`) and the fewest candidates a leaf holds.
TREE_RATE, TREE_LEAF_ROWS = 0.7, 200


def fit_trees(x: np.ndarray, y: np.ndarray, g: np.ndarray, score: np.ndarray, trees: int, depth: int,
              seed: int) -> tuple[np.ndarray, ...]:  # fmt: skip
    """Regression trees boosted on what the card score ``score`` leaves of the values: ``(tree_feature,
    tree_threshold, tree_children, tree_value)`` of :class:`~nines_sim.learn.model.Model`, ``trees`` trees of at
    most ``depth`` levels.

    Gradient boosting of the squared error of the values centred within their decision (a candidate's score
    counts only against its decision's others): each tree is scikit-learn's ``DecisionTreeRegressor`` (seeded by
    ``seed``; at least :data:`TREE_LEAF_ROWS` candidates a leaf) fitted to the residuals, its predictions centred
    within each decision and taken off them at the rate :data:`TREE_RATE` (in the leaves' values).  On held-out
    labelled decisions of heads-up classic (the strategies page), 16 trees of depth 5 after the linear score and
    40 pairs raised the picked move's value from 1.287 to 1.329 points, as much as boosted trees alone (1.330).

    Parameters
    ----------
    x, y, g : numpy.ndarray
        The candidates' features float64 (m, NFC), values and decisions, as for :func:`fit_ranker`.
    score : numpy.ndarray
        float64 (m,): the card score before the trees.
    """
    from sklearn.tree import DecisionTreeRegressor

    resid = y - centred_within(score[:, None], g)[:, 0]
    fitted = []
    for t in range(trees):
        tree = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=TREE_LEAF_ROWS, random_state=seed + t)
        tree.fit(x, resid)
        resid -= TREE_RATE * centred_within(tree.predict(x)[:, None], g)[:, 0]
        fitted.append(tree.tree_)
    N = max(t.node_count for t in fitted)  # the largest tree's nodes; the others' padded with unreachable leaves
    feat = np.full((trees, N), -1, dtype=np.int64)
    thr = np.zeros((trees, N))
    kids = np.full((trees, N, 2), -1, dtype=np.int64)
    val = np.zeros((trees, N))
    for t, nodes in enumerate(fitted):
        n = nodes.node_count
        split = nodes.children_left[:n] >= 0
        feat[t, :n] = np.where(split, nodes.feature[:n], -1)
        thr[t, :n] = np.where(split, nodes.threshold[:n], 0.0)
        kids[t, :n, 0] = nodes.children_left[:n]
        kids[t, :n, 1] = nodes.children_right[:n]
        val[t, :n] = np.where(split, 0.0, TREE_RATE * nodes.value[:n, 0, 0])
    return feat, thr, kids, val
