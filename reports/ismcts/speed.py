"""Decisions per CPU second of a search player heads-up against expert (one process)."""

import sys
import time

from nines_sim.registry import make_lineup
from nines_sim.rules import make_rules
from nines_sim.simulate import simulate

spec, n = sys.argv[1], int(sys.argv[2])
rules = make_rules(sys.argv[3] if len(sys.argv) > 3 else "classic", players=2)
st = make_lineup([spec])[0]
simulate(rules, [st, "expert"], 2, seed=99, workers=1, batch_size=2)  # compile
st.decisions = 0
t = time.process_time()
r = simulate(rules, [st, "expert"], n, seed=7, workers=1, batch_size=n)
dt = time.process_time() - t
print(f"{spec}: {n} matches, {dt:.1f} CPU s, {dt / n:.3f} s a match, ", end="")
print(f"{st.decisions} decisions, {st.decisions / dt:.0f} decisions/s")
