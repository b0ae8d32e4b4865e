"""``lookahead`` and ``clairvoyant``: determinized search on the batch engine (see :mod:`nines_sim.search.pimc`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from nines_sim.search.pimc import NINE_SUIT, rollout_policy_names, search
from nines_sim.search.player import (  # noqa: F401 - also read from here
    COUNTS_SETTING,
    DEPTH_SETTING,
    DRAWS_SETTING,
    LEAF_SETTING,
    OVERSAMPLE,
    OVERSAMPLE_SETTING,
    PLAY_MODEL_SETTING,
    PLAY_TEMP_SETTING,
    PLAY_WORLDS_SETTING,
    SampledSearch,
    SettingError,
    settings_params,
)
from nines_sim.strategy.base import DecisionKind, Observation

if TYPE_CHECKING:
    from nines_sim.engine.position import PositionBatch

#: The settings: (name, kind, default, low, high or choices, help) - the tuning issue's ``Param`` fields.
SETTINGS: tuple[tuple[str, str, Any, Any, Any, str], ...] = (
    ("samples", "int", 256, 1, 4096, "sampled positions per candidate move (more: stronger and slower)"),
    ("policy", "choice", "expert", None, rollout_policy_names(), "the strategy that plays the rollouts"),
    (
        "outcome",
        "choice",
        "hand",
        None,
        ("hand", "match", "near-end"),
        "score a rollout by the hand's penalties or the match; near-end: the match once a total is within "
        "30 points of the target, else the hand",
    ),
    LEAF_SETTING,
    DEPTH_SETTING,
    ("rounds", "int", 1, 1, 6, "successive halving: rounds of `samples` rollouts, the better half going on"),
    (
        "nines",
        "choice",
        "apart",
        None,
        ("apart", "with-suit", "clear-suit"),
        "apart: a 9 is searched as a card, its suit in a search of its own; with-suit: each 9 with each suit "
        "as one candidate; clear-suit: both, a 9 with a suit kept only where it clearly beats the plain 9",
    ),
    (
        "infer",
        "float",
        1.0,
        0.0,
        1.0,
        "how much less likely a sampled hand holds cards its draws showed it lacked (T1); 0: ignore draws",
    ),
    DRAWS_SETTING,
    COUNTS_SETTING,
    (
        "infer_plays",
        "float",
        0.0,
        0.0,
        1.0,
        "heads-up: how much less likely a sampled world is where the opponent's plays this hand are not the "
        "play model's; 0: ignore plays",
    ),
    PLAY_MODEL_SETTING,
    PLAY_TEMP_SETTING,
    PLAY_WORLDS_SETTING,
    OVERSAMPLE_SETTING,
    (
        "refine",
        "int",
        0,
        0,
        8,
        "a second look at close decisions: this many best candidates re-valued with the own next decision "
        "searched too (not the policy's); 0: off",
    ),
    ("refine_samples", "int", 64, 2, 1024, "refine: sampled positions per re-valued candidate"),
    ("inner_samples", "int", 32, 2, 1024, "refine: samples of the search of the own next decision"),
    ("refine_gap", "float", 1.0, 0.0, 100.0, "refine: points within which the runner-up makes a decision close"),
    (
        "refine_z",
        "float",
        0.0,
        0.0,
        10.0,
        "refine: standard errors by which a re-valued move must beat the first choice to replace it",
    ),
)

#: Settings that only a player who cannot see the cards has.
INFERENCE = ("infer", "draws", "counts", "infer_plays", "play_model", "play_temp", "play_worlds", "oversample")
#: The second search level's settings (its inner search samples what the player would see: not clairvoyant's).
REFINEMENT = ("refine", "refine_samples", "inner_samples", "refine_gap", "refine_z")


#: ``outcome="near-end"``: rollouts score the match once some total is this many points from the target.
NEAR_END = 30


class Lookahead(SampledSearch):
    """For each decision, sample the hidden cards ``samples`` times, play every legal move out on the
    engine with the rollout ``policy``, and keep the move with the best mean outcome (Perfect Information
    Monte Carlo).  The samples respect what reshuffles and (``infer``) draws reveal.  Ties are broken by
    the decision's random stream.  With ``refine``, close decisions get a second look in which the player's own
    next decision is searched too (:mod:`nines_sim.search.refine`).  Source: determinized search for
    hidden-card games (Cowling, Powley and Whitehouse 2012)."""

    name = "lookahead"
    classifier = {"stochastic": True, "uses_public_history": True, "plays_pair_of_nines": True,
                  "sees_hidden_cards": False}  # fmt: skip
    settings = SETTINGS

    #: The settings as tunable parameters (``lookahead:samples=128,policy=dump-faces``), checked by the base class.
    params = settings_params(SETTINGS)

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        #: (decision key, turn) -> suit of the games where this player just played a 9 chosen with its suit.
        self._suits: dict[tuple[int, int], int] = {}

    def _decide(self, obs: Observation, card: np.ndarray | None = None, pair: np.ndarray | None = None) -> np.ndarray:
        if self.outcome == "near-end":
            rules = obs.rules
            near = (
                (obs.totals.max(axis=1) + NEAR_END >= rules.target)
                if not rules.fixed_hands
                else np.ones(obs.n, dtype=bool)
            )
            if near.any() and not near.all():
                out = np.empty(obs.n, dtype=np.int64)
                for part, outcome in ((np.flatnonzero(~near), "hand"), (np.flatnonzero(near), "match")):
                    sub = obs.subset(part)
                    out[part] = self._search(sub, outcome, None if card is None else card[part],
                                             None if pair is None else pair[part])  # fmt: skip
                return out
            return self._search(obs, "match" if near.all() else "hand", card, pair)
        return self._search(obs, self.outcome, card, pair)

    def _search(self, obs: Observation, outcome: str, card: np.ndarray | None, pair: np.ndarray | None) -> np.ndarray:
        self.decisions += obs.n
        joint = {"apart": False, "with-suit": True, "clear-suit": "clear"}[self.nines]
        more: dict[str, Any] = {"nine_suits": joint} if joint and obs.kind == DecisionKind.PLAY else {}
        if getattr(self, "refine", 0):
            more["refine"] = self._refiner(outcome)
        leaf = self._leaf(obs)
        if leaf is not None:
            more["leaf"] = leaf
        return search(obs, self._worlds, self.samples, self._policy, outcome, card, self.rounds, pair, **more)

    def _refiner(self, outcome: str) -> Callable[..., np.ndarray]:
        """The second look at close decisions (:func:`nines_sim.search.refine.refine`) at these settings."""
        from nines_sim.search.refine import REFINE_SALT, refine

        def inner() -> Lookahead:
            return Lookahead(samples=self.inner_samples, policy=self.policy, infer=self.infer, draws=self.draws,
                             counts=self.counts)  # fmt: skip

        def second(sub: Observation, mv: np.ndarray, score: np.ndarray, chosen: np.ndarray, rows: np.ndarray,
                   card: np.ndarray | None, pair: np.ndarray | None) -> np.ndarray:  # fmt: skip
            def worlds(part: Observation, samples: int, idx: np.ndarray) -> PositionBatch:
                return self._worlds(part, samples, rows[idx], REFINE_SALT)

            return refine(sub, mv, score, chosen, worlds, self._policy, inner, self.refine, self.refine_samples,
                          self.refine_gap, self.refine_z, outcome, card, pair)  # fmt: skip

        return second

    def play(self, obs: Observation) -> np.ndarray:
        if self._memory is not None:
            self._memory.observe(obs)
        out = self._decide(obs)
        self._note_pairs(obs, out)
        joint = np.flatnonzero(out >= NINE_SUIT)
        if joint.size:  # a 9 chosen with its suit: the declaration that follows is already decided
            code = out[joint] - NINE_SUIT
            out[joint] = code // 4
            self._suits.update(zip(self._turn_keys(obs, joint), (code % 4).tolist(), strict=True))
        if self._memory is not None:
            self._memory.after_play(obs, out)
        return out

    def declare(self, obs: Observation) -> np.ndarray:
        out = self._declare(obs)
        if self._memory is not None:
            self._memory.after_declare(obs, out)
        return out

    def _declare(self, obs: Observation) -> np.ndarray:
        keys = self._turn_keys(obs, np.arange(obs.n)) if self._pairs or self._suits else []
        known = np.array([self._suits.pop(k, -1) for k in keys], dtype=np.int64)
        pair = None
        if self._pairs:
            pair = np.array([k in self._pairs for k in keys], dtype=bool)
            self._pairs.difference_update(keys)
        if not known.size or (known < 0).all():
            return self._decide(obs, pair=pair)
        out = known.copy()
        rest = np.flatnonzero(known < 0)
        if rest.size:
            sub = obs.subset(rest)
            out[rest] = self._decide(sub, pair=None if pair is None else pair[rest])
        return out


class Clairvoyant(Lookahead):
    """The same search on the true position: it sees every hand and the order of the stock.  Not a fair
    player; it measures what hidden information is worth (the most any inference could gain)."""

    name = "clairvoyant"
    classifier = {**Lookahead.classifier, "sees_hidden_cards": True}
    #: Seeing the cards leaves nothing to infer from draws, so ``infer`` is not a setting here.
    params = tuple(p for p in Lookahead.params if p.name not in INFERENCE + REFINEMENT)
    settings = tuple(s for s in SETTINGS if s[0] not in INFERENCE + REFINEMENT)

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self._hidden: tuple | None = None

    def reveal(self, hands: list[np.ndarray], stock: np.ndarray, pos: np.ndarray, end: np.ndarray) -> None:
        """Called by the engine before each decision: the true hands (D uint64 (n, P)) and stock (int8 (n, S))."""
        self._hidden = (hands, stock, pos, end)

    def _worlds(self, obs: Observation, samples: int, sel: np.ndarray, salt: int = 0) -> PositionBatch:
        if self._hidden is None:
            raise RuntimeError("clairvoyant plays only in an engine that reveals the hidden cards")
        from nines_sim.search.sampler import sample_positions

        batch = sample_positions(obs, samples, salt)  # the public fields and independent rollout keys
        hands, stock, pos, end = self._hidden
        rows = np.repeat(sel, samples)
        a = batch.arrays
        a["hands"] = [w[rows] for w in hands]
        S = stock.shape[1]
        col = np.minimum(pos[rows, None] + np.arange(S)[None, :], S - 1)
        true_stock = np.take_along_axis(stock[rows], col, axis=1)
        a["stock"] = np.where(np.arange(S)[None, :] < (end - pos)[rows, None], true_stock, 0).astype(np.int8)
        return batch
