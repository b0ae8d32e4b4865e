"""A strategy's review (``nines review``) in one home.

- :mod:`~nines_sim.experiments.review.setup`: the run folder's life (:func:`run_review`).
- :mod:`~nines_sim.experiments.review.work`: the review, on :func:`nines_sim.runs.driver.run` (``ReviewWork``).
- :mod:`~nines_sim.experiments.review.report`: ``review.csv``, the chart, ``report.md`` and the console lines.
"""
