"""``learned``: a model trained by ``nines train`` on the engine's own play, played inside the compiled turn loop."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from nines_sim.strategy.compiled_base import CompiledStrategy
from nines_sim.strategy.params import Param


class Learned(CompiledStrategy):
    """Scores each legal card and each suit to declare with a linear model of features of its own observation
    (its hand, the top card and active suit, the seats' hand sizes, totals and the suits they drew on, the
    faces played this hand, the stock's size, the 9's penalty: :mod:`nines_sim.learn.features`) and plays the
    best; it plays a drawn card (T4) when the model's score of playing it over keeping it is above 0 (a model
    trained without that score: a drawn natural played, a drawn 9 kept unless 2 cards or fewer are left,
    ``expert``'s rule).
    ``learned`` plays the model shipped for the rules and table size (where none ships, the nearest one, with
    a warning); ``learned@model.npz`` a model of ``nines train``, refused under other rules or at another table
    size.  Source: learning from a
    fast simulator's own play (DouZero, Zha et al. 2021; expert iteration, Anthony et al. 2017)."""

    name = "learned"
    classifier = {"stochastic": False, "uses_public_history": True, "plays_pair_of_nines": False}
    params = (
        Param("model", "path", "", help="a model file of nines train (learned@model.npz); empty: the shipped model"),
    )

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self._loaded: dict[Any, Any] = {}
        self._deciders: dict[Any, Any] = {}
        if self.model:  # a file that cannot be read is said at once, before any rules are known
            from nines_sim.learn.model import load

            self._file = load(self.model)

    def model_for(self, rules: Any) -> Any:
        """The :class:`~nines_sim.learn.model.Model` this seat plays under ``rules`` (checked against them).

        Raises
        ------
        nines_sim.learn.model.ModelError
            For a file that cannot be read, or a model trained for other rules or another table size.
        """
        from nines_sim.learn.model import FallbackWarning, shipped

        key = rules
        if key not in self._loaded:
            if self.model:
                model = self._file
                model.check_rules(rules, self.model)
            else:
                model, note = shipped(rules)
                if note is not None:
                    warnings.warn(note, FallbackWarning, stacklevel=2)
            self._loaded[key] = model
        return self._loaded[key]

    def __getstate__(self) -> dict[str, Any]:
        # the compiled decisions stay in the process that made them: another finds its own by the model's digest
        return {**self.__dict__, "_deciders": {}}

    def decide_function(self, rules: Any = None) -> Any:
        if rules is None:
            raise ValueError("learned needs the rules to choose its model")
        # kept by rules: a search asks at every batch of rollouts, and finding it by the model's digest (a hash of
        # its weights) each time was about 3% of a decision of lookahead:policy=learned,leaf=learned
        if rules not in self._deciders:
            from nines_sim.learn.decide import decide_for

            self._deciders[rules] = decide_for(self.model_for(rules))
        return self._deciders[rules]

    def play(self, obs: Any) -> np.ndarray:
        """The card of highest score for a batch of play decisions asked from Python (``nines analyze``'s "what
        each strategy plays", a review, a Python table): the scores of :meth:`scores`, whose floats are the
        compiled decision's, and among equals the lowest face, as it chooses.  A first analysis compiled the
        model's whole decision (declares and the drawn card too) for its one play, 5-7 s of processor time;
        the batch features it compiles instead are ``nines train``'s, shared with it."""
        return np.argmax(self.scores(obs), axis=1)

    def scores(self, obs: Any) -> np.ndarray:
        """Each legal card's score for a batch of play decisions, computed in Python over the batch (the
        training path): float64 (n, 52), -inf where a face is not legal."""
        from nines_sim.learn.decide import batch_scores

        return batch_scores(self.model_for(obs.rules), obs)
