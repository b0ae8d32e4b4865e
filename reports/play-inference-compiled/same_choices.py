"""The search's choices with the compiled likelihood against the numpy form it replaced: the same matches played both
ways, every hand's penalties compared (``python same_choices.py SPEC OPPONENT MATCHES SEED``)."""

import sys
import time

import numpy as np

import nines_sim.search.play_likelihood as pl
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup

spec, opponent, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rules = make_rules("classic", players=2)
compiled_form = pl.play_likelihoods
runs = {}
for form in ("compiled", "numpy"):
    pl.play_likelihoods = compiled_form if form == "compiled" else (lambda *a: np.exp(pl.log_likelihoods_numpy(*a)))
    t = time.process_time()
    runs[form] = simulate(rules, [make_lineup([spec])[0], opponent], n, seed=seed, workers=1, batch_size=64)
    print(f"{form}: {n} matches, {time.process_time() - t:.1f} CPU s", flush=True)
a, b = runs["compiled"], runs["numpy"]
same = np.array_equal(a.totals, b.totals) and np.array_equal(a.hand_records.penalty, b.hand_records.penalty)
print(f"{spec} vs {opponent}, seed {seed}: {len(a.hand_records.penalty)} hands; every match's totals and every hand's "
      f"penalties the same: {same}")
