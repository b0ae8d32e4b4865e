"""The engine: the compiled turn loop over a batch of game slots, its state, its decision broker and traces.

- :mod:`~nines_sim.engine.turn_loop`: the turn loop, as named phases (numba).
- :mod:`~nines_sim.engine.loop_constants`, :mod:`~nines_sim.engine.deal`, :mod:`~nines_sim.engine.turn_phases`,
  :mod:`~nines_sim.engine.decisions`, :mod:`~nines_sim.engine.scoring`, :mod:`~nines_sim.engine.slot_locals`,
  :mod:`~nines_sim.engine.trace_log`: its phases and numbers, by stage (all names also read from ``turn_loop``).
- :mod:`~nines_sim.engine.bits`: its compiled building blocks (random streams, sets of faces).
- :mod:`~nines_sim.engine.slots`: the per-slot state, declared once.
- :mod:`~nines_sim.engine.batch`: :class:`~nines_sim.engine.batch.CompiledEngine`, the engine every run plays on.
- :mod:`~nines_sim.engine.entry`: calling a compiled form of the loop without numba typing every argument.
- :mod:`~nines_sim.engine.seats`: which seats play inside the compiled loop (loads no numba).
- :mod:`~nines_sim.engine.warm_up`: loading the loop before a pool's workers fork.
- :mod:`~nines_sim.engine.broker`: asking Python seats, validating their answers, naming a culprit.
- :mod:`~nines_sim.engine.events`: a traced match's events.
- :mod:`~nines_sim.engine.position`: positions (a game at a turn, a batch of them in the slot state's layout).
- :mod:`~nines_sim.engine.positions`, :mod:`~nines_sim.engine.moves`: playing positions forward on the turn
  loop, a first move applied as a seat's answer (the one way a search steps positions).
- :mod:`~nines_sim.engine.legality`: the loop's legality asked from Python (two 9s together).

``from nines_sim.engine import IllegalMoveError`` (and the other names the
module ``nines_sim.engine`` held before it became this package) still works.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

# a submodule's name is never looked up in the re-exported module: the import system imports the submodule
_OWN = {n[:-3] for n in os.listdir(os.path.dirname(__file__)) if n.endswith(".py")}

#: where the names the module ``nines_sim.engine`` held before it became this package live now (the numpy
#: engine it held is retired: the compiled engine is :mod:`~nines_sim.engine.batch`)
_FORMER = ("nines_sim.engine.broker", "nines_sim.game.tables", "nines_sim.game.codes")


def __getattr__(name: str) -> Any:
    if name in _OWN or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for mod in _FORMER:
        m = importlib.import_module(mod)
        if hasattr(m, name):
            return getattr(m, name)
    raise AttributeError(f"module 'nines_sim.engine' has no attribute {name!r}")
