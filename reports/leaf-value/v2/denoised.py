"""The sibling error with less of the cards to come in it: each sibling leaf (as study.py makes them) played to the
hand's end R times, the stock's order shuffled each time (the hands as they are), its mean the target.  Positions
whose siblings were all cut.  Each value is fitted as fit.py fits it (even deals of the data file given) and scored
on this script's own fresh deals.  ``python denoised.py FIT.npz SEED DEALS R``"""

import sys

import numpy as np
from sklearn.linear_model import Ridge

import study
from fit import ALL, WITH_CHEAT, cols, load
from nines_sim.engine.position import PositionBatch
from nines_sim.engine.positions import Moves, play_out
from nines_sim.engine.slots import S_END, S_POS, S_SEAT
from nines_sim.learn.value import VALUE_FEATURES
from nines_sim.learn.value_fit import MAX_STOP, STOPS_PER_DEAL, dealt_positions
from nines_sim.search.pimc import rollout_policy
from nines_sim.strategy.base import DecisionKind


def main(fit_path, seed, deals, R):
    d = load(fit_path)
    policy = rollout_policy("learned")
    lineup = [policy, policy]
    start = dealt_positions(study.RULES, lineup, seed, deals)
    rows = np.repeat(np.arange(deals), STOPS_PER_DEAL)
    rng = np.random.default_rng([seed, 0x7A1E])
    stop = rng.integers(1, MAX_STOP + 1, size=rows.size)
    _, stopped, leaves = study.play_leaves(start.take(rows), lineup, stop)
    leaf = PositionBatch(study.RULES, state=leaves).take(np.flatnonzero(stopped))
    mover = leaf.state.st[:, S_SEAT]
    grow, gmove = study.siblings(leaf)
    sub = leaf.take(grow)
    _, sstopped, sleaves = study.play_leaves(sub, lineup, sub.column("turn") + 1 + study.DEPTH,
                                             moves=Moves(DecisionKind.PLAY, gmove))
    allcut = np.array([sstopped[grow == k].all() for k in grow])
    keep = np.flatnonzero(allcut)
    own = mover[grow][keep]
    lb = PositionBatch(study.RULES, state=sleaves).take(keep)
    x = study.feats(lb.state, np.arange(keep.size), own)
    # R play-outs of each leaf, the stock shuffled
    rep = lb.take(np.repeat(np.arange(keep.size), R))
    rs, stock = rep.state.st, rep.state.stock
    for i in range(rep.n):
        p, e = rs[i, S_POS], rs[i, S_END]
        stock[i, p:e] = rng.permutation(stock[i, p:e])
    pen, _ = play_out(rep, lineup, to="hand")
    o = np.repeat(own, R)
    rr = np.arange(rep.n)
    y = (pen[rr, 1 - o] - pen[rr, o]).reshape(-1, R)
    one = y[:, 0]
    mean = y.mean(axis=1)
    group = grow[keep]
    _, inv = np.unique(group, return_inverse=True)
    cnt = np.bincount(inv)

    def c(v):
        return v - (np.bincount(inv, v) / cnt)[inv]

    # the noise left in the mean of R: the within-leaf variance / R
    noise = float(np.mean(y.var(axis=1, ddof=1)) / R)
    print(f"positions {np.unique(group).size}, sibling leaves {keep.size}, R={R}; the centred variance of one "
          f"play-out {c(one).var():.2f}, of the mean of {R} {c(mean).var():.2f} (of which noise about "
          f"{noise * (1 - 1 / cnt.mean()):.2f})")
    f = d["deal"] % 2 == 0
    for names, lab in ((list(VALUE_FEATURES), "shipped 20"), (ALL, f"all {len(ALL) - 1} and the bias"),
                       (WITH_CHEAT, "all + the other hand and stock (cheat)")):
        cc = cols(names)
        m = Ridge(alpha=1.0, fit_intercept=False).fit(d["x"][f][:, cc], d["y"][f])
        p = m.predict(x[:, cc])
        e1 = np.mean((c(p) - c(one)) ** 2)
        em = np.mean((c(p) - c(mean)) ** 2)
        print(f"{lab:40s} sibling error against one play-out {e1:7.3f}, against the mean of {R}: {em:7.3f}")
    # world.py's value (the shipped 20 and 12 of the world's other hand; its own fit, world_value.npz)
    import world

    s = lb.state
    p = world.world_features_at(s.hands, s.ncards, s.drew_on, s.played, s.st, np.arange(keep.size), own,
                                study.RULES.nine_penalty) @ np.load(world.WEIGHTS)["weights"]
    e1 = np.mean((c(p) - c(one)) ** 2)
    em = np.mean((c(p) - c(mean)) ** 2)
    print(f"{'world.py (fitted on seed 1, 16,000 deals)':40s} sibling error against one play-out {e1:7.3f}, against "
          f"the mean of {R}: {em:7.3f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
