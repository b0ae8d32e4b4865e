"""Self-play Monte-Carlo returns as targets (``nines train --targets returns``): each move labelled with the hand's
realised outcome, DouZero-style.

Where the rollout labels (:mod:`nines_sim.learn.collect`) value every candidate of a decision by playing each
out on sampled worlds, a return costs nothing beyond the self-play match itself: a move the behaviour policy
made at random (its ``epsilon`` exploration: a card, a suit after a 9, playing or keeping a drawn card) is
labelled with what its hand then came to for the deciding seat, the opponents' mean hand penalty minus its own
(S1), as the rollout labels value a hand.  One label a decision, and a noisy one (the whole rest of the hand,
the deal's luck included), so a round plays many more matches for them.  Only explored moves are labelled: a
move the model chose goes with positions that were good or bad in ways a linear baseline does not take out,
and its weights learned that instead (labelling every move made, heads-up classic reached 0.586 against
``expert`` and then lost strength round after round; explored moves alone did not).

A :class:`ReturnLog` keeps, for each explored decision, the features of the move made and the mean features of the
decision's candidates (its *baseline* features: they describe the position, not the move), with the decision's
hand key and turn.  Once the matches are played, :meth:`ReturnLog.label` looks up each hand's penalties in the
engine's hand records by that key and writes the rows into :class:`~nines_sim.learn.collect.Samples`.  The fit
(:func:`fit_joint`) regresses the return on the move's features (and pair products) beside a linear baseline of
the position's: the move's weights are the card scorer's, the baseline's soak up how good the hand was anyway.
Rollout labels, where a run has them too (``--targets mixed``), enter the same least-squares solve as centred
rows with no baseline.
"""

from __future__ import annotations

import numpy as np

from nines_sim.game import rng

#: Engine batch of a collection that labels by returns alone: no rollouts wait on it, so a large batch spreads
#: each Python decision's overhead over more games (results do not depend on it: rows are sorted by key).
RETURNS_BATCH = 4096
#: Rows at most of the pair selection on returns (every n-th decision): a return is one noisy sample, so the
#: selection needs more rows than :data:`~nines_sim.learn.fit.PAIR_ROWS` of rollout labels.
RETURN_PAIR_ROWS = 100_000
#: Rows of the design accumulated at a time into the normal equations (bounds the fit's memory).
CHUNK = 200_000


class ReturnLog:
    """The decisions of one collection, each with its move's and its candidates' mean features, awaiting the
    hand's outcome (see the module docstring).  ``kind``: ``"card"``, ``"suit"`` or ``"drawn"``."""

    def __init__(self) -> None:
        self.parts: dict[str, list[tuple[np.ndarray, ...]]] = {"card": [], "suit": [], "drawn": []}

    def add(self, kind: str, obs: object, rows: np.ndarray, made: np.ndarray, mean: np.ndarray) -> None:
        """Decisions ``rows`` of the observation ``obs``: the move made's features ``made`` and the candidates'
        mean ``mean`` (float64 (len(rows), F) each)."""
        if not rows.size:
            return
        key = obs.public("dkey")[rows].view(np.uint64)  # type: ignore[attr-defined]
        turn = obs.public("turn")[rows].astype(np.int64)  # type: ignore[attr-defined]
        seat = obs.seat[rows].astype(np.int64)  # type: ignore[attr-defined]
        self.parts[kind].append((key, turn, seat, made.astype(np.float32), mean.astype(np.float32)))

    def label(self, samples: object, hands: object, seed: int, players: int) -> int:
        """Add every logged decision of a regular hand to ``samples`` with its return; the decisions labelled.

        Parameters
        ----------
        samples : Samples
            Receives ``<kind>_ret`` rows: x float32 (m, 2F) = [move's features, candidates' mean], y float64 (m,)
            the return, g the decision.
        hands : HandRecords
            The collection's hand records (match, hand, penalty per seat).
        seed : int
            The collection's seed (the hand keys are chained from its decision root).
        players : int
        """
        penalty = np.asarray(hands.penalty, dtype=np.float64)  # type: ignore[attr-defined]
        mk = rng.match_keys(rng.roots(seed)[1], np.asarray(hands.match, dtype=np.int64))  # type: ignore[attr-defined]
        hk = rng.hand_keys(mk, np.asarray(hands.hand, dtype=np.int64))  # type: ignore[attr-defined]
        order = np.argsort(hk, kind="stable")
        hk = hk[order]
        # the return of each seat: the others' mean hand penalty minus its own (a regular hand: every seat in it)
        value = ((penalty.sum(axis=1, keepdims=True) - penalty) / max(players - 1, 1) - penalty)[order]
        labelled = 0
        for kind, parts in self.parts.items():
            if not parts:
                continue
            key, turn, seat, made, mean = (np.concatenate(c) for c in zip(*parts, strict=True))
            at = np.minimum(np.searchsorted(hk, key), hk.size - 1) if hk.size else np.zeros(key.size, np.int64)
            found = hk[at] == key if hk.size else np.zeros(key.size, dtype=bool)  # tie-break hands have no record
            keep = np.flatnonzero(found)
            keep = keep[np.lexsort((turn[keep], key[keep]))]  # in key order: the same rows for any batch size
            y = value[at[keep], seat[keep]]
            x = np.concatenate([made[keep], mean[keep]], axis=1)
            samples.add_returns(kind, x, y, key[keep])  # type: ignore[attr-defined]
            labelled += keep.size
        self.parts = {k: [] for k in self.parts}
        return labelled


