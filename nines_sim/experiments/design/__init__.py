"""The game-design measures (``--design N`` of a tournament or a rule comparison, and ``nines tune-rules``'s
goals) in one home.

- :mod:`~nines_sim.experiments.design.setup`: the part of a tournament or comparison that plays them.
- :mod:`~nines_sim.experiments.design.work`, :mod:`~nines_sim.experiments.design.measures` and
  :mod:`~nines_sim.experiments.design.sums`: the measures, their matches and their sums.
- :mod:`~nines_sim.experiments.design.report`: ``design.csv``'s chart and section of ``report.md``.
"""
