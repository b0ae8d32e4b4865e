"""Results: per-match and per-hand records, mergeable tallies, statistics, ratings, rounding.

- :mod:`~nines_sim.results.records`: :class:`MatchResults` and :class:`HandRecords`.
- :mod:`~nines_sim.results.tally`: mergeable counts of match and hand results.
- :mod:`~nines_sim.results.stats`: intervals and tests for win rates.
- :mod:`~nines_sim.results.ratings`: Plackett-Luce ratings from finishing orders.
- :mod:`~nines_sim.results.rounding`: the one rounding rule for numbers a person reads.

``from nines_sim.results import MatchResults`` works as before (re-exported from
:mod:`~nines_sim.results.records`).
"""

from __future__ import annotations

import os
from typing import Any

# a submodule's name is never looked up in the re-exported module: the import system imports the submodule
_OWN = {n[:-3] for n in os.listdir(os.path.dirname(__file__)) if n.endswith(".py")}


def __getattr__(name: str) -> Any:
    if name in _OWN or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nines_sim.results import records

    try:
        return getattr(records, name)
    except AttributeError:
        raise AttributeError(f"module 'nines_sim.results' has no attribute {name!r}") from None
