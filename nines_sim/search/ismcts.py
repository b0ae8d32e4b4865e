"""Single-observer Information Set Monte Carlo Tree Search (SO-ISMCTS) on the compiled turn loop.

Cowling, Powley and Whitehouse (2012), "Information Set Monte Carlo Tree
Search", algorithm SO-ISMCTS: one tree per decision whose nodes are the
sequences of moves made since the decision (every seat's, the searching
player's first); each iteration

1. draws a determinization: a complete position consistent with the
   observation (:func:`nines_sim.search.sampler.sample_positions`, iteration ``k``
   takes sample ``k``),
2. descends the tree from the root, at each decision choosing among the moves
   legal in that determinization: an untried move if there is one (the tree
   grows by that node), else the move with the best upper confidence bound
   ``mean + c * sqrt(ln(availability) / visits)``, the mean being the reward of
   the seat that moves there and the availability the number of visits of the
   parent in which that move was legal,
3. plays the rest of the hand out with the rollout policy (``expert``),
4. adds the hand's reward to every node it went through, each from the view of
   the seat that moved into it: the opponents' mean hand penalty minus that
   seat's own (S1, C2).

The root's move is the most visited (ties: the best mean, then the decision's
random stream).  Only the searching player's own moves at the root come from
the observation; hidden cards enter only through the determinizations, so a
decision depends on what the seat sees alone.

Batching: every game of a decision and ``WAVE`` iterations of each go through
the engine together.  The tree walk takes place where the compiled turn loop
stops for a decision of a seat played from Python (every seat, while a slot is
in the tree); once a slot has grown the tree, its remaining decisions are the
compiled rollout policy's.  Within a wave the visits are counted as they are
chosen and the rewards added after the wave, so the iterations of one wave
spread over the moves; a game's tree depends only on its own samples and the
wave size, never on the batch or the process.

Readings: a seat's own draw outcome is not part of a node (a node is a
sequence of decisions; what the seat drew is folded in, as availability
counts allow); two 9s together (V4) are a candidate at the root only.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from nines_sim.engine.position import PositionBatch
from nines_sim.game.codes import K_DECLARE, K_PLAY, K_PLAY_DRAWN
from nines_sim.search.pimc import Leaf, candidates, engine_moves
from nines_sim.strategy.base import DecisionKind, Observation, Strategy

#: Iterations of one game played through the engine together (part of the result: fixed, never the batch's).
WAVE = 32
#: Slots (iterations of all games) in one engine call at most; bigger decisions are cut by games.
MAX_SLOTS = 1 << 14
_M64 = (1 << 64) - 1


def _mix(x: int) -> int:
    """SplitMix64 finaliser: a well-mixed 64-bit integer."""
    x = (x + 0x9E3779B97F4A7C15) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


class Tree:
    """The statistics of one game's search: per node (a move after a path of moves), visits, reward sum and
    availability (visits of the parent in which the move was legal).  Node 0 is the root."""

    __slots__ = ("child", "visits", "reward", "avail", "seed")

    def __init__(self, seed: int) -> None:
        self.child: dict[tuple[int, int], int] = {}
        self.visits: list[int] = [0]
        self.reward: list[float] = [0.0]
        self.avail: list[int] = [0]
        self.seed = seed

    def select(self, node: int, codes: list[int], c: float, salt: int) -> tuple[int, int, bool]:
        """The move to take at ``node`` among ``codes`` (legal there): its index, its node, whether it is new.

        Counts the visit, and the availability of every move in ``codes``, at once.
        """
        child, visits, reward, avail = self.child, self.visits, self.reward, self.avail
        untried = []
        best, best_node, best_score = -1, -1, -math.inf
        for i, code in enumerate(codes):
            j = child.get((node, code))
            if j is None:
                j = child[(node, code)] = len(visits)
                visits.append(0)
                reward.append(0.0)
                avail.append(0)
            avail[j] += 1
            n = visits[j]
            if n == 0:
                untried.append((i, j))
                continue
            score = reward[j] / n + c * math.sqrt(math.log(avail[j]) / n)
            if score > best_score:
                best, best_node, best_score = i, j, score
        grow = bool(untried)
        if grow:
            best, best_node = untried[_mix(self.seed ^ _mix(salt)) % len(untried)]
        visits[best_node] += 1
        return best, best_node, grow


def _code(kind: int, seat: int, move: int) -> int:
    """A move's key among its siblings: the decision kind, the seat that moves and the move."""
    return (kind * 8 + seat) * 64 + move


def _moves(kind: int, legal: int, empty: bool) -> list[int]:
    """The moves of a waiting decision: the legal faces (set bits of ``legal``), 1/0 for a drawn card, or
    the suits (one, any, after a 9 that went out: ``empty``)."""
    if kind == K_PLAY:
        moves = []
        while legal:
            low = legal & -legal
            moves.append(low.bit_length() - 1)
            legal ^= low
        return moves
    if kind == K_PLAY_DRAWN:
        return [1, 0]
    return [0] if kind == K_DECLARE and empty else [0, 1, 2, 3]


