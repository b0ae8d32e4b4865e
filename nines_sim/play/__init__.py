"""A person at the table (``nines play``): the saved match, the person's seat, the match driver.

- :mod:`~nines_sim.play.saved`: the saved match (its file, what it records);
- :mod:`~nines_sim.play.seat`: the person's seat and what it refuses;
- :mod:`~nines_sim.play.driver`: playing a saved match through the engine (``run_match``, ``public_events``).

The package imports the saved match and the seat, not the driver: ``nines replay`` reads a saved match, and a
usage error must load no engine (the driver plays on the compiled one).  The driver's names, which this package
once looked up on demand, still import from here with a :class:`DeprecationWarning` (:mod:`nines_sim._moved`).
The terminal program itself is :mod:`nines_sim.play.tui` (imported on demand: it needs Textual).
"""

from __future__ import annotations

from typing import Any

from nines_sim import _moved
from nines_sim.play.saved import DEFAULT_DIR, PERSON, SavedMatch, SavedMatchError, load, new_path, save
from nines_sim.play.seat import HINT, PersonSeat, Request, Stop, refusal


def __getattr__(name: str) -> Any:
    return _moved.moved_name(__name__, name)  # the driver's names, deprecated here


__all__ = [
    "DEFAULT_DIR",
    "HINT",
    "PERSON",
    "PersonSeat",
    "Request",
    "SavedMatch",
    "SavedMatchError",
    "Stop",
    "load",
    "new_path",
    "refusal",
    "save",
]
