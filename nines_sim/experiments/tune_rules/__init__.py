"""Searching the rules toward a game a designer wants (``nines tune-rules``) in one home.

- :mod:`~nines_sim.experiments.tune_rules.space`: the ``--space`` and the goals.
- :mod:`~nines_sim.experiments.tune_rules.work`: the trials, played on :func:`nines_sim.runs.driver.run`.
- :mod:`~nines_sim.experiments.tune_rules.study`: the one library call (:func:`run_rules_study`).
- :mod:`~nines_sim.experiments.tune_rules.report`: ``report.md``.
"""
