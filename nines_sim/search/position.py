"""Positions, as the search reads them: they live in the engine's layer now.

:class:`~nines_sim.engine.position.Position` and :class:`~nines_sim.engine.position.PositionBatch` are in
:mod:`nines_sim.engine.position` (the slot state they hold is the engine's), and
:func:`~nines_sim.engine.positions.play_out` in :mod:`nines_sim.engine.positions`; the names are also
read from here, as before.
"""

from __future__ import annotations

from typing import Any

from nines_sim.engine.position import Position, PositionBatch, PositionError, positions_from_engine


def play_out(*args: Any, **kwargs: Any) -> Any:
    """:func:`nines_sim.engine.positions.play_out`, imported when called: that module loads the compiled turn
    loop, and this one is imported by ``nines_sim.search``, which the strategy registry loads (a usage error must
    stay as quick as ``--help``).  Arguments, returns and errors are that function's.
    """
    from nines_sim.engine import positions

    return positions.play_out(*args, **kwargs)


__all__ = ["Position", "PositionBatch", "PositionError", "play_out", "positions_from_engine"]
