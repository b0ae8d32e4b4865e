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
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, N_RANKS, NINE_RANK
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
#: Event rows of a one-slot engine's buffer (compiled seats), 9.4 MB at 6 seats.
ONE_SLOT_ROWS = 1 << 16
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
        #: Walks each slot's rows as they are drained, when set (keeps none); else they are kept in :attr:`raw`.
        self.walker: RowWalker | None = None
        if self.B == 1:  # one slot: a larger buffer, fewer kernel calls (each costs a drain and Python's overhead)
            self._events = np.zeros((1, ONE_SLOT_ROWS, self._events.shape[2]), dtype=np.int64)
            self._work = (*self._work[:-3], self._events, self._nevents, self._stop)

    def _drain_events(self) -> None:
        for b in np.flatnonzero(self._nevents).tolist():
            rows = self._events[b, : self._nevents[b]]
            if self.walker is not None:
                self.walker.feed(b, rows)
            else:
                self.raw[b].append(rows.copy())
            self._nevents[b] = 0

    def rows(self) -> np.ndarray:
        """Every event row, slot after slot: int64, shape (rows, EV_WIDTH)."""
        parts = [r for slot in self.raw for r in slot]
        return np.concatenate(parts) if parts else np.zeros((0, self._events.shape[2]), dtype=np.int64)


@njit(cache=True)
def _count(H, P, hr, hs):
    """Each row's cards by rank (``hr``, (P, 13)) and its naturals by suit (``hs``, (P, 4))."""
    for p in range(P):
        hr[p, :] = 0.0
        hs[p, :] = 0.0
        for f in range(N_FACES):
            c = H[p, f]
            if c != 0.0:
                hr[p, _RANK[f]] += c
                if _RANK[f] != NINE_RANK:
                    hs[p, _SUIT[f]] += c


@njit(cache=True)
def _blocks(hr, hs, top, active, P, out):
    """``hands @ card_matrix(active, top)`` from the hands' counts (:func:`_count`): exact, the counts being
    whole (the matrix's columns: the ranks, the active suit's naturals, the top rank's naturals)."""
    top_rank = _RANK[top]
    for p in range(P):
        for r in range(N_RANKS):
            out[p, r] = hr[p, r]
        out[p, COL_ACTIVE] = hs[p, active]
        out[p, COL_TOP] = hr[p, top_rank] if top_rank != NINE_RANK else 0.0


@njit(cache=True)
def _move_card(H, hr, hs, seat, f, c):
    """``c`` copies of face ``f`` into (c > 0) or out of seat ``seat``'s hand, its counts kept."""
    H[seat, f] += c
    hr[seat, _RANK[f]] += c
    if _RANK[f] != NINE_RANK:
        hs[seat, _SUIT[f]] += c


@njit(cache=True)
def _mean_into(acc_k, a, b, scale, P):
    """``acc_k += a - b / scale`` (P, NJ), with no array made."""
    for p in range(P):
        for j in range(NJ):
            acc_k[p, j] += a[p, j] - b[p, j] / scale


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
def _apply_play(H, hr, hs, seat, mv):
    """``seat`` plays ``mv`` (a face, or -2: the pair) from ``H`` in place; the new top and the 9 under it (-1
    for a card).  The engine's pair: the highest 9 held twice, else the highest held; the first ends on top."""
    if mv != -2:
        _move_card(H, hr, hs, seat, mv, -1.0)
        return mv, -1
    first, second = -1, -1
    for k in range(2):
        f = -1
        for g in range(N_FACES):
            if _RANK[g] == NINE_RANK and H[seat, g] > 1:
                f = g
        if f < 0:
            for g in range(N_FACES):
                if _RANK[g] == NINE_RANK and H[seat, g] > 0:
                    f = g
        _move_card(H, hr, hs, seat, f, -1.0)
        if k == 0:
            first = f
        else:
            second = f
    return first, second


