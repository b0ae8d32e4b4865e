"""Item 2, the ranking: with each sibling's hand outcome known (one play-out), how often and by how much does the move
a match-aware score picks differ from the one the hand's points pick?  W(a, b), the seat's chance to win the match
from its total ``a`` and the other's ``b`` after the hand, is 1, 0 or 1/2 where the match ends (S2; a tie taken as a
half) and a logistic fit of the played matches' outcomes on the lead and the totals' nearness to 100 elsewhere.

``python match_rank.py /tmp/v40_match_SEED.npz`` (written by match_study.py)."""

import sys

import numpy as np
from sklearn.linear_model import LogisticRegression

z = np.load(sys.argv[1])
g, diff, own_pen, win, t_own, t_opp = (z[k] for k in ("group", "diff", "own_pen", "win", "t_own", "t_opp"))
a = t_own + own_pen
b = t_opp + own_pen + diff
ends = np.maximum(a, b) >= 100


def feats(a, b):
    left = np.maximum(100 - np.maximum(a, b), 1)
    lead = (b - a) / 100
    return np.stack([lead, lead * 10 / np.sqrt(left), (a - b) * 0 + 1 / np.sqrt(left)], axis=1)


fit = LogisticRegression(C=10.0).fit(feats(a[~ends], b[~ends]), win[~ends] > 0.5)
W = np.where(ends, np.where(a < b, 1.0, np.where(a > b, 0.0, 0.5)), fit.predict_proba(feats(a, b))[:, 1])
groups = np.unique(g)
loss, differ, late_loss, late_n = [], 0, [], 0
for k in groups:
    m = np.flatnonzero(g == k)
    by_pts = m[np.argmax(diff[m])]
    by_w = m[np.argmax(W[m])]
    gap = W[by_w] - W[by_pts]
    loss.append(gap)
    differ += gap > 1e-9
    if max(t_own[m[0]], t_opp[m[0]]) >= 75:
        late_loss.append(gap)
print(f"decisions {groups.size}; the match-aware pick differs (and scores higher) in {differ / groups.size:.4f} of "
      f"them; mean gain in win chance {np.mean(loss):.5f} a decision ({np.mean(late_loss):.5f} over the "
      f"{len(late_loss)} with a total of 75+)")
