"""Offline study of the leaf value's features (issue 40, v40): held-out R^2 and the error of sibling moves' value
differences, heads-up classic, learned rollouts.  ``python study.py collect SEED DEALS OUT.npz`` writes the data
(fit.py fits it)."""

import sys

import numpy as np

from feats import CHEAT, NAMES, cheat_features, extra_features
from nines_sim.engine.position import PositionBatch
from nines_sim.engine.positions import Moves, play_out, play_out_leaves
from nines_sim.engine.bits import I_NINES, RANK_MASKS, SUIT_MASKS
from nines_sim.engine.slots import S_ACTIVE, S_SEAT, S_TOP, S_TURN
from nines_sim.game.rules import make_rules
from nines_sim.learn.value import VALUE_FEATURES, value_features_at
from nines_sim.learn.value_fit import value_positions
from nines_sim.search.pimc import rollout_policy
from nines_sim.strategy.base import DecisionKind

RULES = make_rules("classic", players=2)
DEPTH = 12
LOG = True  # keep the draw log in the play-outs (the compiled loop's form that writes it)


def play_leaves(batch, lineup, stop, moves=None):
    """play_out_leaves, with the draw log kept when LOG."""
    if not LOG:
        return play_out_leaves(batch, lineup, stop, moves=moves)
    from nines_sim.engine.positions import PositionSlots

    stop = np.where(stop < batch.rules.turn_cap, np.asarray(stop, dtype=np.int64), 0)
    slots = PositionSlots(batch, "hand", lineup, moves, log=True, stop=stop)
    slots.run()
    return slots.penalties, ~slots.scored, slots.slots


def siblings(pos):
    """Every position whose seat to move holds 2+ legal cards, once a card: ``(row, card)``, int64 each."""
    st = pos.state.st
    hand = pos.state.hands[0, np.arange(pos.n), st[:, S_SEAT]].astype(np.int64)
    top = st[:, S_TOP]
    legal = SUIT_MASKS[st[:, S_ACTIVE]] | I_NINES | np.where(top >= 0, RANK_MASKS[np.maximum(top, 0) % 13], 0)
    faces = [np.flatnonzero((int(m) >> np.arange(52)) & 1) for m in hand & legal]
    g = [i for i, f in enumerate(faces) if f.size >= 2]
    grow = np.concatenate([[i] * faces[i].size for i in g]).astype(np.int64)
    return grow, np.concatenate([faces[i] for i in g]).astype(np.int64)


def first_legal(state):
    """The lowest legal card of the seat to move in each position (-1: none)."""
    st = state.st
    r = np.arange(st.shape[0])
    hand = state.hands[0, r, st[:, S_SEAT]].astype(np.int64)
    top = st[:, S_TOP]
    legal = SUIT_MASKS[st[:, S_ACTIVE]] | I_NINES | np.where(top >= 0, RANK_MASKS[np.maximum(top, 0) % 13], 0)
    m = hand & legal
    return np.where(m != 0, np.log2((m & -m).astype(np.float64)).astype(np.int64), -1)


def feats(state, rows, seat):
    a = value_features_at(state.hands, state.ncards, state.drew_on, state.played, state.st, rows, seat,
                          RULES.nine_penalty)
    b = extra_features(state.hands, state.ncards, state.played, state.st, state.totals, rows, seat,
                       RULES.nine_penalty)
    c = cheat_features(state.hands, state.st, state.stock, rows, seat, RULES.nine_penalty)
    return np.hstack([a, b, c])


def outcome(pen, s):
    P = pen.shape[1]
    return (pen.sum(axis=1) - pen[:, s]) / (P - 1) - pen[:, s]


def collect(seed, deals, out):
    policy = rollout_policy("learned")
    P = RULES.players
    lineup = [policy] * P
    leaf, dealt = value_positions(RULES, lineup, seed, deals, play=play_leaves)
    state = leaf.state
    pen, _ = play_out(leaf, lineup, to="hand")
    xs, ys = [], []
    r = np.arange(leaf.n)
    for s in range(P):
        seat = np.full(leaf.n, s, dtype=np.int64)
        xs.append(feats(state, r, seat))
        ys.append(outcome(pen, s))
    x, y, deal = np.concatenate(xs), np.concatenate(ys), np.tile(dealt, P)
    # siblings: every legal card of the seat to move, played, then DEPTH turns, valued at the leaf for that seat
    mover = state.st[:, S_SEAT]
    grow, gmove = siblings(leaf)
    sub = leaf.take(grow)
    sstop = sub.column("turn") + 1 + DEPTH
    spen, sstopped, sleaves = play_leaves(sub, lineup, sstop, moves=Moves(DecisionKind.PLAY, gmove))
    own = mover[grow]
    sy = outcome(spen, 0)
    sy = np.where(own == 0, sy, outcome(spen, 1))
    cut = np.flatnonzero(sstopped)
    sx = feats(sleaves, cut, own[cut])
    lb = PositionBatch(RULES, state=sleaves).take(cut)
    lpen, _ = play_out(lb, lineup, to="hand")
    ly = np.where(own[cut] == 0, outcome(lpen, 0), outcome(lpen, 1))
    sy_true = sy.astype(np.float64).copy()
    sy_true[cut] = ly
    np.savez(out, x=x, y=y, deal=deal, sx=sx, cut=cut, sy_true=sy_true, sgroup=grow,
             sdeal=dealt[grow], sturn=sub.column("turn"))
    print(out, x.shape, sx.shape, np.unique(grow).size, "positions with 2+ legal cards")


if __name__ == "__main__":
    if sys.argv[1] == "collect":
        collect(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
