"""A turn in the compiled turn loop: legal cards or a draw, the move on the discard pile, the card's power.

:func:`turn_phase` finds the seat's legal cards or draws (T1, T2, T4-T6; V2, V5, V6); the decision comes from
:mod:`nines_sim.engine.decisions`; :func:`apply_phase` puts the card (or V4's pair of 9s) on the discard pile;
:func:`powers_phase` ends the turn: going out, a block or the turn cap end the hand, else the card's power
(V1) and the next seat.  Every function here is compiled once and inlined by LLVM into the turn loop
(:mod:`nines_sim.engine.turn_loop`; :func:`~nines_sim.engine.bits.shared_inline`).
"""

from __future__ import annotations

import numpy as np

from nines_sim.engine.bits import I_NATURALS, I_NINES, face_rank, face_suit, shared_inline, traced_forms
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.deal import add_under, draw, remove_from_hand
from nines_sim.engine.draw_log import log_draw_turn, log_drew
from nines_sim.engine.loop_constants import (
    EV_DRAW,
    EV_PASS,
    EV_PENALTY_DRAW,
    EV_SKIP,
    PH_APPLY,
    PH_DECLARE,
    PH_END,
    PH_FINISH,
    PH_PLAY,
    PH_PLAY_DRAWN,
    PH_TURN,
)
from nines_sim.engine.slots import S_OUTCOME
from nines_sim.engine.trace_log import NIL, log_event, traced_draw
from nines_sim.game.codes import BLOCKED, CAPPED, NINE_RANK, RANK_ACE, RANK_JACK, RANK_QUEEN, RUNNING
from nines_sim.game.codes import PAIR_OF_NINES as PAIR


def _draw_card(trace: bool):  # noqa: ANN202 - returns the function to compile
    def draw_card(st, keys, hands, ncards, under, stock, D, b, s, kind, work):
        """:func:`draw` in the scratch arrays ``work``; the trace form logs the card (``kind``: ``EV_DRAW`` or
        ``EV_PENALTY_DRAW``) and any reshuffle (:func:`traced_draw`)."""
        if trace:
            return traced_draw(
                work[8], work[9], kind, st, keys, hands, ncards, under, stock, D, b, s, work[0], work[1], work[2],
                work[3],
            )  # fmt: skip
        return draw(st, keys, hands, ncards, under, stock, D, b, s, work[0], work[1], work[2], work[3])

    return draw_card


draw_card, draw_card_trace = traced_forms(_draw_card)


def _turn_phase(trace: bool):  # noqa: ANN202 - returns the function to compile
    def turn_phase(st, keys, hands, ncards, drew_on, under, stock, legal_tab, b, seat, top, active, mv, card, D, nno,
                   until, work, keep_log):  # fmt: skip
        """A turn begins: the seat's legal cards (T1, T2, V5, V6), or else it draws (T4, T5, T6; V2 draws on).

        Returns
        -------
        tuple
            ``(phase, legal, passed, move, card)``: ``PH_PLAY`` with the legal set; ``PH_PLAY_DRAWN`` with the
            drawn card, which is playable; else ``PH_APPLY`` with the move (-1: no play).
        """
        draw_one = draw_card_trace if trace else draw_card  # a constant: one of them is compiled in
        tab = np.int64(legal_tab[top * 4 + active])
        legal = np.int64(hands[0, b, seat]) & tab
        if nno and ncards[b, seat] == 1:
            legal &= I_NATURALS
        if legal != 0:
            return PH_PLAY, legal, False, mv, card
        drew_on[b, seat] |= 1 << active
        f = draw_one(st, keys, hands, ncards, under, stock, D, b, seat, np.int64(EV_DRAW), work)
        drawn = 1 if f >= 0 else 0
        if until:  # V2: draw until a legal card comes, and play it
            while f >= 0 and ((tab >> f) & 1) == 0:
                f = draw_one(st, keys, hands, ncards, under, stock, D, b, seat, np.int64(EV_DRAW), work)
                drawn += 1 if f >= 0 else 0
        if keep_log:  # it held none of the legal faces (T2); what it drew here was not legal, or played (or kept)
            one = nno and ncards[b, seat] - drawn == 1  # V5: a last 9 is no legal card
            log_draw_turn(st, b, seat, drawn, tab & I_NATURALS if one else tab)
        if until:
            ph, passed, mv = PH_APPLY, f < 0, f
        elif f >= 0 and ((tab >> f) & 1) == 1:
            return PH_PLAY_DRAWN, np.int64(1) << f, False, mv, f
        else:
            ph, passed, mv = PH_APPLY, f < 0, np.int64(-1)
        if trace and passed:
            log_event(work[8], work[9], b, np.int64(EV_PASS), seat, NIL, NIL)
        return ph, legal, passed, mv, card

    return turn_phase


