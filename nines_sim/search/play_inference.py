"""Inference from plays: weigh sampled worlds by how likely the opponent's observed plays were in them.

A search player sees, between two of its own decisions of one hand, what the
opponent did: heads-up, when nobody drew in between and the opponent holds one
card fewer, the opponent played the card now on top from the position the
player left (that top card and active suit), and, for a 9, declared the suit now
active (T1, T3).  :class:`PlayMemory` keeps those plays per hand (keyed by the
hand's decision key), and :func:`play_weights` gives each sampled world the
product, over the hand's recorded plays, of ``1`` where a model of the
opponent's play (``expert`` by default: the lineup is not shown to a strategy)
makes the same play from the opponent's hand in that world, and ``1 - infer``
(at least 0.001) where it does not.  The opponent's hand at an earlier play is
its hand in the world plus the cards it has played since (exact while it has
not drawn: a play whose evidence a later draw would blur is forgotten, the draw
itself being evidence for the draw inference, :func:`nines_sim.search.sampler.hand_weights`).

:func:`resample` then keeps ``K`` of ``F * K`` sampled worlds per game in
proportion to their weights (systematic resampling on the decision's random
stream), so the search plays its rollouts on worlds that agree with what the
opponent did, as policy-based inference does in Skat (Rebstock et al. 2019).
A game with no recorded play keeps its first ``K`` worlds: exactly the samples
of the search without this inference.

Limits: heads-up tables with one deck only (at more seats the order and the
positions of the plays between two own decisions are not public in an
:class:`~nines_sim.strategy.base.Observation`; with two decks a face's copies are
not told apart); the model's random tie-breaks use the opponent's decision
stream of the turn before the player's, the real one when no turn was skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nines_sim.engine.position import PositionBatch
from nines_sim.game.cards import FACE_SUIT, NINE_RANK
from nines_sim.strategy.base import DecisionKind, Observation, PublicState, Strategy

ONE = np.uint64(1)
#: Stream salt of the resampling draw (one per search round ``r``: ``RESAMPLE_SALT + r``).
RESAMPLE_SALT = 20
#: Hands remembered at most; the oldest are forgotten beyond this (a long run's memory stays bounded).
MAX_HANDS = 1 << 14


@dataclass
class ObservedPlay:
    """One observed play of the opponent: the public row before it, the card, the declared suit."""

    row: dict[str, np.ndarray]
    card: int
    suit: int  # -1 for a natural card
    later: int = 0  # bitmask: the cards the opponent played from this play on, this one included
    #: The row's fields a compiled likelihood reads, packed once (:func:`nines_sim.search.play_likelihood.packed`).
    packed: np.ndarray | None = field(default=None, repr=False)


@dataclass
class _Hand:
    """What one player remembers of one hand."""

    after: tuple | None = None  # (top, active, opponent's cards, stock size) right after the own last move
    turn: int = -1  # the turn of the own last decision (a later one at a smaller turn: a new run, start again)
    played: int = 0  # the faces played this hand by then (a later decision must see them all)
    plays: list[ObservedPlay] = field(default_factory=list)


class PlayMemory:
    """The opponent's observed plays of each hand in progress, for one search player (heads-up, one deck).

    Feed it every decision: :meth:`observe` before deciding a play, then :meth:`after_play`,
    :meth:`after_declare` or :meth:`after_play_drawn` with the move made.  The memory of a game depends only
    on that game's own decisions, so it is the same in any batch or process.
    """

    def __init__(self) -> None:
        self._hands: dict[int, _Hand] = {}

    @staticmethod
    def applies(obs: Observation) -> bool:
        """Whether plays are recorded at this table: heads-up, one deck."""
        return obs.players == 2 and obs.rules.decks == 1

    def _hand(self, key: int, turn: int, played: int) -> _Hand:
        """The memory of a hand at the own decision of ``turn``: fresh if none, or if it comes from a turn
        not before this one (the same hand played again, e.g. the same seed run twice by one player)."""
        h = self._hands.get(key)
        if h is not None and (h.turn > turn or h.played & ~played):
            h = None
        if h is None:
            if len(self._hands) >= MAX_HANDS:
                self._hands.pop(next(iter(self._hands)))
            h = self._hands[key] = _Hand()
        h.turn = turn
        h.played = played
        return h

    def observe(self, obs: Observation) -> None:
        """Record, per game, the opponent's play since the own last move where it is identified."""
        if not self.applies(obs):
            return
        keys = obs.public("dkey")
        opp = 1 - obs.seat
        sizes = obs.hand_sizes[np.arange(obs.n), opp]
        stock, top, active, turn = obs.stock_size, obs.top, obs.active_suit, obs.public("turn")
        played = obs.played
        rows = None
        for i in range(obs.n):
            h = self._hand(int(keys[i]), int(turn[i]), int(played[i]))
            if h.after is None:
                h.plays.clear()
                continue
            t0, a0, n0, s0 = h.after
            h.after = None
            if not (stock[i] == s0 and sizes[i] == n0 - 1 and t0 >= 0 and a0 >= 0 and top[i] != t0):
                h.plays.clear()  # a draw, or several moves: the hands of earlier plays are no longer known
                continue
            if rows is None:
                rows = {name: obs.public(name) for name in PublicState.ARRAYS}
            row = {name: v[i].copy() for name, v in rows.items()}
            card = int(top[i])
            row["top"] = np.int64(t0)
            row["active"] = np.int64(a0)
            row["ncards"][opp[i]] += 1
            row["played"] = row["played"] & ~(ONE << np.uint64(card))
            row["turn"] = np.int64(max(int(turn[i]) - 1, 0))
            suit = int(active[i]) if card % 13 == NINE_RANK else -1
            bit = int(ONE << np.uint64(card))
            for p in h.plays:
                p.later |= bit
            h.plays.append(ObservedPlay(row, card, suit, bit))

    def _after(self, obs: Observation, top: np.ndarray, active: np.ndarray) -> None:
        if not self.applies(obs):
            return
        keys = obs.public("dkey")
        opp = 1 - obs.seat
        sizes = obs.hand_sizes[np.arange(obs.n), opp]
        stock, turn, played = obs.stock_size, obs.public("turn"), obs.played
        for i in range(obs.n):
            self._hand(int(keys[i]), int(turn[i]), int(played[i])).after = (
                int(top[i]),
                int(active[i]),
                int(sizes[i]),
                int(stock[i]),
            )

    def after_play(self, obs: Observation, faces: np.ndarray) -> None:
        """The own play ``faces`` (int64, (n,)); a 9's suit comes with :meth:`after_declare`."""
        faces = np.asarray(faces, dtype=np.int64)
        ok = (faces >= 0) & (faces < 52)
        suit = np.where(ok & (faces % 13 != NINE_RANK), FACE_SUIT[np.clip(faces, 0, 51)], -1)
        self._after(obs, np.where(ok, faces, -1), suit)

    def after_declare(self, obs: Observation, suits: np.ndarray) -> None:
        """The suit declared after the own 9 (the top card is the 9)."""
        if not self.applies(obs):
            return
        keys = obs.public("dkey")
        for i in range(obs.n):
            h = self._hands.get(int(keys[i]))
            if h is not None and h.after is not None:
                t0, _, n0, s0 = h.after
                h.after = (t0, int(suits[i]), n0, s0)

    def after_play_drawn(self, obs: Observation, card: np.ndarray, play: np.ndarray) -> None:
        """Whether the drawn ``card`` was played; kept: the top card and suit stay as they were."""
        card = np.asarray(card, dtype=np.int64)
        top = np.where(play, card, obs.top)
        suit = np.where(play, np.where(card % 13 == NINE_RANK, -1, FACE_SUIT[card]), obs.active_suit)
        self._after(obs, top, suit)

    def plays(self, obs: Observation) -> list[list[ObservedPlay]]:
        """The recorded plays of each game of a decision (empty where none, or not heads-up)."""
        if not self.applies(obs):
            return [[] for _ in range(obs.n)]
        keys, turn, played = obs.public("dkey"), obs.public("turn"), obs.played
        return [list(self._hand(int(keys[i]), int(turn[i]), int(played[i])).plays) for i in range(obs.n)]


