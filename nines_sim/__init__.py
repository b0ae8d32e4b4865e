"""nines-sim: seeded, compiled batch simulations of the card game Nines.

The package is laid out by stage; the data flows one way, down this list:

- :mod:`nines_sim.game`: cards, rule options and presets, codes, random streams, and
  :mod:`~nines_sim.game.reference`, the readable one-game-at-a-time specification of RULES.md.
- :mod:`nines_sim.engine`: the compiled turn loop over a batch of game slots (deal, turn, powers,
  scoring, match flow), its per-slot state, the decision broker that asks Python seats, traces.
- :mod:`nines_sim.strategy`: the strategy interface (observations, base classes, per-game and
  compiled forms, parameters, registry); the built-ins are :mod:`nines_sim.strategies`.
- :mod:`nines_sim.results`: per-match and per-hand records, mergeable tallies, statistics, ratings.
- :mod:`nines_sim.runs`: match ranges, chunks, backends (local processes or Dask), the run driver,
  and each experiment (tournament, rule comparison, tuning, rules lab, league, bench).
- :mod:`nines_sim.search`: positions, sampling hidden cards, the search players' cores, analysis.
- :mod:`nines_sim.learn`: ``learned``'s features of one seat's observation, its model files and decision,
  and ``nines train``.
- :mod:`nines_sim.luck`: each match's luck measured without bias (AIVAT) from its trace, and estimates with it
  taken out.
- :mod:`nines_sim.reporting`: charts and ``report.md`` of every run folder, from its files alone.
- :mod:`nines_sim.experiments`: one library call per experiment that writes a whole run folder.
- :mod:`nines_sim.play`: one match at a time: replay, a person's seat (``nines play``), review.
- :mod:`nines_sim.cli`: the ``nines`` command, one module per command.

Module paths of earlier releases (``nines_sim.rules``, ``nines_sim.pergame``, ...) still import until 0.3.0,
with a ``DeprecationWarning`` that names the new path: see :mod:`nines_sim._moved` and CHANGELOG.md.
Start with :func:`nines_sim.experiments.run_tournament`.
"""

__version__ = "0.2.0"

from nines_sim import _moved

_moved.install()
