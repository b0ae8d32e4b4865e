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

The names the module ``nines_sim.engine`` held before it became this package (``from nines_sim.engine import
IllegalMoveError``) are imported here from where they live (the numpy engine it held is retired: the compiled
engine is :mod:`~nines_sim.engine.batch`).  None of them loads numba.  The broker's names and the strategy
interface's are not imported here: ``strategy.base`` reads the declared state (:mod:`~nines_sim.engine.slots`),
so importing it here would close an import circle whenever the strategy package is imported first (as a Dask
worker does when it unpickles a task); they still resolve from here, with a deprecation warning.
"""

from typing import Any

from nines_sim import _moved
from nines_sim.engine.failures import IllegalMoveError, StrategyError
from nines_sim.game.cards import FACE_RANK, N_FACES, NATURALS, NINES, PENALTY_GROUPS, RANK_MASK, SUIT_MASK
from nines_sim.game.codes import (
    BLOCKED,
    CAPPED,
    NINE_RANK,
    PAIR_OF_NINES,
    RANK_ACE,
    RANK_JACK,
    RANK_QUEEN,
    RUNNING,
    DecisionKind,
)
from nines_sim.game.rules import Rules
from nines_sim.game.tables import U64_NINES, legal_table, next_seat_table, penalty_points


def __getattr__(name: str) -> Any:
    return _moved.moved_name(__name__, name)  # the broker's and the strategy interface's names, deprecated here


__all__ = [
    "BLOCKED",
    "CAPPED",
    "FACE_RANK",
    "NATURALS",
    "NINES",
    "NINE_RANK",
    "N_FACES",
    "PAIR_OF_NINES",
    "PENALTY_GROUPS",
    "RANK_ACE",
    "RANK_JACK",
    "RANK_MASK",
    "RANK_QUEEN",
    "RUNNING",
    "SUIT_MASK",
    "U64_NINES",
    "DecisionKind",
    "IllegalMoveError",
    "Rules",
    "StrategyError",
    "legal_table",
    "next_seat_table",
    "penalty_points",
]