def play_weights(obs: Observation, worlds: PositionBatch, plays: list[list[ObservedPlay]], model: Strategy,
                 infer: float) -> np.ndarray:  # fmt: skip
    """Each world's weight: the product over its game's recorded plays of the model's agreement.

    Parameters
    ----------
    obs : Observation
        The decision, ``n`` games (heads-up, one deck).
    worlds : PositionBatch
        ``n * M`` sampled positions, game-major.
    plays : list of list
        Per game, the opponent's recorded plays (:meth:`PlayMemory.plays`).
    model : Strategy
        How the opponent is taken to play (its ``play`` and ``declare``).
    infer : float
        0..1: a play the model would not make weighs ``1 - infer`` (at least 0.001).

    Returns
    -------
    numpy.ndarray
        float64, (n * M,): 1 where every recorded play is the model's, smaller where some are not.
    """
    weight = np.ones(worlds.n)
    rec = recorded(obs, worlds, plays) if infer > 0 else None
    if rec is None:
        return weight
    miss = max(1.0 - infer, 1e-3)
    agree = (rec.legal & (ONE << rec.card.astype(np.uint64))) != 0
    if agree.any():
        agree &= model.play(rec.obs) == rec.card
    nine = rec.suit >= 0
    if nine.any() and agree[nine].any():
        sel = np.flatnonzero(nine & agree)
        agree[sel] &= model.declare(rec.declare(sel)) == rec.suit[sel]
    factor = np.where(agree, 1.0, miss)
    np.multiply.at(weight, rec.world, factor)
    return weight