@njit(cache=True)
def _undo_play(H, hr, hs, seat, top, under):
    _move_card(H, hr, hs, seat, top, 1.0)
    if under >= 0:
        _move_card(H, hr, hs, seat, under, 1.0)


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
def _walk(rows, P, D, sids, legal, deal_mean, target, fixed, no_nine_out, pair_rule, nine_on_nine, start, H,
          stock, pile, acc, totals, ist, parts, shares, totals_out, hand_blocks, hand_pen, hand_match,
          err):  # fmt: skip
    """Walk the rows of one slot, going on from its state (``H`` .. ``ist``, changed in place); results by match
    index - ``start``, each hand's into ``hand_*`` (when they have rows).  ``err``: (code, match, a, b, -, ends)."""
    hr, hs = np.zeros((P, N_RANKS)), np.zeros((P, 4))
    sr, ss = np.zeros((1, N_RANKS)), np.zeros((1, 4))  # the stock's counts
    _count(H, P, hr, hs)
    _count(stock.reshape(1, N_FACES), 1, sr, ss)
    n_stock = 0.0
    for f in range(N_FACES):
        n_stock += stock[f]
    blk = np.zeros((P, NB))
    cb = np.zeros((P, NJ))
    mean = np.zeros((P, NJ))
    chosen = np.zeros((P, NJ))
    W = np.zeros((P, NC))
    moves = np.zeros(N_FACES + 1, dtype=np.int64)
    probs = np.zeros(N_FACES + 1)
    smean = np.zeros(NB)
    deck = float(D)
    m, top, active, first, regular = ist[0], ist[1], ist[2], ist[3], ist[4]
    tiebreak, after_draw = ist[5] != 0, ist[6] != 0
    keep = hand_blocks.shape[0] > 0
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
            _count(H, P, hr, hs)
            _blocks(hr, hs, starter, _SUIT[starter], P, blk)
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
                for p in range(P):
                    for j in range(NJ):
                        mean[p, j] += chosen[p, j]
                nd += 1
            _mean_into(acc[0], cb, mean, nd, P)
            top, active = starter, _SUIT[starter]
            for f in range(N_FACES):
                s = deck
                for p in range(P):
                    s -= H[p, f]
                stock[f] = s
                pile[f] = 0.0
            stock[starter] -= 1.0
            _count(stock.reshape(1, N_FACES), 1, sr, ss)
            n_stock = 0.0
            for f in range(N_FACES):
                n_stock += stock[f]
            after_draw = False
        elif kind == EV_DRAW or kind == EV_PENALTY_DRAW:
            seat, face = rows[i, 1], rows[i, 2]
            if stock[face] <= 0:
                err[0], err[1], err[2] = E_STOCK, m + start, face
                return
            # the card drawn's row of the card matrix minus the stock's mean row (Walker._draw)
            _blocks(sr, ss, top, active, 1, blk)
            rank, nat = _RANK[face], _RANK[face] != NINE_RANK
            for j in range(NB):
                smean[j] = -blk[0, j] / n_stock
            smean[rank] += 1.0
            if nat and _SUIT[face] == active:
                smean[COL_ACTIVE] += 1.0
            if nat and _RANK[top] != NINE_RANK and rank == _RANK[top]:
                smean[COL_TOP] += 1.0
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
            _move_card(H, hr, hs, seat, face, 1.0)
            _move_card(stock.reshape(1, N_FACES), sr, ss, 0, face, -1.0)
            n_stock -= 1.0
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
                        t, under = _apply_play(H, hr, hs, seat, moves[j])
                        _blocks(hr, hs, t, _SUIT[t], P, blk)
                        _undo_play(H, hr, hs, seat, t, under)
                        _card_blocks(blk, seat, first, P, cb)
                        if j == idx:
                            chosen[:] = cb
                        for p in range(P):
                            for q in range(NJ):
                                mean[p, q] += (probs[j] / tot) * cb[p, q]
                    _mean_into(acc[2], chosen, mean, 1.0, P)
            t, under = _apply_play(H, hr, hs, seat, mv)
            pile[top] += 1.0
            if under >= 0:
                pile[under] += 1.0
            top, active = t, _SUIT[t]
            if suit >= 0:
                code = _declare(hr, hs, seat, suit, seat, first, top, sids, P, acc, blk, cb, mean, chosen)
                if code != E_NONE:
                    err[0], err[1], err[2], err[3] = code, m + start, seat, suit
                    return
                active = suit
        elif kind == EV_DECLARE:
            code = _declare(hr, hs, rows[i, 1], rows[i, 2], first, first, top, sids, P, acc, blk, cb, mean, chosen)
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
            _count(stock.reshape(1, N_FACES), 1, sr, ss)
            n_stock = s
        elif kind == EV_END:
            if keep:
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
    ist[0], ist[1], ist[2], ist[3], ist[4] = m, top, active, first, regular
    ist[5], ist[6] = tiebreak, after_draw


