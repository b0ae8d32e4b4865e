"""A screen or confirmation of a candidate, against the shipped model's run on the same deals:
``python screen.py X REF`` (``X_A``, ``X_B`` and ``REF_A``, ``REF_B``: ``--save-matches`` folders of the learned
search, seat 0 of ``_A`` and seat 1 of ``_B``, against ``lookahead:draws=log``; REF may hold more deals).
Prints X's win rate (Wilson interval over matches, normal over deals), REF's on the same deals, and X less REF by
deal (normal interval over deals), as ``../leaf-value/summary.py`` and ``../leaf-value/log-model/paired.py`` do;
several ``X REF`` pairs pool their deals."""

import sys

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint


def shares(x: str) -> tuple[pd.Series, pd.Series]:
    a = pd.read_csv(f"{x}_A/matches.csv.gz").set_index("match")["share_0"]
    b = pd.read_csv(f"{x}_B/matches.csv.gz").set_index("match")["share_1"]
    return a, b


def rate(a: pd.Series, b: pd.Series) -> str:
    n = len(a) + len(b)
    w = (a.sum() + b.sum()) / n
    lo, hi = proportion_confint(w * n, n, method="wilson")
    deal = (a + b) / 2
    half = 1.96 * deal.std(ddof=1) / np.sqrt(len(deal))
    return (
        f"{w:.3f} [{lo:.3f}, {hi:.3f}] over {n} matches; by deal [{deal.mean() - half:.3f}, "
        f"{deal.mean() + half:.3f}] over {len(deal)} deals"
    )


pairs = list(zip(sys.argv[1::2], sys.argv[2::2], strict=True))
xa, xb, ra, rb, diffs = [], [], [], [], []
for x, ref in pairs:
    a, b = shares(x)
    r_a, r_b = shares(ref)
    r_a, r_b = r_a.loc[a.index], r_b.loc[b.index]  # the reference on the same deals
    xa.append(a.rename(lambda m, x=x: f"{x}:{m}"))
    xb.append(b.rename(lambda m, x=x: f"{x}:{m}"))
    ra.append(r_a.rename(lambda m, x=x: f"{x}:{m}"))
    rb.append(r_b.rename(lambda m, x=x: f"{x}:{m}"))
    diffs.append(((a + b) / 2 - (r_a + r_b) / 2).dropna())
a, b, r_a, r_b, d = (pd.concat(s) for s in (xa, xb, ra, rb, diffs))
name = " + ".join(x for x, _ in pairs)
half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
print(f"{name}: win rate {rate(a, b)}")
print(f"reference on the same deals ({', '.join(r for _, r in pairs)}): win rate {rate(r_a, r_b)}")
print(
    f"{name} less the reference: {d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}] by deal over "
    f"{len(d)} deals"
)
