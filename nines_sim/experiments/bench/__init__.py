"""The benchmark (``nines bench``): named workloads and their timing, in :mod:`~nines_sim.experiments.bench.work`;
their ratios to the reference engines timed in the same sitting, in :mod:`~nines_sim.experiments.bench.ratios`."""
