"""Paired difference by deal of two players' win rates on the same deals, each against the same opponent with the
seats swapped: ``python paired.py X Y`` (``X_A``, ``X_B``, ``Y_A``, ``Y_B`` as for ``../summary.py``): X's rate minus
Y's, with the normal interval over deals."""

import sys

import numpy as np
import pandas as pd


def by_deal(x: str) -> pd.Series:
    a = pd.read_csv(f"{x}_A/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{x}_B/matches.csv.gz").set_index("match")["share_1"]
    return (a + b) / 2


d = (by_deal(sys.argv[1]) - by_deal(sys.argv[2])).dropna()
half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
print(
    f"{sys.argv[1]} - {sys.argv[2]}: {d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}] "
    f"by deal over {len(d)} deals"
)
