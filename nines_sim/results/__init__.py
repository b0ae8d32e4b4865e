"""Results: per-match and per-hand records, mergeable tallies, statistics, ratings, rounding.

- :mod:`~nines_sim.results.records`: :class:`MatchResults` and :class:`HandRecords`.
- :mod:`~nines_sim.results.tally`: mergeable counts of match and hand results.
- :mod:`~nines_sim.results.stats`: intervals and tests for win rates.
- :mod:`~nines_sim.results.ratings`: Plackett-Luce ratings from finishing orders.
- :mod:`~nines_sim.results.rounding`: the one rounding rule for numbers a person reads.

``from nines_sim.results import MatchResults`` works as before: the names the module ``nines_sim.results`` held
are imported here from :mod:`~nines_sim.results.records` and :mod:`nines_sim.game.codes`.
"""

from nines_sim.game.codes import BLOCKED, CAPPED
from nines_sim.results.records import HandRecords, MatchResults

__all__ = ["BLOCKED", "CAPPED", "HandRecords", "MatchResults"]
