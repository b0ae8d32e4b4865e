"""Tuning a strategy's parameters (``nines tune``) in one home.

- :mod:`~nines_sim.experiments.tune.setup`: what a tuning run plays (:class:`Setup`).
- :mod:`~nines_sim.experiments.tune.work`: the trials, played on :func:`nines_sim.runs.driver.run`.
- :mod:`~nines_sim.experiments.tune.study`: the one library call (:func:`run_tune_study`, :func:`run_versus`).
- :mod:`~nines_sim.experiments.tune.report`: ``report.md``.

The Optuna storage that several processes share is :mod:`nines_sim.experiments.study`, with ``nines tune-rules``.
"""
