"""Decisions in the compiled turn loop: which card to play, whether to play the drawn card, which suit to declare.

A heuristic seat is decided in line (:func:`heuristic_phase`); any other decision goes through
:func:`decide_phase`: a Python seat makes the slot wait for Python's answer, a compiled built-in answers here
(:func:`builtin_decide`), a compiled user strategy is called out of the loop's line (:func:`user_decide`) and its
answer checked against the rules (:func:`answer_ok`).  The loop passes every array a decision reads (nothing
here allocates): per-suit figures go to the scratch row ``fw``.  Every function here is compiled into the turn
loop (:mod:`nines_sim.engine.turn_loop`), inlined or called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.bits import I_NINES, decision_stream, out_of_line, popcount, shared_inline
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.draw_log import log_declared
from nines_sim.engine.loop_constants import (
    DONE,
    G_ACTIVE,
    G_CARD,
    G_DEALER,
    G_DECKS,
    G_DIRECTION,
    G_IN_HAND,
    G_KEY,
    G_LEGAL,
    G_NINE_PENALTY,
    G_PAIR_LEGAL,
    G_PLAYED,
    G_PLAYERS,
    G_SEAT,
    G_STOCK,
    G_TOP,
    G_TURN,
    GO,
    ILLEGAL,
    PH_APPLY,
    PH_DECLARE,
    PH_FINISH,
    PH_PLAY,
    PH_PLAY_DRAWN,
    PH_TURN,
    R_DECKS,
    R_LOG,
    R_NINE_PEN,
    R_NNO,
    R_P,
)
from nines_sim.engine.slots import S_ANSWER, S_DEALER, S_END, S_HAVE_ANS, S_POS, S_WAIT_KIND, S_WAIT_SEAT, S_WAITING
from nines_sim.game.codes import K_DEALER_DECLARE, K_DECLARE, K_PLAY, K_PLAY_DRAWN, SID_PYTHON, SID_USER
from nines_sim.game.codes import PAIR_OF_NINES as PAIR
from nines_sim.strategy.compiled_builtins import given

# The compiled built-ins' decisions, as registered (:mod:`nines_sim.strategy.compiled_builtins`): numba reads
# them as this module's globals, compiled into the loop like any function it calls.
_GIVEN = given()
#: The light built-ins' play and declaration (the heuristics), decided in line.
light_play = _GIVEN.light_play
light_declare = _GIVEN.light_declare
#: The first and last kernel id of the light built-ins.
LIGHT_FIRST, LIGHT_LAST = _GIVEN.light_ids
#: The heavy built-in's decision (``expert``), called or inlined, and its kernel id.
heavy_decide = _GIVEN.heavy_decide
heavy_decide_inline = _GIVEN.heavy_decide_inline
SID_HEAVY = _GIVEN.heavy_id


@shared_inline
def builtin_decide(
    sid, kind, b, seat, legal, card, pair_ok, dkey, turn, dirbit, hands, ncards, drew_on, played, rp, fw, xp, D
):  # fmt: skip
    """Decision of a compiled built-in strategy: a face / PAIR, a suit, or 0/1 for play_drawn.

    The turn loop decides the light built-ins' plays and declarations itself (:data:`light_play`,
    :data:`light_declare`) and asks here for the heavy built-in's decisions (:data:`heavy_decide`, ``expert``'s,
    called out of line: the forms with its code inlined decide for it in :func:`decide_phase`) and every dealer's
    declaration (D6).  ``xp``: float64 (MAX_SEATS, n), each seat's parameters of the heavy built-in; ``fw``:
    float64 scratch of ``FW_WIDTH`` (:mod:`~nines_sim.engine.loop_constants`); ``D``: decks.
    """
    h0 = np.int64(hands[0, b, seat])
    h1 = np.int64(hands[1, b, seat]) if D == 2 else np.int64(0)
    if sid == SID_HEAVY:
        return heavy_decide_apart(
            (kind, seat, legal, card, dkey, turn, dirbit, h0, h1, np.int64(played[b]), ncards[b], drew_on[b],
             rp[R_P], fw, xp[seat]),
        )  # fmt: skip
    if kind == K_PLAY_DRAWN:
        return 1  # the heuristics play what they drew
    if kind == K_DECLARE or kind == K_DEALER_DECLARE:
        return light_declare(sid, h0, h1, decision_stream(dkey, turn, kind, 1))
    return light_play(sid, h0, h1, legal, pair_ok, decision_stream(dkey, turn, kind, 0))


@shared_inline
def pair_legal(top, active, hands, ncards, rp, legal_tab, b, seat, D, pair_any):
    """Whether two 9s together are a legal move (V4, V5)."""
    if not pair_any:
        return False
    n9 = popcount(np.int64(hands[0, b, seat]) & I_NINES)
    if D == 2:
        n9 += popcount(np.int64(hands[1, b, seat]) & I_NINES)
    if n9 < 2:
        return False
    if (np.int64(legal_tab[top * 4 + active]) & I_NINES) == 0:
        return False
    if rp[R_NNO] != 0 and ncards[b, seat] <= 2:
        return False
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def user_decide(
    fs, kind, g, hb, st, hands, ncards, totals, drew_on, played, rp, b, who, legal, pok, top, active, dirbit, turn,
    mask, card, dkey,
):  # fmt: skip
    """A compiled user strategy's answer (out of the turn loop's line: the call's set-up crowds its registers)."""
    fill_view(g, hb, st, hands, played, rp, b, who, legal, pok, top, active, dirbit, turn, mask, card, dkey)
    return fs[who](kind, g, hb, ncards[b], totals[b], drew_on[b])


