"""The built-ins' compiled decisions, registered for the turn loop (:mod:`nines_sim.strategy.compiled_builtins`).

A new compiled built-in is its class (with a ``kernel_id`` of its own), its compiled decision and its place
here; the engine compiles in whatever :data:`COMPILED` names.
"""

from __future__ import annotations

from nines_sim.strategies.dump_faces import DumpFaces
from nines_sim.strategies.expert import Expert
from nines_sim.strategies.expert_compiled import expert_decide, expert_decide_inline
from nines_sim.strategies.heuristics_compiled import heuristic_declare, heuristic_play
from nines_sim.strategies.hold_nines import HoldNines
from nines_sim.strategies.random_play import RandomPlay
from nines_sim.strategies.suit_majority import SuitMajority
from nines_sim.strategy.compiled_builtins import CompiledBuiltins

#: What the turn loop is given: the heuristics decided in line, ``expert`` out of line.
COMPILED = CompiledBuiltins(
    light=(RandomPlay, HoldNines, DumpFaces, SuitMajority),
    light_play=heuristic_play,
    light_declare=heuristic_declare,
    heavy=(Expert,),
    heavy_decide=expert_decide,
    heavy_decide_inline=expert_decide_inline,
)
