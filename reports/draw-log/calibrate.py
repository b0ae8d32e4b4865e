"""How likely a card that a seat's draws showed it lacked is in its hand, by the cards drawn since (the draw log).

``python calibrate.py PLAYER SEATS MATCHES RULES``, e.g. ``python calibrate.py expert 2 300 classic``: PLAYER
(``expert`` or ``lookahead``) sits in every seat; at each of seat 0's plays, the faces not yet played this hand
are classed by its own draw log (:mod:`nines_sim.engine.draw_log`): -1, no draw turn excluded the face; else
``k`` (0, 1, 2, 3 = 3 or more), the cards the seat drew since the last draw turn that excluded it, 9s apart
(class 10 = a 9 at ``k`` = 0).  Prints, per class, how often such a face is in the seat's hand, the faces
counted, and that rate over class -1's: the weight of :data:`nines_sim.search.sampler.LOG_NATURAL` and
``LOG_NINE``.  Seed 5.
"""

import sys
from collections import defaultdict

import numpy as np

from nines_sim.engine.draw_log import LOG_DRAWS, LOG_RANK, LOG_SUIT
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, NINE_RANK
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.search.sampler import log_counters
from strategies.expert import Expert
from strategies.lookahead import Lookahead

player, P, n, preset = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
stats: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(2))
bits = np.arange(52, dtype=np.uint64)
suit, rank = FACE_SUIT.astype(np.int64), FACE_RANK.astype(np.int64)


def record(obs) -> None:
    rows = np.arange(obs.n)
    cnt = log_counters(obs)[rows, obs.seat]  # (n, counters): the deciding seat's own log
    hand = ((obs.hand[0][:, None] >> bits) & np.uint64(1)).astype(bool)
    unplayed = ((obs.played[:, None] >> bits) & np.uint64(1)) == 0
    last = np.maximum(cnt[:, LOG_SUIT + suit], cnt[:, LOG_RANK + rank])
    k = np.minimum(cnt[:, [LOG_DRAWS]] - last, 3) + 10 * (rank == NINE_RANK)
    cls = np.where(last == 0, -1, k)
    for c in np.unique(cls):
        sel = unplayed & (cls == c) & (cnt[:, [LOG_DRAWS]] > 0)
        stats[int(c)] += [hand[sel].sum(), sel.sum()]


base = {"expert": Expert, "lookahead": Lookahead}[player]


class Recorder(base):
    name = "recorder"

    def play(self, obs):
        record(obs)
        return super().play(obs)


simulate(make_rules(preset, players=P), [Recorder()] + [player] * (P - 1), n_matches=n, seed=5)
ref = stats[-1][0] / stats[-1][1]
print(f"{player}, {P} seats, {n} matches, {preset}: class, in hand, faces counted, weight")
for c in sorted(stats):
    a, m = stats[c]
    if m:
        print(f"{c:>3} {a / m:.4f} {int(m):>7} {a / m / ref:.3f}")
