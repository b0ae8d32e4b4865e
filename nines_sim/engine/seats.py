"""Which seats play inside the compiled turn loop: a built-in's compiled twin, a compiled user strategy, or a
Python seat asked through the decision broker.

It loads no compiled code (numba), so that a run can plan its chunks before any process loads the engine.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cache

import numpy as np

from nines_sim.game.codes import SID_PYTHON, SID_USER
from nines_sim.strategy.base import Strategy

#: The module of compiled user strategies: no seat is one until something has imported it.
_COMPILED_STRATEGY = "nines_sim.strategy.compiled_base"


@cache
def builtin_ids() -> dict[type, int]:
    """The built-in strategy classes that have compiled twins, and their kernel ids (each class's ``kernel_id``)."""
    from nines_sim.strategy.registry import builtin_classes

    return {c: c.__dict__["kernel_id"] for c in builtin_classes().values() if c.__dict__.get("kernel_id") is not None}


def seat_ids(lineup: Sequence[Strategy]) -> np.ndarray:
    """Kernel strategy id per seat: a built-in's compiled twin, ``SID_USER`` for a compiled user strategy, or
    ``SID_PYTHON`` (0) for a Python strategy.

    Only the exact built-in classes count (a subclass may override a decision, so it is asked in
    Python); ``expert`` plays compiled at any parameter values (:func:`nines_sim.engine.batch.seat_params`
    carries them).

    Returns
    -------
    numpy.ndarray
        int64, shape (len(lineup),): the ids of :mod:`nines_sim.game.codes`.
    """
    compiled_class = getattr(sys.modules.get(_COMPILED_STRATEGY), "CompiledStrategy", None)
    ids = builtin_ids()

    def sid(s: Strategy) -> int:
        if compiled_class is not None and isinstance(s, compiled_class):
            return SID_USER
        return ids.get(type(s), SID_PYTHON)

    return np.array([sid(s) for s in lineup], dtype=np.int64)


def heavy_seat(sids: np.ndarray) -> bool:
    """Whether a table of these kernel ids (:func:`seat_ids`) has a seat of the heavy compiled built-in
    (``expert``): it plays on the forms of the loop with that built-in's code inlined.  Loads numba (the
    registered decisions)."""
    from nines_sim.strategy.compiled_builtins import given

    return bool((np.asarray(sids) == given().heavy_id).any())


def plays_builtin(strategy: Strategy) -> bool:
    """Whether a seat of this strategy decides inside the compiled loop as a built-in's twin (not a Python seat,
    not a compiled user strategy)."""
    return seat_ids([strategy])[0] not in (SID_PYTHON, SID_USER)


def plays_compiled(lineup: Sequence[Strategy]) -> bool:
    """Whether a bulk run of this lineup plays every seat inside the compiled loop (no Python seat, no batch)."""
    return bool((seat_ids(lineup) != SID_PYTHON).all())
