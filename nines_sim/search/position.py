"""Positions, as the search reads them: they live in the engine's layer now.

:class:`~nines_sim.engine.position.Position` and :class:`~nines_sim.engine.position.PositionBatch` are in
:mod:`nines_sim.engine.position` (the slot state they hold is the engine's), and
:func:`~nines_sim.engine.positions.play_out` in :mod:`nines_sim.engine.positions`; the names are also
read from here, as before.
"""

from __future__ import annotations

from nines_sim.engine.position import Position, PositionBatch, PositionError, positions_from_engine
from nines_sim.engine.positions import play_out

__all__ = ["Position", "PositionBatch", "PositionError", "play_out", "positions_from_engine"]
