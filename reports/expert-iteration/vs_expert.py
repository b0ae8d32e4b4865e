"""Each model file's win rate against ``expert`` heads-up classic as its difference from the shipped model's on the
same deals (``paired_strength``, each seat in turn, 95% t interval over matches), as the strategies page measures a
round: ``python vs_expert.py N SEED MODEL.npz...`` (the strategies page: 100000 matches of seed 5151).
``python vs_expert.py N SEED`` alone prints the shipped model's own rate (Wilson interval)."""

import sys
import time

from nines_sim.game.rules import make_rules
from nines_sim.learn.strength import paired_strength
from nines_sim.learn.train import strength

n, seed, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rules = make_rules("classic", players=2)
if not files:
    rate, lo, hi = strength(rules, "learned", "expert", n, seed)
    print(f"learned (shipped) vs expert: {rate:.4f} [{lo:.4f}, {hi:.4f}] over {n} matches of seed {seed}")
for f in files:
    t = time.process_time()
    d, lo, hi, differ = paired_strength(rules, f"learned@{f}", "learned", "expert", n, seed)
    print(
        f"{f} less shipped vs expert: {d:+.4f} [{lo:+.4f}, {hi:+.4f}] over {n} matches of seed {seed}, "
        f"{differ} decided differently ({time.process_time() - t:.0f} CPU s)",
        flush=True,
    )
