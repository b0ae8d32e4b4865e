"""CPU time of the shipped leaf value and world.py's on about one search's leaves (4,000 positions met by `learned`
at both seats), alternated: ``python value_speed.py`` (as ../equal-time/value_speed.py)."""

import time

import numpy as np

import world
from nines_sim.engine.positions import play_out_leaves
from nines_sim.game.rules import make_rules
from nines_sim.learn.value import shipped_value
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
w = np.load(world.WEIGHTS)["weights"]


def shipped() -> np.ndarray:
    return value.of(state, rows, seat)


def world_value() -> np.ndarray:
    s = state
    return world.world_features_at(s.hands, s.ncards, s.drew_on, s.played, s.st, rows, seat, rules.nine_penalty) @ w


shipped(), world_value()
for f in (shipped, world_value) * 3:
    t = time.process_time()
    for _ in range(300):
        f()
    print(f"{f.__name__}: {(time.process_time() - t) / 300 * 1e3:.3f} ms per {rows.size} leaves", flush=True)
