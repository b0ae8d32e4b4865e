"""How far apart a search's candidates are: the paired difference of each rival to the leader, its standard error
and the gap, over the decisions of ``SPEC`` heads-up classic against ``expert`` (12 matches, seed 7):
``python spread.py SPEC``."""

import sys

import numpy as np

import nines_sim.search.pimc as pimc
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup

stats = []
evaluate = pimc.evaluate


def noted(part, worlds, mv, *args, **kwargs):
    est = evaluate(part, worlds, mv, *args, **kwargs)
    v, ok = est.values, mv >= 0
    lead = np.where(ok, est.mean, -np.inf).argmax(axis=1)
    d = v[np.arange(lead.size), lead][:, None, :] - v  # the leader's advantage, world by world
    se = d.std(axis=2, ddof=1) / np.sqrt(v.shape[2])
    gap = d.mean(axis=2)
    for g in range(lead.size):
        stats.extend((gap[g, c], se[g, c]) for c in np.flatnonzero(ok[g]) if c != lead[g])
    return est


pimc.evaluate = noted
simulate(make_rules("classic", players=2), [make_lineup([sys.argv[1]])[0], "expert"], 12, seed=7, workers=1,
         batch_size=12)  # fmt: skip
gap, se = np.array(stats).T
q = [0.1, 0.25, 0.5, 0.75, 0.9]
print(len(gap), "rival pairs")
print("se quantiles", np.quantile(se, q).round(3))
print("gap quantiles", np.quantile(gap, q).round(3))
print("z=gap/se quantiles", np.quantile(gap / np.maximum(se, 1e-9), q).round(2))
print("share gap>2se", (gap > 2 * se).mean(), "share se==0", (se == 0).mean())
