"""What the search players (``lookahead``, ``ismcts``) share, as one base class: settings checked as parameters,
the rollout policy, the worlds they sample (weighted by the opponents' plays with ``infer_plays``), the games
where the player just played two 9s together, and the drawn-card decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from nines_sim.search.pimc import Leaf, rollout_policy
from nines_sim.search.play_inference import RESAMPLE_SALT, PlayMemory, play_weights, resample
from nines_sim.search.policies import DRAW_MODELS, POLICY_NAMES
from nines_sim.strategy.base import PAIR_OF_NINES, Observation, Strategy
from nines_sim.strategy.params import Param, ParamError
from nines_sim.strategy.registry import StrategyNotFound, make_lineup

if TYPE_CHECKING:
    from nines_sim.engine.position import PositionBatch

#: ``infer_plays``: worlds sampled per world kept, the kept ones drawn in proportion to their weights.
OVERSAMPLE = 4


def settings_params(settings: tuple) -> tuple[Param, ...]:
    """A search player's settings table (name, kind, default, low, high-or-choices, help) as its parameters.

    Shared by ``lookahead`` and ``ismcts``, whose settings use the same syntax.
    """
    return tuple(
        Param(name, kind, default, low=low, high=high, help=help_)
        if kind in ("int", "float")
        else Param(name, kind, default, choices=tuple(high), help=help_)
        for name, kind, default, low, high, help_ in settings
    )


class SettingError(ValueError):
    """A setting that a search strategy does not have, or a value out of range (one line)."""


class SettingsClash(SettingError, StrategyNotFound):
    """Settings that do not go together (``leaf=learned`` with a policy no value ships for): a kind of
    :class:`~nines_sim.strategy.registry.StrategyNotFound` too, so that the command line says it as it says a
    setting out of range, in one line."""


#: The ``draws`` setting of the search players that sample (:data:`nines_sim.search.policies.DRAW_MODELS`).
DRAWS_SETTING = (
    "draws",
    "choice",
    "suits",
    None,
    DRAW_MODELS,
    "what draws say about a hand (with infer above 0): suits, the suits drawn on and the 9s, as lacked; log, "
    "the suits, ranks and 9s legal at each draw, weighed by the cards drawn since; log+declare: and the suit "
    "each seat last declared, as likelier held",
)

#: The ``counts`` setting (:func:`nines_sim.search.sampler.sample_positions`): whether every sampled hand keeps to
#: the count its seat's draw log allows (T2, T4), whatever ``draws`` and ``infer``.  Off by default, so that every
#: stored run and documented figure replays.
COUNTS_SETTING = (
    "counts",
    "choice",
    "ignore",
    None,
    ("ignore", "obey"),
    "obey: no sampled hand holds more cards of the faces its draws showed it lacked than it drew since (T2, T4); "
    "ignore: the first samples, over that count in about 1-2% of worlds",
)


#: The ``play_model`` setting: how the opponent is taken to play for ``infer_plays``: a built-in that decides without
#: searching (a world weighs less where a play is not its), or ``learned``: each play weighed by its probability under
#: the learned model (:mod:`nines_sim.search.play_likelihood`).
PLAY_MODEL_SETTING = (
    "play_model",
    "choice",
    "expert",
    None,
    (*POLICY_NAMES, "learned"),
    "heads-up: how the opponent is taken to play; learned: each play weighed by its probability under the model",
)
#: The ``leaf`` setting: rollouts played to the hand's end, or cut short and scored by the learned value of the
#: position for the searching seat (:mod:`nines_sim.learn.value`), fitted for the rollout policy.
LEAF_SETTING = (
    "leaf",
    "choice",
    "rollout",
    None,
    ("rollout", "learned"),
    "rollout: every rollout plays to the hand's end; learned: it stops `depth` turns on and the learned value "
    "of the position, from the seat's own view, scores it (policy expert or learned; outcome hand)",
)
#: The ``depth`` setting: turns a rollout plays past the move searched before ``leaf=learned`` scores it.
DEPTH_SETTING = ("depth", "int", 8, 0, 500, "leaf=learned: turns played after the move before the value scores")
#: The rollout policies a leaf value ships for (``nines_sim/learn/values``).
LEAF_POLICIES = ("expert", "learned")

#: ``play_model=learned``: the temperature of the softmax of the model's scores (points).
PLAY_TEMP_SETTING = ("play_temp", "float", 2.0, 0.1, 100.0, "play_model=learned: the softmax temperature in points")
#: ``infer_plays``: how the worlds' weights enter the search (``lookahead``): resampled (``oversample`` times the
#: worlds sampled, ``samples`` kept in proportion to their weights) or weighed (``samples`` sampled, each world's
#: rollouts counted in the candidates' means in proportion to its weight: no extra worlds sampled).
PLAY_WORLDS_SETTING = (
    "play_worlds",
    "choice",
    "resample",
    None,
    ("resample", "weigh"),
    "infer_plays: resample: `oversample` times the worlds sampled, `samples` kept in proportion to their "
    "weights; weigh: `samples` sampled, each rollout counted in proportion to its world's weight",
)
OVERSAMPLE_SETTING = ("oversample", "int", OVERSAMPLE, 1, 16, "play_worlds=resample: worlds sampled per world kept")


class SampledSearch(Strategy):
    """What the search players (``lookahead``, ``ismcts``) share: their settings checked as parameters, the
    rollout policy, the worlds they sample (reweighted by the opponents' plays with ``infer_plays``), the games
    where this player just played two 9s together, and the drawn-card decision.  Not a strategy of its own (no
    ``name``); a subclass gives ``_decide(obs, card=None, pair=None)``."""

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ParamError as exc:
            raise SettingError(str(exc)) from None
        self._policy = rollout_policy(self.policy)
        self._counts = getattr(self, "counts", "ignore") == "obey"
        #: Games decided by search in this process (for speed figures).
        self.decisions = 0
        #: (decision key, turn) of the games where this player just played two 9s together (V4):
        #: their declaration is searched with the next seat skipped.
        self._pairs: set[tuple[int, int]] = set()
        #: The opponent's plays this hand, for ``infer_plays`` (:mod:`nines_sim.search.play_inference`).
        self._memory = PlayMemory() if getattr(self, "infer_plays", 0.0) > 0 else None
        self._model = make_lineup([self.play_model])[0] if self._memory is not None else None
        if getattr(self, "leaf", "rollout") == "learned":
            if self.policy not in LEAF_POLICIES:
                ships = " or policy=".join(LEAF_POLICIES)
                raise SettingsClash(f"{self.name} leaf=learned: a value ships for policy={ships}, not {self.policy}")
            if getattr(self, "outcome", "hand") != "hand":
                raise SettingsClash(
                    f"{self.name} leaf=learned scores hands: it needs outcome=hand, not outcome={self.outcome}"
                )
        #: The leaf value by rules (``leaf=learned``), read at the first decision under them.
        self._leaves: dict[Any, Leaf] = {}

    def _leaf(self, obs: Observation) -> Leaf | None:
        """``leaf=learned``: the shipped value for these rules and the rollout policy, cut at ``depth``."""
        if getattr(self, "leaf", "rollout") != "learned":
            return None
        if obs.rules not in self._leaves:
            from nines_sim.learn.value import shipped_value

            self._leaves[obs.rules] = Leaf(shipped_value(obs.rules, self.policy), self.depth)
        return self._leaves[obs.rules]

    def _decide(self, obs: Observation, card: np.ndarray | None = None, pair: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError

    def _worlds(self, obs: Observation, samples: int, rows: np.ndarray, salt: int = 0) -> PositionBatch:
        from nines_sim.search.sampler import sample_positions  # compiled: loaded when a search first samples

        if self._memory is not None:
            plays = self._memory.plays(obs)
            if any(plays):
                weigh = getattr(self, "play_worlds", "resample") == "weigh"
                per = 1 if weigh else getattr(self, "oversample", OVERSAMPLE)
                worlds = sample_positions(obs, per * samples, salt, self.infer, self.draws, self._counts)
                if self.play_model == "learned":
                    from nines_sim.search.play_likelihood import play_likelihoods

                    weight = play_likelihoods(obs, worlds, plays, self._model, self.infer_plays, self.play_temp)  # type: ignore[arg-type]
                else:
                    weight = play_weights(obs, worlds, plays, self._model, self.infer_plays)  # type: ignore[arg-type]
                if weigh:
                    worlds.weight = weight  # type: ignore[attr-defined] # read by the search's means (pimc.evaluate)
                    return worlds
                return worlds.take(resample(obs, weight, samples, RESAMPLE_SALT + salt))
        return sample_positions(obs, samples, salt, self.infer, self.draws, self._counts)

    @staticmethod
    def _turn_keys(obs: Observation, rows: np.ndarray) -> list[tuple[int, int]]:
        return list(zip(obs.public("dkey")[rows].tolist(), obs.public("turn")[rows].tolist(), strict=True))

    def _note_pairs(self, obs: Observation, out: np.ndarray) -> None:
        """Remember the games where ``out`` plays two 9s together, for the declaration that follows."""
        if obs.players and obs.rules.pair_of_nines:
            self._pairs.update(self._turn_keys(obs, np.flatnonzero(out == PAIR_OF_NINES)))

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        out = self._decide(obs, card) == 1
        if self._memory is not None:
            self._memory.after_play_drawn(obs, card, out)
        return out
