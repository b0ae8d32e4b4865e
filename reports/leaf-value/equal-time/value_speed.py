"""CPU time of the leaf value of about one search's leaves (4,000 positions met by ``learned`` at both seats), the
rows copied out first (the value before this folder's change) or read in place (now); the same floats:
``python value_speed.py``."""

import time

import numpy as np

from nines_sim.engine.positions import play_out_leaves
from nines_sim.game.rules import make_rules
from nines_sim.learn.value import shipped_value, value_features
from nines_sim.learn.value_fit import dealt_positions
from nines_sim.strategy.registry import make_lineup

rules = make_rules("classic", players=2)
lineup = make_lineup(["learned", "learned"])
batch = dealt_positions(rules, lineup, seed=8, n=1000)
stop = np.random.default_rng(8).integers(1, 31, size=batch.n)
_, stopped, state = play_out_leaves(batch, lineup, stop)
value = shipped_value(rules, "learned")
rows = np.sort(np.random.default_rng(1).choice(np.flatnonzero(stopped), 4000))
seat = (rows % 2).astype(np.int64)


def copied() -> np.ndarray:
    s = state
    x = value_features(s.hands[:, rows], s.ncards[rows], s.drew_on[rows], s.played[rows], s.st[rows], seat,
                       rules.nine_penalty)  # fmt: skip
    return x @ value.weights


def in_place() -> np.ndarray:
    return value.of(state, rows, seat)


assert np.array_equal(copied(), in_place())
for f in (copied, in_place, copied, in_place):
    t = time.process_time()
    for _ in range(300):
        f()
    print(f"{f.__name__}: {(time.process_time() - t) / 300 * 1e3:.3f} ms per {rows.size} leaves", flush=True)