@dataclass
class Recorded:
    """Every recorded play of the opponent in every sampled world of its game, as one batch of play decisions.

    Attributes
    ----------
    world : numpy.ndarray
        int64, (E,): the world of each entry (a row of the sampled batch).
    obs : Observation
        The opponent's play decisions, as they were in that world: its hand then (the world's hand and the cards it
        played since) and the public state before the play.
    legal, card, suit : numpy.ndarray
        uint64, int64, int64, (E,): the legal cards then, the card played, the suit declared after it (-1: none).
    """

    world: np.ndarray
    obs: Observation
    legal: np.ndarray
    card: np.ndarray
    suit: np.ndarray

    def declare(self, sel: np.ndarray) -> Observation:
        """The declarations after the 9s of entries ``sel``: the hand less the 9 played."""
        o = self.obs
        rest = o.hand[0][sel] & ~(ONE << self.card[sel].astype(np.uint64))
        return Observation(o._pub, o._idx[sel], o.seat[sel], DecisionKind.DECLARE, [rest])


def recorded(obs: Observation, worlds: PositionBatch, plays: list[list[ObservedPlay]]) -> Recorded | None:
    """The recorded plays of ``plays`` in every world of their game (None where no game has one)."""
    n = obs.n
    M = worlds.n // n
    games = [g for g in range(n) if plays[g]]
    if not games:
        return None
    opp_hands = worlds.arrays["hands"][0]  # type: ignore[index]
    rec_rows, rec_world, rec_card, rec_suit, rec_later, rec_opp = [], [], [], [], [], []
    for g in games:
        opp = 1 - int(obs.seat[g])
        for p in plays[g]:
            rec_rows.append(p)
            rec_world.append(np.arange(g * M, (g + 1) * M))
            rec_card.append(p.card)
            rec_suit.append(p.suit)
            rec_later.append(p.later)
            rec_opp.append(opp)
    E = len(rec_rows)
    world = np.concatenate(rec_world)
    ev = np.repeat(np.arange(E), M)
    opp = np.asarray(rec_opp, dtype=np.int64)[ev]
    card = np.asarray(rec_card, dtype=np.int64)[ev]
    suit = np.asarray(rec_suit, dtype=np.int64)[ev]
    hand = opp_hands[world, opp] | np.asarray(rec_later, dtype=np.uint64)[ev]
    arrays = {name: np.stack([r.row[name] for r in rec_rows])[ev] for name in PublicState.ARRAYS}
    pub = obs._pub
    state = PublicState(pub.rules, pub.legal_tab, None, **arrays)
    idx = np.arange(ev.size)
    legal = hand & pub.legal_tab[arrays["top"] * 4 + arrays["active"]]
    o = Observation(state, idx, opp, DecisionKind.PLAY, [hand], legal)
    return Recorded(world, o, legal, card, suit)


def resample(obs: Observation, weight: np.ndarray, K: int, salt: int) -> np.ndarray:
    """``K`` rows per game out of ``M`` weighted ones (systematic resampling on the decision's stream).

    Parameters
    ----------
    obs : Observation
        The decision, ``n`` games.
    weight : numpy.ndarray
        float64, (n * M,), game-major; a game whose weights are all 1 keeps its first ``K`` rows.
    K : int
        Rows kept per game (``K <= M``).
    salt : int
        The decision stream's salt for the draw (0..63).

    Returns
    -------
    numpy.ndarray
        int64, (n * K,): rows into the ``n * M`` worlds, game-major, in increasing order within a game.
    """
    n = obs.n
    M = weight.size // n
    w = weight.reshape(n, M)
    u = (obs.random(salt) >> np.uint64(11)).astype(np.float64) / 9007199254740992.0  # uniform in [0, 1)
    cdf = np.cumsum(w, axis=1)
    cdf /= cdf[:, -1:]
    pts = (u[:, None] + np.arange(K)[None, :]) / K
    pick = np.minimum((cdf[:, None, :] <= pts[:, :, None]).sum(axis=2), M - 1)
    plain = (w == 1.0).all(axis=1)
    pick[plain] = np.arange(K)
    return (np.arange(n)[:, None] * M + pick).ravel().astype(np.int64)
