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

from nines_sim.game.cards import FACE_RANK, NINE_RANK
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.search.sampler import log_view
from nines_sim.strategies.expert import Expert
from nines_sim.strategies.lookahead import Lookahead

player, P, n, preset = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
stats: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(2))
bits = np.arange(52, dtype=np.uint64)
rank = FACE_RANK.astype(np.int64)


def record(obs) -> None:
    rows = np.arange(obs.n)
    k, kept, _, _ = log_view(obs)
    k, kept = k[rows, obs.seat], kept[rows, obs.seat]  # the deciding seat's own log, (n, 52) and (n,)
    hand = ((obs.hand[0][:, None] >> bits) & np.uint64(1)).astype(bool)
    unplayed = ((obs.played[:, None] >> bits) & np.uint64(1)) == 0
    cls = np.where(k < 0, -1, k + 10 * (rank == NINE_RANK))
    for c in np.unique(cls):
        sel = unplayed & (cls == c) & kept[:, None]
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
