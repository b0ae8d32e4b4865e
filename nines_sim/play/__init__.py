"""A person at the table (``nines play``): the saved match, the person's seat, the match driver.

The terminal program itself is :mod:`nines_sim.play.tui` (imported on demand: it needs Textual).
"""

from nines_sim.play.driver import Outcome, public_events, run_match
from nines_sim.play.saved import DEFAULT_DIR, PERSON, SavedMatch, SavedMatchError, load, new_path, save
from nines_sim.play.seat import HINT, PersonSeat, Request, Stop, refusal

__all__ = [
    "DEFAULT_DIR",
    "HINT",
    "PERSON",
    "Outcome",
    "PersonSeat",
    "Request",
    "SavedMatch",
    "SavedMatchError",
    "Stop",
    "load",
    "new_path",
    "public_events",
    "refusal",
    "run_match",
    "save",
]
