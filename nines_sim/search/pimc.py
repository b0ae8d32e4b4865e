"""Determinized search (Perfect Information Monte Carlo) on the batch engine.

For each decision: sample ``K`` complete positions consistent with what the
player sees (:mod:`nines_sim.search.sampler`), and for every candidate move play each
sample out with a rollout policy on the engine (:func:`nines_sim.engine.positions.play_out`);
keep the move with the best mean outcome.  Every game, sample and candidate of
a decision goes through the engine as one batch of positions.  The same samples
and the same rollout keys serve every candidate (common random numbers), so the
comparison between moves is much sharper than each estimate alone.

Applying a candidate is the engine's work: each candidate enters the compiled
turn loop as the seat's answer to the decision its position stands at
(:class:`nines_sim.engine.positions.Moves`), and the loop plays it by the same
code as every run (a 9 and its suit: the 9 played, then the suit declared).  The
suit declared after two 9s played together (V4) is searched with the next seat
skipped, as the engine plays it; the strategy says which declarations follow a
pair (``pair``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nines_sim.engine.moves import Moves
from nines_sim.engine.position import PositionBatch
from nines_sim.game.cards import NINE_RANK
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind, Observation, Strategy
from nines_sim.strategy.registry import ALIASES

#: Rows (positions) played out together at most; bigger decisions are cut by games.
MAX_ROWS = 1 << 15
#: A 9 searched together with the suit it declares (``nines="with-suit"``): move ``NINE_SUIT + 4 * face + suit``.
NINE_SUIT = 1 << 10
#: Standard errors by which a 9 with a suit must beat the plain 9 (the policy's suit) to stay a candidate.
NINE_SUIT_Z = 2.0


@dataclass(frozen=True)
class Estimate:
    """Outcome estimates of each candidate move, per game.

    Attributes
    ----------
    moves : numpy.ndarray
        int64, (n, C): candidate moves (faces, :data:`PAIR_OF_NINES`, suits, or 1/0 for
        playing a drawn card or not); -1 where a game has fewer candidates.
    mean, se : numpy.ndarray
        float64, (n, C): mean outcome over the samples and its standard error
        (higher is better: opponents' mean hand penalty minus the own, or the
        match win share); -inf and 0 where there is no candidate.
    """

    moves: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    #: float64, (n, C, K): each sample's outcome (nan where there is no candidate).
    values: np.ndarray | None = None


@dataclass(frozen=True)
class Leaf:
    """Rollouts cut short: ``depth`` turns after the candidate's, a hand still running is scored by ``value``.

    Attributes
    ----------
    value : object
        ``value.of(state, rows, seat) -> float64 (len(rows),)``: the hand's value for ``seat`` (one per row) at
        rows ``rows`` of a slot state, from that seat's observation (:class:`nines_sim.learn.value.LeafValue`).
    depth : int
        Turns played after the candidate's before the stop (0: the value scores the position the move leaves).
    """

    value: Any
    depth: int


def candidates(obs: Observation, card: np.ndarray | None = None, nine_suits: bool | str = False) -> np.ndarray:
    """The candidate moves of each game of a decision.

    ``nine_suits``: each legal 9 that is not the seat's last card is four candidates of ``play``,
    the 9 with each suit it may declare (T3), coded ``NINE_SUIT + 4 * face + suit``; ``"clear"``:
    the plain 9 (its suit declared later) stays a candidate too.

    Returns
    -------
    numpy.ndarray
        int64, (n, C), padded with -1: the legal faces (and :data:`PAIR_OF_NINES`
        where legal, V4) for ``play``; suits 0..3 for a declaration; ``1, 0``
        (play it, keep it) for ``play_drawn``.
    """
    n = obs.n
    if obs.kind in (DecisionKind.DECLARE, DecisionKind.DEALER_DECLARE):
        return np.tile(np.arange(4, dtype=np.int64), (n, 1))
    if obs.kind == DecisionKind.PLAY_DRAWN:
        return np.tile(np.array([1, 0], dtype=np.int64), (n, 1))
    bits = ((obs.legal[:, None] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)) == 1
    faces = np.where(bits, np.arange(52), 99)
    faces.sort(axis=1)
    C = max(int(bits.sum(axis=1).max(initial=0)), 1)
    out = np.where(faces[:, :C] == 99, -1, faces[:, :C]).astype(np.int64)
    if nine_suits:
        nine = (out >= 0) & (out % 13 == NINE_RANK) & (obs.hand_sizes[np.arange(n), obs.seat] > 1)[:, None]
        if nine.any():
            with_suit = np.where(nine[:, :, None], NINE_SUIT + 4 * out[:, :, None] + np.arange(4), -1)
            rest = out if nine_suits == "clear" else np.where(nine, -1, out)
            both = np.concatenate([rest, with_suit.reshape(n, -1)], axis=1)
            key = np.where(both >= 0, 0, 1)  # the candidates first, in order; then the padding
            both = np.take_along_axis(both, np.argsort(key, axis=1, kind="stable"), axis=1)
            out = both[:, : int((both >= 0).sum(axis=1).max())]
    if obs.players and obs.rules.pair_of_nines:
        pl = obs.pair_legal
        if pl.any():
            out = np.concatenate([out, np.where(pl, PAIR_OF_NINES, -1)[:, None]], axis=1)
    return out


def engine_moves(kind: DecisionKind, moves: np.ndarray, card: np.ndarray | None = None,
                 pair: np.ndarray | None = None) -> Moves:  # fmt: skip
    """Candidate moves as the engine applies them (:class:`nines_sim.engine.positions.Moves`): a 9 with a
    suit (``NINE_SUIT + 4 * face + suit``) is the 9 played, then that suit declared (T3)."""
    if kind != DecisionKind.PLAY:
        return Moves(kind, moves, card=card, pair=pair)
    ns = moves >= NINE_SUIT
    if not ns.any():
        return Moves(kind, moves)
    return Moves(kind, np.where(ns, (moves - NINE_SUIT) // 4, moves), suit=np.where(ns, (moves - NINE_SUIT) % 4, -1))


def evaluate(
    obs: Observation,
    worlds: PositionBatch,
    moves: np.ndarray,
    policy: Strategy,
    outcome: str = "hand",
    card: np.ndarray | None = None,
    pair: np.ndarray | None = None,
    leaf: Leaf | None = None,
) -> Estimate:
    """Play every sampled world out after every candidate move.

    Parameters
    ----------
    obs : Observation
        The decision, ``n`` games.
    worlds : PositionBatch
        ``n * K`` positions, game-major (:func:`nines_sim.search.sampler.sample_positions`); one with a ``weight``
        attribute (float64 (n * K,), > 0: play inference's weighed worlds) counts each world's outcome in
        proportion to it in the means of the games whose worlds' weights differ (their standard errors those of
        a weighted mean).
    moves : numpy.ndarray
        int64, (n, C) from :func:`candidates`.
    policy : Strategy
        Plays every seat in the rollouts.
    outcome : {"hand", "match"}
        What a rollout scores: the hand (opponents' mean penalty minus the own)
        or the match (the own win share).
    card : numpy.ndarray, optional
        int64, (n,): the drawn card, for ``play_drawn``.
    pair : numpy.ndarray, optional
        bool, (n,): for ``declare``, the 9s were two played together (V4): the next seat is skipped.
    leaf : Leaf, optional
        Stop each rollout ``leaf.depth`` turns after the candidate's and score a hand still running there with
        ``leaf.value`` (``outcome="hand"`` only); none: every rollout plays to the hand's end.

    Returns
    -------
    Estimate
    """
    values = sample_values(obs, worlds, moves, policy, outcome, card, pair, leaf=leaf)
    n, C, K = values.shape
    ok = moves >= 0
    mean = np.full((n, C), -np.inf)
    se = np.zeros((n, C))
    mean[ok] = values[ok].mean(axis=1)
    se[ok] = values[ok].std(axis=1, ddof=1) / np.sqrt(K) if K > 1 else 0.0
    weight = getattr(worlds, "weight", None)
    if weight is not None:  # weighed worlds (infer_plays, play_worlds=weigh): the games whose weights differ
        w = weight.reshape(n, K)
        g = np.flatnonzero((w != w[:, :1]).any(axis=1))
        if g.size:
            p = w[g] / w[g].sum(axis=1, keepdims=True)
            m = np.einsum("gck,gk->gc", np.nan_to_num(values[g]), p)
            d = np.nan_to_num(values[g] - m[:, :, None])
            s = np.sqrt(np.einsum("gck,gk->gc", d * d, p * p))
            mean[g] = np.where(ok[g], m, -np.inf)
            se[g] = np.where(ok[g], s, 0.0)
    return Estimate(moves, mean, se, values)


def sample_values(
    obs: Observation,
    worlds: PositionBatch,
    moves: np.ndarray,
    policy: Strategy,
    outcome: str = "hand",
    card: np.ndarray | None = None,
    pair: np.ndarray | None = None,
    lineup: Sequence[Strategy] | None = None,
    leaf: Leaf | None = None,
) -> np.ndarray:
    """The outcome of every sampled world played out after every candidate move (parameters as :func:`evaluate`;
    ``lineup``, one strategy per seat, plays the rollouts instead of ``policy`` at every seat).

    Returns
    -------
    numpy.ndarray
        float64, (n, C, K): per game, candidate and sample (the same ``K`` worlds for every
        candidate of a game, common random numbers), the outcome; NaN where there is no candidate.
    """
    n, C = moves.shape
    K = worlds.n // n
    P = worlds.rules.players
    gg, cc = np.nonzero(moves >= 0)
    rows = (gg[:, None] * K + np.arange(K)[None, :]).ravel()
    batch = worlds.take(rows)
    mv = np.repeat(moves[gg, cc], K)
    own = np.repeat(obs.seat[gg], K)
    drawn = None if card is None else np.repeat(card[gg], K)
    from nines_sim.engine.positions import play_out

    first = engine_moves(obs.kind, mv, drawn, None if pair is None else np.repeat(pair[gg], K))
    n_in = batch.column("n_in").copy()
    seats = lineup or [policy] * P
    if leaf is not None:
        if outcome != "hand":
            raise ValueError("a leaf value scores hands: outcome='hand' only")
        from nines_sim.engine.positions import play_out_leaves

        # the candidate's turn, then ``depth`` more: a turn's powers are all applied before the stop
        stop = batch.column("turn") + 1 + leaf.depth
        pen, stopped, leaves = play_out_leaves(batch, seats, stop, moves=first, consume=True)
        share = None
    else:
        pen, share = play_out(batch, seats, to=outcome, consume=True, moves=first)
    r = np.arange(rows.shape[0])
    if outcome == "match":
        assert share is not None  # a play-out to the match's end gives the win shares
        value = share[r, own]
    else:
        value = ((pen.sum(axis=1) - pen[r, own]) / np.maximum(n_in - 1, 1) - pen[r, own]).astype(np.float64)
        if leaf is not None:
            cut = np.flatnonzero(stopped)
            value[cut] = leaf.value.of(leaves, cut, own[cut])
    out = np.full((n, C, K), np.nan)
    out[gg, cc] = value.reshape(-1, K)
    return out


def _nine_suits_clearly_better(est: Estimate, z: float = NINE_SUIT_Z) -> np.ndarray:
    """``est.mean`` with each 9-with-a-suit candidate that does not clearly beat its plain 9 set to -inf.

    The plain 9 is played with the rollout policy's suit; a 9 with a suit stays a candidate only where its
    paired advantage over the plain 9 (same samples and rollout streams) exceeds ``z`` standard errors:
    a maximum over four noisy suits alone would favour playing 9s.
    """
    mean = est.mean.copy()
    moves = est.moves
    values = est.values
    assert values is not None  # evaluate keeps every sample's outcome
    K = values.shape[2]
    for g, c in zip(*np.nonzero(moves >= NINE_SUIT), strict=True):
        plain = np.flatnonzero(moves[g] == (moves[g, c] - NINE_SUIT) // 4)
        if not plain.size or K < 2:
            continue
        d = values[g, c] - values[g, plain[0]]
        sd = d.std(ddof=1)
        if not d.mean() > z * sd / np.sqrt(K):
            mean[g, c] = -np.inf
    return mean


def choose(obs: Observation, est: Estimate) -> np.ndarray:
    """The candidate with the best mean per game; ties broken by the decision's random stream.

    Returns
    -------
    numpy.ndarray
        int64, (n,): the chosen entry of ``est.moves``.
    """
    best = est.mean.max(axis=1, keepdims=True)
    tied = est.mean == best
    r = obs.random_below(tied.sum(axis=1), salt=9)
    col = np.argmax(tied & (np.cumsum(tied, axis=1) == r[:, None] + 1), axis=1)
    return est.moves[np.arange(obs.n), col]


def search(
    obs: Observation,
    worlds_of: Callable[[Observation, int, np.ndarray, int], PositionBatch],
    samples: int,
    policy: Strategy,
    outcome: str,
    card: np.ndarray | None = None,
    rounds: int = 1,
    pair: np.ndarray | None = None,
    nine_suits: bool | str = False,
    refine: Callable[..., np.ndarray] | None = None,
    leaf: Leaf | None = None,
) -> np.ndarray:
    """Choose a move for each game of a decision by determinized search.

    Parameters
    ----------
    obs : Observation
    worlds_of : callable
        ``worlds_of(sub, samples, rows, salt) -> PositionBatch``: the sampled (or
        true) positions of the games ``rows`` (int64 indices into ``obs``), whose
        observation is ``sub``; ``salt`` picks an independent set.
    samples, policy, outcome, card, pair
        As for :func:`evaluate`.
    rounds : int
        1: every candidate gets ``samples`` rollouts.  More: successive halving;
        after each round only the better half of the candidates (at least two)
        goes on, with ``samples`` fresh rollouts each, and the choice is made on
        all the rollouts a candidate got (samples go where the decision is close).
    nine_suits : bool or "clear"
        Search each 9 together with each suit it may declare (:func:`candidates`); ``"clear"``: the
        plain 9 too, and a 9 with a suit only counts where it clearly beats the plain 9
        (:data:`NINE_SUIT_Z` standard errors of the paired difference).
    refine : callable, optional
        ``refine(sub, moves, score, chosen, rows, card, pair) -> chosen``: a second look at the games ``rows``
        of ``obs`` (their observation ``sub``), given each candidate's score (-inf: out) and the choice made
        on it (:func:`nines_sim.search.refine.refine`).
    leaf : Leaf, optional
        Rollouts cut short and scored by a value (:func:`evaluate`); the second look plays them out.

    Returns
    -------
    numpy.ndarray
        int64, (n,): faces / suits, or 1/0 for ``play_drawn``; with ``nine_suits``, a 9 and
        its suit as ``NINE_SUIT + 4 * face + suit``.
    """
    moves = candidates(obs, card, nine_suits)
    n_cand = (moves >= 0).sum(axis=1)
    out = moves[:, 0].copy()
    todo = np.flatnonzero(n_cand > 1)
    if obs.kind == DecisionKind.DECLARE:  # a 9 that was the last card: the hand is over, any suit will do
        todo = todo[obs.hand_sizes[todo, obs.seat[todo]] > 0]
    if not todo.size:
        return out
    per = max(1, MAX_ROWS // (samples * moves.shape[1]))
    for lo in range(0, todo.size, per):
        sel = todo[lo : lo + per]
        sub = _subset(obs, sel)
        mv = moves[sel]
        drawn = None if card is None else card[sel]
        pr = None if pair is None else pair[sel]
        total = np.zeros(mv.shape)
        alive = mv >= 0
        for r in range(rounds):
            worlds = worlds_of(sub, samples, sel, r)
            est = evaluate(sub, worlds, np.where(alive, mv, -1), policy, outcome, drawn, pr, leaf)
            mean = _nine_suits_clearly_better(est) if nine_suits == "clear" else est.mean
            alive &= mean > -np.inf
            total += np.where(alive, mean, 0.0)
            if r == rounds - 1:
                break
            # keep the better half (at least two) of each game's candidates still in play
            score = np.where(alive, total, -np.inf)
            keep = np.maximum(2, -(-alive.sum(axis=1) // 2))
            rank = np.argsort(np.argsort(-score, axis=1, kind="stable"), axis=1)
            alive &= rank < keep[:, None]
        # every candidate alive at the end took part in every round: compare their summed means
        score = np.where(alive, total, -np.inf)
        out[sel] = choose(sub, Estimate(mv, score, np.zeros(mv.shape)))
        if refine is not None:
            out[sel] = refine(sub, mv, score, out[sel], sel, drawn, pr)
    return out


def _subset(obs: Observation, rows: np.ndarray) -> Observation:
    """An observation of some of the games of another."""
    return obs.subset(rows)


def policy_names() -> Sequence[str]:
    """Strategies a rollout may use: the built-ins that decide without searching."""
    from nines_sim.search.policies import POLICY_NAMES

    return POLICY_NAMES


#: ``tuned-expert``: ``expert`` at the values ``nines tune`` found for the classic rules
#: (docs/tuned/expert-classic.json), a stronger rollout policy (it plays compiled, as ``expert`` does); a name the
#: registry knows (:data:`nines_sim.strategy.registry.ALIASES`), so it is playable as a seat too.
TUNED_EXPERT = ALIASES["tuned-expert"]


def rollout_policy_names() -> Sequence[str]:
    """The rollout policies of the search players' ``policy`` setting: :func:`policy_names`, ``tuned-expert`` and
    ``learned`` (the model shipped for the rules and table size, :mod:`nines_sim.strategies.learned`)."""
    return (*policy_names(), "tuned-expert", "learned")


def rollout_policy(name: str) -> Strategy:
    """The strategy that a rollout policy name stands for (:func:`rollout_policy_names`).

    Raises
    ------
    nines_sim.strategy.registry.StrategyNotFound
        If ``name`` is no strategy.
    """
    from nines_sim.strategy.registry import make_lineup

    return make_lineup([name])[0]
