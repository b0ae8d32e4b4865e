"""A learned table's matches per CPU second, heads-up classic, one process (best of 3 runs of 20,000): run once from a
checkout of main (PYTHONPATH) and once from this branch, alternated: ``python learned_table_speed.py``."""
import sys, time
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
import nines_sim
rules = make_rules("classic", players=2)
simulate(rules, ["learned", "learned"], 200, seed=1, workers=1)
best = 0
for _ in range(3):
    t = time.process_time(); simulate(rules, ["learned", "learned"], 20000, seed=2, workers=1); dt = time.process_time() - t
    best = max(best, 20000 / dt)
print(nines_sim.__file__, f"{best:.0f} matches per CPU s (best of 3)")
