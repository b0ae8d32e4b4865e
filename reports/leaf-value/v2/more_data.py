"""Is the shipped value short of data?  Ridge fitted on 4,000 deals' even half (as shipped) against all of 16,000
other deals (seed 3), both scored on the first set's held-out odd deals: ``python more_data.py L1.npz L3.npz``."""

import sys

from sklearn.linear_model import Ridge

from fit import ALL, cols, evaluate, load
from nines_sim.learn.value import VALUE_FEATURES

small, big = load(sys.argv[1]), load(sys.argv[2])
for names, lab in ((list(VALUE_FEATURES), "the 20"), (ALL, f"all {len(ALL) - 1}")):
    c = cols(names)
    f = small["deal"] % 2 == 0
    for how, (x, y) in (("4,000 deals, even half", (small["x"][f][:, c], small["y"][f])),
                        ("16,000 other deals", (big["x"][:, c], big["y"]))):
        m = Ridge(alpha=1.0, fit_intercept=False).fit(x, y)
        r2, mse, sr2 = evaluate(small, m.predict, c)
        print(f"{lab:7s} fitted on {how:24s} R2={r2:.4f} sibMSE={mse:.3f} sibR2={sr2:.4f}")
