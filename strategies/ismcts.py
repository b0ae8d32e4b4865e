"""``ismcts``: single-observer Information Set MCTS on the compiled engine (see :mod:`nines_sim.search.ismcts`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from nines_sim.search.ismcts import ismcts
from nines_sim.search.pimc import rollout_policy_names
from nines_sim.search.player import (
    COUNTS_SETTING,
    DEPTH_SETTING,
    DRAWS_SETTING,
    LEAF_SETTING,
    PLAY_MODEL_SETTING,
    PLAY_TEMP_SETTING,
    SampledSearch,
    settings_params,
)
from nines_sim.strategy.base import Observation

#: The settings: (name, kind, default, low, high or choices, help), as ``lookahead``'s.
SETTINGS: tuple[tuple[str, str, Any, Any, Any, str], ...] = (
    ("iterations", "int", 256, 1, 8192, "tree walks per decision, each on its own sampled position and rollout"),
    (
        "policy",
        "choice",
        "expert",
        None,
        rollout_policy_names(),
        "the strategy that plays the rollouts past the tree",
    ),  # fmt: skip
    LEAF_SETTING,
    DEPTH_SETTING,
    ("c", "float", 25.0, 0.0, 100.0, "exploration constant of the upper confidence bound, in penalty points"),
    (
        "infer",
        "float",
        1.0,
        0.0,
        1.0,
        "how much less likely a sampled hand holds cards its draws showed it lacked (T1); 0: ignore draws",
    ),  # fmt: skip
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
    ),  # fmt: skip
    PLAY_MODEL_SETTING,
    PLAY_TEMP_SETTING,
)


class ISMCTS(SampledSearch):
    """For each decision, ``iterations`` times: sample the hidden cards, walk a tree of every seat's moves
    since the decision (untried moves first, then the upper confidence bound of the mover's reward, among
    the moves legal in that sample), play the hand out with the rollout ``policy``, and add its result to
    the nodes walked; play the root's most visited move.  Samples respect reshuffles and (``infer``) draws
    as ``lookahead``'s do.  Source: SO-ISMCTS (Cowling, Powley and Whitehouse 2012)."""

    name = "ismcts"
    classifier = {"stochastic": True, "uses_public_history": True, "plays_pair_of_nines": True,
                  "sees_hidden_cards": False}  # fmt: skip
    settings = SETTINGS
    params = settings_params(SETTINGS)

    def _decide(self, obs: Observation, card: np.ndarray | None = None, pair: np.ndarray | None = None) -> np.ndarray:
        self.decisions += obs.n
        return ismcts(obs, self._worlds, self.iterations, self._policy, self.c, card, pair, leaf=self._leaf(obs))

    def play(self, obs: Observation) -> np.ndarray:
        if self._memory is not None:
            self._memory.observe(obs)
        out = self._decide(obs)
        self._note_pairs(obs, out)
        if self._memory is not None:
            self._memory.after_play(obs, out)
        return out

    def declare(self, obs: Observation) -> np.ndarray:
        pair = None
        if self._pairs:
            keys = self._turn_keys(obs, np.arange(obs.n))
            pair = np.array([k in self._pairs for k in keys], dtype=bool)
            self._pairs.difference_update(keys)
        out = self._decide(obs, pair=pair)
        if self._memory is not None:
            self._memory.after_declare(obs, out)
        return out
