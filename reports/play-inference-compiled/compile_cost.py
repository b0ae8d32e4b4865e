"""Processor seconds of the compiled likelihood's first build (its cache entries removed first) and of a load."""
import glob, os, time, sys
from nines_sim.game.rules import make_rules
from nines_sim.learn.model import shipped
import nines_sim.learn.decide, nines_sim.learn.features  # imported before the clock: only the kernel is timed
if sys.argv[1] == "cold":
    for f in glob.glob(os.path.join(os.path.dirname(nines_sim.learn.decide.__file__), "__pycache__", "likelihood.*log_likelihoods*")):
        os.remove(f)
model = shipped(make_rules("classic", players=2))[0]
from nines_sim.learn.likelihood import likelihood_for
t = time.process_time(); likelihood_for(model); print(sys.argv[1], f"{time.process_time() - t:.2f} CPU s")