#: :func:`user_decide` and the heavy built-in's decision, called out of the turn loop's line (their set-up crowds its
#: registers; :func:`~nines_sim.engine.bits.out_of_line`).
user_decide_apart = out_of_line(user_decide)
heavy_decide_apart = out_of_line(heavy_decide)


@shared_inline
def answer_ok(kind, ans, legal, pok):
    """Whether a compiled user strategy's answer is within the rules: a legal card or the pair (T1, T2, V4, V5,
    V6), 0 or 1 for playing the drawn card, a suit 0-3 for a declaration."""
    if kind == K_PLAY:
        return (ans >= 0 and ans < 52 and ((legal >> ans) & 1) == 1) or (ans == PAIR and pok)
    if kind == K_PLAY_DRAWN:
        return ans == 0 or ans == 1
    return ans >= 0 and ans <= 3


@njit(cache=True, error_model="numpy", _nrt=False)
def fill_view(g, hb, st, hands, played, rp, b, seat, legal, pok, top, active, dirbit, turn, mask, card, dkey):
    """What a compiled user strategy sees of game ``b`` (the ``G_*`` fields, and its own hand in ``hb``)."""
    g[G_SEAT] = seat
    g[G_LEGAL] = legal
    g[G_PAIR_LEGAL] = pok
    g[G_TOP] = top
    g[G_ACTIVE] = active
    g[G_STOCK] = st[b, S_END] - st[b, S_POS]
    g[G_DEALER] = st[b, S_DEALER]
    g[G_DIRECTION] = 1 - 2 * dirbit
    g[G_PLAYED] = np.int64(played[b])
    g[G_CARD] = card
    g[G_PLAYERS] = rp[R_P]
    g[G_NINE_PENALTY] = rp[R_NINE_PEN]
    g[G_TURN] = turn
    g[G_KEY] = np.int64(dkey)
    g[G_IN_HAND] = mask
    g[G_DECKS] = rp[R_DECKS]
    hb[0] = hands[0, b, seat]
    hb[1] = hands[1, b, seat] if rp[R_DECKS] == 2 else np.uint64(0)


@shared_inline
def heuristic_phase(ph, hands, ncards, rp, legal_tab, b, seat, sid, top, active, legal, card, mv, dkey, turn, D,
                    pair_any, st):  # fmt: skip
    """A light built-in's play, drawn card or declaration (the heuristics: :data:`light_play`, :data:`light_declare`).

    The heuristics need only the hand and the legal set, and always play a drawn card: decided here, they
    stay clear of the general decision block (:func:`decide_phase`), whose register pressure they would pay.

    Returns
    -------
    tuple
        ``(phase, move, active suit)``.
    """
    h0 = np.int64(hands[0, b, seat])
    h1 = np.int64(hands[1, b, seat]) if D == 2 else np.int64(0)
    if ph == PH_PLAY:
        pok = pair_legal(top, active, hands, ncards, rp, legal_tab, b, seat, D, pair_any)
        return PH_APPLY, light_play(sid, h0, h1, legal, pok, decision_stream(dkey, turn, K_PLAY, 0)), active
    if ph == PH_PLAY_DRAWN:
        return PH_APPLY, card, active
    suit = light_declare(sid, h0, h1, decision_stream(dkey, turn, K_DECLARE, 1))
    if rp[R_LOG]:
        log_declared(st, b, seat, suit, turn)
    return PH_FINISH, mv, suit


