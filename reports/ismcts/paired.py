"""Paired difference of seat 0's win share between two runs of the same seed, over their common matches."""

import sys

import numpy as np
import pandas as pd

a = pd.read_csv(f"{sys.argv[1]}/matches.csv.gz")
b = pd.read_csv(f"{sys.argv[2]}/matches.csv.gz")
m = a.merge(b, on="match", suffixes=("_a", "_b"))
d = m["share_0_a"] - m["share_0_b"]
n = len(d)
half = 1.96 * d.std(ddof=1) / np.sqrt(n)
wa, wb, dm = m["share_0_a"].mean(), m["share_0_b"].mean(), d.mean()
print(f"{sys.argv[1]} - {sys.argv[2]}: {n} common matches; seat 0 win share {wa:.3f} vs {wb:.3f}; ", end="")
print(f"paired difference {dm:+.3f} [{dm - half:+.3f}, {dm + half:+.3f}]")
