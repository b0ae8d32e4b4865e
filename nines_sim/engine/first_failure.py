"""The lowest match of an engine's range in which a strategy plays an illegal move, whatever the batch.

An engine plays many matches in lockstep, so the first illegal move it meets is in whichever match got there
first in play, not the lowest match that has one: a run named match 999 where match 0 failed too, and another
batch size would name another match.  Every match is played alike alone or in any batch (the reproducibility
standard), so a failing match fails in any engine whose range holds it: playing the range below the one named
again finds a lower one, or shows there is none.
"""

from __future__ import annotations

from typing import Any

from nines_sim.engine.failures import IllegalMoveError


def lowest_failure(engine: Any, exc: IllegalMoveError) -> IllegalMoveError:
    """The error of the lowest match of ``engine``'s range in which its strategies play an illegal move.

    Plays matches ``engine.start .. exc.match - 1`` again, from their start, on an engine of the same rules,
    lineup, seed and batch size (no trace); an illegal move there names a lower match, whose range below is
    played in turn, until a range plays through.  The cost is the matches below the one named, at most once
    each in the usual case (in a range where every match fails, each pass stops at its first illegal move).
    The strategies are the same objects: a plug-in that keeps state between calls sees more of them.

    Parameters
    ----------
    engine : nines_sim.engine.batch.CompiledEngine
        The engine that raised ``exc``.
    exc : IllegalMoveError
        Its error; ``exc.match`` None (a wrong shape, a failure of the batch) is returned as it is.

    Returns
    -------
    IllegalMoveError
        The error of the lowest failing match (``exc`` itself where no lower match fails, where one slot plays
        the matches in order, or where the engine does not look: a traced engine, a replay, or an engine that
        is itself looking).
    """
    from nines_sim.engine.batch import CompiledEngine

    if exc.match is None or not engine.find_lowest_failure or engine.st.shape[0] == 1:
        return exc  # (one slot plays the range's matches in order: the first to fail is the lowest)
    while exc.match is not None and exc.match > engine.start:
        n = exc.match - engine.start
        below = CompiledEngine(engine.rules, engine.lineup, engine.seed, engine.start, n, engine.batch_size,
                               specs=engine.specs, harvested=True, hint=engine.broker.hint)  # fmt: skip
        below.find_lowest_failure = False
        try:
            below.start_run()
            while below.B:
                below.advance()
                below.harvest()  # (memory stays flat over a long range)
        except IllegalMoveError as lower:
            exc = lower
        else:
            break
    return exc
