"""Issue 40: CPU time of one sampler call, counts=obey against counts=ignore (draws=log, infer=1): 96 heads-up
classic games (8 positions of seed 3 after 20 turns, 12 times each), 256 samples, alternated.  Run from the
worktree's root: ``PYTHONPATH=. python reports/sampler-counts/sampler_speed.py``."""

import time

import numpy as np

from nines_sim.search.sampler import sample_positions
from tests.test_sampler_counts import _engine_observation

_, obs = _engine_observation("classic", 2, 3, 20, n=8)
obs = obs.subset(np.repeat(np.arange(8), 12))
for counts in (False, True):
    sample_positions(obs, 256, 0, 1.0, "log", counts)  # compile
for _ in range(3):
    for counts in (False, True):
        t = time.process_time()
        for _ in range(20):
            sample_positions(obs, 256, 0, 1.0, "log", counts)
        print(f"counts={'obey' if counts else 'ignore'}: {(time.process_time() - t) / 20 * 1000:.2f} ms a call")
