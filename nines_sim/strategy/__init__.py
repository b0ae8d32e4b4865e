"""The strategy interface: observations, base classes, per-game and compiled forms, parameters, registry.

- :mod:`~nines_sim.strategy.base`: :class:`Strategy`, :class:`Observation`, :class:`DecisionKind` (batched decisions).
- :mod:`~nines_sim.strategy.per_game`: :class:`PerGameStrategy`, plain Python one game at a time.
- :mod:`~nines_sim.strategy.per_game_compiled`: :class:`CompiledStrategy`, one compiled function per game
  (the class itself in :mod:`~nines_sim.strategy.compiled_base`, which loads no numba).
- :mod:`~nines_sim.strategy.params`: parameters a strategy declares.
- :mod:`~nines_sim.strategy.registry`: finding strategies by name, module or file.
- :mod:`~nines_sim.strategy.choice`: uniform choices among cards, for a batch.
- :mod:`~nines_sim.strategy.debug`: pointing at the user's code when a strategy fails.

``from nines_sim.strategy import Strategy, Observation, DecisionKind`` works as
before: this package re-exports :mod:`~nines_sim.strategy.base`.
"""

from __future__ import annotations

import os
from typing import Any

# a submodule's name is never looked up in the re-exported module: the import system imports the submodule
_OWN = {n[:-3] for n in os.listdir(os.path.dirname(__file__)) if n.endswith(".py")}


def __getattr__(name: str) -> Any:
    if name in _OWN or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nines_sim.strategy import base

    try:
        return getattr(base, name)
    except AttributeError:
        raise AttributeError(f"module 'nines_sim.strategy' has no attribute {name!r}") from None
