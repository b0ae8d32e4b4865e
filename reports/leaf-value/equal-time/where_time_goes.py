"""Where a search player's time goes: cProfile of one process, heads-up against expert (the calls of the search, by
cumulative time): ``python where_time_goes.py SPEC MATCHES``."""

import cProfile
import pstats
import sys
import time

from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup

spec, n = sys.argv[1], int(sys.argv[2])
rules = make_rules("classic", players=2)
player = make_lineup([spec])[0]
simulate(rules, [player, "expert"], 2, seed=99, workers=1, batch_size=2)  # compile
player.decisions = 0
prof = cProfile.Profile(time.process_time)  # CPU time: the machine is shared
t = time.process_time()
prof.enable()
simulate(rules, [player, "expert"], n, seed=7, workers=1, batch_size=n)
prof.disable()
dt = time.process_time() - t
print(f"{spec}: {n} matches, {dt:.2f} CPU s (profiled), {player.decisions} decisions")
pstats.Stats(prof).sort_stats("cumulative").print_stats(
    r"search|sampler|sample_deal|positions|position\.py|value|turn_loop"
)
