"""The share of clairvoyant's edge over expert that each player recovers, on the same deals.

``python share.py CLAIR_A CLAIR_B NAME X_A X_B [NAME Y_A Y_B ...]``: seat-swapped runs against ``expert`` of the
same seed (``--save-matches``), the player of interest in seat 0 of ``_A`` and seat 1 of ``_B``; only the deals
every run played count.  A player's share is ``(w - 0.5) / (c - 0.5)``, its win rate ``w`` and clairvoyant's ``c``
by deal; the interval is the normal one of the paired deal differences, divided by ``c - 0.5``.
"""

import sys

import numpy as np
import pandas as pd


def by_deal(a_dir: str, b_dir: str) -> pd.Series:
    a = pd.read_csv(f"{a_dir}/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{b_dir}/matches.csv.gz").set_index("match")["share_1"]
    return (a + b) / 2


clair = by_deal(*sys.argv[1:3])
runs = {sys.argv[i]: by_deal(sys.argv[i + 1], sys.argv[i + 2]) for i in range(3, len(sys.argv), 3)}
deals = clair.index
for r in runs.values():
    deals = deals.intersection(r.dropna().index)
c = clair[deals].mean()
print(f"{len(deals)} deals; clairvoyant {c:.3f} against expert")
names = list(runs)
for name in names:
    w = runs[name][deals]
    print(f"{name}: {w.mean():.3f} against expert, share of clairvoyant's edge {(w.mean() - 0.5) / (c - 0.5):.3f}")
for i, x in enumerate(names):
    for y in names[i + 1 :]:
        d = runs[x][deals] - runs[y][deals]
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        print(f"{x} - {y}: {d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}] by deal; share "
              f"{d.mean() / (c - 0.5):+.3f} [{(d.mean() - half) / (c - 0.5):+.3f}, {(d.mean() + half) / (c - 0.5):+.3f}]")
