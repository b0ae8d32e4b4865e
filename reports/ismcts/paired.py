"""Paired difference of seat 0's win share between two runs of the same seed, over their common matches."""
import sys
import numpy as np
import pandas as pd
a = pd.read_csv(f"{sys.argv[1]}/matches.csv.gz")
b = pd.read_csv(f"{sys.argv[2]}/matches.csv.gz")
m = a.merge(b, on="match", suffixes=("_a", "_b"))
d = m["share_0_a"] - m["share_0_b"]
n = len(d)
se = d.std(ddof=1) / np.sqrt(n)
print(f"{sys.argv[1]} - {sys.argv[2]}: {n} common matches; seat 0 win share {m['share_0_a'].mean():.3f} vs "
      f"{m['share_0_b'].mean():.3f}; paired difference {d.mean():+.3f} [{d.mean()-1.96*se:+.3f}, {d.mean()+1.96*se:+.3f}]")
