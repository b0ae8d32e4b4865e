"""Fits of the leaf value on study.py's data: held-out R^2 (odd deals) and the sibling-difference error."""

import sys

import numpy as np
from sklearn.linear_model import Ridge

from feats import CHEAT, NAMES
from nines_sim.learn.value import VALUE_FEATURES

ALL = list(VALUE_FEATURES) + list(NAMES)
WITH_CHEAT = ALL + list(CHEAT)


def load(path):
    z = np.load(path)
    return {k: z[k] for k in z.files}


def cols(names):
    return [WITH_CHEAT.index(n) for n in names]


def sib_error(true, group, cut, pred_cut):
    """Centred (per position) squared error of the siblings' values, and its share of the centred variance."""
    pred = true.copy()
    pred[cut] = pred_cut
    _, inv = np.unique(group, return_inverse=True)
    cnt = np.bincount(inv)

    def centre(v):
        return v - (np.bincount(inv, v) / cnt)[inv]

    e = centre(pred) - centre(true)
    return float(np.mean(e**2)), float(1 - np.mean(e**2) / np.var(centre(true)))


def evaluate(d, predict, c):
    """Held-out (odd deals) R^2 and sibling error of ``predict`` (features -> values) on columns ``c``."""
    h = d["deal"] % 2 == 1
    r = d["y"][h] - predict(d["x"][h][:, c])
    r2 = 1 - r.var() / d["y"][h].var()
    keep = d["sdeal"] % 2 == 1
    pos = np.flatnonzero(keep)
    cutmask = np.zeros(d["sy_true"].size, bool)
    cutmask[d["cut"]] = True
    xcut = d["sx"][keep[d["cut"]]][:, c]
    mse, sr2 = sib_error(d["sy_true"][pos], d["sgroup"][pos], np.flatnonzero(cutmask[pos]), predict(xcut))
    return r2, mse, sr2


def run(d, names, alpha=1.0, label="", model=None):
    c = cols(names)
    f = d["deal"] % 2 == 0
    m = (model or Ridge(alpha=alpha, fit_intercept=False)).fit(d["x"][f][:, c], d["y"][f])
    r2, mse, sr2 = evaluate(d, m.predict, c)
    print(f"{label:40s} k={len(c):3d} R2={r2:.4f} sibMSE={mse:8.3f} sibR2={sr2:.4f}", flush=True)
    return m


if __name__ == "__main__":
    # python fit.py DATA.npz: the shipped 20, all, the cheat, each candidate added alone
    # python fit.py DATA.npz hgb: gradient-boosted trees of the 20 and of all
    # python fit.py DATA.npz cheat: each hidden feature added alone, to the 20 and to all
    d = load(sys.argv[1])
    base = list(VALUE_FEATURES)
    run(d, base, label="shipped 20")
    run(d, ALL, label=f"all {len(ALL) - 1} (and the bias)")
    run(d, WITH_CHEAT, label="all + the other hand and stock (cheat)")
    what = sys.argv[2] if len(sys.argv) > 2 else ""
    if what == "hgb":
        from sklearn.ensemble import HistGradientBoostingRegressor

        for names, lab in ((base, "hgb 20"), (ALL, "hgb all")):
            run(d, names, label=lab, model=HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05,
                                                                          random_state=0))
    elif what == "cheat":
        for n in CHEAT:
            run(d, base + [n], label="20 + cheat " + n)
            run(d, ALL + [n], label="all + cheat " + n)
    else:
        for n in NAMES:
            run(d, base + [n], label="+" + n)