@njit(cache=True)
def _declare(hr, hs, seat, suit, mover, first, top, sids, P, acc, blk, cb, mean, chosen):
    """A declared suit (T3, D6), corrected when ``seat``'s policy declares at random (Walker._declare)."""
    sid = sids[seat]
    if not _is_heuristic(sid):
        return E_NONE
    most = 0.0
    for s in range(4):
        most = max(most, hs[seat, s])
    k = 0
    for s in range(4):  # suit-majority: the suits it holds the most naturals of; the others: any
        k += sid != SID_SUIT_MAJORITY or hs[seat, s] == most
    if sid == SID_SUIT_MAJORITY and hs[seat, suit] != most:
        return E_DECLARE
    if k == 1:
        return E_NONE
    mean[:] = 0.0
    for s in range(4):
        if sid != SID_SUIT_MAJORITY or hs[seat, s] == most:
            _blocks(hr, hs, top, s, P, blk)
            _card_blocks(blk, mover, first, P, cb)
            if s == suit:
                chosen[:] = cb
            for p in range(P):
                for q in range(NJ):
                    mean[p, q] += cb[p, q]
    _mean_into(acc[2], chosen, mean, k, P)
    return E_NONE


class RowWalker:
    """Walks the raw rows of matches ``start .. start + n - 1`` as a traced engine drains them, slot by slot
    (:class:`TracingEngine`): each slot's walk goes on from where its last rows left it.

    Parameters
    ----------
    rules : Rules
    seat_ids : sequence of int
        Each seat's kernel strategy id (the heuristics' decisions are corrected).
    start, n : int
        The match range.
    slots : int
        The engine's slots.
    choices : bool
        Correct the known random decisions (False: chance events only).
    keep_hands : bool
        Keep each hand's card block differences and penalties (a value's fit needs them).

    Attributes
    ----------
    parts, shares, totals : numpy.ndarray
        float64 (n, 3, P, N_FEATURES), float64 (n, P), int64 (n, P): :class:`~nines_sim.luck.walk.MatchLuck`'s.
    """

    def __init__(self, rules: Rules, seat_ids: Sequence[int], start: int, n: int, slots: int = 1,
                 choices: bool = True, keep_hands: bool = True):  # fmt: skip
        P = rules.players
        self.P, self.D, self.start, self.n, self.keep_hands = P, rules.decks, start, n, keep_hands
        self.sids = np.array([int(s) if choices else -1 for s in seat_ids], dtype=np.int64)
        self.legal = np.array([[(int(t) >> f) & 1 for f in range(N_FACES)] for t in legal_table(rules)], np.bool_)
        self.deal_mean = Walker(rules, [-1] * P).deal_mean
        self.rule_args = (float(rules.target), int(rules.fixed_hands or 0), bool(rules.no_nine_out),
                          bool(rules.pair_of_nines), bool(rules.nine_on_nine))  # fmt: skip
        self.H, self.stock = np.zeros((slots, P, N_FACES)), np.zeros((slots, N_FACES))
        self.pile, self.acc = np.zeros((slots, N_FACES)), np.zeros((slots, 3, P, NJ))
        self.run_totals, self.ist = np.zeros((slots, P), dtype=np.int64), np.zeros((slots, 7), dtype=np.int64)
        self.parts = np.zeros((n, 3, P, N_FEATURES))
        self.shares, self.totals = np.zeros((n, P)), np.zeros((n, P), dtype=np.int64)
        self.err = np.zeros(6, dtype=np.int64)
        self._hands: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def feed(self, slot: int, rows: np.ndarray) -> None:
        """Walk slot ``slot``'s next rows (int64, shape (rows, EV_WIDTH)).

        Raises
        ------
        LuckError
            As the Python walk: a move outside its policy's choices, totals that disagree with the events.
        """
        P, b = self.P, slot
        h = int(np.count_nonzero(rows[:, 0] == EV_END)) if self.keep_hands else 0
        blocks, pen, match = np.zeros((h, 3, P, NJ)), np.zeros((h, P), dtype=np.int64), np.zeros(h, dtype=np.int64)
        _walk(np.ascontiguousarray(rows, dtype=np.int64), P, self.D, self.sids, self.legal, self.deal_mean,
              *self.rule_args, self.start, self.H[b], self.stock[b], self.pile[b], self.acc[b], self.run_totals[b],
              self.ist[b], self.parts, self.shares, self.totals, blocks, pen, match, self.err)  # fmt: skip
        code, m, x, y = (int(v) for v in self.err[:4])
        if code != E_NONE:
            raise LuckError(_ERRORS[code].format(a=x, b=y) + f" (match {m})")
        if h:
            self._hands.append((blocks, pen, match))

    def results(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(parts, shares, totals, hand_blocks, hand_penalties)``, the hands in match order (none unless kept).

        Raises
        ------
        LuckError
            If the rows walked did not end every match of the range.
        """
        if self.err[5] != self.n:
            raise LuckError(f"the events hold {int(self.err[5])} matches' ends, not {self.n}")
        P = self.P
        blocks = np.concatenate([x[0] for x in self._hands]) if self._hands else np.zeros((0, 3, P, NJ))
        pen = np.concatenate([x[1] for x in self._hands]) if self._hands else np.zeros((0, P), dtype=np.int64)
        match = np.concatenate([x[2] for x in self._hands]) if self._hands else np.zeros(0, dtype=np.int64)
        order = np.argsort(match, kind="stable")
        return self.parts, self.shares, self.totals, blocks[order], pen[order]


def walk_rows(rules: Rules, seat_ids: Sequence[int], rows: np.ndarray, start: int, n: int, choices: bool = True):  # noqa: ANN201
    """The luck of matches ``start .. start + n - 1`` from rows holding each match's rows in a row.

    Returns
    -------
    tuple
        :meth:`RowWalker.results`.

    Raises
    ------
    LuckError
        As :meth:`RowWalker.feed` and :meth:`RowWalker.results`.
    """
    walker = RowWalker(rules, seat_ids, start, n, choices=choices)
    walker.feed(0, rows)
    return walker.results()


def trace_luck(rules: Rules, lineup: Sequence, specs: Sequence[str], seed: int, start: int, n: int,
               choices: bool = True, keep_hands: bool = True):  # noqa: ANN201  # fmt: skip
    """Play matches ``start .. start + n - 1`` of ``seed`` in the trace form and walk their rows as they come.

    Returns
    -------
    tuple
        :meth:`RowWalker.results`.
    """
    from nines_sim.engine.seats import seat_ids

    engine = TracingEngine(rules, lineup, seed, start, n, batch_size=min(n, 256), specs=list(specs))
    engine.walker = RowWalker(rules, seat_ids(lineup), start, n, engine.B, choices, keep_hands)
    engine.run()
    return engine.walker.results()
