"""How much likelier a seat holds naturals of the suit it last declared, by its own turns since (heads-up).

``python calibrate_declare.py PLAYER SEATS MATCHES RULES``: PLAYER in every seat; at seat 0's plays after it
declared this hand, the unplayed naturals of the declared suit against those of the other suits, by the seat's
turns since (0: the declaring turn; 3: 3 or more).  Prints each rate and their ratio (``LOG_DECLARED``).  Seed 5.
"""

import sys
from collections import defaultdict

import numpy as np

from nines_sim.game.cards import FACE_RANK, FACE_SUIT, NINE_RANK
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategies.expert import Expert
from nines_sim.strategies.lookahead import Lookahead

player, P, n, preset = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
base = {"expert": Expert, "lookahead": Lookahead}[player]
bits = np.arange(52, dtype=np.uint64)
stats = defaultdict(lambda: np.zeros(2))
mem = {}


class Rec(base):
    name = "recorder"

    def declare(self, obs):
        out = super().declare(obs)
        for i in range(obs.n):
            mem[(int(obs.public("dkey")[i]), int(obs.seat[i]))] = (int(out[i]), int(obs.public("turn")[i]))
        return out

    def play(self, obs):
        dk = obs.public("dkey")
        turn = obs.public("turn")
        hand = ((obs.hand[0][:, None] >> bits) & np.uint64(1)).astype(bool)
        unplayed = ((obs.played[:, None] >> bits) & np.uint64(1)) == 0
        for i in range(obs.n):
            m = mem.get((int(dk[i]), int(obs.seat[i])))
            if m is None:
                continue
            s, t = m
            age = min((int(turn[i]) - t) // P, 3)
            nat = unplayed[i] & (FACE_RANK != NINE_RANK)
            for same in (0, 1):
                sel = nat & ((FACE_SUIT == s) == bool(same))
                stats[(age, same)] += [hand[i][sel].sum(), sel.sum()]
        return super().play(obs)


simulate(make_rules(preset, players=P), [Rec()] + [player] * (P - 1), n_matches=n, seed=5)
for age in range(4):
    a0, n0 = stats[(age, 0)]
    a1, n1 = stats[(age, 1)]
    if n0 and n1:
        print(age, f"declared suit {a1 / n1:.4f} ({int(n1)}) other {a0 / n0:.4f} ratio {(a1 / n1) / (a0 / n0):.2f}")
