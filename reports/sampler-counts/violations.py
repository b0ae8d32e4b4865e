"""Issue 40: how many of the search's sampled worlds break the draw log's count bound, per draw model.

A seat that drew while it held no legal card, and has drawn ``j`` cards since, holds at most ``j`` + 1 of the
faces legal at that turn (T2, T4; :func:`nines_sim.search.sampler.count_bounds`).  Every world ``lookahead``
samples at its decisions is checked (:func:`nines_sim.search.sampler.count_breaks`), in matches heads-up against
``expert`` and at the 4-seat table of the lookahead measurements, with ``counts=ignore`` (the samples of today)
and ``counts=obey``.  One process: ``python violations.py [heads-up matches] [4-seat matches] [seed]``.
"""

import sys
import time

import numpy as np

import nines_sim.search.sampler as sampler
from nines_sim.registry import make_lineup
from nines_sim.rules import make_rules
from nines_sim.simulate import simulate

n2 = int(sys.argv[1]) if len(sys.argv) > 1 else 100
n4 = int(sys.argv[2]) if len(sys.argv) > 2 else 30
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 40
original = sampler.sample_positions
acc = np.zeros(6, dtype=np.int64)  # worlds, worlds over, decisions, decisions with a world over, redraws, repairs


def checked(obs, samples, salt=0, infer=0.0, draws="suits", counts=False, tally=None):
    t = np.zeros((obs.n, 3), dtype=np.int64)
    batch = original(obs, samples, salt, infer, draws, counts, t)
    over = sampler.count_breaks(obs, batch.arrays["hands"], samples).reshape(obs.n, samples)
    acc[:] += (over.size, over.sum(), obs.n, over.any(axis=1).sum(), t[:, 0].sum(), t[:, 1].sum())
    return batch


sampler.sample_positions = checked
print("table,draws,counts,matches,worlds,worlds_over,share_over,decisions,decisions_over,redraws,repaired,cpu_s")
for table, n, players in (("heads-up", n2, 2), ("4-seat", n4, 4)):
    rules = make_rules("classic", players=players)
    for draws in ("suits", "log", "log+declare"):
        for counts in ("ignore", "obey"):
            spec = f"lookahead:draws={draws},counts={counts}"
            rest = ["expert"] if players == 2 else ["expert", "dump-faces", "hold-nines"]
            acc[:] = 0
            t0 = time.process_time()
            simulate(rules, make_lineup([spec, *rest]), n, seed=seed, workers=1, batch_size=n)
            w, o, d, do, redraw, rep = acc.tolist()
            print(f"{table},{draws},{counts},{n},{w},{o},{o / w:.5f},{d},{do},{redraw},{rep},"
                  f"{time.process_time() - t0:.1f}", flush=True)  # fmt: skip
