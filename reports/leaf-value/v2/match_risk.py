"""Item 2, the risk: a match-aware score prefers a move by its expected match win chance, the hand's score by its
expected points; they differ where the chance is not linear in the hand's points (behind late in the match, a
riskier move can be worth more).  For each decision of match_study.py's kind, every legal card is played to the
hand's end K times, the stock shuffled each time (the hands as they are); W(a, b), the seat's chance to win from
the totals after the hand, is 1, 0, 1/2 where the match ends (S2) and match_rank.py's logistic fit elsewhere.  The
move each score picks on half of the play-outs is valued on the other half (no selection bias): the mean gain in W
of picking by W over picking by points is what a perfect match-aware leaf value could add a decision.

``python match_risk.py SEED MATCHES K``"""

import sys

import numpy as np
from sklearn.linear_model import LogisticRegression

from match_study import decisions
from nines_sim.engine.positions import Moves, play_out
from nines_sim.engine.slots import S_END, S_POS, S_SEAT
from nines_sim.strategy.base import DecisionKind


def wfeats(a, b):
    left = np.maximum(100 - np.maximum(a, b), 1)
    lead = (b - a) / 100
    return np.stack([lead, lead * 10 / np.sqrt(left), 1 / np.sqrt(left)], axis=1)


def w_model(path):
    z = np.load(path)
    a = z["t_own"] + z["own_pen"]
    b = z["t_opp"] + z["own_pen"] + z["diff"]
    ends = np.maximum(a, b) >= 100
    fit = LogisticRegression(C=10.0).fit(wfeats(a[~ends], b[~ends]), z["win"][~ends] > 0.5)

    def W(a, b):
        end = np.where(a < b, 1.0, np.where(a > b, 0.0, 0.5))
        return np.where(np.maximum(a, b) >= 100, end, fit.predict_proba(wfeats(a, b))[:, 1])

    return W


def main(seed, n, K):
    W = w_model(f"/tmp/v40_match_{seed - 1}.npz")
    pos, lineup, grow, gmove = decisions(seed, n)
    rng = np.random.default_rng([seed, 0x5F1])
    rows = np.repeat(grow, K)
    batch = pos.take(rows)
    st, stock = batch.state.st, batch.state.stock
    for i in range(rows.size):  # a fresh order of the cards still in the stock
        p, e = st[i, S_POS], st[i, S_END]
        stock[i, p:e] = rng.permutation(stock[i, p:e])
    pen, _ = play_out(batch, lineup, to="hand", moves=Moves(DecisionKind.PLAY, np.repeat(gmove, K)))
    own = pos.state.st[rows, S_SEAT]
    r = np.arange(rows.size)
    own_pen, opp_pen = pen[r, own], pen[r, 1 - own]
    tot = pos.state.totals[rows]
    t_own, t_opp = tot[r, own], tot[r, 1 - own]
    pts = (opp_pen - own_pen).reshape(-1, K)
    w = W(t_own + own_pen, t_opp + opp_pen).reshape(-1, K)
    half = K // 2
    gains, late, differ = [], [], 0
    sib = np.repeat(np.arange(grow.size), 1)
    for k in np.unique(grow):
        m = np.flatnonzero(grow == k)
        pick_pts = m[np.argmax(pts[m, :half].mean(axis=1))]
        pick_w = m[np.argmax(w[m, :half].mean(axis=1))]
        gain = w[pick_w, half:].mean() - w[pick_pts, half:].mean()
        gains.append(gain)
        differ += pick_w != pick_pts
        if max(t_own[m[0] * K], t_opp[m[0] * K]) >= 75:
            late.append(gain)
    gains = np.array(gains)
    se = gains.std(ddof=1) / np.sqrt(gains.size)
    print(f"decisions {gains.size} (K={K} play-outs each move): picks differ in {differ / gains.size:.3f}; mean gain in "
          f"win chance of the match-aware pick {gains.mean():+.5f} (se {se:.5f}) a decision; over the {len(late)} with "
          f"a total of 75+: {np.mean(late):+.5f} (se {np.std(late, ddof=1) / np.sqrt(len(late)):.5f})")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
