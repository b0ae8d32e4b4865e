"""A person at the table (``nines play``): the saved match, the person's seat, the match driver.

The terminal program itself is :mod:`nines_sim.play.tui` (imported on demand: it needs Textual).
"""

from __future__ import annotations

import importlib
from typing import Any

#: each name of the package and the module it lives in, imported on first use: ``nines replay`` reads its
#: submodules, and a usage error must load no engine (the driver plays on the compiled one)
_HOME = {
    **dict.fromkeys(("Outcome", "public_events", "run_match"), "nines_sim.play.driver"),
    **dict.fromkeys(
        ("DEFAULT_DIR", "PERSON", "SavedMatch", "SavedMatchError", "load", "new_path", "save"), "nines_sim.play.saved"
    ),
    **dict.fromkeys(("HINT", "PersonSeat", "Request", "Stop", "refusal"), "nines_sim.play.seat"),
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
