"""An experiment, not shipped: a leaf value of the SAMPLED WORLD, reading the other hand there as a rollout does.

The shipped value (nines_sim/learn/value.py) reads the searching seat's observation only, by design (its test
exchanges a card between the other hand and the stock).  At a leaf of ``lookahead``'s search the position is a
world the search sampled from that observation, and the rollout the value replaces would have played on with every
hand of that world, the other seat's included.  This value adds 12 features of the other hand in the world to the
shipped 20 (its points, 9s, cards playable now, cards of the active suit, longest suit, and products with who is
near going out and whose turn it is), fitted by ridge regression as the shipped value is (value_fit's positions:
learned rollouts at both seats, heads-up classic).

``python world.py fit SEED DEALS`` writes world_value.npz (32 weights) and prints the held-out R^2;
``python world.py nines ARGS...`` runs ``nines ARGS`` with ``leaf=learned`` (policy learned, heads-up classic)
scored by this value instead of the shipped one (one process: ``--workers 1``);
``python world.py speed MATCHES PAIRS SPEC...`` is ../../learned-search/speed.py with it."""

import sys
from pathlib import Path

import numpy as np
from numba import njit

from nines_sim.engine.bits import I_NINES, RANK_MASKS, SUIT_MASKS, face_rank, popcount
from nines_sim.engine.slots import S_ACTIVE, S_DIR, S_SEAT, S_TOP
from nines_sim.learn.value import NFV, _points, value_features_at

NW = 12
WEIGHTS = Path(__file__).parent / "world_value.npz"


@njit(cache=True, error_model="numpy")
def world_features_at(hands, ncards, drew_on, played, st, rows, seat, nine_pen):
    base = value_features_at(hands, ncards, drew_on, played, st, rows, seat, nine_pen)
    P = hands.shape[2]
    out = np.zeros((rows.shape[0], NFV + NW))
    out[:, :NFV] = base
    for i in range(rows.shape[0]):
        b = rows[i]
        s = seat[i]
        n = (s + (-1 if st[b, S_DIR] else 1)) % P
        h = np.int64(hands[0, b, n])
        top = st[b, S_TOP]
        legal = SUIT_MASKS[st[b, S_ACTIVE]] | I_NINES | (RANK_MASKS[face_rank(top)] if top >= 0 else 0)
        op = _points(h, nine_pen)
        o9 = popcount(h & I_NINES)
        opl = popcount(h & legal)
        oa = popcount(h & SUIT_MASKS[st[b, S_ACTIVE]] & ~I_NINES)
        om = 0
        for q in range(4):
            om = max(om, popcount(h & SUIT_MASKS[q] & ~I_NINES))
        own_n = ncards[b, s]
        opp_n = ncards[b, n]
        tm = 1.0 if st[b, S_SEAT] == s else 0.0
        near = 1.0 if own_n <= 2 else 0.0
        x = out[i]
        x[NFV + 0] = op
        x[NFV + 1] = o9
        x[NFV + 2] = opl
        x[NFV + 3] = oa
        x[NFV + 4] = om
        x[NFV + 5] = op * near
        x[NFV + 6] = op * tm
        x[NFV + 7] = opl * (1.0 - tm)
        x[NFV + 8] = o9 * near
        x[NFV + 9] = opl * opp_n
        x[NFV + 10] = o9 * (1.0 if opp_n <= 2 else 0.0)
        x[NFV + 11] = op * (1.0 if own_n == 1 else 0.0)
    return out


def data(seed, deals):
    """value_fit.value_data's positions and targets, with these features."""
    from nines_sim.engine.positions import play_out
    from nines_sim.game.rules import make_rules
    from nines_sim.learn.value_fit import value_positions
    from nines_sim.search.pimc import rollout_policy

    rules = make_rules("classic", players=2)
    policy = rollout_policy("learned")
    lineup = [policy, policy]
    leaf, dealt = value_positions(rules, lineup, seed, deals)
    s = leaf.state
    pen, _ = play_out(leaf, lineup, to="hand")
    xs, ys = [], []
    for seat in (0, 1):
        xs.append(world_features_at(s.hands, s.ncards, s.drew_on, s.played, s.st, np.arange(leaf.n),
                                    np.full(leaf.n, seat, dtype=np.int64), rules.nine_penalty))
        ys.append((pen[:, 1 - seat] - pen[:, seat]).astype(np.float64))
    return np.concatenate(xs), np.concatenate(ys), np.tile(dealt, 2)


def fit(seed, deals):
    from sklearn.linear_model import Ridge

    x, y, deal = data(seed, deals)
    f = deal % 2 == 0
    for k, lab in ((NFV, "the shipped 20 features"), (NFV + NW, "with the world's other hand")):
        m = Ridge(alpha=1.0, fit_intercept=False).fit(x[f][:, :k], y[f])
        r = y[~f] - m.predict(x[~f][:, :k])
        print(f"{lab:30s} held-out R^2 {1 - r.var() / y[~f].var():.4f} ({y.size} rows, seed {seed}, {deals} deals)")
    w = Ridge(alpha=1.0, fit_intercept=False).fit(x, y).coef_
    np.savez(WEIGHTS, weights=w, command=np.array(f"python world.py fit {seed} {deals}"))
    print(WEIGHTS, w.size, "weights")


def patch():
    """Make leaf=learned (policy learned, heads-up classic) score leaves with this value."""
    from nines_sim.learn import value as V

    w = np.load(WEIGHTS)["weights"]
    plain = V.LeafValue.of

    def of(self, state, rows, seat):
        if self.meta.get("policy") != "learned" or self.rules.players != 2:
            return plain(self, state, rows, seat)
        x = world_features_at(state.hands, state.ncards, state.drew_on, state.played, state.st,
                              np.asarray(rows, dtype=np.int64), np.asarray(seat, dtype=np.int64),
                              self.rules.nine_penalty)
        return x @ w

    V.LeafValue.of = of
    import atexit

    calls = []
    plain_at = world_features_at

    def counted(*a):
        calls.append(1)
        return plain_at(*a)

    globals()["world_features_at"] = counted
    atexit.register(lambda: print(f"world.py: the world value scored {len(calls)} batches of leaves", file=sys.stderr))


if __name__ == "__main__":
    what, args = sys.argv[1], sys.argv[2:]
    if what == "fit":
        fit(int(args[0]), int(args[1]))
    elif what == "nines":
        patch()
        from nines_sim.cli import app

        sys.argv = ["nines", *args]
        app()
    elif what == "speed":
        patch()
        sys.argv = ["speed.py", *args]
        exec(compile(open(Path(__file__).parents[2] / "learned-search" / "speed.py").read(), "speed.py", "exec"))
