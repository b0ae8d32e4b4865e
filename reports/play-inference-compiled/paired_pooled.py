"""Paired difference by deal pooled over several deal sets: ``python paired_pooled.py X1 Y1 X2 Y2 ...`` (X less Y on
each pair's deals, as ``../leaf-value/log-model/paired.py``, the deals of all pairs together)."""

import sys

import numpy as np
import pandas as pd


def by_deal(x: str) -> pd.Series:
    a = pd.read_csv(f"{x}_A/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{x}_B/matches.csv.gz").set_index("match")["share_1"]
    return (a + b) / 2


args = sys.argv[1:]
d = pd.concat([(by_deal(x) - by_deal(y)).dropna() for x, y in zip(args[::2], args[1::2])])
half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
print(f"{' + '.join(f'({x} - {y})' for x, y in zip(args[::2], args[1::2]))}: {d.mean():+.3f} "
      f"[{d.mean() - half:+.3f}, {d.mean() + half:+.3f}] by deal over {len(d)} deals")
