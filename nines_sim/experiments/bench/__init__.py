"""The benchmark (``nines bench``): named workloads and their timing, in :mod:`~nines_sim.experiments.bench.work`."""
