"""The softmax temperature of play_model=learned, fitted by maximum likelihood: the learned model's card scores at the
play decisions of ``lookahead:draws=log`` (both seats, heads-up classic) and the cards it played.
``python calibrate_temp.py MATCHES SEED``."""

import sys

import numpy as np
from scipy.optimize import minimize_scalar

from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategies.learned import Learned
from nines_sim.strategy.registry import make_lineup

n, seed = int(sys.argv[1]), int(sys.argv[2])
rules = make_rules("classic", players=2)
model = Learned()
inner = make_lineup(["lookahead:draws=log"])[0]
scores, chosen = [], []


class Recorded(type(inner)):
    """lookahead:draws=log, its play decisions and the model's scores of them kept."""

    def play(self, obs):
        out = super().play(obs)
        s = model.scores(obs)
        many = np.isfinite(s).sum(axis=1) > 1
        scores.append(s[many])
        chosen.append(out[many])
        return out


player = Recorded(draws="log")
simulate(rules, [player, player], n, seed=seed, workers=1, batch_size=n)
s = np.concatenate(scores)
c = np.concatenate(chosen)
ok = (c >= 0) & (c < 52)  # two 9s together are not a card of the model's
s, c = s[ok], c[ok]


def nll(t):
    x = s / t
    top = x.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(x - top).sum(axis=1)) + top[:, 0]
    return -(x[np.arange(len(c)), c] - log_z).mean()


best = minimize_scalar(nll, bounds=(0.05, 50), method="bounded")
agree = (s.argmax(axis=1) == c).mean()
print(f"{len(c)} decisions with 2+ legal cards; the model's best card is the one played in {agree:.3f}")
for t in (0.25, 0.5, 1.0, 2.0, 4.0):
    print(f"temp {t}: mean log-likelihood {-nll(t):.4f}")
print(f"maximum likelihood temp {best.x:.3f}: {-best.fun:.4f}")
