"""The luck walk of :mod:`nines_sim.luck.walk` in compiled code: the trace form's raw event rows walked by numba.

The Python walk reads the event tuples that the trace form's rows are decoded into (most of a traced run's time
goes to decoding and walking them); this one reads the rows themselves, straight from each slot's buffer, and
gives the same numbers (tested to 1e-12 against :class:`~nines_sim.luck.walk.Walker`).  The events, the parts
and their exact expectations are the Python walk's; see its module text.

Errors (a move outside its policy's choices, totals that disagree) stop the walk with a code and the match, and
:func:`walk_rows` raises :class:`~nines_sim.luck.walk.LuckError` with the same words as the Python walk.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.loop_constants import (
    EV_DEAL,
    EV_DECLARE,
    EV_DRAW,
    EV_END,
    EV_MATCH_END,
    EV_PAIR,
    EV_PENALTY_DRAW,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_TURN,
)
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, NINE_RANK
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table
from nines_sim.luck.features import COL_ACTIVE, COL_TOP, N_FEATURES, NB, NC, NJ
from nines_sim.luck.walk import (
    HEURISTICS,
    NATURAL_PENALTY,
    SID_DUMP_FACES,
    SID_HOLD_NINES,
    SID_RANDOM,
    SID_SUIT_MAJORITY,
    LuckError,
    Walker,
)

_RANK = FACE_RANK.astype(np.int64)
_SUIT = FACE_SUIT.astype(np.int64)
_PEN = NATURAL_PENALTY.astype(np.int64)
_HEUR = np.array(HEURISTICS, dtype=np.int64)
# error codes of the compiled walk
E_NONE, E_RESHUFFLE, E_TOTALS, E_STOCK, E_PLAY, E_DECLARE, E_NO_SEAT = range(7)
#: Each error's words, as the Python walk's (``a``, ``b``: the numbers the walk stopped on).
_ERRORS = {
    E_RESHUFFLE: "a reshuffle of {a} cards, but the discard pile held {b}",
    E_TOTALS: "the totals walked disagree with the totals played",
    E_STOCK: "drew face {a}, which the stock does not hold",
    E_PLAY: "seat {a} played {b}, not one of its policy's choices",
    E_DECLARE: "seat {a} declared suit {b}, not one of its policy's choices",
    E_NO_SEAT: "a hand dealt to no seat",
}


class TracingEngine(CompiledEngine):
    """The trace form of the compiled engine, keeping each slot's raw event rows (no tuples decoded).

    A slot plays its matches one after another, so each slot's rows, joined in the order written, hold whole
    matches in a row: what :func:`walk_rows` reads.
    """

    def __init__(self, *args, **kwargs):  # noqa: ANN002, ANN003 - CompiledEngine's
        super().__init__(*args, trace=True, **kwargs)
        self.raw: list[list[np.ndarray]] = [[] for _ in range(self.B)]

    def _drain_events(self) -> None:
        for b in np.flatnonzero(self._nevents).tolist():
            self.raw[b].append(self._events[b, : self._nevents[b]].copy())
            self._nevents[b] = 0

    def rows(self) -> np.ndarray:
        """Every event row, slot after slot: int64, shape (rows, EV_WIDTH)."""
        parts = [r for slot in self.raw for r in slot]
        return np.concatenate(parts) if parts else np.zeros((0, self._events.shape[2]), dtype=np.int64)


@njit(cache=True)
def _blocks(H, top, active, P, out):
    """``H @ card_matrix(active, top)`` by the matrix's pattern: exact, the hands' counts being whole."""
    top_rank = _RANK[top]
    for p in range(P):
        for j in range(NB):
            out[p, j] = 0.0
        for f in range(N_FACES):
            c = H[p, f]
            if c == 0.0:
                continue
            r = _RANK[f]
            out[p, r] += c
            if r != NINE_RANK:
                if _SUIT[f] == active:
                    out[p, COL_ACTIVE] += c
                if top_rank != NINE_RANK and r == top_rank:
                    out[p, COL_TOP] += c


@njit(cache=True)
def _card_blocks(blocks, mover, first, P, out):
    """:func:`nines_sim.luck.features.card_blocks` into ``out`` (P, NJ)."""
    for j in range(NB):
        s = 0.0
        for p in range(P):
            s += blocks[p, j]
        for p in range(P):
            out[p, j] = blocks[p, j]
            out[p, NB + j] = s - blocks[p, j]
    legal = blocks[mover, COL_ACTIVE] + blocks[mover, COL_TOP] + blocks[mover, NINE_RANK]
    for p in range(P):
        out[p, 2 * NB] = legal if p == mover else 0.0
        out[p, 2 * NB + 1] = 0.0 if p == mover else legal
        out[p, 2 * NB + 2] = 1.0 if p == first else 0.0


@njit(cache=True)
def _next_dealt(seat, H, P):
    for k in range(1, P + 1):
        q = (seat + k) % P
        for f in range(N_FACES):
            if H[q, f] > 0:
                return q
    return -1


@njit(cache=True)
def _after_play(H, seat, mv, out):
    """The hands after ``seat`` plays ``mv`` (a face, or -2: the pair) into ``out``; the new top and the 9 under it."""
    out[:, :] = H
    if mv != -2:
        out[seat, mv] -= 1.0
        return mv, -1
    first, second = -1, -1
    for k in range(2):
        f = -1
        for g in range(N_FACES):  # the highest 9 held twice, else the highest held
            if _RANK[g] == NINE_RANK and out[seat, g] > 1:
                f = g
        if f < 0:
            for g in range(N_FACES):
                if _RANK[g] == NINE_RANK and out[seat, g] > 0:
                    f = g
        out[seat, f] -= 1.0
        if k == 0:
            first = f
        else:
            second = f
    return first, second


@njit(cache=True)
def _is_heuristic(sid):
    for h in _HEUR:
        if sid == h:
            return True
    return False


@njit(cache=True)
def _weights(totals, progress, target, P, W):
    for p in range(P):
        lo = 1e300
        for q in range(P):
            if q != p and totals[q] < lo:
                lo = float(totals[q])
        x = progress
        y = (totals[p] - lo) / target
        W[p, 0], W[p, 1], W[p, 2], W[p, 3], W[p, 4] = 1.0, x, y, x * x, y * y
        W[p, 5], W[p, 6], W[p, 7], W[p, 8], W[p, 9] = x * y, x**3, y**3, x * x * y, x * y * y


@njit(cache=True)
def _walk(rows, P, D, sids, legal, deal_mean, target, fixed, no_nine_out, pair_rule, nine_on_nine, start, n,
          parts, shares, totals_out, hand_blocks, hand_pen, hand_match, err):  # fmt: skip
    """Walk every match in ``rows``; results by match index - ``start``.  ``err``: (code, match, a, b, c)."""
    H = np.zeros((P, N_FACES))
    H2 = np.zeros((P, N_FACES))
    stock = np.zeros(N_FACES)
    pile = np.zeros(N_FACES)
    acc = np.zeros((3, P, NJ))
    blk = np.zeros((P, NB))
    cb = np.zeros((P, NJ))
    mean = np.zeros((P, NJ))
    chosen = np.zeros((P, NJ))
    W = np.zeros((P, NC))
    totals = np.zeros(P, dtype=np.int64)
    moves = np.zeros(N_FACES + 1, dtype=np.int64)
    probs = np.zeros(N_FACES + 1)
    smean = np.zeros(NB)
    one = np.zeros((1, N_FACES))
    deck = float(D)
    m = -1
    top, active, first, regular = 0, 0, 0, 0
    tiebreak, after_draw = False, False
    nh = 0
    for i in range(rows.shape[0]):
        kind = rows[i, 0]
        if kind == EV_TURN:
            after_draw = False
        elif kind == EV_DEAL:
            if rows[i, 1] == 0:  # a match's first hand
                m = rows[i, 4] - start
                parts[m] = 0.0
                totals[:] = 0
                regular, tiebreak = 0, False
            acc[:] = 0.0
            dealer, starter = rows[i, 2], rows[i, 3]
            H[:] = 0.0
            for p in range(P):
                for d in range(D):
                    w = np.uint64(rows[i, 6 + 2 * p + d])
                    for f in range(N_FACES):
                        if (w >> np.uint64(f)) & np.uint64(1):
                            H[p, f] += 1.0
            first = _next_dealt(dealer, H, P)
            if first < 0:
                err[0], err[1] = E_NO_SEAT, m + start
                return
            _blocks(H, starter, _SUIT[starter], P, blk)
            _card_blocks(blk, first, first, P, cb)
            mean[:] = 0.0
            nd = 0
            for d in range(P if rows[i, 1] == 0 else 1):
                mover = _next_dealt(d if rows[i, 1] == 0 else dealer, H, P)
                for p in range(P):
                    size = 0.0
                    for f in range(N_FACES):
                        size += H[p, f]
                    for j in range(NB):
                        blk[p, j] = size * deal_mean[j]
                _card_blocks(blk, mover, mover, P, chosen)
                mean += chosen
                nd += 1
            acc[0] += cb - mean / nd
            top, active = starter, _SUIT[starter]
            for f in range(N_FACES):
                s = deck
                for p in range(P):
                    s -= H[p, f]
                stock[f] = s
                pile[f] = 0.0
            stock[starter] -= 1.0
            after_draw = False
        elif kind == EV_DRAW or kind == EV_PENALTY_DRAW:
            seat, face = rows[i, 1], rows[i, 2]
            if stock[face] <= 0:
                err[0], err[1], err[2] = E_STOCK, m + start, face
                return
            n_stock = 0.0
            smean[:] = 0.0
            one[0, :] = stock
            _blocks(one, top, active, 1, blk)
            for f in range(N_FACES):
                n_stock += stock[f]
            one[0, :] = 0.0
            one[0, face] = 1.0
            _blocks(one, top, active, 1, mean)  # the drawn card's row, in mean[0, :NB]
            for j in range(NB):
                smean[j] = mean[0, j] - blk[0, j] / n_stock
            for j in range(NB):
                acc[1, seat, j] += smean[j]
                for p in range(P):
                    if p != seat:
                        acc[1, p, NB + j] += smean[j]
            lg = smean[COL_ACTIVE] + smean[COL_TOP] + smean[NINE_RANK]
            for p in range(P):
                if p != seat:
                    acc[1, p, 2 * NB + 1] += lg
            acc[1, seat, 2 * NB] += lg
            H[seat, face] += 1.0
            stock[face] -= 1.0
            after_draw = kind == EV_DRAW
        elif kind == EV_PLAY or kind == EV_PAIR:
            seat = rows[i, 1]
            mv = rows[i, 2] if kind == EV_PLAY else -2
            suit = rows[i, 3] if kind == EV_PLAY else rows[i, 2]
            sid = sids[seat]
            if (kind == EV_PAIR or not after_draw) and _is_heuristic(sid):
                # the policy's choices and their probabilities (Walker._play_choices)
                size = 0.0
                nines = 0.0
                for f in range(N_FACES):
                    size += H[seat, f]
                    if _RANK[f] == NINE_RANK:
                        nines += H[seat, f]
                any_nat, max_pen = False, -1
                for f in range(N_FACES):
                    ok = H[seat, f] > 0 and legal[top * 4 + active, f]
                    if ok and no_nine_out and size == 1.0 and _RANK[f] == NINE_RANK:
                        ok = False
                    if ok and _RANK[f] != NINE_RANK:
                        any_nat = True
                        max_pen = max(max_pen, _PEN[f])
                k = 0
                for f in range(N_FACES):
                    ok = H[seat, f] > 0 and legal[top * 4 + active, f]
                    if ok and no_nine_out and size == 1.0 and _RANK[f] == NINE_RANK:
                        ok = False
                    nat = _RANK[f] != NINE_RANK
                    if ok and sid == SID_HOLD_NINES and any_nat and not nat:
                        ok = False
                    if ok and sid == SID_DUMP_FACES and any_nat and not (nat and _PEN[f] == max_pen):
                        ok = False
                    if ok:
                        moves[k] = f
                        probs[k] = H[seat, f]
                        k += 1
                pair = (sid == SID_RANDOM and pair_rule and nines >= 2 and (_RANK[top] != NINE_RANK or nine_on_nine)
                        and not (no_nine_out and size == 2.0))  # fmt: skip
                if pair:
                    moves[k] = -2
                    probs[k] = 1.0
                    k += 1
                idx = -1
                tot = 0.0
                for j in range(k):
                    tot += probs[j]
                    if moves[j] == mv:
                        idx = j
                if idx < 0:
                    err[0], err[1], err[2], err[3] = E_PLAY, m + start, seat, mv
                    return
                if k > 1:
                    mean[:] = 0.0
                    for j in range(k):
                        t, _ = _after_play(H, seat, moves[j], H2)
                        _blocks(H2, t, _SUIT[t], P, blk)
                        _card_blocks(blk, seat, first, P, cb)
                        if j == idx:
                            chosen[:] = cb
                        mean += (probs[j] / tot) * cb
                    acc[2] += chosen - mean
            t, under = _after_play(H, seat, mv, H2)
            H[:] = H2
            pile[top] += 1.0
            if under >= 0:
                pile[under] += 1.0
            top, active = t, _SUIT[t]
            if suit >= 0:
                code = _declare(H, seat, suit, seat, first, top, sids, P, acc, blk, cb, mean, chosen)
                if code != E_NONE:
                    err[0], err[1], err[2], err[3] = code, m + start, seat, suit
                    return
                active = suit
        elif kind == EV_DECLARE:
            code = _declare(H, rows[i, 1], rows[i, 2], first, first, top, sids, P, acc, blk, cb, mean, chosen)
            if code != E_NONE:
                err[0], err[1], err[2], err[3] = code, m + start, rows[i, 1], rows[i, 2]
                return
            active = rows[i, 2]
        elif kind == EV_RESHUFFLE:
            s = 0.0
            for f in range(N_FACES):
                stock[f] += pile[f]
                pile[f] = 0.0
                s += stock[f]
            if s != rows[i, 1]:
                err[0], err[1], err[2], err[3] = E_RESHUFFLE, m + start, rows[i, 1], int(s)
                return
        elif kind == EV_END:
            hand_blocks[nh] = acc
            hand_match[nh] = m + start
            for p in range(P):
                hand_pen[nh, p] = rows[i, 6 + p]
            nh += 1
            mx = 0
            for p in range(P):
                mx = max(mx, totals[p])
            progress = regular / fixed if fixed else mx / target
            _weights(totals, progress, target, P, W)
            for k in range(3):
                for p in range(P):
                    for c in range(NC):
                        for j in range(NJ):
                            parts[m, k, p, c * NJ + j] += W[p, c] * acc[k, p, j]
            acc[:] = 0.0
            if not tiebreak:
                for p in range(P):
                    totals[p] += rows[i, 6 + p]
                regular += 1
                mx = 0
                for p in range(P):
                    mx = max(mx, totals[p])
                tiebreak = regular >= fixed if fixed else mx >= target
        elif kind == EV_MATCH_END:
            for p in range(P):
                if totals[p] != rows[i, 6 + p]:
                    err[0], err[1] = E_TOTALS, m + start
                    return
            mask = rows[i, 1]
            wins = 0
            for p in range(P):
                wins += (mask >> p) & 1
            for p in range(P):
                shares[m, p] = 1.0 / wins if (mask >> p) & 1 else 0.0
                totals_out[m, p] = totals[p]
            err[5] += 1  # matches ended


@njit(cache=True)
def _declare(H, seat, suit, mover, first, top, sids, P, acc, blk, cb, mean, chosen):
    """A declared suit (T3, D6), corrected when ``seat``'s policy declares at random (Walker._declare)."""
    sid = sids[seat]
    if not _is_heuristic(sid):
        return E_NONE
    ok = np.ones(4, dtype=np.bool_)
    if sid == SID_SUIT_MAJORITY:
        counts = np.zeros(4)
        for f in range(N_FACES):
            if _RANK[f] != NINE_RANK:
                counts[_SUIT[f]] += H[seat, f]
        for s in range(4):
            ok[s] = counts[s] == counts.max()
    if not ok[suit]:
        return E_DECLARE
    k = 0
    for s in range(4):
        k += ok[s]
    if k == 1:
        return E_NONE
    mean[:] = 0.0
    for s in range(4):
        if ok[s]:
            _blocks(H, top, s, P, blk)
            _card_blocks(blk, mover, first, P, cb)
            if s == suit:
                chosen[:] = cb
            mean += cb
    acc[2] += chosen - mean / k
    return E_NONE