def _decide_phase(expert: bool):  # noqa: ANN202 - returns a numba dispatcher
    """:func:`decide_phase` for the forms of the loop without (``expert`` False) or with ``expert``'s code
    inlined here (by LLVM: :func:`~nines_sim.engine.bits.shared_inline`).  A closure's constant, unlike an
    argument, is pruned before numba types what its branches call: the form without ``expert`` never compiles
    ``expert``'s inlined code."""

    def decide_phase(st, hands, ncards, totals, drew_on, played, rp, legal_tab, seat_sid, seat_xp, fs, g, hb, fw, b, ph,
                     seat, top, active, legal, card, mv, dkey, turn, dirbit, mask, D, pair_any):  # fmt: skip
        """A decision: a card to play (T1, T2), whether to play the drawn card (T4), a suit (T3; the dealer's, D6).

        A Python seat's decision makes the slot wait (``S_WAITING``) until Python answers (``S_HAVE_ANS``); a
        compiled seat decides here.

        Returns
        -------
        tuple
            ``(phase, move, active suit, code)``: ``code`` is ``GO``, ``DONE`` (the slot waits) or ``ILLEGAL``
            (a compiled user strategy answered outside the rules).
        """
        play = ph == PH_PLAY or ph == PH_PLAY_DRAWN
        if ph == PH_PLAY:
            kind = K_PLAY
        elif ph == PH_PLAY_DRAWN:
            kind = K_PLAY_DRAWN
        elif ph == PH_DECLARE:
            kind = K_DECLARE
        else:
            kind = K_DEALER_DECLARE
        who = st[b, S_DEALER] if kind == K_DEALER_DECLARE else seat
        dl = legal if play else 0
        dc = card if play else 0
        sid = seat_sid[who]
        if sid == SID_PYTHON:
            if st[b, S_HAVE_ANS] == 0:
                st[b, S_WAITING] = 1
                st[b, S_WAIT_KIND] = kind
                st[b, S_WAIT_SEAT] = who
                return ph, mv, active, DONE
            st[b, S_HAVE_ANS] = 0
            ans = st[b, S_ANSWER]
        else:
            pok = kind == K_PLAY and pair_legal(top, active, hands, ncards, rp, legal_tab, b, who, D, pair_any)
            if sid == SID_USER:
                ans = user_decide_apart(
                    (fs, kind, g, hb, st, hands, ncards, totals, drew_on, played, rp, b, who, dl, pok, top, active,
                     dirbit, turn, mask, dc, dkey),
                )  # fmt: skip
                if not answer_ok(kind, ans, legal, pok):
                    st[b, S_WAIT_KIND] = kind
                    st[b, S_WAIT_SEAT] = who
                    st[b, S_ANSWER] = ans
                    st[b, S_WAITING] = 2  # marks the slot for the error message
                    return ph, mv, active, ILLEGAL
            elif expert and sid == SID_HEAVY:
                h0 = np.int64(hands[0, b, who])
                h1 = np.int64(hands[1, b, who]) if D == 2 else np.int64(0)
                ans = heavy_decide_inline(
                    kind, who, dl, dc, dkey, turn, dirbit, h0, h1, np.int64(played[b]), ncards[b], drew_on[b], rp[R_P],
                    fw, seat_xp[who],
                )  # fmt: skip
            else:
                ans = builtin_decide(
                    sid, kind, b, who, dl, dc, pok, dkey, turn, dirbit, hands, ncards, drew_on, played, rp, fw, seat_xp,
                    D,
                )  # fmt: skip
        if kind == K_PLAY:
            return PH_APPLY, ans, active, GO
        if kind == K_PLAY_DRAWN:
            return PH_APPLY, (card if ans != 0 else np.int64(-1)), active, GO
        if rp[R_LOG]:
            log_declared(st, b, who, ans, turn)
        if kind == K_DEALER_DECLARE:
            return PH_TURN, mv, ans, GO
        return PH_FINISH, mv, ans, GO

    decide_phase.__qualname__ = decide_phase.__name__ = "decide_phase" + ("_expert" if expert else "")
    return shared_inline(decide_phase)


#: The decision phase of the forms of the loop without ``expert`` inlined (:func:`_decide_phase`).
decide_phase = _decide_phase(False)
#: The decision phase of the forms with ``expert``'s code inlined.
decide_phase_expert = _decide_phase(True)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
