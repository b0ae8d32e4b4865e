"""Win rate of the first player pooled over several seat-swapped runs on different seeds: ``python pooled.py X Y``
(``X_A``, ``X_B``, ... as for ``../summary.py``), with the Wilson interval over matches and the normal one over
deals."""

import sys

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

shares, deals = [], []
for x in sys.argv[1:]:
    a = pd.read_csv(f"{x}_A/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{x}_B/matches.csv.gz").set_index("match")["share_1"]
    shares += [a, b]
    deals.append(((a + b) / 2).dropna())
s, d = pd.concat(shares), pd.concat(deals)
w = s.sum() / len(s)
lo, hi = proportion_confint(s.sum(), len(s), method="wilson")
half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
print(
    f"{' + '.join(sys.argv[1:])}: win rate {w:.3f} [{lo:.3f}, {hi:.3f}] over {len(s)} matches; by deal "
    f"{d.mean():.3f} [{d.mean() - half:.3f}, {d.mean() + half:.3f}] over {len(d)} deals"
)
