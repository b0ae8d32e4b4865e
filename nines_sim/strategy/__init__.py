"""The strategy interface: observations, base classes, per-game and compiled forms, parameters, registry.

- :mod:`~nines_sim.strategy.base`: :class:`Strategy`, :class:`Observation`, :class:`DecisionKind` (batched decisions).
- :mod:`~nines_sim.strategy.per_game`: :class:`PerGameStrategy`, plain Python one game at a time.
- :mod:`~nines_sim.strategy.per_game_compiled`: :class:`CompiledStrategy`, one compiled function per game
  (the class itself in :mod:`~nines_sim.strategy.compiled_base`, which loads no numba).
- :mod:`~nines_sim.strategy.params`: parameters a strategy declares.
- :mod:`~nines_sim.strategy.registry`: finding strategies by name, module or file.
- :mod:`~nines_sim.strategy.compiled_builtins`: the built-ins' compiled decisions, as the turn loop is given them.
- :mod:`~nines_sim.strategy.choice`: uniform choices among cards, for a batch.
- :mod:`~nines_sim.strategy.debug`: pointing at the user's code when a strategy fails.

``from nines_sim.strategy import Strategy, Observation, DecisionKind`` works as before: the names the module
``nines_sim.strategy`` held are imported here from where they live (chiefly :mod:`~nines_sim.strategy.base`).
"""

from nines_sim.game.cards import FACE_SUIT, NINES, SUIT_MASK
from nines_sim.game.codes import NINE_RANK, PAIR_OF_NINES, DecisionKind
from nines_sim.game.rules import Rules
from nines_sim.strategy.base import (
    U64_NINES,
    Observation,
    PublicState,
    Strategy,
    is_nine,
    natural_legal,
    pair_legal,
    uniform_suit,
)
from nines_sim.strategy.params import Param, check_values, defaults
from nines_sim.strategy.params import label as param_label

__all__ = [
    "FACE_SUIT",
    "NINES",
    "NINE_RANK",
    "PAIR_OF_NINES",
    "SUIT_MASK",
    "U64_NINES",
    "DecisionKind",
    "Observation",
    "Param",
    "PublicState",
    "Rules",
    "Strategy",
    "check_values",
    "defaults",
    "is_nine",
    "natural_legal",
    "pair_legal",
    "param_label",
    "uniform_suit",
]
