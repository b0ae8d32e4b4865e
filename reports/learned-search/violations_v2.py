"""How many of ``lookahead:draws=log``'s sampled worlds break the draw log's count bound under draw-until-playable
(V2, where the bound has no slack), with ``counts=ignore`` and ``counts=obey``, heads-up against ``expert``:
``python violations_v2.py MATCHES SEED`` (as ``../sampler-counts/violations.py``, one table and draw model)."""

import sys
import time

import numpy as np

import nines_sim.search.sampler as sampler
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup

n, seed = int(sys.argv[1]), int(sys.argv[2])
original = sampler.sample_positions
acc = np.zeros(7, dtype=np.int64)  # worlds, over, decisions, decisions with a world over, redraws, repaired, left over


def checked(obs, samples, salt=0, infer=0.0, draws="suits", counts=False, tally=None):
    t = np.zeros((obs.n, 3), dtype=np.int64)
    batch = original(obs, samples, salt, infer, draws, counts, t)
    over = sampler.count_breaks(obs, batch.arrays["hands"], samples).reshape(obs.n, samples)
    acc[:] += (over.size, over.sum(), obs.n, over.any(axis=1).sum(), t[:, 0].sum(), t[:, 1].sum(), t[:, 2].sum())
    return batch


sampler.sample_positions = checked
rules = make_rules("draw-until-playable", players=2)
print("counts,matches,worlds,worlds_over,share_over,decisions,decisions_over,redraws,repaired,left_over,cpu_s")
for counts in ("ignore", "obey"):
    acc[:] = 0
    t = time.process_time()
    simulate(rules, [make_lineup([f"lookahead:draws=log,counts={counts}"])[0], "expert"], n, seed=seed, workers=1,
             batch_size=n)  # fmt: skip
    w, o, d, do, r, rep, left = acc.tolist()
    print(f"{counts},{n},{w},{o},{o / w:.4%},{d},{do},{r},{rep},{left},{time.process_time() - t:.1f}", flush=True)
