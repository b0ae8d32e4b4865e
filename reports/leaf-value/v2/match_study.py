"""Item 2 of the brief, offline: does scoring a leaf by the match (win share) rank a seat's moves differently from
scoring it by the hand (points)?  Heads-up classic, learned rollouts at both seats.  Positions at the start of a
random hand (0-8) of fresh matches, played to a random turn (1-40); at each with 2+ legal cards for the seat to
move, every legal card is played and the position played to the match's end (the same stock, so the siblings share
the cards to come).  Within each position, the siblings' match win shares are regressed on their hand outcomes
(points: the others' mean penalty minus the seat's own), with the slope free to vary with the match's totals (a
change of scale: the same ranking of moves as the hand's points), then with the seat's own penalty and the square
of the outcome beside it, by the totals (what only a match-aware value can rank by).

``python match_study.py SEED MATCHES``"""

import sys

import numpy as np

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.position import PositionBatch, positions_from_engine
from nines_sim.engine.positions import Moves, play_out
from nines_sim.engine.slots import S_SEAT
from nines_sim.game.rules import make_rules
from nines_sim.search.pimc import rollout_policy
from nines_sim.strategy.base import DecisionKind
from study import play_leaves, siblings

RULES = make_rules("classic", players=2)


def starts(lineup, seed, n, rng):
    out = []
    hands = rng.integers(0, 9, size=n)
    for m in range(n):
        eng = CompiledEngine(RULES, lineup, seed, m, 1, trace=True)
        eng.stop_at(int(hands[m]), 0)
        while eng.B and not eng.paused:
            eng.advance()
        if eng.paused:
            out.append(positions_from_engine(eng).position(0))
    return PositionBatch.from_positions(out)


def decisions(seed, n):
    """Heads-up positions mid-hand at random hands of fresh matches, and every legal card of the seat to move at those
    with 2+: ``(positions, lineup, row of each sibling, its card)``."""
    policy = rollout_policy("learned")
    lineup = [policy, policy]
    rng = np.random.default_rng([seed, 0x3A7C])
    start = starts(lineup, seed, n, rng)
    stop = rng.integers(1, 41, size=start.n)
    _, stopped, leaves = play_leaves(start, lineup, stop)
    pos = PositionBatch(RULES, state=leaves).take(np.flatnonzero(stopped))
    grow, gmove = siblings(pos)
    return pos, lineup, grow, gmove


def main(seed, n):
    pos, lineup, grow, gmove = decisions(seed, n)
    mover = pos.state.st[:, S_SEAT]
    pen, share = play_out(pos.take(grow), lineup, to="match", moves=Moves(DecisionKind.PLAY, gmove))
    own = mover[grow]
    rr = np.arange(grow.size)
    opp = 1 - own
    own_pen, opp_pen = pen[rr, own], pen[rr, opp]
    diff = (opp_pen - own_pen).astype(float)
    win = share[rr, own]
    tot = pos.state.totals[grow]
    t_own, t_opp = tot[rr, own], tot[rr, opp]
    np.savez(f"/tmp/v40_match_{seed}.npz", group=grow, diff=diff, own_pen=own_pen, win=win, t_own=t_own, t_opp=t_opp)
    analyse(grow, diff, own_pen.astype(float), win, t_own, t_opp)


def analyse(group, diff, own_pen, win, t_own, t_opp):
    _, inv = np.unique(group, return_inverse=True)
    cnt = np.bincount(inv)

    def c(v):
        return v - (np.bincount(inv, v) / cnt)[inv]

    near = np.maximum(t_own, t_opp)
    # the totals' terms a slope may vary with: bias, how near the match's end, who leads
    scale = np.stack([np.ones_like(near), near / 100, (near / 100) ** 2, (t_opp - t_own) / 100,
                      (near >= 75).astype(float)], axis=1)
    y = c(win)
    a = scale * c(diff)[:, None]
    b = np.hstack([a, scale * c(own_pen)[:, None], scale * c(diff**2 / 100)[:, None]])
    for name, x in (("hand points, slope by the totals", a), ("+ own penalty and points squared, by the totals", b)):
        beta, *_ = np.linalg.lstsq(x, y, rcond=None)
        res = y - x @ beta
        print(f"{name:50s} share of the siblings' win-share variance explained {1 - res.var() / y.var():.4f}")
    late = near >= 75
    print(f"positions {np.unique(group).size}, sibling rows {group.size}; of the rows, {late.mean():.3f} with a total"
          " of 75 or more")
    for lab, m in (("late (a total of 75+)", late), ("earlier", ~late)):
        ym = y[m]
        for name, x in (("hand", a[m]), ("+ match terms", b[m])):
            beta, *_ = np.linalg.lstsq(x, ym, rcond=None)
            print(f"  {lab:22s} {name:14s} {1 - (ym - x @ beta).var() / ym.var():.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
