"""Training data from the engine's own play: positions met by a behaviour policy, each candidate move valued by
rollouts.

A :class:`Collector` sits at every seat of self-play matches.  At each decision of a labelled share of its games
with two or more candidates (a card to play, a suit to declare), it samples the hidden cards as the search
players do (:func:`nines_sim.search.sampler.sample_positions`, from the seat's own observation), plays every
candidate out to the hand's end on the compiled engine with a rollout policy (the current model, or ``expert``
to start), and keeps each candidate's features with its mean value (opponents' mean hand penalty minus its own,
the same samples for every candidate).  Then it plays the current model's move, or with probability ``epsilon``
a uniformly random legal card (exploration), so that the positions are those the model meets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nines_sim.learn.decide import (
    candidate_features,
    drawn_features,
    drawn_plays,
    linear_scores,
    model_scores,
    observation_arrays,
)
from nines_sim.learn.features import NFC, NFS, batch_suit_features
from nines_sim.learn.model import Model
from nines_sim.strategy.base import Observation, Strategy

#: The decisions labelled: the card to play, the suit to declare, the drawn card to play or keep.
KINDS = ("card", "suit", "drawn")
#: The same decisions labelled by their returns (:mod:`nines_sim.learn.returns`): x = [move's features,
#: candidates' mean], one row a decision.
RETURN_KINDS = tuple(f"{k}_ret" for k in KINDS)
#: What a training run labels with (``nines train --targets``): rollouts of every candidate, the realised
#: returns of the moves made, or both.
TARGETS = ("rollouts", "returns", "mixed")
#: How the rollouts' sampled worlds read the seats' draws (``nines train --draws``): the suits each drew on this
#: hand (lacked for the rest of it), or the draw log (:func:`~nines_sim.search.sampler.log_weights`: a card
#: lacked at a draw weighed by the cards drawn since, as ``lookahead:draws=log`` samples).
LABEL_DRAWS = ("suits", "log")
#: Salts of the decision's random stream (0..63) that exploration and labelling draw on.
_EXPLORE_SALT, _LABEL_SALT, _PICK_SALT = 40, 41, 42


def uniform(words: np.ndarray) -> np.ndarray:
    """uint64 random words as floats in [0, 1)."""
    return (words >> np.uint64(11)).astype(np.float64) / float(1 << 53)


@dataclass
class Samples:
    """Labelled candidates: features, value and decision group of each.

    Attributes
    ----------
    card_x, suit_x : list of numpy.ndarray
        float64 (m, NFC) / (m, NFS) blocks.
    card_y, suit_y : list of numpy.ndarray
        float64 (m,): each candidate's mean rollout value minus the mean over its decision's candidates.
    card_g, suit_g : list of numpy.ndarray
        int64 (m,): the decision each candidate belongs to (numbered in order of collection).
    drawn_x, drawn_y, drawn_g : list of numpy.ndarray
        float64 (m, NFC), float64 (m,), int64 (m,): a drawn card's features as a card to play, the mean value of
        playing it minus that of keeping it (T4), and its decision.
    card_ret_x, suit_ret_x, drawn_ret_x, ... : list of numpy.ndarray
        The same decisions labelled by returns (:data:`RETURN_KINDS`, :mod:`nines_sim.learn.returns`): float32
        (m, 2F) the move's features and the candidates' mean (a drawn card's candidates: keeping it, all zeros,
        and playing it), float64 (m,) the hand's outcome for the seat, int64 (m,) the decision.
    hand_key : list of numpy.ndarray
        uint64 (groups,): each decision's hand (the public decision key of its match and hand,
        ``Observation.public("dkey")``), rollout-labelled and returns alike, what :meth:`canonical` orders by;
        empty once loaded from a file.
    """

    card_x: list = field(default_factory=list)
    card_y: list = field(default_factory=list)
    card_g: list = field(default_factory=list)
    suit_x: list = field(default_factory=list)
    suit_y: list = field(default_factory=list)
    suit_g: list = field(default_factory=list)
    drawn_x: list = field(default_factory=list)
    drawn_y: list = field(default_factory=list)
    drawn_g: list = field(default_factory=list)
    card_ret_x: list = field(default_factory=list)
    card_ret_y: list = field(default_factory=list)
    card_ret_g: list = field(default_factory=list)
    suit_ret_x: list = field(default_factory=list)
    suit_ret_y: list = field(default_factory=list)
    suit_ret_g: list = field(default_factory=list)
    drawn_ret_x: list = field(default_factory=list)
    drawn_ret_y: list = field(default_factory=list)
    drawn_ret_g: list = field(default_factory=list)
    groups: int = 0
    hand_key: list = field(default_factory=list)

    def add(self, which: str, x: np.ndarray, q: np.ndarray, ok: np.ndarray, hand_key: np.ndarray) -> None:
        """Candidates ``x`` (n, C, F) with values ``q`` (n, C) where ``ok`` (n, C), of decisions in the hands
        ``hand_key`` (n,)."""
        n = q.shape[0]
        self.hand_key.append(np.asarray(hand_key, dtype=np.uint64))
        centred = q - np.where(ok, q, 0.0).sum(axis=1, keepdims=True) / ok.sum(axis=1, keepdims=True)
        g = np.broadcast_to(self.groups + np.arange(n)[:, None], ok.shape)
        getattr(self, f"{which}_x").append(x[ok])
        getattr(self, f"{which}_y").append(centred[ok])
        getattr(self, f"{which}_g").append(g[ok])
        self.groups += n

    def add_drawn(self, x: np.ndarray, advantage: np.ndarray, hand_key: np.ndarray) -> None:
        """Drawn cards' features ``x`` (n, NFC) and the value of playing each over keeping it (n,), of decisions
        in the hands ``hand_key`` (n,)."""
        n = advantage.shape[0]
        self.hand_key.append(np.asarray(hand_key, dtype=np.uint64))
        self.drawn_x.append(x)
        self.drawn_y.append(advantage)
        self.drawn_g.append(self.groups + np.arange(n))
        self.groups += n

    def add_returns(self, kind: str, x: np.ndarray, y: np.ndarray, hand_key: np.ndarray) -> None:
        """Decisions of ``kind`` labelled by returns: ``x`` float32 (n, 2F), ``y`` float64 (n,), of decisions in
        the hands ``hand_key`` (n,)."""
        n = y.shape[0]
        self.hand_key.append(np.asarray(hand_key, dtype=np.uint64))
        getattr(self, f"{kind}_ret_x").append(x)
        getattr(self, f"{kind}_ret_y").append(y)
        getattr(self, f"{kind}_ret_g").append(self.groups + np.arange(n))
        self.groups += n

    def save(self, path: Path) -> None:
        """Write the labelled candidates to ``path`` (``.npz``, uncompressed: the floats exactly)."""
        arrays = {f"{w}_{k}": np.asarray(self.arrays(w)[i]) for w in KINDS + RETURN_KINDS for i, k in enumerate("xyg")}
        tmp = path.with_suffix(".part")
        with tmp.open("wb") as fh:
            np.savez(fh, groups=np.int64(self.groups), **arrays)
        tmp.replace(path)  # a run stopped while writing leaves no half file under the real name

    @classmethod
    def load(cls, path: Path) -> Samples:
        """The labelled candidates :meth:`save` wrote."""
        with np.load(path) as f:
            return cls(*([f[f"{w}_{k}"]] for w in KINDS + RETURN_KINDS for k in "xyg"), groups=int(f["groups"]))

    @classmethod
    def merged(cls, parts: list[Samples]) -> Samples:
        """The candidates of ``parts`` (collected on disjoint matches) as one, in :meth:`canonical` order: the
        same arrays however the matches were split among them."""
        out = cls(groups=sum(p.groups for p in parts), hand_key=[k for p in parts for k in p.hand_key])
        offsets = np.cumsum([0] + [p.groups for p in parts])
        for which in KINDS + RETURN_KINDS:
            for k in "xyg":
                blocks = [p.arrays(which)["xyg".index(k)] for p in parts]
                if k == "g":
                    blocks = [b + o for b, o in zip(blocks, offsets, strict=False)]
                getattr(out, f"{which}_{k}").append(np.concatenate(blocks))
        return out.canonical()

    def canonical(self) -> Samples:
        """The same candidates ordered by their decision's hand key, each hand's decisions in the order they were
        met (a hand is played in order), decisions numbered in that order: the arrays of a set of matches do not
        depend on which other matches shared the engine's batch, on the batch size or on how the matches were
        cut into units of work (``nines train --workers``, ``--scheduler``).  The decisions labelled by returns
        are numbered after the rollout-labelled ones, kind by kind (:data:`RETURN_KINDS`), each kind's by hand
        key and turn, as one collection labels them (:meth:`~nines_sim.learn.returns.ReturnLog.label`).

        Raises
        ------
        ValueError
            If a decision has no hand key (data loaded from a file, which is stored canonical).
        """
        keys = np.concatenate(self.hand_key) if self.hand_key else np.zeros(0, dtype=np.uint64)
        if keys.shape[0] != self.groups:
            raise ValueError(f"{self.groups} decisions but {keys.shape[0]} hand keys: the order is not known")
        block = np.zeros(self.groups, dtype=np.int64)  # 0: rollout labels, then each kind of returns
        for i, which in enumerate(RETURN_KINDS, start=1):
            block[self.arrays(which)[2]] = i
        order = np.lexsort((keys, block))  # stable: a hand's decisions of one block stay in the order met
        rank = np.empty(self.groups, dtype=np.int64)
        rank[order] = np.arange(self.groups)
        out = Samples(groups=self.groups, hand_key=[keys[order]])
        for which in KINDS + RETURN_KINDS:
            x, y, g = self.arrays(which)
            g = rank[g]
            rows = np.argsort(g, kind="stable")  # a decision's candidates stay in their order
            for k, a in zip("xyg", (x, y, g), strict=True):
                getattr(out, f"{which}_{k}").append(a[rows])
        return out

    def arrays(self, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, y, group) of ``"card"``, ``"suit"`` or ``"drawn"`` candidates (or of their ``_ret`` returns),
        concatenated."""
        ret = which.endswith("_ret")
        nf = (NFS if which.startswith("suit") else NFC) * (2 if ret else 1)
        xs, ys, gs = (getattr(self, f"{which}_{k}") for k in "xyg")
        if not xs:  # of the dtype the rows have, so that a unit without any does not change a merge's dtype
            return np.zeros((0, nf), dtype=np.float32 if ret else np.float64), np.zeros(0), np.zeros(0, dtype=np.int64)
        return np.concatenate(xs), np.concatenate(ys), np.concatenate(gs)


