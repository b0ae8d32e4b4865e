"""A second search level for close decisions: the player's own next choice searched too, not left to the policy.

Plain determinized search (:mod:`nines_sim.search.pimc`) values a move by rollouts in which every later
decision, the searching player's own included, is the rollout policy's. A move whose worth lies in a good
later choice (a 9 whose value is in the right suit, a face that sets up a switch) is then valued as the
policy would follow it up: policy bias. Refinement re-values the best few candidates of a close decision
by rollouts in which the player's own next decision with a choice is made by a search of its own
(:class:`SearchNextDecision`: a ``lookahead`` with fewer samples, sampling the hidden cards from what the
player would see there, so it never plays on cards it could not see); every later decision is the
policy's. Cowling, Powley and Whitehouse (2012) name the two faults of determinized search; this is the
nested remedy for the one a policy rollout commits.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nines_sim.engine.position import PositionBatch
from nines_sim.search.pimc import candidates, sample_values
from nines_sim.strategy.base import DecisionKind, Observation, Strategy

#: Salt of the sampled worlds of a refinement (independent of the first level's rounds, salts 0..5).
REFINE_SALT = 17


class SearchNextDecision(Strategy):
    """The searching player's seat in a refinement's rollouts: its first decision with a choice in each
    rollout is made by ``inner`` (a search player), every other decision by ``policy``.

    A rollout is known by its decision key (``dkey``, independent per sampled world); the declaration that
    follows a 9 that ``inner`` chose in the same turn is ``inner``'s too, so a 9 is valued with its best suit.

    Parameters
    ----------
    inner : Strategy
        The search that makes the first decision (a :class:`~nines_sim.strategies.lookahead.Lookahead`).
    policy : Strategy
        The rollout policy, for every later decision (the Python class of a compiled built-in: the same moves).
    """

    name = "search-next-decision"
    classifier = {"stochastic": True, "uses_public_history": True, "plays_pair_of_nines": True,
                  "sees_hidden_cards": False}  # fmt: skip

    def __init__(self, inner: Strategy, policy: Strategy) -> None:
        super().__init__()
        self._inner = inner
        self._policy = policy
        #: dkey of each rollout -> the turn in which ``inner`` decided there.
        self._searched: dict[int, int] = {}

    def _route(self, obs: Observation, choice: np.ndarray, follows: bool) -> np.ndarray:
        """Rows ``inner`` decides: a first choice in its rollout (``choice``), or (``follows``) the same turn's."""
        keys = obs.public("dkey").tolist()
        turns = obs.public("turn").tolist()
        mine = np.zeros(obs.n, dtype=bool)
        for i, (k, t) in enumerate(zip(keys, turns, strict=True)):
            at = self._searched.get(k)
            if at is None and choice[i]:
                self._searched[k] = t
                mine[i] = True
            elif follows and at == t:
                mine[i] = True
        return mine

    def _split(self, obs: Observation, mine: np.ndarray, ask: Callable[[Strategy, Observation, np.ndarray], np.ndarray],
               dtype: type = np.int64) -> np.ndarray:  # fmt: skip
        """Each row's answer from ``inner`` where ``mine``, else from the policy: ``ask(who, sub, rows)``."""
        out = np.empty(obs.n, dtype=dtype)
        for who, rows in ((self._inner, np.flatnonzero(mine)), (self._policy, np.flatnonzero(~mine))):
            if rows.size:
                out[rows] = ask(who, obs.subset(rows), rows)
        return out

    def play(self, obs: Observation) -> np.ndarray:
        choice = (candidates(obs) >= 0).sum(axis=1) > 1
        return self._split(obs, self._route(obs, choice, False), lambda s, o, _: s.play(o))

    def declare(self, obs: Observation) -> np.ndarray:
        choice = obs.hand_sizes[np.arange(obs.n), obs.seat] > 0
        if obs.kind == DecisionKind.DEALER_DECLARE:
            choice = np.ones(obs.n, dtype=bool)
        return self._split(obs, self._route(obs, choice, True), lambda s, o, _: s.declare(o))

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        mine = self._route(obs, np.ones(obs.n, dtype=bool), False)
        return self._split(obs, mine, lambda s, o, rows: s.play_drawn(o, card[rows]), dtype=bool)


