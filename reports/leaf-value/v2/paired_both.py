"""The world value less the shipped one by deal over both seeds' deals (w12 - s12 on seed 470, c12 - p12 on 480):
``python paired_both.py`` (paired_both.txt)."""

import numpy as np
import pandas as pd


def by_deal(x):
    a = pd.read_csv(f"{x}_A/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{x}_B/matches.csv.gz").set_index("match")["share_1"]
    return (a + b) / 2


d = pd.concat([(by_deal("w12") - by_deal("s12")).dropna(), (by_deal("c12") - by_deal("p12")).dropna()])
half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
print(f"world value less the shipped one, seeds 470 and 480: {d.mean():+.4f} [{d.mean() - half:+.4f}, "
      f"{d.mean() + half:+.4f}] by deal over {len(d)} deals")