def returns_design(xr: np.ndarray, pairs: np.ndarray, nf: int) -> np.ndarray:
    """The design rows of returns ``xr`` (float32 (m, 2F): the move's features, the candidates' mean): the move's
    features, its ``pairs``' products (int64 (K, 2)) and the baseline features, float64 (m, F + K + F)."""
    made = xr[:, :nf].astype(np.float64)
    base = xr[:, nf:].astype(np.float64)
    return np.concatenate([made, made[:, pairs[:, 0]] * made[:, pairs[:, 1]], base], axis=1)


def fit_joint(ranked: tuple[np.ndarray, np.ndarray] | None, xr: np.ndarray, yr: np.ndarray, pairs: np.ndarray,
              nf: int, ridge: float) -> np.ndarray:  # fmt: skip
    """Ridge least squares over rollout-labelled rows and returns together: the move's weights (F + K,).

    Each source is weighted by the inverse of its own fit's residual variance (a return, one play of the rest of
    the hand, is far noisier than a mean of rollouts), so that many noisy returns do not drown fewer, better
    labels; a source alone is an ordinary ridge fit.

    Parameters
    ----------
    ranked : tuple or None
        ``(design, y)`` of rollout labels: float64 (m1, F + K) centred within their decisions (the ranker's rows,
        :func:`~nines_sim.learn.fit.fit_ranker`), and their centred values; they carry no baseline.
    xr, yr : numpy.ndarray
        Returns: float32 (m2, 2F) as :class:`ReturnLog` writes, and float64 (m2,).
    pairs : numpy.ndarray
        int64 (K, 2): the pair products of the move's features in the design.
    nf : int
        F.
    ridge : float
        The penalty on the squared weights, per row.
    """
    width = nf + pairs.shape[0]
    n = width + nf
    blocks = []  # (gram, moments, sum of squared targets, rows) of each source, over the n columns
    if ranked is not None and ranked[0].shape[0]:
        d, y = ranked
        a, b = np.zeros((n, n)), np.zeros(n)
        a[:width, :width], b[:width] = d.T @ d, d.T @ y
        blocks.append((a, b, float(y @ y), d.shape[0]))
    if xr.shape[0]:
        a, b = np.zeros((n, n)), np.zeros(n)
        for lo in range(0, xr.shape[0], CHUNK):
            d = returns_design(xr[lo : lo + CHUNK], pairs, nf)
            a += d.T @ d
            b += d.T @ yr[lo : lo + CHUNK]
        blocks.append((a, b, float(yr @ yr), xr.shape[0]))
    if not blocks:
        return np.zeros(width)
    weights = [1.0]
    if len(blocks) == 2:  # each source by the inverse of its own residual variance, the rollouts' as the unit
        var = []
        for a, b, yy, m in blocks:
            w = np.linalg.solve(a + ridge * m * np.eye(n), b)
            var.append(max(yy - 2 * w @ b + w @ a @ w, 1e-12) / m)
        weights = [1.0, var[0] / var[1]]
    a = sum(c * blk[0] for c, blk in zip(weights, blocks, strict=False))
    b = sum(c * blk[1] for c, blk in zip(weights, blocks, strict=False))
    rows = sum(c * blk[3] for c, blk in zip(weights, blocks, strict=False))
    return np.linalg.solve(a + ridge * rows * np.eye(n), b)[:width]


