"""What keeping the draw log in the rollouts costs (a draw-log feature at a leaf needs it: the play-outs leave it as
it stood at the root): the search's kind of batch (positions of learned play, the seat to move's first legal card,
12 turns more), played with the log kept and without, alternated, CPU time.  ``python log_cost.py``."""

import time

import numpy as np

import study
from nines_sim.engine.position import PositionBatch
from nines_sim.engine.positions import Moves, play_out_leaves
from nines_sim.learn.value_fit import dealt_positions
from nines_sim.search.pimc import rollout_policy
from nines_sim.strategy.base import DecisionKind

policy = rollout_policy("learned")
lineup = [policy, policy]
start = dealt_positions(study.RULES, lineup, 11, 300)
stop = np.random.default_rng(11).integers(1, 30, size=start.n)
_, stopped, leaves = study.play_leaves(start, lineup, stop)
pos = PositionBatch(study.RULES, state=leaves).take(np.repeat(np.flatnonzero(stopped), 16))
st = pos.state
faces = np.array([int(f) for f in study.first_legal(st)])
ok = faces >= 0
pos = pos.take(np.flatnonzero(ok))
moves = Moves(DecisionKind.PLAY, faces[ok])
stops = pos.column("turn") + 1 + study.DEPTH
print(f"{pos.n} rollouts a batch")
for rep in range(6):
    for log in (False, True):
        study.LOG = log
        t = time.process_time()
        for _ in range(10):
            study.play_leaves(pos, lineup, stops, moves=moves)
        dt = (time.process_time() - t) / 10
        print(f"log={log!s:5s} {dt * 1e3:7.2f} ms a batch ({dt / pos.n * 1e6:.2f} us a rollout)", flush=True)
pen, stp, lv = study.play_leaves(pos, lineup, stops, moves=moves)
from nines_sim.engine.slots import S_TURN
print("stopped", stp.mean(), "turns played", (lv.st[:, S_TURN] - pos.column("turn")).mean())
