"""Win rate of the first player of seat-swapped runs of the same deals, with its Wilson interval over matches and
the normal interval over deals: ``python summary.py X_A X_B`` (``--save-matches`` folders; the player of interest
in seat 0 of ``_A`` and seat 1 of ``_B``)."""

import sys

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

a = pd.read_csv(f"{sys.argv[1]}/matches.csv.gz").set_index("match")["share_0"]
b = pd.read_csv(f"{sys.argv[2]}/matches.csv.gz").set_index("match")["share_1"]
n = len(a) + len(b)
w = (a.sum() + b.sum()) / n
lo, hi = proportion_confint(w * n, n, method="wilson")
deal = ((a + b) / 2).dropna()
half = 1.96 * deal.std(ddof=1) / np.sqrt(len(deal))
print(f"win rate {w:.3f} [{lo:.3f}, {hi:.3f}] over {n} matches; by deal {deal.mean():.3f} "
      f"[{deal.mean() - half:.3f}, {deal.mean() + half:.3f}] over {len(deal)} deals")