def select_return_pairs(xr: np.ndarray, y: np.ndarray, g: np.ndarray, k: int, nf: int) -> np.ndarray:
    """The ``k`` pair products of the move's features that best add to the returns' fit, chosen by orthogonal
    matching pursuit as :func:`~nines_sim.learn.fit.select_pairs` chooses them from rollout labels, here with
    the baseline features beside the move's (every n-th decision ``g``, at most :data:`RETURN_PAIR_ROWS`; the
    columns and the returns centred, as an intercept): int64 (k', 2), k' <= k."""
    from nines_sim.learn.fit import all_pairs, pursue

    every = all_pairs(nf)
    step = max(1, -(-xr.shape[0] // RETURN_PAIR_ROWS))
    rows = g % step == 0
    if k <= 0 or not rows.any():
        return np.zeros((0, 2), dtype=np.int64)
    sub = xr[rows]
    design = np.empty((sub.shape[0], 2 * nf + every.shape[0]))  # filled in place: it is the fit's largest array
    design[:, : 2 * nf] = sub
    np.multiply(design[:, every[:, 0]], design[:, every[:, 1]], out=design[:, 2 * nf :])
    design -= design.mean(axis=0)
    return every[pursue(design, y[rows] - y[rows].mean(), 2 * nf, k)]


def fit_with_returns(data: dict, pairs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A model's weights from rollout labels and returns together (either may be empty): ``(card_weights,
    pair_index, pair_weights, suit_weights, drawn_weights)``.

    ``data[kind]`` is ``(x, y, g)`` of the kinds of :data:`~nines_sim.learn.collect.KINDS` and their ``_ret``
    twins.  The pairs are chosen on the rollout labels where there are any (as a run of rollout labels alone
    chooses them), else on the returns.
    """
    from nines_sim.learn.features import NFC, NFS
    from nines_sim.learn.fit import RIDGE, centred_within, pair_products, select_pairs

    x, y, g = data["card"]
    xr, yr, gr = data["card_ret"]
    chosen = select_pairs(x, y, g, pairs) if x.shape[0] else select_return_pairs(xr, yr, gr, pairs, NFC)
    full = np.concatenate([x, pair_products(x, chosen)], axis=1)
    w = fit_joint((centred_within(full, g), y) if x.shape[0] else None, xr, yr, chosen, NFC, RIDGE)
    sx, sy, sg = data["suit"]
    ws = fit_joint((centred_within(sx, sg), sy) if sx.shape[0] else None, data["suit_ret"][0], data["suit_ret"][1],
                   np.zeros((0, 2), dtype=np.int64), NFS, RIDGE)  # fmt: skip
    dx, dy, _ = data["drawn"]
    xd, yd, _ = data["drawn_ret"]
    dw = np.zeros(0)
    if dx.shape[0] or xd.shape[0]:  # the drawn card's rows are its value of playing over keeping: not centred
        dw = fit_joint((dx, dy) if dx.shape[0] else None, xd, yd, np.zeros((0, 2), dtype=np.int64), NFC, RIDGE)
    return w[:NFC], chosen, w[NFC:], ws, dw