class Collector(Strategy):
    """The behaviour policy of training, labelling the decisions it meets (see the module docstring).

    Parameters
    ----------
    model : Model or None
        The current model; None plays ``expert``'s moves (the first round).
    rollout : Strategy
        The compiled strategy that plays every seat of the rollouts.
    samples : int
        Sampled worlds per labelled decision.
    epsilon : float
        Share of card plays made uniformly at random among the legal cards.
    label_share : float
        Share of decisions with two or more candidates that are labelled.
    targets : str
        One of :data:`TARGETS`: ``"rollouts"`` labels candidates by rollouts; ``"returns"`` plays without
        rollouts and logs each explored decision's move (:attr:`log`) for its hand's outcome, exploring the suit
        to declare too; ``"mixed"`` does both.
    draws : str
        One of :data:`LABEL_DRAWS`: how the rollouts' sampled worlds read the seats' draws.
    """

    name = "collector"
    classifier = {"stochastic": True, "uses_public_history": True, "plays_pair_of_nines": False}

    def __init__(self, model: Model | None, rollout: Strategy, samples: int, epsilon: float,
                 label_share: float, targets: str = "rollouts", draws: str = "suits") -> None:  # fmt: skip
        super().__init__()
        from nines_sim.learn.returns import ReturnLog
        from nines_sim.strategies.expert import Expert

        self.rollouts = targets != "returns"
        #: The decisions awaiting their hands' outcomes (None: no returns are labelled).
        self.log = ReturnLog() if targets != "rollouts" else None

        self.model = model
        self._expert = Expert()
        self.rollout, self.samples, self.epsilon, self.label_share = rollout, samples, epsilon, label_share
        self.draws = draws
        self.data = Samples()
        #: Decisions labelled, and rollouts played for them.
        self.labelled = 0

    def _suit_weights(self) -> np.ndarray:
        from nines_sim.learn.features import SUIT_FEATURES

        if self.model is not None:
            return self.model.suit_weights
        w = np.zeros(NFS)  # the first round's 9s: the suit held most (expert's declaration, near enough)
        w[SUIT_FEATURES.index("held")] = 1.0
        return w

    def _values(self, obs: Observation, moves: np.ndarray, card: np.ndarray | None = None) -> np.ndarray:
        from nines_sim.learn.compile_ahead import sampler_ready
        from nines_sim.search.pimc import sample_values
        from nines_sim.search.sampler import sample_positions

        sampler_ready()  # a first run's sampler building in a second process: loaded from the cache once built
        worlds = sample_positions(obs, self.samples, 0, 1.0, self.draws)
        v = sample_values(obs, worlds, moves, self.rollout, "hand", card)
        self.labelled += obs.n
        return np.where(moves >= 0, np.nan_to_num(v).mean(axis=2), 0.0)

    def _to_label(self, obs: Observation, many: np.ndarray) -> np.ndarray:
        return np.flatnonzero(many & (uniform(obs.random(_LABEL_SALT)) < self.label_share))

    def play(self, obs: Observation) -> np.ndarray:
        game, face, x = candidate_features(self._suit_weights(), obs)
        n = obs.n
        count = np.bincount(game, minlength=n)
        C = max(int(count.max()), 1)
        slot = np.arange(game.size) - np.repeat(np.cumsum(count) - count, count)
        moves = np.full((n, C), -1, dtype=np.int64)
        moves[game, slot] = face
        feats = np.zeros((n, C, NFC))
        feats[game, slot] = x
        if self.model is None:
            choice = self._expert.play(obs)
        else:
            score = np.full((n, C), -np.inf)
            score[game, slot] = model_scores(self.model, x)
            choice = moves[np.arange(n), np.argmax(score, axis=1)]
        explore = uniform(obs.random(_EXPLORE_SALT)) < self.epsilon
        pick = (uniform(obs.random(_PICK_SALT)) * count).astype(np.int64)
        choice = np.where(explore & (count > 0), moves[np.arange(n), np.minimum(pick, C - 1)], choice)
        if self.log is not None:  # a move explored: one the position did not choose, so its return is unbiased
            many = np.flatnonzero((count > 1) & explore)
            made = feats[many, np.argmax(moves[many] == choice[many, None], axis=1)]
            self.log.add("card", obs, many, made, feats[many].sum(axis=1) / count[many, None])
        rows = self._to_label(obs, count > 1) if self.rollouts else np.zeros(0, dtype=np.int64)
        if rows.size:
            sub = obs.subset(rows)
            q = self._values(sub, moves[rows])
            self.data.add("card", feats[rows], q, moves[rows] >= 0, sub.public("dkey"))
        return choice

    def declare(self, obs: Observation) -> np.ndarray:
        a = observation_arrays(obs)
        x = batch_suit_features(a["h0"], a["h1"], a["played"], a["sizes"], a["drew_on"], a["seat"], a["dirbit"])
        if self.model is None:
            choice = self._expert.declare(obs)
        else:
            choice = np.argmax(linear_scores(x, self.model.suit_weights), axis=1)
        own = obs.hand_sizes[np.arange(obs.n), obs.seat]
        if self.log is not None:  # returns see one suit a decision: the others only by exploring them
            explore = uniform(obs.random(_EXPLORE_SALT)) < self.epsilon
            choice = np.where(explore, (uniform(obs.random(_PICK_SALT)) * 4).astype(np.int64), choice)
            live = np.flatnonzero((own > 0) & explore)
            self.log.add("suit", obs, live, x[live, choice[live]], x[live].mean(axis=1))
        rows = self._to_label(obs, own > 0) if self.rollouts else np.zeros(0, dtype=np.int64)  # own 0: hand over
        if rows.size:
            moves = np.tile(np.arange(4, dtype=np.int64), (rows.size, 1))
            q = self._values(obs.subset(rows), moves)
            self.data.add("suit", x[rows], q, np.ones((rows.size, 4), dtype=bool), obs.public("dkey")[rows])
        return choice

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        if self.model is None:
            choice = self._expert.play_drawn(obs, card).astype(bool)
        else:
            choice = drawn_plays(self.model, obs, card)
        explore = uniform(obs.random(_EXPLORE_SALT)) < self.epsilon
        choice = np.where(explore, uniform(obs.random(_PICK_SALT)) < 0.5, choice)
        if self.log is not None:  # the candidates: keep it (no features) or play it
            tried = np.flatnonzero(explore)
            x = drawn_features(self._suit_weights(), obs.subset(tried), card[tried])
            self.log.add("drawn", obs, tried, x * choice[tried, None], x / 2.0)
        rows = self._to_label(obs, np.ones(obs.n, dtype=bool)) if self.rollouts else np.zeros(0, dtype=np.int64)
        if rows.size:
            sub = obs.subset(rows)
            q = self._values(sub, np.tile(np.arange(2, dtype=np.int64), (rows.size, 1)), card[rows])
            self.data.add_drawn(
                drawn_features(self._suit_weights(), sub, card[rows]), q[:, 1] - q[:, 0], sub.public("dkey")
            )
        return choice


def rollout_strategy(model: Any) -> Strategy:
    """The compiled strategy that plays the rollouts: ``expert`` before any model, else ``learned`` on it."""
    from nines_sim.strategy.registry import make_lineup

    if model is None:
        return make_lineup(["expert"])[0]
    return make_lineup([f"learned@{model}"])[0]