def refine(
    obs: Observation,
    moves: np.ndarray,
    score: np.ndarray,
    chosen: np.ndarray,
    worlds: Callable[[Observation, int, np.ndarray], PositionBatch],
    policy: Strategy,
    inner: Callable[[], Strategy],
    top: int,
    samples: int,
    gap: float,
    z: float = 0.0,
    outcome: str = "hand",
    card: np.ndarray | None = None,
    pair: np.ndarray | None = None,
) -> np.ndarray:
    """Re-choose the close decisions among their ``top`` best candidates, the own next decision searched.

    Parameters
    ----------
    obs : Observation
        The decision, ``n`` games.
    moves, score : numpy.ndarray
        int64 and float64, (n, C): the candidates and their first-level scores (-inf: out).
    chosen : numpy.ndarray
        int64, (n,): the first level's choice, kept where the decision is not close.
    worlds : callable
        ``worlds(sub, samples, rows) -> PositionBatch``: ``samples`` worlds of each game ``rows`` of ``obs``.
    policy : Strategy
        Every seat's rollout policy, and the player's after its searched decision.
    inner : callable
        Builds the search of the player's next decision (a fresh one per rollout batch).
    top : int
        Candidates re-valued per close game (at least 2).
    samples : int
        Worlds per candidate.
    gap : float
        Points: a game is close where its runner-up scores within ``gap`` of its best.
    z : float
        Standard errors of the paired difference (over the same worlds) by which a re-valued candidate must
        beat the first level's choice to replace it: a few re-valued worlds must not overturn many.
    outcome, card, pair
        As for :func:`nines_sim.search.pimc.evaluate`.

    Returns
    -------
    numpy.ndarray
        int64, (n,): the choice: where the game was close, the best re-valued candidate if it clearly
        beats the first level's choice (``z``), else that choice.
    """
    order = np.argsort(-score, axis=1, kind="stable")
    ranked = np.take_along_axis(score, order, axis=1)
    if ranked.shape[1] < 2:
        return chosen
    close = np.flatnonzero(np.isfinite(ranked[:, 1]) & (ranked[:, 0] - ranked[:, 1] < gap))
    if not close.size:
        return chosen
    k = min(top, moves.shape[1])
    cand = np.take_along_axis(moves[close], order[close, :k], axis=1)
    cand = np.where(np.isfinite(ranked[close, :k]), cand, -1)
    sub = obs.subset(close)
    batch = worlds(sub, samples, close)
    values = np.full((close.size, k, samples), np.nan)
    for seat in np.unique(sub.seat).tolist():
        g = np.flatnonzero(sub.seat == seat)
        part = sub.subset(g)
        rows = (g[:, None] * samples + np.arange(samples)[None, :]).ravel()
        for c in range(k):  # one rollout batch per candidate: its rollouts' decision keys are distinct
            lineup = [policy] * obs.players
            lineup[seat] = SearchNextDecision(inner(), policy)
            values[g, c : c + 1] = sample_values(
                part, batch.take(rows), cand[g, c : c + 1], policy, outcome,
                None if card is None else card[close][g], None if pair is None else pair[close][g], lineup=lineup,
            )  # fmt: skip
    return _switch(cand, values, chosen[close], z, chosen, close)


def _switch(cand: np.ndarray, values: np.ndarray, first: np.ndarray, z: float, chosen: np.ndarray,
            close: np.ndarray) -> np.ndarray:  # fmt: skip
    """``chosen`` with each close game's choice moved to its best re-valued candidate where that beats the first
    level's choice by more than ``z`` standard errors of their paired difference (the same worlds)."""
    m, k, S = values.shape
    at = np.argmax(cand == first[:, None], axis=1)  # the first level's choice among the re-valued
    diff = values - values[np.arange(m), at][:, None, :]
    gain = np.where(cand >= 0, diff.mean(axis=2), -np.inf)
    se = diff.std(axis=2, ddof=1) / np.sqrt(S) if S > 1 else np.zeros((m, k))
    best = np.argmax(gain, axis=1)
    rows = np.arange(m)
    switch = gain[rows, best] > z * se[rows, best]
    out = chosen.copy()
    out[close[switch]] = cand[rows[switch], best[switch]]
    return out