turn_phase, turn_phase_trace = traced_forms(_turn_phase)


@shared_inline
def play_pair(hands, ncards, under, played, b, seat, top, D):
    """Two 9s as one move (V4): the highest 9 held, second copies first; the first ends on top.  Returns the top."""
    f0 = np.int64(-1)  # not the literal -1: numba would also compile remove_from_hand and add_under for it
    f1 = np.int64(-1)
    for j in range(2):
        pick = np.int64(hands[D - 1, b, seat]) & I_NINES
        if pick == 0:
            pick = np.int64(hands[0, b, seat]) & I_NINES
        f = np.int64(-1)
        for nine in range(4):
            fc = 13 * nine + NINE_RANK
            if (pick >> fc) & 1:
                f = fc
        remove_from_hand(hands, ncards, D, b, seat, f)
        if j == 0:
            f0 = f
        else:
            f1 = f
    add_under(under, D, b, top)
    add_under(under, D, b, f1)
    played[b] = np.uint64(np.int64(played[b]) | (np.int64(1) << f0) | (np.int64(1) << f1))
    return f0


@shared_inline
def apply_phase(hands, ncards, under, played, b, seat, mv, top, active, D, pair_any):
    """The move is made (T1, T2, V4): the card goes on the discard pile; a 9 asks for a suit (T3).

    Returns
    -------
    tuple
        ``(phase, top, active suit)``: ``PH_DECLARE`` after a 9, else ``PH_FINISH``.
    """
    if mv < 0:
        return PH_FINISH, top, active
    if pair_any and mv == PAIR:
        return PH_DECLARE, play_pair(hands, ncards, under, played, b, seat, top, D), active
    remove_from_hand(hands, ncards, D, b, seat, mv)
    add_under(under, D, b, top)
    played[b] = np.uint64(np.int64(played[b]) | (np.int64(1) << mv))
    return (PH_DECLARE if (I_NINES >> mv) & 1 else PH_FINISH), mv, face_suit(mv)


def _powers_phase(trace: bool):  # noqa: ANN202 - returns the function to compile
    def powers_phase(st, keys, hands, ncards, under, stock, next_tab, b, seat, mv, passed, streak, turn, dirbit, row,
                     mask, n_in, P, cap, noplay_block, skiprev, pair_any, D, work):  # fmt: skip
        """The turn ends: going out (O1), a block (T7) or the turn cap (T8) end the hand; else the card's power
        (V1: J skips, Q reverses, A makes the next seat draw two; V4's pair skips) and the next seat.

        Returns
        -------
        tuple
            ``(phase, seat, turn, streak, dirbit, row)``: ``PH_TURN``, or ``PH_END`` with ``S_OUTCOME`` set.
        """
        draw_one = draw_card_trace if trace else draw_card  # a constant: one of them is compiled in
        out = RUNNING
        skip = False
        reverse = False
        ace = False
        if mv >= 0:
            alive = ncards[b, seat] != 0
            if not alive:
                out = seat
            if pair_any and mv == PAIR:
                skip = alive
            elif alive and skiprev:
                r = face_rank(mv)
                skip = r == RANK_JACK
                reverse = r == RANK_QUEEN
                ace = r == RANK_ACE
        if noplay_block:
            streak = 0 if mv >= 0 else streak + 1
        else:
            streak = streak + 1 if passed else 0
        turn += 1
        if out == RUNNING and streak >= n_in:
            out = BLOCKED
        if out == RUNNING and turn >= cap:
            out = CAPPED
        if reverse:
            dirbit ^= 1
            row = (mask * 2 + dirbit) * P
            if n_in == 2:
                skip = True
        nxt = next_tab[row + seat]
        if out == RUNNING:
            if skip:
                if trace:
                    log_event(work[8], work[9], b, np.int64(EV_SKIP), nxt, NIL, NIL)
                nxt = next_tab[row + nxt]
            elif ace:
                # the form without the trace ignores the kind: the turn's draw's, so that numba compiles draw_card
                # for one constant, not for each
                kind = np.int64(EV_PENALTY_DRAW if trace else EV_DRAW)
                for _ in range(2):
                    if draw_one(st, keys, hands, ncards, under, stock, D, b, nxt, kind, work) >= 0:
                        log_drew(st, b, nxt)
                if trace:
                    log_event(work[8], work[9], b, np.int64(EV_SKIP), nxt, NIL, NIL)
                nxt = next_tab[row + nxt]
            return PH_TURN, nxt, turn, streak, dirbit, row
        st[b, S_OUTCOME] = out
        return PH_END, nxt, turn, streak, dirbit, row

    return powers_phase


powers_phase, powers_phase_trace = traced_forms(_powers_phase)

# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
