"""nines-sim: a seeded numpy batch simulator of the card game Nines.

The data flows one way: ``rules`` (options, presets) -> ``engine`` (deal, step,
scoring) -> ``strategy`` decisions -> ``results`` -> aggregation and reports ->
``cli``.  Start with :func:`nines_sim.simulate.simulate`.
"""

__version__ = "0.1.0"
