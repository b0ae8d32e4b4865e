"""Win rates over the four seatings of a 4-seat run (``python summarize.py PREFIX``, e.g. ``4seat-``)."""

import sys

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

tot: dict[str, tuple[float, int]] = {}
for i in range(4):
    s = pd.read_csv(f"{sys.argv[1]}{i}/summary.csv")
    for _, r in s.iterrows():
        w, n = tot.get(r["strategy"], (0.0, 0))
        tot[r["strategy"]] = (w + r["wins"], n + int(r["matches"]))
for name, (w, n) in sorted(tot.items(), key=lambda x: -x[1][0]):
    lo, hi = proportion_confint(w, n, method="wilson")
    print(f"{name:22s} {w:7.1f} wins of {n}: {w / n:.3f} [{lo:.3f}, {hi:.3f}]")
