"""Decisions per CPU second of search players heads-up against expert, one process, the players alternated in one
sitting: ``python speed.py MATCHES PAIRS SPEC...``."""

import sys
import time

from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup

n, pairs, specs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rules = make_rules("classic", players=2)
players = {spec: make_lineup([spec])[0] for spec in specs}
for st in players.values():
    simulate(rules, [st, "expert"], 2, seed=99, workers=1, batch_size=2)  # compile
for p in range(pairs):
    for spec, st in players.items():
        st.decisions = 0
        t = time.process_time()
        simulate(rules, [st, "expert"], n, seed=7 + p, workers=1, batch_size=n)
        dt = time.process_time() - t
        print(f"pair {p} {spec}: {n} matches, {dt:.1f} CPU s, {st.decisions} decisions, "
              f"{st.decisions / dt:.0f} decisions/s", flush=True)
