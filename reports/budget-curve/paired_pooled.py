"""Paired difference by deal pooled over several seeds' deals: ``python paired_pooled.py X1 Y1 X2 Y2 ...`` (each X
less its Y on the same deals, as ``../leaf-value/log-model/paired.py X Y``; the deals of every pair together, the
normal interval over deals)."""

import sys

import numpy as np
import pandas as pd


def by_deal(x: str) -> pd.Series:
    a = pd.read_csv(f"{x}_A/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{x}_B/matches.csv.gz").set_index("match")["share_1"]
    return (a + b) / 2


runs = sys.argv[1:]
d = pd.concat([(by_deal(x) - by_deal(y)).dropna() for x, y in zip(runs[::2], runs[1::2], strict=True)])
half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
name = " + ".join(f"({x} - {y})" for x, y in zip(runs[::2], runs[1::2], strict=True))
print(f"{name}: {d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}] by deal over {len(d)} deals")
