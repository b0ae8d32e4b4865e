"""How often a search's choice is among the learned model's best candidates, and the rollout rows each kind of
decision takes, over ``MATCHES`` matches of ``SPEC`` heads-up classic against ``expert`` (seed 7):
``python prior.py SPEC MATCHES``."""

import sys

import numpy as np

import nines_sim.search.pimc as pimc
from nines_sim.game.rules import make_rules
from nines_sim.learn.decide import batch_scores
from nines_sim.learn.model import shipped
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.base import DecisionKind
from nines_sim.strategy.registry import make_lineup

rules = make_rules("classic", players=2)
model = shipped(rules)[0]
recs, kinds = [], {}
evaluate = pimc.evaluate


def noted(part, worlds, mv, *args, **kwargs):
    est = evaluate(part, worlds, mv, *args, **kwargs)
    ok = mv >= 0
    kinds[part.kind] = kinds.get(part.kind, 0) + int((ok.sum(1) > 1).sum())
    kinds[(part.kind, "rows")] = kinds.get((part.kind, "rows"), 0) + int(ok.sum())
    if part.kind == DecisionKind.PLAY:
        scores = batch_scores(model, part)
        for g in range(part.n):
            c = np.flatnonzero(ok[g])
            if c.size < 2:
                continue
            order = np.argsort(-scores[g, mv[g, c]], kind="stable")  # the model's ranking of the candidates
            m = est.mean[g, c]
            rank_of_best = int(np.flatnonzero(order == m.argmax())[0])
            recs.append((c.size, rank_of_best, *(m.max() - m[order[:k]].max() for k in (1, 2, 3))))
    return est


pimc.evaluate = noted
simulate(rules, [make_lineup([sys.argv[1]])[0], "expert"], int(sys.argv[2]), seed=7, workers=1, batch_size=12)
a = np.array(recs)
print("decisions by kind (2+ candidates):", {str(k): v for k, v in kinds.items()})
print(len(a), "play decisions with 2+ candidates; mean candidates", a[:, 0].mean().round(2))
for C in (2, 3, 4, 5):
    print(" share with C ==", C, (a[:, 0] == C).mean().round(3))
print(" share C>=6", (a[:, 0] >= 6).mean().round(3))
for k in (1, 2, 3):
    kept = np.minimum(a[:, 0], k).sum() / a[:, 0].sum()
    print(f"top{k}: search's best inside {(a[:, 1] < k).mean():.3f}; mean est. loss {a[:, 1 + k].mean():.3f} pts; "
          f"rows kept {kept:.3f}")  # fmt: skip