def ismcts(
    obs: Observation,
    worlds_of: Callable[[Observation, int, np.ndarray, int], PositionBatch],
    iterations: int,
    policy: Strategy,
    c: float,
    card: np.ndarray | None = None,
    pair: np.ndarray | None = None,
    leaf: Leaf | None = None,
) -> np.ndarray:
    """Choose a move for each game of a decision by SO-ISMCTS.

    Parameters
    ----------
    obs : Observation
        The decision, ``n`` games.
    worlds_of : callable
        ``worlds_of(sub, iterations, rows, salt) -> PositionBatch``: the determinizations of the games
        ``rows`` (``iterations`` each, game-major), as :func:`nines_sim.search.pimc.search` takes them.
    iterations : int
        Iterations (determinizations, tree walks, rollouts) per game.
    policy : Strategy
        A built-in with a compiled twin: plays every seat after the tree.
    c : float
        Exploration constant of the upper confidence bound, in penalty points.
    card : numpy.ndarray, optional
        int64, (n,): the drawn card, for ``play_drawn``.
    pair : numpy.ndarray, optional
        bool, (n,): for ``declare``, the 9s were two played together (V4).
    leaf : Leaf, optional
        Stop each rollout ``leaf.depth`` turns after the turn that leaves the tree, and score a hand still running
        there by ``leaf.value`` for every seat (from each seat's own observation); none: rollouts play to the
        hand's end.

    Returns
    -------
    numpy.ndarray
        int64, (n,): faces (or :data:`~nines_sim.strategy.base.PAIR_OF_NINES`), suits, or 1/0 for ``play_drawn``.
    """
    from nines_sim.engine.positions import PositionSlots

    moves = candidates(obs, card)
    n_cand = (moves >= 0).sum(axis=1)
    out = moves[:, 0].copy()
    todo = np.flatnonzero(n_cand > 1)
    if obs.kind == DecisionKind.DECLARE:  # a 9 that was the last card: the hand is over, any suit will do
        todo = todo[obs.hand_sizes[todo, obs.seat[todo]] > 0]
    if not todo.size:
        return out
    per = max(1, MAX_SLOTS // WAVE)
    dkey = obs.public("dkey")
    turn = obs.public("turn")
    for lo in range(0, todo.size, per):
        sel = todo[lo : lo + per]
        sub = obs.subset(sel)
        mv = moves[sel]
        n = sel.size
        worlds = worlds_of(sub, iterations, sel, 0)
        trees = [Tree(_mix(int(dkey[g]) ^ _mix(int(turn[g]) * 8 + int(obs.kind)))) for g in sel]
        # a root move's code is its column: in a batch the pair of 9s (V4) comes after the padding of a game
        # with fewer legal faces than another, so a game's candidates need not be its first n_cand columns
        root_codes = [np.flatnonzero(moves[g] >= 0).tolist() for g in sel]
        own = sub.seat
        for w0 in range(0, iterations, WAVE):
            ks = np.arange(w0, min(iterations, w0 + WAVE))
            W = ks.size
            gg = np.repeat(np.arange(n), W)
            kk = np.tile(ks, n)
            batch = worlds.take(gg * iterations + kk)
            paths: list[list[tuple[int, int]]] = []  # per slot: (path edge, seat that moved)
            col = np.empty(gg.size, dtype=np.int64)
            for b in range(gg.size):
                g, k = int(gg[b]), int(kk[b])
                i, node, _ = trees[g].select(0, root_codes[g], c, k * 64)
                col[b] = root_codes[g][i]
                paths.append([(node, int(own[g]))])
            first = engine_moves(obs.kind, mv[gg, col], None if card is None else card[sel][gg],
                                 None if pair is None else pair[sel][gg])  # fmt: skip
            n_in = batch.column("n_in").copy()
            # every seat's decision stops the loop while a slot is in the tree: the tree answers it
            slots = PositionSlots(batch, "hand", [policy] * batch.rules.players, first, consume=True, release=False)
            in_tree = np.ones(gg.size, dtype=bool)
            gg_l, kk_l = gg.tolist(), kk.tolist()
            while True:
                slots.run(every_seat=True)
                waiting = slots.waiting()
                waiting = waiting[in_tree[waiting]]
                if not waiting.size:
                    break
                kinds, seats, legals, in_hand = (x.tolist() for x in slots.decision(waiting))
                answers = []
                for b, kind, seat, legal, held in zip(waiting.tolist(), kinds, seats, legals, in_hand, strict=True):
                    moves = _moves(kind, legal, held == 0)
                    i = 0
                    if len(moves) > 1:
                        base = (kind * 8 + seat) * 64
                        i, node, grow = trees[gg_l[b]].select(
                            paths[b][-1][0], [base + m for m in moves], c, kk_l[b] * 64 + len(paths[b])
                        )
                        paths[b].append((node, seat))
                        if grow:
                            in_tree[b] = False
                    answers.append(moves[i])
                slots.answer(waiting, answers)
            # out of the tree: the policy plays the rest of the hand, compiled
            slots.release()
            if leaf is not None:
                slots.stop_after(leaf.depth)
            slots.run()
            pen = slots.penalties.astype(np.float64)
            value = (pen.sum(axis=1, keepdims=True) - pen) / np.maximum(n_in - 1, 1)[:, None] - pen  # (B, P)
            if leaf is not None:
                cut = np.flatnonzero(~slots.scored)
                for p in range(pen.shape[1]):
                    value[cut, p] = leaf.value.of(slots.slots, cut, np.full(cut.size, p, dtype=np.int64))
            vals = value.tolist()
            for b in range(gg.size):
                reward = trees[int(gg[b])].reward
                vb = vals[b]
                for node, seat in paths[b]:
                    reward[node] += vb[seat]
        ties = []
        for j in range(n):
            t = trees[j]
            nodes = [t.child[(0, i)] for i in root_codes[j]]
            vis = np.array([t.visits[x] for x in nodes], dtype=np.float64)
            mean = np.array([t.reward[x] for x in nodes]) / np.maximum(vis, 1)
            best = np.flatnonzero(vis == vis.max())
            ties.append(best[mean[best] == mean[best].max()])
        r = sub.random_below(np.array([b.size for b in ties]), salt=9)
        picked = [root_codes[j][b[i]] for j, (b, i) in enumerate(zip(ties, r.tolist(), strict=True))]
        out[sel] = mv[np.arange(n), picked]
    return out
