"""``ismcts``: single-observer Information Set MCTS on the compiled engine (see :mod:`nines_sim.search.ismcts`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from nines_sim.search.ismcts import ismcts
from nines_sim.search.pimc import policy_names, rollout_policy, rollout_policy_names
from nines_sim.search.play_inference import RESAMPLE_SALT, PlayMemory, play_weights, resample
from nines_sim.search.position import PositionBatch
from nines_sim.strategies.lookahead import OVERSAMPLE, SettingError, settings_params
from nines_sim.strategy.base import PAIR_OF_NINES, Observation, Strategy
from nines_sim.strategy.params import ParamError
from nines_sim.strategy.registry import make_lineup

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
    ("c", "float", 25.0, 0.0, 100.0, "exploration constant of the upper confidence bound, in penalty points"),
    (
        "infer",
        "float",
        1.0,
        0.0,
        1.0,
        "how much less likely a sampled hand holds cards its draws showed it lacked (T1); 0: ignore draws",
    ),  # fmt: skip
    (
        "infer_plays",
        "float",
        0.0,
        0.0,
        1.0,
        "heads-up: how much less likely a sampled world is where the opponent's plays this hand are not the "
        "play model's; 0: ignore plays",
    ),  # fmt: skip
    ("play_model", "choice", "expert", None, policy_names(), "heads-up: how the opponent is taken to play"),
)


class ISMCTS(Strategy):
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

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ParamError as exc:
            raise SettingError(str(exc)) from None
        self._policy = rollout_policy(self.policy)
        #: Games decided by search in this process (for speed figures).
        self.decisions = 0
        self._pairs: set[tuple[int, int]] = set()
        self._memory = PlayMemory() if self.infer_plays > 0 else None
        self._model = make_lineup([self.play_model])[0] if self._memory is not None else None

    def _worlds(self, obs: Observation, samples: int, rows: np.ndarray, salt: int = 0) -> PositionBatch:
        from nines_sim.search.sampler import sample_positions

        if self._memory is not None:
            plays = self._memory.plays(obs)
            if any(plays):
                worlds = sample_positions(obs, OVERSAMPLE * samples, salt, self.infer)
                weight = play_weights(obs, worlds, plays, self._model, self.infer_plays)  # type: ignore[arg-type]
                return worlds.take(resample(obs, weight, samples, RESAMPLE_SALT + salt))
        return sample_positions(obs, samples, salt, self.infer)

    def _decide(self, obs: Observation, card: np.ndarray | None = None, pair: np.ndarray | None = None) -> np.ndarray:
        self.decisions += obs.n
        return ismcts(obs, self._worlds, self.iterations, self._policy, self.c, card, pair)

    def _turn_keys(self, obs: Observation, rows: np.ndarray) -> list[tuple[int, int]]:
        return list(zip(obs.public("dkey")[rows].tolist(), obs.public("turn")[rows].tolist(), strict=True))

    def play(self, obs: Observation) -> np.ndarray:
        if self._memory is not None:
            self._memory.observe(obs)
        out = self._decide(obs)
        if obs.players and obs.rules.pair_of_nines:
            self._pairs.update(self._turn_keys(obs, np.flatnonzero(out == PAIR_OF_NINES)))
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

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        out = self._decide(obs, card) == 1
        if self._memory is not None:
            self._memory.after_play_drawn(obs, card, out)
        return out
