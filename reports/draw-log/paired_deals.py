"""Paired difference, by deal, between two seat-swapped runs of the same deals.

``python paired_deals.py X_A X_B Y_A Y_B``: each pair of folders played the same seed's deals twice, the strategy
of interest in seat 0 of ``_A`` and seat 1 of ``_B`` (``--save-matches``).  Prints each run's win rate by deal (the
mean of its two seatings) and the mean paired difference X - Y with its 95% interval (normal, over deals).
"""

import sys

import numpy as np
import pandas as pd


def by_deal(a_dir: str, b_dir: str) -> pd.Series:
    a = pd.read_csv(f"{a_dir}/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{b_dir}/matches.csv.gz").set_index("match")["share_1"]
    return (a + b) / 2


x, y = by_deal(*sys.argv[1:3]), by_deal(*sys.argv[3:5])
d = (x - y).dropna()
half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
print(
    f"{x.mean():.3f} against {y.mean():.3f} over {len(d)} deals: paired difference {d.mean():+.3f} "
    f"[{d.mean() - half:+.3f}, {d.mean() + half:+.3f}]"
)
