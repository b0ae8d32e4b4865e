"""Win rate of a strategy over runs that played the same deals with the seats swapped.

``python seat_swapped.py A1 B1 [A2 B2 ...]``: in each run folder pair the strategy sits in seat 0 of A and seat
1 of B (both with ``--save-matches``, the same seed and matches).  Prints the Wilson 95% interval over all
matches and the interval by deal (each deal the mean of its two seatings: the seat and the deal's luck cancel).
"""

import sys

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

per_deal, wins, n = [], 0.0, 0
for a_dir, b_dir in zip(sys.argv[1::2], sys.argv[2::2], strict=True):
    a = pd.read_csv(f"{a_dir}/matches.csv.gz").set_index("match")
    b = pd.read_csv(f"{b_dir}/matches.csv.gz").set_index("match")
    both = a.index.intersection(b.index)
    per_deal.append((a.loc[both, "share_0"].to_numpy() + b.loc[both, "share_1"].to_numpy()) / 2)
    wins += a["share_0"].sum() + b["share_1"].sum()
    n += len(a) + len(b)
x = np.concatenate(per_deal)
lo, hi = proportion_confint(wins, n, method="wilson")
half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
print(
    f"win rate {wins / n:.3f} [{lo:.3f}, {hi:.3f}] over {n} matches; by deal {x.mean():.3f} "
    f"[{x.mean() - half:.3f}, {x.mean() + half:.3f}] over {len(x)} deals"
)
