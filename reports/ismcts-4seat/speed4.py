"""Decisions per CPU second of a search player at the 4-seat table of the measurements (one process)."""

import sys
import time

from nines_sim.registry import make_lineup
from nines_sim.rules import make_rules
from nines_sim.simulate import simulate

spec, n = sys.argv[1], int(sys.argv[2])
rules = make_rules("classic", players=4)
st = make_lineup([spec])[0]
table = [st, "expert", "dump-faces", "hold-nines"]
simulate(rules, table, 2, seed=99, workers=1, batch_size=2)  # compile
st.decisions = 0
t = time.process_time()
simulate(rules, table, n, seed=7, workers=1, batch_size=n)
dt = time.process_time() - t
print(f"{spec}: {n} matches at 4 seats, {dt:.1f} CPU s, {dt / n:.3f} s a match, ", end="")
print(f"{st.decisions} decisions, {st.decisions / dt:.0f} decisions/s")