def walk_rows(rules: Rules, seat_ids: Sequence[int], rows: np.ndarray, start: int, n: int, choices: bool = True):  # noqa: ANN201
    """The luck of matches ``start .. start + n - 1`` from the trace form's raw rows (:class:`TracingEngine`).

    Parameters
    ----------
    rules : Rules
    seat_ids : sequence of int
        Each seat's kernel strategy id (the heuristics' decisions are corrected).
    rows : numpy.ndarray
        int64, shape (rows, EV_WIDTH): each match's rows in a row, from its first deal to its end.
    start, n : int
        The match range the rows hold.
    choices : bool
        Correct the known random decisions (False: chance events only).

    Returns
    -------
    tuple
        ``(parts, shares, totals, hand_blocks, hand_penalties)``: float64 (n, 3, P, N_FEATURES), float64 (n, P),
        int64 (n, P), float64 (hands, 3, P, NJ) and int64 (hands, P), the hands in match order, as
        :class:`~nines_sim.luck.walk.MatchLuck`'s fields.

    Raises
    ------
    LuckError
        As the Python walk: a move outside its policy's choices, totals that disagree, a match left unfinished.
    """
    P, D = rules.players, rules.decks
    sids = np.array([int(s) if choices else -1 for s in seat_ids], dtype=np.int64)
    table = legal_table(rules)
    legal = np.array([[(int(t) >> f) & 1 for f in range(N_FACES)] for t in table], dtype=np.bool_)
    deal_mean = Walker(rules, [-1] * P).deal_mean
    hands = int(np.count_nonzero(rows[:, 0] == EV_END))
    parts = np.zeros((n, 3, P, N_FEATURES))
    shares, totals = np.zeros((n, P)), np.zeros((n, P), dtype=np.int64)
    blocks, pen = np.zeros((hands, 3, P, NJ)), np.zeros((hands, P), dtype=np.int64)
    match = np.zeros(hands, dtype=np.int64)
    err = np.zeros(6, dtype=np.int64)
    _walk(np.ascontiguousarray(rows, dtype=np.int64), P, D, sids, legal, deal_mean, float(rules.target),
          int(rules.fixed_hands or 0), bool(rules.no_nine_out), bool(rules.pair_of_nines), bool(rules.nine_on_nine),
          start, n, parts, shares, totals, blocks, pen, match, err)  # fmt: skip
    code, m, a, b = (int(x) for x in err[:4])
    if code != E_NONE:
        raise LuckError(_ERRORS[code].format(a=a, b=b) + f" (match {m})")
    if err[5] != n:
        raise LuckError(f"the events hold {int(err[5])} matches' ends, not {n}")
    order = np.argsort(match, kind="stable")
    return parts, shares, totals, blocks[order], pen[order]
